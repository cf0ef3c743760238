/**
 * arcpath server entry point.
 *
 * Usage: deno run -A src/main.ts [--listen HOST:PORT] [--data DIR] [--workers N] [--queue N]
 *        [--max-queue-wait-ms N] [--map-memory-mb N] [--max-message-mb N] [--max-map-side N] [--max-map-tiles N] [--max-plan-many N] [--max-fleet-units N] [--fleet-detours N] [--fleet-detour-ms N] [--no-demo] [--test-hooks]
 *        [--test-write-jitter-ms N] [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--tls-reload-ms N]
 *        [--health-listen HOST:PORT] [--auth-tokens FILE] [--metrics-listen HOST:PORT] [--http HOST:PORT]
 *
 * Environment: ARCPATH_LISTEN (same as --listen), ARCPATH_DATA (same as --data), ARCPATH_STORE (--store),
 * ARCPATH_LOG_LEVEL. Every flag, its help text and how flags are read: tools/serverFlags.ts.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import pino from "pino";
import { intArg, readServerFlags } from "./tools/serverFlags.ts";
import { missingServerV8Flags, SERVER_V8_OPTION } from "./tools/v8Flags.ts";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { DEFAULT_LIMITS, MapStore } from "./service/mapStore.ts";
import { denoFs, jitteredFs } from "./service/mapPersistence.ts";
import { RedisBackend } from "./service/redisBackend.ts";
import { WorkerPool } from "./service/pool.ts";
import { mapLargeBlocksAlone } from "./service/mallocTrim.ts";
import { PlanService } from "./service/planService.ts";
import { BACKGROUND_JUMP_TILES, setBackgroundJumpTiles, setJumpBuildDelay } from "./service/mapJumps.ts";
import { BACKGROUND_GRAPH_TILES, setBackgroundGraphTiles } from "./service/mapGraphs.ts";
import { Arcpath } from "./server/handlers.ts";
import { warmUpFleet } from "./service/fleetWarmUp.ts";
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

const { args, opt } = readServerFlags();

// Written synchronously: a line is out before the next statement runs, so the start-up lines (listening, TLS,
// tracing, auth) precede ARCPATH_READY (console.log, synchronous too) and the last lines before a crash are not
// lost. pino's default destination writes asynchronously, and its flush() calls back at once (sonic-boom with
// minLength 0) even while a write is under way: a test read the log after ARCPATH_READY without the listening line.
const log = pino(
  { level: Deno.env.get("ARCPATH_LOG_LEVEL") ?? "info", base: { svc: "arcpath" } },
  pino.destination({ dest: 1, sync: true }),
);
const missingV8 = missingServerV8Flags();
if (missingV8.length > 0) {
  log.warn(
    { missing: missingV8 },
    `launched without ${SERVER_V8_OPTION}: ended map builders' heaps stay resident (README, Running the server)`,
  );
}
// Before the workers and map builders start: big blocks mapped alone (service/mallocTrim.ts, issue 13's bytes per
// tile).
if (!mapLargeBlocksAlone()) log.info("malloc's mmap threshold left as it is (not glibc, or no FFI)");
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

// Big maps' jump tables are built in the background after upload (service/mapJumps.ts).
setBackgroundJumpTiles(
  intArg("background-jump-tiles", opt("background-jump-tiles"), BACKGROUND_JUMP_TILES, 1),
);
// Big maps' abstract graphs are prepared in the background and kept in the data directory (service/mapGraphs.ts).
setBackgroundGraphTiles(
  intArg("background-graph-tiles", opt("background-graph-tiles"), BACKGROUND_GRAPH_TILES, 1),
);
if (args["test-hooks"]) {
  setJumpBuildDelay(intArg("test-jump-build-delay-ms", opt("test-jump-build-delay-ms"), 0, 0));
}

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
  // Absent: each pass sizes its budget to its late units and the fleet (fleetDetour.ts defaultBudgetMs).
  fleetDetourMs: args["fleet-detour-ms"] === undefined
    ? undefined
    : intArg("fleet-detour-ms", args["fleet-detour-ms"], 0, 0),
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
// A line tests and scripts can wait for: the log above is already out (synchronous destination).
console.log(`ARCPATH_READY port=${port}`);
// Fleets run on this thread: their repair code is compiled on a private fleet now, not in a client's first repair.
if (!args["no-fleet-warm-up"]) {
  warmUpFleet().then((w) => log.info({ fleetWarmUp: w }, "fleet code warmed up"));
}

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
