/**
 * Trace spans of a pool job (OpenTelemetry API only; the SDK, if any, is registered by server/tracing.ts):
 * `queue` while the job waits for a worker and `worker` while it runs, children of the span active when the
 * job was submitted (the RPC's). Without a recording parent span (tracing off, or a stream's replan) no span
 * is made, so this costs one context lookup per job.
 *
 * @module
 */
import { type Context, context, type Span, SpanStatusCode, trace } from "@opentelemetry/api";

/** A job's spans. */
export interface JobTrace {
  /** The context the job was submitted in. */
  ctx: Context;
  /** Open while the job is queued. */
  queue: Span | null;
  /** Open while the job runs. */
  worker: Span | null;
}

const tracer = () => trace.getTracer("arcpath");

/** Starts a job's `queue` span if the submitting context has a recording span; else null. */
export function traceJob(): JobTrace | null {
  const ctx = context.active();
  const parent = trace.getSpan(ctx);
  if (!parent || !parent.isRecording()) return null;
  return { ctx, queue: tracer().startSpan("queue", undefined, ctx), worker: null };
}

/** The job left the queue for a worker. */
export function jobStarted(t: JobTrace, planner: string): void {
  t.queue?.end();
  t.queue = null;
  t.worker = tracer().startSpan("worker", { attributes: { "arcpath.planner": planner } }, t.ctx);
}

/** The job ended (answered, refused while queued, cancelled or failed). */
export function jobSettled(
  t: JobTrace,
  value: { status?: string; expansions?: number; planner?: string } | null,
  error: unknown,
): void {
  const span = t.worker ?? t.queue;
  if (!span) return;
  if (value) {
    if (value.status !== undefined) span.setAttribute("arcpath.plan_status", value.status);
    if (value.expansions !== undefined) span.setAttribute("arcpath.expansions", value.expansions);
    if (value.planner !== undefined) span.setAttribute("arcpath.planner", value.planner);
  }
  if (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String((error as Error)?.message ?? error) });
  }
  span.end();
  t.queue = t.worker = null;
}
