/**
 * The live viewer's HTTP side (`--http HOST:PORT`, off by default): the page (viewer/index.html, viewer.js)
 * and a small JSON API that calls the same handlers (Arcpath) as gRPC, so decoding, tenancy, limits and errors
 * are the gRPC ones:
 *
 *     GET  /api/maps                      ListMaps
 *     GET  /api/maps/ID?tiles=1[&version=V&x=&y=&width=&height=]   GetMap (with include_tiles and window)
 *     GET  /api/units                     the built-in unit profiles
 *     POST /api/plan                      Plan: body a PlanRequest in JSON (proto field names, enums as names);
 *                                         answers {response, drawing} (drawing: motion/pathDrawing.ts)
 *     GET  /api/streams                   Server-Sent Events: the caller's open gRPC streams, path by path
 *
 * With authentication on, every API call needs the same bearer token as gRPC (`Authorization: Bearer T`, or
 * `?access_token=T` where a browser cannot set headers: EventSource) and sees only its tenant's maps and
 * streams. Errors answer {code, message} with an HTTP status matching the gRPC code.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { ServiceError } from "../service/errors.ts";
import { OPEN_PRINCIPAL, type Principal } from "../service/tenancy.ts";
import { pathDrawing } from "../motion/pathDrawing.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";
import type { Segment } from "../geometry/types.ts";
import type { Arcpath } from "./handlers.ts";
import type { Authenticator } from "./auth.ts";
import { loadPackageDefinition } from "./proto.ts";
import { unitToWire } from "./wire.ts";
import { StreamWatch } from "./streamWatch.ts";

/** HTTP status of each service error code. */
const HTTP_STATUS: Record<ServiceError["code"], number> = {
  INVALID_ARGUMENT: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  FAILED_PRECONDITION: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

/** Largest request body (a PlanRequest is small; maps are not uploaded here). */
const MAX_BODY = 1 << 20;

/** The static files of the page, read once. */
const ASSETS: Record<string, { type: string; file: string }> = {
  "/": { type: "text/html; charset=utf-8", file: "index.html" },
  "/viewer.js": { type: "text/javascript; charset=utf-8", file: "viewer.js" },
};

/** A wire segment (proto field names) back to the geometry type, for drawing. */
// deno-lint-ignore no-explicit-any
function segmentOf(w: any): Segment {
  return {
    start: { x: w.start.x, y: w.start.y, heading: w.start.heading },
    end: { x: w.end.x, y: w.end.y, heading: w.end.heading },
    length: w.length,
    curvature: w.curvature,
    direction: w.direction < 0 ? -1 : 1,
    touchesBlocked: !!w.touches_blocked,
    tightened: !!w.tightened,
  };
}

/** JSON with bytes as base64 (as proto3's JSON mapping writes them). */
function toJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) => x instanceof Uint8Array ? Buffer.from(x).toString("base64") : x);
}

/** Options of the HTTP viewer. */
export interface HttpOptions {
  /** Same authenticator as gRPC; absent, every call is the open principal. */
  authenticate?: Authenticator;
}

/** The viewer's HTTP server over the handlers. */
export class ViewerHttp {
  readonly #app: Arcpath;
  readonly #log: Logger;
  readonly #auth?: Authenticator;
  readonly #assets = new Map<string, { type: string; body: string }>();
  readonly #plan: { serialize: (v: unknown) => Buffer; deserialize: (b: Buffer) => unknown };
  readonly #sse = new Set<ServerResponse>();
  readonly #planners: Set<string>;
  #server: Server | null = null;

  /** Serves `app` (turns its stream watch on). */
  constructor(app: Arcpath, log: Logger, opts: HttpOptions = {}) {
    this.#app = app;
    this.#log = log;
    this.#auth = opts.authenticate;
    app.watch ??= new StreamWatch();
    for (const [path, a] of Object.entries(ASSETS)) {
      const body = readFileSync(new URL(`./viewer/${a.file}`, import.meta.url), "utf8");
      this.#assets.set(path, { type: a.type, body });
    }
    // A JSON PlanRequest goes through protobuf like a gRPC one, so the handler sees exactly what gRPC gives it.
    // deno-lint-ignore no-explicit-any
    const def = loadPackageDefinition() as any;
    const m = def["arcpath.v1.Pathfinder"].Plan;
    this.#plan = { serialize: m.requestSerialize, deserialize: m.requestDeserialize };
    this.#planners = new Set(def["arcpath.v1.Planner"].type.value.map((v: { name: string }) => v.name));
  }

  /** Listens on HOST:PORT (port 0: a free one); resolves with the port. */
  listen(address: string): Promise<number> {
    const m = /^(.*):(\d+)$/.exec(address);
    if (!m) return Promise.reject(new Error(`--http: expected HOST:PORT, got ${JSON.stringify(address)}`));
    const host = m[1].replace(/^\[|\]$/g, "");
    return new Promise((resolve, reject) => {
      const server = createServer((req, res) => this.#handle(req, res));
      server.once("error", reject);
      server.listen(Number(m[2]), host, () => {
        this.#server = server;
        const a = server.address();
        resolve(typeof a === "object" && a ? a.port : Number(m[2]));
      });
    });
  }

  /** Ends the event streams and stops listening. */
  close(): void {
    for (const res of this.#sse) res.end();
    this.#server?.close();
  }

  async #principal(req: IncomingMessage, url: URL): Promise<Principal> {
    if (!this.#auth) return OPEN_PRINCIPAL;
    const md = new grpc.Metadata();
    const q = url.searchParams.get("access_token");
    const header = req.headers.authorization ?? (q ? `Bearer ${q}` : undefined);
    if (header !== undefined) md.set("authorization", header);
    return await this.#auth(md);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const t0 = performance.now();
    const url = new URL(req.url ?? "/", "http://viewer");
    const asset = req.method === "GET" ? this.#assets.get(url.pathname) : undefined;
    if (asset) {
      res.writeHead(200, { "content-type": asset.type, "cache-control": "no-cache" });
      res.end(asset.body);
      return;
    }
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    const fields: Record<string, unknown> = { method: `HTTP ${req.method} ${url.pathname}` };
    try {
      const p = await this.#principal(req, url);
      if (this.#auth) fields.tenant = p.tenant;
      if (req.method === "GET" && url.pathname === "/api/streams") return this.#events(res, p);
      const body = await this.#route(req, url, p, res, fields);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(toJson(body));
      this.#log.info({ ...fields, status: "OK", micros: Math.round((performance.now() - t0) * 1000) });
    } catch (e) {
      const se = e instanceof ServiceError
        ? e
        : new ServiceError("INTERNAL", String((e as Error)?.message ?? e));
      if (!(e instanceof ServiceError)) {
        this.#log.error({ ...fields, stack: (e as Error)?.stack }, "http failed");
      } else this.#log.info({ ...fields, status: se.code, error: se.message });
      if (!res.headersSent) {
        res.writeHead(HTTP_STATUS[se.code] ?? 500, { "content-type": "application/json" });
      }
      res.end(toJson({ code: se.code, message: se.message }));
    }
  }

  async #route(
    req: IncomingMessage,
    url: URL,
    p: Principal,
    res: ServerResponse,
    fields: Record<string, unknown>,
  ): Promise<unknown> {
    const path = url.pathname;
    if (req.method === "GET" && path === "/api/maps") return await this.#app.listMaps(p);
    if (req.method === "GET" && path === "/api/units") {
      return { units: Object.values(BUILTIN_PROFILES).map(unitToWire) };
    }
    const mapMatch = /^\/api\/maps\/([^/]+)$/.exec(path);
    if (req.method === "GET" && mapMatch) {
      const q = url.searchParams;
      const int = (k: string) => {
        const v = q.get(k);
        if (v === null) return 0;
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0) {
          throw new ServiceError(
            "INVALID_ARGUMENT",
            `${k}: expected an integer >= 0, got ${JSON.stringify(v)}`,
          );
        }
        return n;
      };
      fields.map = decodeURIComponent(mapMatch[1]);
      return await this.#app.getMap({
        map: { id: fields.map as string, version: q.get("version") ?? "" },
        include_tiles: q.get("tiles") === "1" || q.get("tiles") === "true",
        window: { x: int("x"), y: int("y"), width: int("width"), height: int("height") },
      }, p);
    }
    if (req.method === "POST" && path === "/api/plan") {
      let json: unknown;
      const text = await readBody(req);
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new ServiceError("INVALID_ARGUMENT", `body: not JSON (${(e as Error).message})`);
      }
      // protobuf's fromObject would drop an unknown enum name silently: name the field instead.
      const planner = (json as { planner?: unknown })?.planner;
      if (typeof planner === "string" && !this.#planners.has(planner)) {
        throw new ServiceError(
          "INVALID_ARGUMENT",
          `planner: unknown planner ${JSON.stringify(planner.slice(0, 40))}; one of ${
            [...this.#planners].join(", ")
          }`,
        );
      }
      let wire: unknown;
      try {
        wire = this.#plan.deserialize(this.#plan.serialize(json));
      } catch (e) {
        throw new ServiceError("INVALID_ARGUMENT", `body: not a PlanRequest (${(e as Error).message})`);
      }
      const ac = new AbortController();
      res.on("close", () => {
        if (!res.writableEnded) ac.abort(new ServiceError("CANCELLED", "request cancelled by the client"));
      });
      // deno-lint-ignore no-explicit-any
      const response: any = await this.#app.plan(wire as any, ac.signal, fields, p);
      const footprint = {
        radius: response.unit.radius,
        width: response.unit.width,
        length: response.unit.length,
      };
      return { response, drawing: pathDrawing(response.segments.map(segmentOf), footprint) };
    }
    throw new ServiceError("NOT_FOUND", `${req.method} ${path}: no such API call (see GET /)`);
  }

  /** Server-Sent Events of the principal's open streams until the page goes away. */
  #events(res: ServerResponse, p: Principal): void {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.write(": arcpath streams\n\n");
    this.#sse.add(res);
    const off = this.#app.watch!.subscribe(p.tenant, (ev) => res.write(`data: ${toJson(ev)}\n\n`));
    // A comment every 15 s keeps proxies from closing an idle stream.
    const ping = setInterval(() => res.write(": ping\n\n"), 15_000);
    res.on("close", () => {
      off();
      clearInterval(ping);
      this.#sse.delete(res);
    });
  }
}

/** A request's body as text (at most MAX_BODY bytes, else RESOURCE_EXHAUSTED). */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        reject(new ServiceError("RESOURCE_EXHAUSTED", `body: more than ${MAX_BODY} bytes`));
        req.destroy();
      } else parts.push(b);
    });
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.on("error", reject);
  });
}
