/**
 * Prompt garbage collection after the map cache lets go of big tables. Pass layers, region tables and the
 * workers' search tables live in SharedArrayBuffers whose memory is freed only when every isolate holding a
 * wrapper has collected it; V8 does not count shared backing stores as heap pressure, so an idle worker (a few MB
 * of heap) kept the tables of every evicted version alive: the server's RSS grew ~20 MB per 1024^2 map planned
 * on, past 7x `--map-memory-mb`. V8's `gc()` is enabled at run time (node:v8 flags, process-wide) and reached
 * through a fresh node:vm context, which works in workers too, so no launcher flag is needed.
 *
 * @module
 */
import v8 from "node:v8";
import vm from "node:vm";

let gc: (() => void) | null | undefined;

/** The isolate's full collection, or null where it cannot be had. */
function fullGc(): (() => void) | null {
  if (gc !== undefined) return gc;
  try {
    v8.setFlagsFromString("--expose-gc");
    const f = vm.runInNewContext("gc");
    gc = typeof f === "function" ? (f as () => void) : null;
  } catch {
    gc = null;
  }
  return gc;
}

/** Collects this isolate's garbage now (a few ms on a worker's small heap). */
export function collectNow(): void {
  fullGc()?.();
}

let pending: ReturnType<typeof setTimeout> | undefined;

/**
 * Collects this isolate's garbage soon, once for a burst of calls (evictions come in runs): at most one pending
 * collection, after `delayMs`.
 */
export function collectSoon(delayMs = 50): void {
  if (pending !== undefined) return;
  pending = setTimeout(() => {
    pending = undefined;
    collectNow();
  }, delayMs);
  Deno.unrefTimer(pending);
}
