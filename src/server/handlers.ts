/**
 * The RPC handlers: each decodes its wire request into domain values, calls the service, encodes the answer and
 * adds what the log line should say. Map RPCs go to the store, Plan to the plan service, Curve to the geometry
 * core, Stream to the stream hub.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type { Logger } from "pino";
import { invalid, ServiceError } from "../service/errors.ts";
import { ChunkAssembler } from "../service/mapChunks.ts";
import { prepareVersion } from "../service/mapPrepare.ts";
import { jumpTablesAtUpload } from "../service/mapJumps.ts";
import type { MapStore, MapVersion } from "../service/mapStore.ts";
import type { PlanService } from "../service/planService.ts";
import type { PlanRequest, StreamMessage } from "../service/requests.ts";
import {
  OPEN_PRINCIPAL,
  type Principal,
  readKey,
  scopePlan,
  visibleKeys,
  writeKey,
} from "../service/tenancy.ts";
import type { PathStream } from "../service/pathStream.ts";
import { StreamHub, type StreamOptions } from "../service/streamHub.ts";
import { shortestCurve } from "../service/curve.ts";
import { clearanceClass } from "../maps/layer.ts";
import {
  decodeChunkHeader,
  decodeCurve,
  decodeFleetMessage,
  decodePatchMap,
  decodePlanManyRequest,
  decodePlanRequest,
  decodePutMap,
  decodeStreamMessage,
  decodeTileChunk,
  type WireCurveRequest,
  type WireFleetRequest,
  type WireMapRef,
  type WirePatchMapRequest,
  type WirePlanManyRequest,
  type WirePlanRequest,
  type WirePutMapChunk,
  type WirePutMapRequest,
  type WireStreamRequest,
} from "./decode.ts";
import { curveToWire, fleetUpdateToWire, mapInfoToWire, planResultToWire, updateToWire } from "./wire.ts";
import { FleetSession } from "../service/fleetSession.ts";
import { backpressure } from "./backpressure.ts";
import type { Quotas } from "../service/quotas.ts";
import { checkDemoWrite } from "../service/demoMaps.ts";
import { mapTilesToWire, type WireTileWindow } from "./mapTiles.ts";
import type { StreamWatch } from "./streamWatch.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Longest error message of one PlanMany result (as a status message would be cut). */
const MAX_ITEM_MESSAGE = 1024;

/** gRPC status numbers of the service's error codes (a PlanMany result carries the number, not a status). */
const GRPC_CODE: Record<ServiceError["code"], number> = {
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  PERMISSION_DENIED: 7,
  UNAUTHENTICATED: 16,
};

function grpcCode(code: ServiceError["code"]): number {
  return GRPC_CODE[code] ?? 13;
}

/** Limits of the batch RPCs. */
export interface BatchLimits {
  /** Most requests in one PlanMany (more: RESOURCE_EXHAUSTED). */
  maxPlanMany: number;
  /** Most units in one Fleet (more: RESOURCE_EXHAUSTED for the unit that would exceed it). */
  maxFleetUnits: number;
  /** Late Fleet units given detours per round (absent: the service's default; 0: none). */
  fleetDetours?: number;
  /** Budget of a Fleet batch's detour pass, ms of the server thread's CPU time (absent: the service's default). */
  fleetDetourMs?: number;
}

/** The default batch limits. */
export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxPlanMany: 10_000, maxFleetUnits: 1000 };

/** The application: what each RPC does. */
export class Arcpath {
  readonly store: MapStore;
  readonly planner: PlanService;
  readonly streams: StreamHub;
  readonly batch: BatchLimits;
  /** Open streams as the live viewer sees them (set by main.ts only when the HTTP viewer is on). */
  watch: StreamWatch | null = null;
  /** Per-tenant quotas (set by main.ts only with --quotas). */
  quotas: Quotas | null = null;
  /** Clients may overwrite, patch and delete the built-in demo maps (--writable-demo-maps). */
  demoMapsWritable = false;
  /** How each open Fleet call ends (a drain ends them all). */
  readonly #fleetEnds = new Set<(err?: ServiceError) => void>();

  /** Creates the handlers over the store and the plan service. */
  constructor(
    store: MapStore,
    planner: PlanService,
    streamOptions: StreamOptions = { maxStreams: 2000 },
    batch: BatchLimits = DEFAULT_BATCH_LIMITS,
  ) {
    this.store = store;
    this.planner = planner;
    this.streams = new StreamHub(planner, store, streamOptions);
    this.batch = batch;
  }

  /** MapInfo for a version (a big map's region counts once its background build is done: `preparing`). */
  info(mv: MapVersion) {
    const entry = [...mv.layers.values()][0];
    const cls = clearanceClass(0);
    const preparing = this.store.preparing(mv);
    const regions = entry.regions.get(cls) ?? (preparing ? null : this.store.regionsFor(mv, entry, cls));
    return mapInfoToWire(mv, regions, preparing);
  }

  /**
   * Ends every open Fleet call with UNAVAILABLE telling the client to open it again (the SIGTERM drain; through
   * the balancer another replica takes it).
   */
  drainFleets(): void {
    const err = new ServiceError(
      "UNAVAILABLE",
      "server is shutting down: open the fleet again (another replica will take it)",
    );
    for (const end of [...this.#fleetEnds]) end(err);
  }

  /** PutMap. */
  async putMap(req: WirePutMapRequest, fields: Record<string, unknown>, p: Principal = OPEN_PRINCIPAL) {
    const put = decodePutMap(req);
    const key = writeKey(this.store, p, put.id, "id", "PutMap");
    checkDemoWrite(this.store, key, "id", "PutMap", this.demoMapsWritable);
    const map = this.store.parse(put.grid, put.terrain);
    this.quotas?.checkPut(p.tenant, key, map.width * map.height);
    const mv = await this.store.put(key, map, put.terrain, { ephemeral: put.ephemeral });
    fields.version = mv.version;
    jumpTablesAtUpload(this.store, this.planner.pool, mv); // big maps: in the background (service/mapJumps.ts)
    if (put.prepare) await this.#prepare(mv, fields);
    return this.info(mv);
  }

  /**
   * PutMapChunks: a header, then rectangles of tiles; the assembled map is put exactly as PutMap puts one (same
   * version, same persistence), so nothing is visible until the whole map is stored.
   */
  async putMapChunks(
    stream: AsyncIterable<WirePutMapChunk>,
    signal: AbortSignal,
    fields: Record<string, unknown>,
    p: Principal = OPEN_PRINCIPAL,
  ) {
    let assembler: ChunkAssembler | null = null;
    let key = "";
    let map;
    try {
      for await (const msg of stream) {
        if (signal.aborted) throw signal.reason;
        if (!assembler) {
          const header = decodeChunkHeader(msg);
          fields.map = header.id;
          key = writeKey(this.store, p, header.id, "header.id", "PutMap");
          assembler = new ChunkAssembler(header, this.store.limits);
        } else assembler.add(decodeTileChunk(msg, assembler.chunks));
      }
      if (!assembler) throw invalid("header", "no messages", "PutMapChunks needs a header and chunks");
      map = assembler.finish();
    } finally {
      // However the stream ended, its tiles leave the in-flight bound (the map itself lives on if put).
      assembler?.release();
    }
    const { terrain, ephemeral, prepare } = assembler.header;
    this.quotas?.checkPut(p.tenant, key, map.width * map.height);
    fields.chunks = assembler.chunks;
    const mv = await this.store.put(key, map, terrain, { ephemeral });
    fields.version = mv.version;
    jumpTablesAtUpload(this.store, this.planner.pool, mv); // big maps: in the background (service/mapJumps.ts)
    if (prepare) await this.#prepare(mv, fields);
    return this.info(mv);
  }

  /** The `prepare` option of an upload: the workers build the version's tables; the log line says what it cost. */
  async #prepare(mv: MapVersion, fields: Record<string, unknown>): Promise<void> {
    const { millis, bytes } = await prepareVersion(this.store, this.planner.pool, mv);
    fields.prepare_ms = millis;
    fields.prepare_bytes = bytes;
  }

  /** PatchMap: tile edits make a new version; layers and region tables are updated incrementally. */
  async patchMap(req: WirePatchMapRequest, fields: Record<string, unknown>, p: Principal = OPEN_PRINCIPAL) {
    const patch = decodePatchMap(req);
    const key = writeKey(this.store, p, patch.map.id, "map.id", "PatchMap");
    checkDemoWrite(this.store, key, "map.id", "PatchMap", this.demoMapsWritable, patch.map.version);
    const ev = await this.store.patch(key, patch.map.version, patch.edits);
    fields.version = ev.to.version;
    fields.update_micros = ev.updateMicros;
    return this.info(ev.to);
  }

  /** GetMap. */
  async getMap(
    req: { map?: WireMapRef | null; include_tiles?: boolean; window?: WireTileWindow | null },
    p: Principal = OPEN_PRINCIPAL,
  ) {
    const mv = await this.store.get(readKey(this.store, p, req.map?.id ?? ""), req.map?.version ?? "");
    return req.include_tiles ? { ...this.info(mv), ...mapTilesToWire(mv.map, req.window) } : this.info(mv);
  }

  /** ListMaps (a map deleted or dropped while the list is built is left out, not an error). */
  async listMaps(p: Principal = OPEN_PRINCIPAL) {
    const maps = [];
    for (const id of visibleKeys(this.store, p)) {
      try {
        maps.push(this.info(await this.store.get(id, "")));
      } catch (e) {
        if (!(e instanceof ServiceError && e.code === "NOT_FOUND")) throw e;
      }
    }
    return { maps };
  }

  /** DeleteMap. */
  async deleteMap(req: { map?: WireMapRef | null }, p: Principal = OPEN_PRINCIPAL) {
    const key = writeKey(this.store, p, req.map?.id ?? "", "map.id", "DeleteMap");
    checkDemoWrite(this.store, key, "map.id", "DeleteMap", this.demoMapsWritable);
    return { deleted: await this.store.delete(key) };
  }

  /** Plan. */
  async plan(
    req: WirePlanRequest,
    signal: AbortSignal,
    fields: Record<string, unknown>,
    p: Principal = OPEN_PRINCIPAL,
  ) {
    const t0 = performance.now();
    const decoded = scopePlan(this.store, p, decodePlanRequest(req, this.planner.testHooks));
    this.quotas?.takePlans(p.tenant, 1);
    const r = await this.planner.plan(decoded, signal);
    fields.planner = r.outcome.planner;
    fields.plan_status = r.outcome.status;
    fields.expansions = r.outcome.expansions;
    fields.search_micros = r.outcome.searchMicros;
    // Planner notes (e.g. which directional tables were loaded or built, and how long that took) go in the log too.
    if (r.outcome.message) fields.note = r.outcome.message;
    return planResultToWire(r, Math.round((performance.now() - t0) * 1000));
  }

  /** PlanMany: the batch decoded once, planned in parallel, one result (or its own error) per request, in order. */
  async planMany(
    req: WirePlanManyRequest,
    signal: AbortSignal,
    fields: Record<string, unknown>,
    p: Principal = OPEN_PRINCIPAL,
  ) {
    const t0 = performance.now();
    const decoded = decodePlanManyRequest(req, this.batch.maxPlanMany, this.planner.testHooks)
      .map((d, i) => {
        if (d instanceof ServiceError) return d;
        try {
          return scopePlan(this.store, p, d, `requests[${i}].map.id`);
        } catch (e) {
          if (e instanceof ServiceError) return e;
          throw e;
        }
      });
    const valid = decoded.filter((d): d is PlanRequest => !(d instanceof ServiceError));
    this.quotas?.takePlans(p.tenant, valid.length);
    const planned = await this.planner.planMany(valid, signal);
    let k = 0;
    let failed = 0;
    const results = decoded.map((d, i) => {
      const r = d instanceof ServiceError ? d : planned[k++];
      if (!(r instanceof ServiceError)) return { code: 0, error: "", response: planResultToWire(r, 0) };
      failed++;
      // Decode errors are already labelled requests[i]; the service's are labelled here.
      const message = d instanceof ServiceError ? r.message : `requests[${i}].${r.message}`;
      return { code: grpcCode(r.code), error: message.slice(0, MAX_ITEM_MESSAGE), response: null };
    });
    fields.requests = decoded.length;
    fields.failed = failed;
    return { results, total_micros: Math.round((performance.now() - t0) * 1000) };
  }

  /** A stream message with its plan's map id made the principal's key (a bad id becomes a bad plan). */
  #scopeMessage(m: StreamMessage, p: Principal): StreamMessage {
    if (m.kind !== "plan") return m;
    try {
      return { kind: "plan", request: scopePlan(this.store, p, m.request) };
    } catch (e) {
      return { kind: "badPlan", error: e as Error };
    }
  }

  /** Curve: Dubins, Reeds-Shepp, or the article's arc-then-line. */
  curve(req: WireCurveRequest) {
    return Promise.resolve(curveToWire(shortestCurve(decodeCurve(req))));
  }

  /** Stream: feeds decoded client messages to a PathStream and writes its updates; one log line when it ends. */
  stream(
    call: grpc.ServerDuplexStream<Any, Any>,
    log: Logger,
    toGrpcError: (e: unknown) => grpc.ServiceError,
    p: Principal = OPEN_PRINCIPAL,
  ): void {
    const t0 = performance.now();
    let updates = 0;
    let ended = false;
    const watch = this.watch, watchId = watch?.opened(p.tenant) ?? 0;
    let release = () => {};
    const finish = (err?: ServiceError) => {
      if (ended) return;
      ended = true;
      release();
      watch?.closed(watchId);
      const micros = Math.round((performance.now() - t0) * 1000);
      if (err) {
        log.info({ method: "Stream", status: err.code, error: err.message, updates, micros });
        call.emit("error", toGrpcError(err));
      } else {
        log.info({ method: "Stream", status: "OK", updates, micros });
        call.end();
      }
    };
    let stream: PathStream;
    const bp = backpressure(call);
    try {
      if (this.quotas) release = this.quotas.openStream(p.tenant);
      // A client that does not read (server/backpressure.ts): the stream holds and coalesces its updates until
      // it reads again, or drops it after --stream-stall-ms (service/pathStream.ts).
      stream = this.streams.open((u) => {
        if (ended) return true;
        updates++;
        const ok = call.write(updateToWire(u));
        watch?.updated(watchId, u);
        if (ok && !bp.blocked()) return true;
        bp.whenReading(() => stream.onDrain());
        return false;
      }, (err) => {
        bp.stop();
        finish(err);
      });
    } catch (e) {
      finish(e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e)));
      return;
    }
    call.on("data", (m: WireStreamRequest) => {
      stream.onMessage(this.#scopeMessage(decodeStreamMessage(m), p));
    });
    call.on("end", () => stream.onClientEnd());
    call.on("cancelled", () => stream.close());
    call.on("error", () => stream.close());
  }

  /**
   * Fleet: the first message opens the fleet on a map (an update with the map version answers it); later
   * messages go to the session in order; a bad one is answered with an error update and the fleet keeps running.
   */
  fleet(
    call: grpc.ServerDuplexStream<Any, Any>,
    log: Logger,
    toGrpcError: (e: unknown) => grpc.ServiceError,
    mapKey: (id: string) => string = (id) => id,
    tenant = OPEN_PRINCIPAL.tenant,
  ): void {
    const t0 = performance.now();
    let updates = 0;
    let ended = false;
    let session: FleetSession | null = null;
    let opening: Promise<void> | null = null;
    let watchId = 0; // the live viewer's id of this fleet (0: not watched)
    let release = () => {};
    const finish = (err?: ServiceError) => {
      if (ended) return;
      ended = true;
      release();
      if (watchId) this.watch?.closed(watchId);
      this.#fleetEnds.delete(finish);
      session?.close();
      const micros = Math.round((performance.now() - t0) * 1000);
      if (err) {
        log.info({ method: "Fleet", status: err.code, error: err.message, updates, micros });
        call.emit("error", toGrpcError(err));
      } else {
        log.info({ method: "Fleet", status: "OK", updates, micros });
        call.end();
      }
    };
    this.#fleetEnds.add(finish);
    const send = (u: Parameters<typeof fleetUpdateToWire>[0], version = "") => {
      if (ended) return;
      updates++;
      call.write(fleetUpdateToWire(u, version));
      if (watchId) this.watch?.fleetUpdated(watchId, u.trajectories);
    };
    const asError = (e: unknown) => e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e));
    call.on("data", (m: WireFleetRequest) => {
      if (ended) return;
      const msg = decodeFleetMessage(m);
      if (!opening) {
        if (msg.kind !== "open") {
          finish(new ServiceError("INVALID_ARGUMENT", "open: the first Fleet message must be open"));
          return;
        }
        const quotas = this.quotas;
        const s = new FleetSession(this.planner, this.store, (u) => send(u), {
          maxUnits: this.batch.maxFleetUnits,
          detourUnits: this.batch.fleetDetours,
          detourMs: this.batch.fleetDetourMs,
          admitUnit: quotas ? () => quotas.admitUnit(tenant) : undefined,
        });
        if (quotas) {
          try {
            const close = quotas.openStream(tenant);
            const drop = quotas.addFleet(tenant, s);
            release = () => (close(), drop());
          } catch (e) {
            finish(asError(e));
            return;
          }
        }
        opening = Promise.resolve().then(() =>
          s.open({ ...msg.map, id: mapKey(msg.map.id) }, msg.brakingEnvelopes === true)
        ).then(() => {
          session = s;
          if (this.watch) watchId = this.watch.fleetOpened(s.mapVersion!.id);
          send(
            { trajectories: [], errors: [], synced: false, syncedTime: 0, time: 0, micros: 0 },
            s.mapVersion!.version,
          );
        }, (e) => finish(asError(e)));
        return;
      }
      if (msg.kind === "open") {
        const err = new ServiceError("INVALID_ARGUMENT", "open: the fleet is already open");
        opening.then(() => session?.onMessage({ kind: "invalid", id: "", error: err }));
        return;
      }
      opening.then(() => session?.onMessage(msg)).catch((e) => finish(asError(e)));
    });
    call.on("end", () => {
      // Answer what was sent, then end cleanly.
      (opening ?? Promise.resolve()).then(() => session?.drained()).then(
        () => finish(),
        (e) => finish(asError(e)),
      );
    });
    call.on("cancelled", () => finish());
    call.on("error", () => finish());
  }
}
