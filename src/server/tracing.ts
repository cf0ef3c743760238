/**
 * OpenTelemetry traces, off by default. `--otel-exporter otlp` (OTLP/HTTP JSON to `--otel-endpoint`) or
 * `console` registers a tracer provider and an AsyncLocalStorage context manager; then each unary RPC is a
 * server span (`arcpath.v1.Pathfinder/<Method>`, see server.ts) and a plan that goes to the worker pool adds
 * child spans `queue` (waiting for a worker) and `worker` (running on it; planner, status, expansions), made in
 * service/pool.ts through `@opentelemetry/api` only. Off, the API's no-op globals stay: server.ts makes no span
 * and the pool finds no active span to be a child of, so nothing is allocated per request.
 *
 * @module
 */
import { context, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";

/** Where spans go. */
export interface TracingOptions {
  /** `otlp` (OTLP over HTTP, JSON) or `console`. */
  exporter: "otlp" | "console";
  /** The OTLP traces URL (default `http://localhost:4318/v1/traces`). */
  endpoint?: string;
  /** Batch delay in ms (default 1000). */
  delayMs?: number;
}

/** Parses the exporter flag; throws naming it for anything else. */
export function parseExporter(v: string): "otlp" | "console" | null {
  if (v === "none" || v === "off") return null;
  if (v === "otlp" || v === "console") return v;
  throw new Error(`--otel-exporter: expected otlp, console or none, got ${JSON.stringify(v)}`);
}

/** Registers the global tracer provider; returns the function that flushes and stops it. */
export function startTracing(opts: TracingOptions): () => Promise<void> {
  const exporter: SpanExporter = opts.exporter === "otlp"
    ? new OTLPTraceExporter({ url: opts.endpoint ?? "http://localhost:4318/v1/traces" })
    : new ConsoleSpanExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": "arcpath" }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: opts.delayMs ?? 1000 })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  return () => provider.shutdown();
}
