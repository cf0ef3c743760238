/**
 * arcpath server entry point.
 *
 * Usage: deno run -A src/main.ts [--listen HOST:PORT] [--data DIR] [--workers N] [--queue N]
 *        [--max-queue-wait-ms N] [--map-memory-mb N] [--max-message-mb N] [--max-map-side N] [--max-map-tiles N] [--max-plan-many N] [--max-fleet-units N] [--fleet-detours N] [--fleet-detour-ms N] [--no-demo] [--test-hooks]
 *        [--test-write-jitter-ms N] [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--tls-reload-ms N]
 *        [--health-listen HOST:PORT] [--auth-tokens FILE] [--metrics-listen HOST:PORT] [--http HOST:PORT]
 *
 * Environment: ARCPATH_LISTEN (same as --listen), ARCPATH_DATA (same as --data), ARCPATH_STORE (--store),
 * ARCPATH_LOG_LEVEL.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import pino from "pino";
import { type CliHelp, parseCli } from "./tools/cli.ts";
import { configPath, envArgs, fileArgs } from "./tools/config.ts";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { DEFAULT_LIMITS, MapStore } from "./service/mapStore.ts";
import { denoFs, jitteredFs } from "./service/mapPersistence.ts";
import { RedisBackend } from "./service/redisBackend.ts";
import { WorkerPool } from "./service/pool.ts";
import { PlanService } from "./service/planService.ts";
import { Arcpath } from "./server/handlers.ts";
import { DEFAULT_STALL_MS } from "./service/pathStream.ts";
import { parseQuotas, Quotas, type QuotaTable } from "./service/quotas.ts";
import { WatchedFile } from "./server/watchedFile.ts";
import {
  createServer,
  DEFAULT_CONNECTION_LIMITS,
  defaultMaxConnections,
  limitConnections,
} from "./server/server.ts";
import { ReloadingCertificates } from "./server/tls.ts";
import { authenticator, TokenFile } from "./server/auth.ts";
import { JwksFile } from "./server/jwt.ts";
import { Metrics } from "./server/metrics.ts";
import { ViewerHttp } from "./server/http.ts";

/** What `--help` prints (every flag of the options below is listed; describe a new one here). */
const SERVER_HELP: CliHelp = {
  usage: "deno run -A src/main.ts [flags]",
  about: "arcpath: a gRPC pathfinding service (arcpath.v1.Pathfinder, grpc.health.v1.Health, reflection).",
  flags: {
    listen: "HOST:PORT  where to serve gRPC (default 0.0.0.0:50051; port 0 picks a free one)",
    data: "DIR  where uploaded maps persist (default ./data)",
    store:
      "redis://HOST:PORT[/DB]  share maps with other replicas through Redis instead of --data (distributed mode)",
    workers: "N  planner worker threads (default: the number of cores)",
    queue: "N  plans that may wait for a worker; past it RESOURCE_EXHAUSTED (default 256)",
    "max-queue-wait-ms": "N  longest a plan waits for a worker (default 10000)",
    "map-memory-mb": "N  memory budget of the map cache (default 1024)",
    "max-message-mb":
      "N  largest gRPC message, after decompression (default 16); larger maps upload in pieces with PutMapChunks",
    "max-map-side": "N  widest and tallest map accepted, tiles (default 8192)",
    "max-map-tiles": "N  most tiles (width x height) in one map (default 67108864 = 8192 x 8192)",
    "max-plan-many": "N  most plans in one PlanMany call (default 10000)",
    "max-fleet-units": "N  most units in one Fleet (default 1000)",
    "fleet-detours":
      "N  late Fleet units replanned around the spots where they queue, per round (default 64; 0: off)",
    "fleet-detour-ms": "N  wall-clock budget of a Fleet batch's detour pass, ms (default 300)",
    "no-demo": "do not load the built-in demo maps (demo/maps/)",
    "writable-demo-maps":
      "let clients overwrite, patch and delete the built-in demo maps (default: read-only, FAILED_PRECONDITION)",
    "test-hooks": "enable the test suite's hooks (not for production)",
    "test-write-jitter-ms": "N  with --test-hooks: random delay of map writes",
    "tls-cert": "FILE  serve TLS with this certificate chain (PEM; with --tls-key)",
    "tls-key": "FILE  the TLS private key (PEM)",
    "tls-client-ca": "FILE  require client certificates signed by this CA (mutual TLS)",
    "tls-reload-ms": "N  how often the TLS files are checked for changes (default 2000)",
    "health-listen": "HOST:PORT  also serve grpc.health.v1.Health in plaintext (for probes without TLS)",
    "auth-tokens": "FILE  bearer tokens, one 'TOKEN TENANT [ROLE]' a line (default: no authentication)",
    "auth-jwks": "FILE  also accept JWT bearer tokens signed by a key of this JWKS (claims tenant, role)",
    "auth-jwt-issuer": "ISS  with --auth-jwks: required iss claim",
    "auth-jwt-audience": "AUD  with --auth-jwks: required aud claim",
    "metrics-listen": "HOST:PORT  serve Prometheus metrics as plain HTTP at /metrics (default: off)",
    http:
      "HOST:PORT  serve the live web viewer and its JSON API (plain HTTP; default: off). With --auth-* flags " +
      "the API needs the same bearer token and keeps the same tenants as gRPC",
    "max-connections":
      "N  most open client connections; past it a new one is closed at once (default: from the file-descriptor " +
      "limit, (ulimit -n - 128) / 2)",
    config: "FILE  read flags from this file first, one 'flag value' a line (see below)",
    quotas:
      "FILE  per-tenant quotas, one 'TENANT key=value ...' a line ('*': every other tenant; keys maps, stored_mb, " +
      "plans_per_s, streams, fleet_units), re-read on change or SIGHUP (default: no quotas)",
    "stream-stall-ms":
      "N  a Stream whose client reads nothing (send buffer full; updates coalesce to the latest path meanwhile) " +
      "is dropped with RESOURCE_EXHAUSTED after this long (default 30000)",
    "max-streams-per-connection": "N  most concurrent calls on one HTTP/2 connection (default 1000)",
    "max-connection-idle-ms": "N  close a connection with no call for this long (default 300000; 0: never)",
    "max-connection-age-ms":
      "N  close any connection after this long, calls in flight get 30 s (default 0: never)",
    "keepalive-time-ms": "N  ping a quiet connection after this long (default 60000; 0: never)",
    "keepalive-timeout-ms": "N  close it when the ping is not answered within this (default 20000)",
    "otel-exporter": "otlp|console|none  OpenTelemetry traces of RPCs, queue and worker (default: none)",
    "otel-endpoint": "URL  OTLP/HTTP traces endpoint (default http://localhost:4318/v1/traces)",
  },
  footer:
    "Every flag can also come from the environment as ARCPATH_<FLAG> (--max-connections: ARCPATH_MAX_CONNECTIONS; " +
    "booleans 1/true/yes) or from a config file (--config FILE or ARCPATH_CONFIG; one 'flag value' a line, a " +
    "boolean flag alone, # comments). The command line wins over the environment, which wins over the file.\n" +
    "ARCPATH_LOG_LEVEL: pino level (default info).\nREADME.md, 'Running the server', says more.",
};

/** Every flag of the server (parseCli's options). */
const SERVER_OPTIONS = {
  listen: { type: "string" },
  data: { type: "string" },
  store: { type: "string" },
  workers: { type: "string" },
  queue: { type: "string" },
  "max-queue-wait-ms": { type: "string" },
  "map-memory-mb": { type: "string" },
  "max-map-side": { type: "string" },
  "max-map-tiles": { type: "string" },
  "max-message-mb": { type: "string" },
  "max-plan-many": { type: "string" },
  "max-fleet-units": { type: "string" },
  "fleet-detours": { type: "string" },
  "fleet-detour-ms": { type: "string" },
  "no-demo": { type: "boolean" },
  "writable-demo-maps": { type: "boolean" },
  "test-hooks": { type: "boolean" },
  "test-write-jitter-ms": { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "tls-client-ca": { type: "string" },
  "tls-reload-ms": { type: "string" },
  "health-listen": { type: "string" },
  "auth-tokens": { type: "string" },
  "auth-jwks": { type: "string" },
  "auth-jwt-issuer": { type: "string" },
  "auth-jwt-audience": { type: "string" },
  "metrics-listen": { type: "string" },
  http: { type: "string" },
  "otel-exporter": { type: "string" },
  "otel-endpoint": { type: "string" },
  "max-connections": { type: "string" },
  "stream-stall-ms": { type: "string" },
  quotas: { type: "string" },
  "max-streams-per-connection": { type: "string" },
  "max-connection-idle-ms": { type: "string" },
  "max-connection-age-ms": { type: "string" },
  "keepalive-time-ms": { type: "string" },
  "keepalive-timeout-ms": { type: "string" },
  config: { type: "string" },
} as const;

// Flags from a config file (--config FILE or ARCPATH_CONFIG) and from ARCPATH_<FLAG> variables come before the
// command line's, so the command line wins over the environment, which wins over the file (tools/config.ts).
const { values: args } = parseCli(SERVER_HELP, {
  args: (() => {
    try {
      const file = configPath(Deno.args) ?? Deno.env.get("ARCPATH_CONFIG");
      const fromFile = file === undefined ? [] : fileArgs(SERVER_OPTIONS, Deno.readTextFileSync(file), file);
      return [...fromFile, ...envArgs(SERVER_OPTIONS, "ARCPATH", (n) => Deno.env.get(n)), ...Deno.args];
    } catch (e) {
      console.error(`config: ${(e as Error).message}`);
      Deno.exit(2);
    }
  })(),
  options: SERVER_OPTIONS,
});

/** A flag's value, else its ARCPATH_* environment variable (--tls-cert -> ARCPATH_TLS_CERT). */
function opt(name: string): string | undefined {
  const v = (args as Record<string, string | boolean | undefined>)[name];
  if (typeof v === "string") return v;
  return Deno.env.get("ARCPATH_" + name.toUpperCase().replaceAll("-", "_")) || undefined;
}

function intArg(name: string, v: string | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name}: expected an integer >= ${min}, got ${JSON.stringify(v)}`);
    Deno.exit(2);
  }
  return n;
}

const log = pino({ level: Deno.env.get("ARCPATH_LOG_LEVEL") ?? "info", base: { svc: "arcpath" } });
const listen = args.listen ?? Deno.env.get("ARCPATH_LISTEN") ?? "0.0.0.0:50051";
const dataDir = args.data ?? Deno.env.get("ARCPATH_DATA") ?? "./data";
const workers = intArg("workers", args.workers, navigator.hardwareConcurrency || 2, 1);
const maxQueue = intArg("queue", args.queue, 256, 0);
const maxQueueWaitMs = intArg("max-queue-wait-ms", args["max-queue-wait-ms"], 10_000, 1);
const budgetMb = intArg("map-memory-mb", args["map-memory-mb"], 1024, 1);
// 16 MB: grpc-js inflates a gzip message up to this size before anything else sees it, so the default bounds a
// compression bomb (50 concurrent 64 KB frames inflated to 3.2 GB at 64); bigger maps upload with PutMapChunks.
const maxMessageMb = intArg("max-message-mb", opt("max-message-mb"), 16, 1);
const maxMapSide = intArg("max-map-side", args["max-map-side"], DEFAULT_LIMITS.maxWidth, 1);
const limits = {
  maxWidth: maxMapSide,
  maxHeight: maxMapSide,
  maxTiles: intArg("max-map-tiles", args["max-map-tiles"], DEFAULT_LIMITS.maxTiles, 1),
};
// Tests only: delay map files' renames at random so concurrent writes race (see test/e2e/durability.test.ts).
const writeJitterMs = args["test-hooks"]
  ? intArg("test-write-jitter-ms", args["test-write-jitter-ms"], 0, 0)
  : 0;

// Distributed mode: maps live in a shared Redis (README, "Distributed mode"); else in the data directory.
const storeUrl = opt("store");
let backend: RedisBackend | undefined;
if (storeUrl !== undefined) {
  try {
    backend = new RedisBackend({ url: storeUrl, limits, log: (f, m) => log.warn(f, m) });
    await backend.connect();
  } catch (e) {
    console.error(`--store ${storeUrl}: ${(e as Error).message}`);
    await backend?.close();
    Deno.exit(2);
  }
}

const store = new MapStore({
  backend,
  dataDir,
  budgetBytes: budgetMb * 1024 * 1024,
  limits,
  log: (fields, msg) => log.info(fields, msg),
  fs: writeJitterMs > 0 ? jitteredFs(denoFs, writeJitterMs) : denoFs,
});
const pool = new WorkerPool({ size: workers, maxQueue, maxQueueWaitMs, log: (f, m) => log.warn(f, m) });
let metrics: Metrics | null = null;
// Tables a worker built and shared with the others count once in the map memory budget.
pool.onPublish((layerKey, bytes) => store.countLayerTables(layerKey, bytes));
store.onEvict((keys) => {
  pool.forget(keys);
  metrics?.evicted(keys.length);
});
const planService = new PlanService(
  store,
  pool,
  { maxExpansions: 50_000_000, maxMillis: 30_000 },
  !!args["test-hooks"],
);
const app = new Arcpath(store, planService, {
  maxStreams: 2000,
  stallMs: intArg("stream-stall-ms", opt("stream-stall-ms"), DEFAULT_STALL_MS, 1),
}, {
  maxPlanMany: intArg("max-plan-many", args["max-plan-many"], 10_000, 1),
  maxFleetUnits: intArg("max-fleet-units", args["max-fleet-units"], 1000, 1),
  fleetDetours: intArg("fleet-detours", args["fleet-detours"], 64, 0),
  fleetDetourMs: intArg("fleet-detour-ms", args["fleet-detour-ms"], 300, 0),
});

app.demoMapsWritable = !!args["writable-demo-maps"] ||
  /^(1|true|yes)$/i.test(Deno.env.get("ARCPATH_WRITABLE_DEMO_MAPS") ?? "");
// Built-in demo maps ship with the repo; uploaded maps come back from the data directory.
if (!args["no-demo"]) {
  const demoDir = fileURLToPath(new URL("../demo/maps", import.meta.url));
  for await (const e of Deno.readDir(demoDir)) {
    if (!e.isFile || !e.name.endsWith(".map")) continue;
    const text = await Deno.readTextFile(join(demoDir, e.name));
    const id = e.name.replace(/\.map$/, "");
    await store.put(id, store.parse({ kind: "movingai", text }, []), [], { builtin: true });
  }
}
const restored = await store.loadPersisted();

// TLS (mTLS with a client CA): certificates reload in place on SIGHUP or when their files change.
const tlsCert = opt("tls-cert");
const tlsKey = opt("tls-key");
const tlsClientCa = opt("tls-client-ca");
if (
  (tlsCert === undefined) !== (tlsKey === undefined) || (tlsClientCa !== undefined && tlsCert === undefined)
) {
  console.error("--tls-cert and --tls-key go together (and --tls-client-ca needs both)");
  Deno.exit(2);
}
let certs: ReloadingCertificates | null = null;
if (tlsCert !== undefined && tlsKey !== undefined) {
  try {
    certs = new ReloadingCertificates(
      { cert: tlsCert, key: tlsKey, clientCa: tlsClientCa },
      (f, m) => log.warn(f, m),
    );
  } catch (e) {
    console.error((e as Error).message);
    Deno.exit(2);
  }
  certs.watch(intArg("tls-reload-ms", opt("tls-reload-ms"), 2000, 100));
  Deno.addSignalListener("SIGHUP", () => certs!.reload("SIGHUP"));
}

// Bearer tokens (TOKEN TENANT [ROLE] per line), re-read on change or SIGHUP; without them the server is open.
const authTokens = opt("auth-tokens");
let tokens: TokenFile | null = null;
if (authTokens !== undefined) {
  try {
    tokens = new TokenFile(authTokens, (f, m) => log.warn(f, m));
  } catch (e) {
    console.error(`--auth-tokens ${authTokens}: ${(e as Error).message}`);
    Deno.exit(2);
  }
  tokens.watch(1000);
  Deno.addSignalListener("SIGHUP", () => tokens!.reload("SIGHUP"));
}
// JWT bearer tokens verified against a JWKS file (public keys), re-read on change or SIGHUP.
const authJwks = opt("auth-jwks");
let jwks: JwksFile | null = null;
if (authJwks !== undefined) {
  try {
    jwks = new JwksFile(
      authJwks,
      { issuer: opt("auth-jwt-issuer"), audience: opt("auth-jwt-audience") },
      (f, m) => log.warn(f, m),
    );
  } catch (e) {
    console.error(`--auth-jwks ${authJwks}: ${(e as Error).message}`);
    Deno.exit(2);
  }
  jwks.watch(1000);
  Deno.addSignalListener("SIGHUP", () => jwks!.reload("SIGHUP"));
} else if (opt("auth-jwt-issuer") !== undefined || opt("auth-jwt-audience") !== undefined) {
  console.error("--auth-jwt-issuer and --auth-jwt-audience need --auth-jwks");
  Deno.exit(2);
}
const authOn = tokens !== null || jwks !== null;

// Per-tenant quotas (service/quotas.ts), re-read on change or SIGHUP; a bad file fails at start.
const quotaPath = opt("quotas");
let quotaFile: WatchedFile<QuotaTable> | null = null;
if (quotaPath !== undefined) {
  try {
    quotaFile = new WatchedFile(quotaPath, {
      parse: parseQuotas,
      log: (f, m) => log.warn(f, m),
      reloaded: { msg: "quotas reloaded", fields: (t) => ({ tenants: t.tenants.size }) },
      failed: "quota file change ignored: it does not parse",
    });
  } catch (e) {
    console.error(`--quotas ${quotaPath}: ${(e as Error).message}`);
    Deno.exit(2);
  }
  quotaFile.watch(1000);
  Deno.addSignalListener("SIGHUP", () => quotaFile!.reload("SIGHUP"));
  app.quotas = new Quotas(() => quotaFile!.value, store);
}

// Prometheus text at /metrics on its own plain HTTP listener (off by default).
const metricsListen = opt("metrics-listen");
if (metricsListen !== undefined) {
  metrics = new Metrics({ pool, workers, store, streams: app.streams });
  try {
    const mp = await metrics.listen(metricsListen);
    log.info({ metricsListen, port: mp }, "metrics at /metrics");
    console.log(`ARCPATH_METRICS_READY port=${mp}`);
  } catch (e) {
    console.error(`--metrics-listen ${metricsListen}: ${(e as Error).message}`);
    Deno.exit(2);
  }
}

// OpenTelemetry traces (off by default): a span per unary RPC with queue and worker spans under it.
let stopTracing: (() => Promise<void>) | null = null;
try {
  const kind = opt("otel-exporter") ?? "none";
  if (kind !== "none") {
    // Loaded only when asked for: the SDK and exporter stay out of a server that does not trace.
    const { parseExporter, startTracing } = await import("./server/tracing.ts");
    const exporter = parseExporter(kind);
    if (exporter) stopTracing = startTracing({ exporter, endpoint: opt("otel-endpoint") });
  }
} catch (e) {
  console.error((e as Error).message);
  Deno.exit(2);
}

/** The soft limit on open files (Linux /proc/self/limits; elsewhere 1024, the usual default). */
function fdLimit(): number {
  try {
    const m = /Max open files\s+(\d+|unlimited)/.exec(Deno.readTextFileSync("/proc/self/limits"));
    if (m) return m[1] === "unlimited" ? 1 << 20 : Number(m[1]);
  } catch { /* not Linux */ }
  return 1024;
}
const D = DEFAULT_CONNECTION_LIMITS;
const { server, health } = createServer(app, metrics ? metrics.logger(log) : log, {
  connections: {
    maxConcurrentStreams: intArg(
      "max-streams-per-connection",
      opt("max-streams-per-connection"),
      D.maxConcurrentStreams,
      1,
    ),
    maxConnectionIdleMs: intArg(
      "max-connection-idle-ms",
      opt("max-connection-idle-ms"),
      D.maxConnectionIdleMs,
      0,
    ),
    maxConnectionAgeMs: intArg(
      "max-connection-age-ms",
      opt("max-connection-age-ms"),
      D.maxConnectionAgeMs,
      0,
    ),
    maxConnectionAgeGraceMs: D.maxConnectionAgeGraceMs,
    keepaliveTimeMs: intArg("keepalive-time-ms", opt("keepalive-time-ms"), D.keepaliveTimeMs, 0),
    keepaliveTimeoutMs: intArg("keepalive-timeout-ms", opt("keepalive-timeout-ms"), D.keepaliveTimeoutMs, 1),
  },
  maxMessageBytes: maxMessageMb * 1024 * 1024,
  authenticate: authOn ? authenticator(tokens, jwks) : undefined,
  tracing: stopTracing !== null,
});
/** Binds a listener; an address in use or that does not resolve is a startup error naming the flag, not a trace. */
const bind = (s: grpc.Server, address: string, creds: grpc.ServerCredentials, flag = "--listen") =>
  new Promise<number>((resolve) =>
    s.bindAsync(address, creds, (err, p) => {
      if (!err) return resolve(p);
      // grpc-js says "No address added out of total 1 resolved errors: [listen EADDRINUSE: ...]".
      console.error(`${flag} ${address}: ${/errors: \[(.*)\]$/.exec(err.message)?.[1] ?? err.message}`);
      Deno.exit(2);
    })
  );
const port = await bind(
  server,
  listen,
  certs ? certs.credentials() : grpc.ServerCredentials.createInsecure(),
);
// Never run out of file descriptors: past the cap a new connection is closed at once (server.ts says why).
const maxConnections = intArg("max-connections", opt("max-connections"), defaultMaxConnections(fdLimit()), 1);
limitConnections(server, maxConnections);
// The live web viewer (off by default): the page and a JSON API over the same handlers and authentication.
const httpListen = opt("http");
let viewer: ViewerHttp | null = null;
if (httpListen !== undefined) {
  viewer = new ViewerHttp(app, log, { authenticate: authOn ? authenticator(tokens, jwks) : undefined });
  try {
    const vp = await viewer.listen(httpListen);
    log.info({ http: httpListen, port: vp }, "live viewer");
    console.log(`ARCPATH_HTTP_READY port=${vp}`);
  } catch (e) {
    console.error(`--http ${httpListen}: ${(e as Error).message}`);
    Deno.exit(2);
  }
}
// Probes that cannot speak TLS (or hold no client certificate) use a plaintext health-only listener.
const healthListen = opt("health-listen");
let healthServer: grpc.Server | null = null;
if (healthListen !== undefined) {
  healthServer = new grpc.Server();
  health.addToServer(healthServer);
  const hp = await bind(
    healthServer,
    healthListen,
    grpc.ServerCredentials.createInsecure(),
    "--health-listen",
  );
  log.info({ healthListen, port: hp }, "plaintext health listener");
  console.log(`ARCPATH_HEALTH_READY port=${hp}`);
}
log.info(
  {
    listen,
    port,
    tls: certs ? (certs.mutual ? "mtls" : "tls") : "off",
    tracing: opt("otel-exporter") ?? "none",
    auth: authOn ? [tokens && `tokens (${tokens.size})`, jwks && "jwt"].filter(Boolean).join(", ") : "off",
    workers,
    maxQueue,
    maxQueueWaitMs,
    maxConnections,
    store: store.storeName,
    maps: store.ids().length,
    restored,
  },
  "arcpath listening",
);
if (!authOn) {
  log.warn(
    { listen },
    "authentication is off: every client that reaches the port reads and writes every map (--auth-tokens)",
  );
}
// A line tests and scripts can wait for.
console.log(`ARCPATH_READY port=${port}`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down");
  health.setStatus("", "NOT_SERVING");
  // Streams are drained with a final status before the server stops.
  app.streams.shutdown();
  app.drainFleets();
  await new Promise<void>((resolve) => {
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 5000);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
  healthServer?.forceShutdown();
  viewer?.close();
  certs?.close();
  tokens?.close();
  jwks?.close();
  quotaFile?.close();
  metrics?.close();
  await stopTracing?.().catch(() => {});
  pool.close();
  await store.close();
  Deno.exit(0);
}
Deno.addSignalListener("SIGINT", () => shutdown("SIGINT"));
Deno.addSignalListener("SIGTERM", () => shutdown("SIGTERM"));
