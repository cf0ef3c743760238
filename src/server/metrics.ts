/**
 * Prometheus metrics (prom-client), served as text at `/metrics` on `--metrics-listen HOST:PORT`.
 *
 * Sources: every RPC already ends in exactly one log line with `method`, `status` and `micros` (plus `tenant`
 * with authentication, `planner` and `search_micros` for plans); {@link Metrics.logger} wraps the server's
 * logger so each such line is also observed, whatever the log level, without a second hook in every handler.
 * The pool reports each job's queue wait, the stream hub each update's kind (replans), the store's eviction
 * callback the layers it drops; gauges (queue depth,
 * busy workers, map cache bytes, open streams) are read at scrape time.
 *
 * @module
 */
import { createServer, type Server } from "node:http";
import type { Logger } from "pino";
import client from "prom-client";
import type { WorkerPool } from "../service/pool.ts";
import type { MapStore } from "../service/mapStore.ts";
import type { StreamHub } from "../service/streamHub.ts";

/** Latency buckets in seconds: 100 us to 60 s. */
const BUCKETS = [
  0.0001,
  0.0005,
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
  60,
];

/** What the gauges read at scrape time. */
export interface MetricSources {
  /** The worker pool. */
  pool: WorkerPool;
  /** Number of workers. */
  workers: number;
  /** The map store. */
  store: MapStore;
  /** The stream hub. */
  streams: StreamHub;
}

/** The server's metrics. */
export class Metrics {
  /** The registry `/metrics` renders. */
  readonly registry = new client.Registry();
  readonly #rpc: client.Histogram<"method" | "code" | "tenant">;
  readonly #rpcErrors: client.Counter<"method" | "code" | "tenant">;
  readonly #planner: client.Histogram<"planner">;
  readonly #queueWait: client.Histogram;
  readonly #evictions: client.Counter;
  readonly #updates: client.Counter<"kind">;
  #http: Server | null = null;

  /** Registers every series; gauges read `src` at scrape time. */
  constructor(src: MetricSources) {
    const registers = [this.registry];
    this.#rpc = new client.Histogram({
      name: "arcpath_rpc_duration_seconds",
      help:
        "RPC latency by method and status code (streams: their whole life), per tenant with authentication",
      labelNames: ["method", "code", "tenant"],
      buckets: BUCKETS,
      registers,
    });
    this.#rpcErrors = new client.Counter({
      name: "arcpath_rpc_errors_total",
      help: "RPCs that ended with a status other than OK, by method and code",
      labelNames: ["method", "code", "tenant"],
      registers,
    });
    this.#planner = new client.Histogram({
      name: "arcpath_planner_duration_seconds",
      help: "Time in the planner (search) per Plan, by the planner that answered",
      labelNames: ["planner"],
      buckets: BUCKETS,
      registers,
    });
    this.#queueWait = new client.Histogram({
      name: "arcpath_queue_wait_seconds",
      help: "Time a plan waited in the worker queue before a worker took it",
      buckets: BUCKETS,
      registers,
    });
    this.#evictions = new client.Counter({
      name: "arcpath_map_cache_evictions_total",
      help: "Pass layers dropped from the map cache (versions evicted under the budget, override layers)",
      registers,
    });
    this.#updates = new client.Counter({
      name: "arcpath_stream_updates_total",
      help: "Stream updates sent, by kind (UPDATE kinds; REPLANNED counts replans)",
      labelNames: ["kind"],
      registers,
    });
    new client.Gauge({
      name: "arcpath_queue_depth",
      help: "Plans waiting for a worker",
      registers,
      collect() {
        this.set(src.pool.queued);
      },
    });
    new client.Gauge({
      name: "arcpath_workers_busy",
      help: "Workers running a plan",
      registers,
      collect() {
        this.set(src.pool.busy);
      },
    });
    new client.Gauge({
      name: "arcpath_workers",
      help: "Workers in the pool",
      registers,
      collect() {
        this.set(src.workers);
      },
    });
    new client.Gauge({
      name: "arcpath_map_cache_bytes",
      help: "Bytes of map versions, layers and region tables held in memory",
      registers,
      collect() {
        this.set(src.store.bytes);
      },
    });
    new client.Gauge({
      name: "arcpath_map_cache_versions",
      help: "Map versions held in memory",
      registers,
      collect() {
        this.set(src.store.cachedVersions);
      },
    });
    new client.Gauge({
      name: "arcpath_streams_open",
      help: "Open Stream calls",
      registers,
      collect() {
        this.set(src.streams.size);
      },
    });
    src.pool.onQueueWait((micros) => this.#queueWait.observe(micros / 1e6));
    src.streams.onUpdate((kind) => this.#updates.inc({ kind }));
  }

  /** Counts pass layers dropped from the map cache (the store has one eviction callback; main.ts calls this). */
  evicted(layers: number): void {
    this.#evictions.inc(layers);
  }

  /** Observes one RPC's log line (fields as the server logs them). */
  observe(fields: Record<string, unknown>): void {
    const method = fields.method, status = fields.status, micros = fields.micros;
    if (typeof method !== "string" || typeof status !== "string" || typeof micros !== "number") return;
    const labels = { method, code: status, tenant: typeof fields.tenant === "string" ? fields.tenant : "" };
    this.#rpc.observe(labels, micros / 1e6);
    if (status !== "OK") this.#rpcErrors.inc(labels);
    if (typeof fields.planner === "string" && typeof fields.search_micros === "number") {
      this.#planner.observe({ planner: fields.planner }, fields.search_micros / 1e6);
    }
  }

  /** The logger to give the server: the same logger, with every RPC line also observed. */
  logger(log: Logger): Logger {
    const observe = (o: unknown) => {
      if (o !== null && typeof o === "object") this.observe(o as Record<string, unknown>);
    };
    return new Proxy(log, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver);
        if ((prop === "info" || prop === "error" || prop === "warn") && typeof v === "function") {
          return (o: unknown, ...rest: unknown[]) => {
            observe(o);
            return (v as (...a: unknown[]) => unknown).call(target, o, ...rest);
          };
        }
        return v;
      },
    });
  }

  /** Serves `/metrics` on `host:port`; resolves with the port. */
  listen(address: string): Promise<number> {
    const i = address.lastIndexOf(":");
    const host = address.slice(0, i).replace(/^\[|\]$/g, "") || "0.0.0.0";
    const port = Number(address.slice(i + 1));
    if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
      return Promise.reject(
        new Error(`--metrics-listen: expected HOST:PORT, got ${JSON.stringify(address)}`),
      );
    }
    const http = createServer((req, res) => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found; metrics are at /metrics\n");
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { "content-type": this.registry.contentType }).end(text),
        (e) => res.writeHead(500, { "content-type": "text/plain" }).end(String(e)),
      );
    });
    this.#http = http;
    return new Promise((resolve, reject) => {
      http.once("error", reject);
      http.listen(port, host, () => {
        const a = http.address();
        resolve(typeof a === "object" && a ? a.port : port);
      });
    });
  }

  /** Stops serving. */
  close(): void {
    this.#http?.close();
  }
}
