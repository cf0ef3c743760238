/**
 * Whether a streaming call's client is reading. grpc-js's write() never reports backpressure on Deno (its HTTP/2
 * stream takes every write at once and buffers it natively, write callbacks fire at once and `bufferSize` is
 * not kept), so the signal is the connection's HTTP/2 flow-control window: a client that does not read stops
 * sending WINDOW_UPDATEs, and the server's remote window stays near zero. The window is the connection's, so a
 * stream that does not read stalls every stream of its connection (HTTP/2 shares the window); they coalesce
 * together, and each is dropped after the stall limit.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";

/** Below this many bytes of remote window the connection counts as not reading. */
export const LOW_WINDOW_BYTES = 16 * 1024;
/** How often a blocked call checks whether its client reads again. */
const POLL_MS = 100;

/** The HTTP/2 session under a grpc-js server call (private fields; null when grpc-js changes them). */
function sessionOf(
  call: grpc.ServerDuplexStream<unknown, unknown>,
): { state?: { remoteWindowSize?: number } } | null {
  // deno-lint-ignore no-explicit-any
  let c: any = (call as any).call;
  for (let i = 0; i < 8 && c && !c.stream; i++) c = c.nextCall;
  return c?.stream?.session ?? null;
}

/** A call's backpressure: `blocked()` now, and `whenReading(cb)` once its client reads again. */
export interface Backpressure {
  /** True when the connection's remote window is below {@link LOW_WINDOW_BYTES}. */
  blocked(): boolean;
  /** Calls `cb` once the window is open again (polled), or never after `stop()`. */
  whenReading(cb: () => void): void;
  /** Stops polling (the call ended). */
  stop(): void;
}

/** The backpressure of a streaming server call. */
export function backpressure(call: grpc.ServerDuplexStream<unknown, unknown>): Backpressure {
  const session = sessionOf(call);
  let timer: ReturnType<typeof setInterval> | undefined;
  const blocked = () => {
    const w = session?.state?.remoteWindowSize;
    return typeof w === "number" && w < LOW_WINDOW_BYTES;
  };
  return {
    blocked,
    whenReading(cb) {
      if (timer !== undefined) return;
      timer = setInterval(() => {
        if (blocked()) return;
        clearInterval(timer);
        timer = undefined;
        cb();
      }, POLL_MS);
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
