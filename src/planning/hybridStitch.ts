/**
 * Steps 2-5 of PLANNER_HYBRID (hybrid.ts's module doc): pre-smoothing forward along the grid path (a
 * Directional-24 search whose nodes stay on the path's tiles), the same backward from the goal on the reversed
 * problem, a Directional-8 stitch between the two failure points, and the three pieces attached from one chained
 * pose so joins are exact.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { corridorWindow } from "../search/corridorWindow.ts";
import type { PlanBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { directionalMode, directionalSearch, POINT_TURN_RADIUS } from "./directional.ts";
import { chain } from "./finalSmoothing.ts";
import { onReleaseScratch } from "./scratch.ts";
import type { PlanTask } from "./task.ts";

/** Largest x or y distance (tiles) between the two failure points for the Directional-8 stitch. */
export const MAX_GAP = 12;
/** Expansions the pre-smoothing pass may spend per path tile (plus a constant). */
export const PRESMOOTH_EXPANSIONS_PER_TILE = 40;
/** What PLANNER_HYBRID did, step by step: filled in when hybrid.ts's `HybridOptions.trace` is given (tests, debugging). */
export interface HybridTrace {
  /**
   * Steps that ran, in order: "direct", "fit", "grid", "forward", "backward", "stitch", "smooth", "corridor"
   * (directional search along the grid corridor), "fallback" (directional search around start and goal).
   */
  steps: string[];
  /** Forward pre-smoothing status, or "" when it did not run. */
  forward: string;
  /** Backward pre-smoothing status, or "" when it did not run. */
  backward: string;
  /** Failure point a of the forward pass (end of its partial path), or null. */
  a: Pose | null;
  /** Failure point b of the backward pass (heading flipped back to the forward direction), or null. */
  b: Pose | null;
  /** Segment counts of the attached pieces (forward, stitch, backward) when the stitch joined them. */
  pieces: [number, number, number] | null;
  /** The attached path of step 5, before the final smoothing (null when the stitch did not join). */
  stitched: Segment[] | null;
  /** Neighbourhood (8 or 4) of the grid route whose curve fit step 0 returned, or 0. */
  fitted: number;
}

/** An empty {@link HybridTrace}. */
export function newHybridTrace(): HybridTrace {
  return { steps: [], forward: "", backward: "", a: null, b: null, pieces: null, stitched: null, fitted: 0 };
}

interface HybridScratch {
  mask: Uint8Array;
  index: Int32Array;
}

/** Per context: its scratch, or null once let go (the release stays registered). */
const scratchOf = new WeakMap<PlanContext, HybridScratch | null>();

/**
 * Per-context path mask and path index over the pre-smoothing window (not the map: a worker's scratch follows
 * its longest corridor), all clear (0 / -1) between uses; grown when a window is larger.
 */
function scratch(ctx: PlanContext, n: number): HybridScratch {
  let s = scratchOf.get(ctx);
  if (!s && !scratchOf.has(ctx)) onReleaseScratch(ctx, (keep) => releaseHybridScratch(ctx, keep));
  if (!s || s.mask.length < n) {
    s = { mask: new Uint8Array(n), index: new Int32Array(n).fill(-1) };
    scratchOf.set(ctx, s);
  }
  return s;
}

function releaseHybridScratch(ctx: PlanContext, keep: number): number {
  const s = scratchOf.get(ctx);
  const bytes = s ? 5 * s.mask.length : 0;
  if (bytes <= keep) return 0;
  scratchOf.set(ctx, null);
  return bytes;
}

/** Reverses a segment in time with the heading flipped: the same curve, driven the other way round. */
function flipped(p: Pose): Pose {
  return { x: p.x, y: p.y, heading: p.heading + Math.PI };
}

/** What {@link stitch} gives back. */
export interface Stitch {
  segments: Segment[] | null;
  expansions: number;
  cancelled: boolean;
  note: string;
}

/** Steps 2-5: pre-smoothing both ways, Directional-8 between the failure points, attached. */
export function stitch(
  ctx: PlanContext,
  layer: PassLayer,
  task: PlanTask,
  path: Int32Array,
  mode: ReturnType<typeof directionalMode>,
  reverse: boolean,
  budget: PlanBudget,
  trace: HybridTrace | null,
): Stitch {
  const W = layer.width;
  const n = path.length;
  const window = corridorWindow(path, W, layer.height, 3);
  const ww = window.x1 - window.x0;
  const sc = scratch(ctx, ww * (window.y1 - window.y0));
  /** A path tile's index in the window-sized mask. */
  const local = (t: number) => {
    const y = (t / W) | 0;
    return (y - window.y0) * ww + (t - y * W) - window.x0;
  };
  let expansions = 0;
  const presmooth = (start: Pose, goal: Pose | null, reversed: boolean) => {
    for (let i = 0; i < n; i++) {
      const t = local(reversed ? path[n - 1 - i] : path[i]);
      sc.mask[t] = 1;
      if (sc.index[t] < 0) sc.index[t] = i;
    }
    const run = directionalSearch(ctx, layer, task.unit, {
      start,
      goal: goal
        ? { x: goal.x, y: goal.y, heading: goal.heading, tolerance: 1e-6, headingTolerance: 1e-6 }
        : { ...task.goal },
      neighborhood: mode.roadsOnly ? mode.neighborhood : 24,
      roadsOnly: mode.roadsOnly,
      reverse,
      window,
      nodeMask: sc.mask,
      pathIndex: sc.index,
      maskWindow: window,
      maxExpansions: Math.min(budget.expansionsLeft(expansions), PRESMOOTH_EXPANSIONS_PER_TILE * n + 1000),
    }, budget);
    for (let i = 0; i < n; i++) {
      const t = local(path[i]);
      sc.mask[t] = 0;
      sc.index[t] = -1;
    }
    expansions += run.expansions;
    return run;
  };
  const fail = (note: string, cancelled = false): Stitch => ({ segments: null, expansions, cancelled, note });
  // 2. Forward.
  trace?.steps.push("forward");
  const fwd = presmooth(task.start, null, false);
  if (trace) trace.forward = fwd.status;
  if (fwd.status === "cancelled") return fail("", true);
  if (fwd.status === "found") {
    return {
      segments: fwd.segments,
      expansions,
      cancelled: false,
      note: "pre-smoothing along the grid path",
    };
  }
  if (fwd.status !== "partial") return fail("pre-smoothing failed");
  // 3. Backward on the reversed problem.
  const gx = task.goal.x, gy = task.goal.y;
  let backHeading: number;
  if (task.goal.heading !== undefined) backHeading = task.goal.heading + Math.PI;
  else {
    const prev = path[n - 2];
    backHeading = Math.atan2(Math.floor(prev / W) + 0.5 - gy, (prev % W) + 0.5 - gx);
  }
  const backStart: Pose = { x: gx, y: gy, heading: backHeading };
  trace?.steps.push("backward");
  const bwd = presmooth(backStart, flipped(task.start), true);
  if (trace) trace.backward = bwd.status;
  if (bwd.status === "cancelled") return fail("", true);
  const joined: Segment[] = [];
  if (bwd.status === "found") {
    // The reversed problem solved whole: drive it back.
    chain(joined, task.start, bwd.segments, true);
    return {
      segments: joined,
      expansions,
      cancelled: false,
      note: "backward pre-smoothing",
    };
  }
  if (bwd.status !== "partial") return fail("backward pre-smoothing failed");
  const a = fwd.segments.length > 0 ? fwd.segments[fwd.segments.length - 1].end : task.start;
  const bBack = bwd.segments.length > 0 ? bwd.segments[bwd.segments.length - 1].end : backStart;
  const b = flipped(bBack);
  if (trace) {
    trace.a = { ...a };
    trace.b = { ...b };
  }
  // 4. Directional-8 between the failure points.
  if (Math.abs(a.x - b.x) > MAX_GAP || Math.abs(a.y - b.y) > MAX_GAP) {
    return fail("failure points too far apart for the Directional-8 stitch");
  }
  const ax = Math.floor(a.x), ay = Math.floor(a.y), bx = Math.floor(b.x), by = Math.floor(b.y);
  // Room around a and b for at least one full turning loop of the unit (a fixed 4 tiles was too small for
  // wide turners: a radius-3 boat's loop spans 2r + footprint ~ 7 tiles, and the stitch then always failed).
  const loop = 2 * Math.max(task.unit.turningRadius, POINT_TURN_RADIUS) + task.unit.boundingRadius;
  const margin = Math.max(4, Math.ceil(loop) + 1);
  trace?.steps.push("stitch");
  const mid = directionalSearch(ctx, layer, task.unit, {
    start: a,
    goal: { x: b.x, y: b.y, heading: b.heading, tolerance: 1e-6, headingTolerance: 1e-6 },
    neighborhood: 8,
    roadsOnly: mode.roadsOnly,
    reverse,
    window: {
      x0: Math.max(0, Math.min(ax, bx) - margin),
      y0: Math.max(0, Math.min(ay, by) - margin),
      x1: Math.min(layer.width, Math.max(ax, bx) + 1 + margin),
      y1: Math.min(layer.height, Math.max(ay, by) + 1 + margin),
    },
    maxExpansions: budget.expansionsLeft(expansions),
  }, budget);
  expansions += mid.expansions;
  if (mid.status === "cancelled") return fail("", true);
  if (mid.status !== "found") return fail("Directional-8 stitch failed");
  // 5. Attach: forward piece, stitch, backward piece driven back; one chained pose keeps joins exact.
  let pose = chain(joined, task.start, fwd.segments, false);
  pose = chain(joined, pose, mid.segments, false);
  chain(joined, pose, bwd.segments, true);
  if (trace) {
    trace.pieces = [fwd.segments.length, mid.segments.length, bwd.segments.length];
    trace.stitched = joined.slice();
  }
  return {
    segments: joined,
    expansions,
    cancelled: false,
    note: "pre-smoothing both ways, Directional-8 stitch",
  };
}
