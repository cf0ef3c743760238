/**
 * Per-worker query scratch let go between bursts of work. Search bookkeeping, window rasters, heuristic caches
 * and bounds are reused across queries (no allocation on the hot path) and grow to the largest query since;
 * without a release a worker would keep a long query's tens of MB while it waits. The worker calls
 * {@link releaseScratch} once it has been idle a moment: every holder above {@link SCRATCH_KEEP_BYTES} lets go and
 * regrows on the next query that needs it, so what a worker holds follows its recent work, not the map.
 *
 * @module
 */
import type { PlanContext } from "./context.ts";

/** Bytes each scratch holder may keep through an idle spell (small queries then allocate nothing). */
export const SCRATCH_KEEP_BYTES = 1 << 20;

/** A holder's release: lets go of what it holds above `keepBytes`, returns the bytes let go. */
export type ScratchRelease = (keepBytes: number) => number;

const releases = new WeakMap<PlanContext, ScratchRelease[]>();

/** Registers a scratch holder of `ctx` (once, when the planner creates its per-context state). */
export function onReleaseScratch(ctx: PlanContext, release: ScratchRelease): void {
  let list = releases.get(ctx);
  if (list === undefined) {
    list = [];
    releases.set(ctx, list);
  }
  list.push(release);
}

/**
 * Lets go of every scratch holder's memory above `keepBytes` (the context's A* workspace and what the planners
 * registered). Call it between tasks only. Returns the bytes let go (freed at the next collection).
 */
export function releaseScratch(ctx: PlanContext, keepBytes: number = SCRATCH_KEEP_BYTES): number {
  let n = ctx.workspace.release(keepBytes);
  for (const release of releases.get(ctx) ?? []) n += release(keepBytes);
  return n;
}
