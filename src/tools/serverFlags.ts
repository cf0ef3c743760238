/**
 * The server's command line (src/main.ts): every flag with its `--help` text, and reading them, the command
 * line over ARCPATH_<FLAG> environment variables over a config file (tools/config.ts). A usage error (an unknown
 * flag, a bad config file, a number out of range) prints a message naming the flag and exits with status 2.
 *
 * @module
 */
import { type CliHelp, parseCli } from "./cli.ts";
import { configPath, envArgs, fileArgs } from "./config.ts";

/** What `--help` prints (every flag of the options below is listed; describe a new one here). */
export const SERVER_HELP: CliHelp = {
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
    "fleet-detour-ms":
      "N  budget of a Fleet batch's detour pass, ms of the server thread's CPU time (default: 200 + 20 per late " +
      "unit, at most 2000 and at most the larger of 100000 / units and 2e7 / units^2 in the fleet)",
    "no-fleet-warm-up":
      "skip the fleet warm-up (a private 20-unit fleet settled and repaired after delays, in slices after start)",
    "no-demo": "do not load the built-in demo maps (demo/maps/)",
    "writable-demo-maps":
      "let clients overwrite, patch and delete the built-in demo maps (default: read-only, FAILED_PRECONDITION)",
    "test-hooks": "enable the test suite's hooks (not for production)",
    "test-write-jitter-ms": "N  with --test-hooks: random delay of map writes",
    "background-jump-tiles":
      "N  maps of at least N tiles get their jump tables built in the background after upload (default 1048576)",
    "background-graph-tiles":
      "N  maps of at least N tiles get their abstract graphs prepared in the background and kept in --data " +
      "(default 1048576)",
    "test-jump-build-delay-ms": "N  with --test-hooks: background jump-table builds start N ms late",
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
export const SERVER_OPTIONS = {
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
  "no-fleet-warm-up": { type: "boolean" },
  "no-demo": { type: "boolean" },
  "writable-demo-maps": { type: "boolean" },
  "test-hooks": { type: "boolean" },
  "test-write-jitter-ms": { type: "string" },
  "background-jump-tiles": { type: "string" },
  "background-graph-tiles": { type: "string" },
  "test-jump-build-delay-ms": { type: "string" },
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

/**
 * Reads the server's flags (exits 2 on a usage error, 0 after --help): `args` as parsed, and `opt(name)`, a
 * string flag's value, else its ARCPATH_* environment variable (--tls-cert -> ARCPATH_TLS_CERT).
 */
export function readServerFlags() {
  // Flags from a config file (--config FILE or ARCPATH_CONFIG) and from ARCPATH_<FLAG> variables come before the
  // command line's, so the command line wins over the environment, which wins over the file (tools/config.ts).
  const { values: args } = parseCli(SERVER_HELP, {
    args: (() => {
      try {
        const file = configPath(Deno.args) ?? Deno.env.get("ARCPATH_CONFIG");
        const fromFile = file === undefined
          ? []
          : fileArgs(SERVER_OPTIONS, Deno.readTextFileSync(file), file);
        return [...fromFile, ...envArgs(SERVER_OPTIONS, "ARCPATH", (n) => Deno.env.get(n)), ...Deno.args];
      } catch (e) {
        console.error(`config: ${(e as Error).message}`);
        Deno.exit(2);
      }
    })(),
    options: SERVER_OPTIONS,
  });
  const opt = (name: string): string | undefined => {
    const v = (args as Record<string, string | boolean | undefined>)[name];
    if (typeof v === "string") return v;
    return Deno.env.get("ARCPATH_" + name.toUpperCase().replaceAll("-", "_")) || undefined;
  };
  return { args, opt };
}

/** A whole-number flag: `fallback` when absent; below `min` or not an integer, a usage error (exit 2). */
export function intArg(name: string, v: string | undefined, fallback: number, min: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name}: expected an integer >= ${min}, got ${JSON.stringify(v)}`);
    Deno.exit(2);
  }
  return n;
}
