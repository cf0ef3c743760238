/**
 * The gRPC server: handlers validate input, call the service layer, map errors to status codes and log one
 * JSON line per RPC. Health and reflection are served so generic gRPC tools can list, describe and call it.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { HealthImplementation } from "grpc-health-check";
import { ReflectionService } from "@grpc/reflection";
import { reflectionDefinition } from "./reflection.ts";
import type { Logger } from "pino";
import { loadPackageDefinition, loadPathfinder } from "./proto.ts";
import { ServiceError } from "../service/errors.ts";
import type { Arcpath } from "./handlers.ts";
import type { Authenticator } from "./auth.ts";
import { context, type Span, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
/** The tracer name of arcpath's spans (service/jobSpans.ts uses the same). */
const TRACER = "arcpath";
import { OPEN_PRINCIPAL, type Principal, readKey } from "../service/tenancy.ts";

const STATUS: Record<string, grpc.status> = {
  INVALID_ARGUMENT: grpc.status.INVALID_ARGUMENT,
  NOT_FOUND: grpc.status.NOT_FOUND,
  FAILED_PRECONDITION: grpc.status.FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED: grpc.status.RESOURCE_EXHAUSTED,
  DEADLINE_EXCEEDED: grpc.status.DEADLINE_EXCEEDED,
  CANCELLED: grpc.status.CANCELLED,
  UNIMPLEMENTED: grpc.status.UNIMPLEMENTED,
  UNAVAILABLE: grpc.status.UNAVAILABLE,
  INTERNAL: grpc.status.INTERNAL,
  UNAUTHENTICATED: grpc.status.UNAUTHENTICATED,
  PERMISSION_DENIED: grpc.status.PERMISSION_DENIED,
};

/**
 * Longest status message sent: messages echo at most a short prefix of a client's value (formatValue), and this
 * is the backstop for every other path (a huge message in the trailers made grpc-js clients hang).
 */
export const MAX_STATUS_MESSAGE = 1024;

/** Converts any thrown value to a gRPC error (unknown errors become INTERNAL, logged with their stack). */
export function toGrpcError(e: unknown): grpc.ServiceError {
  const full = e instanceof Error ? e.message : String(e);
  const message = full.length > MAX_STATUS_MESSAGE ? full.slice(0, MAX_STATUS_MESSAGE - 3) + "..." : full;
  const err = new Error(message) as grpc.ServiceError;
  err.code = e instanceof ServiceError ? STATUS[e.code] : grpc.status.INTERNAL;
  err.details = err.message;
  return err;
}

/** Per-connection limits (grpc-js server options; README, "Operations"). */
export interface ConnectionLimits {
  /** Most concurrent streams (calls) one HTTP/2 connection may open (SETTINGS_MAX_CONCURRENT_STREAMS). */
  maxConcurrentStreams: number;
  /** A connection with no call for this long is closed with a GOAWAY (0: never). */
  maxConnectionIdleMs: number;
  /** A connection is closed (GOAWAY, calls in flight get the grace period) after this long (0: never). */
  maxConnectionAgeMs: number;
  /** Grace for calls in flight on a connection closed for its age. */
  maxConnectionAgeGraceMs: number;
  /** The server pings a connection quiet for this long (0: never)... */
  keepaliveTimeMs: number;
  /** ...and closes it when the ping is not answered within this. */
  keepaliveTimeoutMs: number;
}

/** Defaults of {@link ConnectionLimits}: generous for real clients, bounded for abusive ones. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConcurrentStreams: 1000,
  maxConnectionIdleMs: 300_000,
  maxConnectionAgeMs: 0,
  maxConnectionAgeGraceMs: 30_000,
  keepaliveTimeMs: 60_000,
  keepaliveTimeoutMs: 20_000,
};

/** grpc-js server options for the limits (0 means "no limit": the option is left out). */
export function connectionOptions(l: ConnectionLimits): grpc.ServerOptions {
  const o: grpc.ServerOptions = { "grpc.max_concurrent_streams": l.maxConcurrentStreams };
  if (l.maxConnectionIdleMs > 0) o["grpc.max_connection_idle_ms"] = l.maxConnectionIdleMs;
  if (l.maxConnectionAgeMs > 0) {
    o["grpc.max_connection_age_ms"] = l.maxConnectionAgeMs;
    o["grpc.max_connection_age_grace_ms"] = l.maxConnectionAgeGraceMs;
  }
  if (l.keepaliveTimeMs > 0) {
    o["grpc.keepalive_time_ms"] = l.keepaliveTimeMs;
    o["grpc.keepalive_timeout_ms"] = l.keepaliveTimeoutMs;
  }
  return o;
}

/**
 * The default cap on open connections for a process whose soft file-descriptor limit is `fdLimit`: half of what
 * is left after a reserve of 128 (files, workers, the runtime), at least 16. Measured here: at a 256 limit a cap
 * of 60 kept the listener alive through 400 idle connections and 96 did not; at 1,024, 400 did through 1,100.
 */
export function defaultMaxConnections(fdLimit: number): number {
  return Math.max(16, Math.floor((fdLimit - 128) / 2));
}

/** Options of the server. */
export interface ServerOptions {
  /** Max message size in bytes, both ways. */
  maxMessageBytes: number;
  /** Per-connection limits (absent: {@link DEFAULT_CONNECTION_LIMITS}). */
  connections?: ConnectionLimits;
  /** Authenticates each call (UNAUTHENTICATED otherwise); absent, every call is the open principal. */
  authenticate?: Authenticator;
  /** Makes a span per unary RPC (server/tracing.ts registered a tracer provider). */
  tracing?: boolean;
}

/** Fields a handler adds to its log line. */
type LogFields = Record<string, unknown>;

/** How unary calls are authenticated and traced. */
interface CallOptions {
  /** Absent: every call is the open principal. */
  authenticate?: Authenticator;
  /** Absent: no spans (tracing off). */
  tracer?: Tracer;
}

/** Ends an RPC span with its status and what the log line says about the call. */
function endSpan(span: Span, fields: LogFields, code: number, message?: string): void {
  span.setAttribute("rpc.grpc.status_code", code);
  for (const k of ["map", "tenant", "planner", "plan_status", "expansions"]) {
    const v = fields[k];
    if (typeof v === "string" || typeof v === "number") span.setAttribute(`arcpath.${k}`, v);
  }
  if (code !== 0) span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}

/**
 * Wraps a unary handler: an AbortSignal that fires on client cancel or deadline, error mapping, one log line.
 */
function unary<Req, Res>(
  log: Logger,
  method: string,
  fn: (req: Req, signal: AbortSignal, fields: LogFields, principal: Principal) => Promise<Res>,
  calls: CallOptions,
): grpc.handleUnaryCall<Req, Res> {
  const { authenticate, tracer } = calls;
  return (call, callback) => {
    const t0 = performance.now();
    const span = tracer?.startSpan(`arcpath.v1.Pathfinder/${method}`, {
      kind: SpanKind.SERVER,
      attributes: { "rpc.system": "grpc", "rpc.service": "arcpath.v1.Pathfinder", "rpc.method": method },
    });
    const ac = new AbortController();
    const fields: LogFields = { method };
    // grpc-js emits "cancelled" at the end of every call, answered or not: only a call still running is
    // aborted (an error built per call, stack and all, was ~2% of a small Plan's server time).
    let answered = false;
    call.on("cancelled", () => {
      if (!answered) ac.abort(new ServiceError("CANCELLED", "request cancelled by the client"));
    });
    const deadline = call.getDeadline();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ms = deadline instanceof Date ? deadline.getTime() - Date.now() : Number(deadline) - Date.now();
    if (Number.isFinite(ms) && ms < 1e9) {
      timer = setTimeout(
        () => ac.abort(new ServiceError("DEADLINE_EXCEEDED", "deadline exceeded")),
        Math.max(0, ms),
      );
    }
    // Through a promise so a synchronous throw is mapped like a rejection.
    Promise.resolve().then(() => authenticate ? authenticate(call.metadata) : OPEN_PRINCIPAL).then(
      (principal) => {
        if (authenticate) fields.tenant = principal.tenant;
        // The RPC's span is the active one while it runs, so the pool's queue and worker spans are its children.
        return span
          ? context.with(
            trace.setSpan(context.active(), span),
            () => fn(call.request, ac.signal, fields, principal),
          )
          : fn(call.request, ac.signal, fields, principal);
      },
    ).then(
      (res) => {
        answered = true;
        clearTimeout(timer);
        if (span) endSpan(span, fields, 0);
        log.info({ ...fields, status: "OK", micros: Math.round((performance.now() - t0) * 1000) });
        callback(null, res);
      },
      (e) => {
        answered = true;
        clearTimeout(timer);
        const ge = toGrpcError(e);
        const entry = {
          ...fields,
          status: grpc.status[ge.code],
          error: ge.message,
          micros: Math.round((performance.now() - t0) * 1000),
        };
        if (span) endSpan(span, fields, ge.code, ge.message);
        if (ge.code === grpc.status.INTERNAL) {
          log.error({ ...entry, stack: (e as Error)?.stack }, "rpc failed");
        } else log.info(entry);
        callback(ge);
      },
    );
  };
}

/**
 * Runs `start` with a streaming call's principal (the open one without authentication, at once), or ends the
 * call UNAUTHENTICATED. Messages that arrive while a JWT is verified wait in the call's buffer; a call
 * cancelled meanwhile is not started.
 */
export function withStreamPrincipal(
  call: grpc.ServerDuplexStream<unknown, unknown>,
  log: Logger,
  method: string,
  authenticate: Authenticator | undefined,
  start: (p: Principal) => void,
): void {
  if (!authenticate) return start(OPEN_PRINCIPAL);
  const t0 = performance.now();
  const fail = (e: unknown) => {
    const ge = toGrpcError(e);
    const micros = Math.round((performance.now() - t0) * 1000);
    log.info({ method, status: grpc.status[ge.code], error: ge.message, micros });
    call.emit("error", ge);
  };
  let p: Principal | Promise<Principal>;
  try {
    p = authenticate(call.metadata);
  } catch (e) {
    return fail(e);
  }
  if (!(p instanceof Promise)) return start(p);
  p.then((principal) => {
    if (!call.cancelled) start(principal);
  }, fail);
}

/**
 * Caps the open connections of every listener `server` has bound (call after bindAsync): a connection past
 * `max` is accepted and closed at once. Why: once the process runs out of file descriptors, Deno's accept loop
 * stops for good (the red team's 1,100 idle connections at a 1,024 limit left the port dead after they closed),
 * so the server must refuse before it gets there (defaultMaxConnections). grpc-js has no option for it; its listeners are node:net
 * servers, whose `maxConnections` does exactly this.
 */
export function limitConnections(server: grpc.Server, max: number): number {
  // deno-lint-ignore no-explicit-any
  const listeners: Map<{ maxConnections: number }, unknown> | undefined = (server as any).http2Servers;
  if (!(listeners instanceof Map)) throw new Error("grpc-js no longer exposes its listeners (http2Servers)");
  for (const l of listeners.keys()) l.maxConnections = max;
  return listeners.size;
}

/** Builds a grpc.Server with the Pathfinder service, health and reflection. */
export function createServer(app: Arcpath, log: Logger, opts: ServerOptions): {
  server: grpc.Server;
  health: HealthImplementation;
} {
  const server = new grpc.Server({
    ...connectionOptions(opts.connections ?? DEFAULT_CONNECTION_LIMITS),
    "grpc.max_receive_message_length": opts.maxMessageBytes,
    "grpc.max_send_message_length": opts.maxMessageBytes,
  });
  const definition = loadPackageDefinition();
  const { service } = loadPathfinder(definition);
  // deno-lint-ignore no-explicit-any
  type Any = any;
  const auth: CallOptions = {
    authenticate: opts.authenticate,
    tracer: opts.tracing ? trace.getTracer(TRACER) : undefined,
  };
  server.addService(service, {
    PutMap: unary<Any, Any>(log, "PutMap", (req, _s, f, p) => {
      f.map = req.id;
      return app.putMap(req, f, p);
    }, auth),
    // A client stream wrapped as a unary call whose request is the stream itself (same auth, deadline, log).
    PutMapChunks: (call: grpc.ServerReadableStream<Any, Any>, callback: grpc.sendUnaryData<Any>) =>
      unary<Any, Any>(
        log,
        "PutMapChunks",
        (stream, signal, f, p) => app.putMapChunks(stream, signal, f, p),
        auth,
      )(
        Object.assign(call, { request: call }) as Any,
        callback,
      ),
    PatchMap: unary<Any, Any>(log, "PatchMap", (req, _s, f, p) => {
      f.map = req.map?.id;
      return app.patchMap(req, f, p);
    }, auth),
    GetMap: unary<Any, Any>(log, "GetMap", (req, _s, f, p) => {
      f.map = req.map?.id;
      return app.getMap(req, p);
    }, auth),
    ListMaps: unary<Any, Any>(log, "ListMaps", (_r, _s, _f, p) => app.listMaps(p), auth),
    DeleteMap: unary<Any, Any>(log, "DeleteMap", (req, _s, f, p) => {
      f.map = req.map?.id;
      return app.deleteMap(req, p);
    }, auth),
    Plan: unary<Any, Any>(log, "Plan", (req, signal, f, p) => {
      f.map = req.map?.id;
      return app.plan(req, signal, f, p);
    }, auth),
    Curve: unary<Any, Any>(log, "Curve", (req) => app.curve(req), auth),
    PlanMany: unary<Any, Any>(log, "PlanMany", (req, signal, f, p) => {
      f.map = req.map?.id;
      return app.planMany(req, signal, f, p);
    }, auth),
    // Streaming RPCs authenticate when they open (an unknown token ends the call UNAUTHENTICATED).
    Stream: (call: grpc.ServerDuplexStream<Any, Any>) =>
      withStreamPrincipal(
        call,
        log,
        "Stream",
        auth.authenticate,
        (p) => app.stream(call, log, toGrpcError, p),
      ),
    Fleet: (call: grpc.ServerDuplexStream<Any, Any>) =>
      withStreamPrincipal(
        call,
        log,
        "Fleet",
        auth.authenticate,
        (p) => app.fleet(call, log, toGrpcError, (id) => readKey(app.store, p, id, "open.map.id"), p.tenant),
      ),
  });
  const health = new HealthImplementation({ "": "SERVING", "arcpath.v1.Pathfinder": "SERVING" });
  health.addToServer(server);
  // Reflection describes every service served here from the real files, with their comments.
  new ReflectionService(reflectionDefinition()).addToServer(server);
  return { server, health };
}
