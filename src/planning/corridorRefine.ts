/**
 * Long queries for turning units: a grid corridor first (a tile path for the unit's clearance, from grid A* or
 * the hierarchy), then directional search inside it, window by window (issue 13, item 1). Each step searches
 * a window around the next stretch of the corridor (its horizon) from the exact pose reached so far to a tile
 * of the corridor (or, on the last step, the exact goal), and keeps the first part of that answer up to a node
 * pose (receding horizon: the kept part was planned knowing what comes after it). Steps chain exactly: each
 * starts at the previous one's last pose, and every piece is verified with the exact sweep by the directional
 * search. The cost of a step follows its window, so a query costs what its corridor's length asks for, not
 * the map's size; nothing searches the whole map.
 *
 * The answer is not guaranteed optimal (the corridor fixes the homotopy, the horizon the look-ahead); the
 * benchmark (bench/scaleQueries.ts) and the tests compare its cost with a full directional search.
 *
 * @module
 */
import { angleDistance } from "../geometry/angle.ts";
import { appendChained, lineSegment } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { corridorWindow } from "../search/corridorWindow.ts";
import { headingAngle, nearestHeading } from "../search/directionTable.ts";
import type { DirectionalGoal, DirectionalRequest, DirectionalRun } from "../search/directionalSetup.ts";
import type { Footprint } from "../units/footprint.ts";

/** One directional search in a window (src/planning/directional.ts's directionalSearch, bound to its context). */
export type WindowSearch = (req: DirectionalRequest) => DirectionalRun;

/**
 * Corridor tiles a step looks ahead (its sub-goal). Shorter steps with a lighter weight beat longer greedy ones
 * at the same work: on the 1,000-tile city pair 40 tiles at weight 1.2 cost 929 in 1,085 expansions where 80 at
 * weight 2 cost 944 in 949; on the longest 4096^2 pair 6,206 against 6,485 (unweighted 80-tile steps: 6,106).
 */
export const CORRIDOR_HORIZON = 40;
/**
 * Share of a step's answer kept (receding horizon: the rest is planned again with the next stretch in view).
 * Keeping 0.65 instead of half takes a fifth fewer windows at the same cost (1,000-tile city pair 929.9 vs
 * 929.1 in 30 vs 45 ms; longest 4096^2 pair 6,192 vs 6,206); 0.75 began to cost more (934.1).
 */
export const CORRIDOR_KEEP = 0.65;
/** Tiles around the corridor stretch that a step's window adds (doubled once when a step finds nothing). */
export const CORRIDOR_MARGIN = 10;
/** Below this many corridor tiles a single window around the whole corridor is searched. */
export const CORRIDOR_MIN_TILES = 160;
/**
 * Heuristic weight of a step's search (weighted A*, see DirectionalRequest.heuristicWeight). The corridor fixes
 * the route and each step only steers along it, so an admissible step search spends many expansions proving
 * what a lightly weighted one finds in far fewer: 1.2 is ~1% dearer than unweighted steps at a quarter to a
 * ninth of the expansions (2 was ~3% dearer on 1,000 tiles, ~6% on the longest 4096^2 pair).
 */
export const CORRIDOR_WEIGHT = 1.2;
/**
 * Tiles of the 8-connected grid route from which a query counts as long (issue 13): that route (jump points,
 * cheap at any size) is then the corridor, and no 4-connected grid search runs (PLANNER_HYBRID skips its
 * stitch too). On big maps the 4-connected A*'s Manhattan bound is weak: 8.5 M expansions (10 s) for the
 * longest 4096^2 tiled-city pair, whose 8-connected route took 0.43 M with jump points.
 */
export const LONG_ROUTE_TILES = 2048;
/** Window widths are rounded up to a multiple of this (the search's per-width offset tables are cached). */
const WIDTH_STEP = 16;

/** What {@link refineCorridor} is asked (the directional request without a window, plus the corridor). */
export interface CorridorRequest extends Omit<DirectionalRequest, "window"> {
  /** The corridor: map tile ids from the start's tile to the goal's tile (4- or 8-connected). */
  corridor: ArrayLike<number>;
  /** Headings of the search's table (to snap a step's start to its node pose). */
  headings: number;
  /** The unit's footprint (the stitched path is swept once more after its joins are re-chained). */
  footprint: Footprint;
  /**
   * Give up ("budget") as soon as the path cannot cost less than this: the kept steps' costs (by `costOf`,
   * each step alone, so cusps at joins are not counted: a lower bound) plus the straight distance left times
   * `minCost` reach it. For AUTO's cost cap, where only a cheaper answer counts.
   */
  abortAtCost?: {
    cap: number;
    costOf: (segs: readonly Segment[]) => number;
    minCost: number;
    /** Set when the refinement gave up for this reason. */
    reached?: boolean;
  };
  /**
   * Stop after this many windows (a stream's first drivable part, issue 13 item 1): the answer is the legal
   * prefix kept so far, ending at a node pose on the way, with `reached` set; "found" then means "found so far".
   */
  /** Corridor tiles a step looks ahead (default {@link CORRIDOR_HORIZON}). */
  horizon?: number;
  /** Heuristic weight of the steps' searches (default {@link CORRIDOR_WEIGHT}). */
  weight?: number;
  /** Share of a step's answer kept before the next step (default {@link CORRIDOR_KEEP}). */
  keep?: number;
  maxWindows?: {
    limit: number;
    /** Set when the refinement stopped at the limit before the goal. */
    reached?: boolean;
  };
}

/**
 * The node pose (tile center, table heading) that `p` is within rounding of, or null. A step starting exactly
 * on a node uses the table's transitions instead of ~800 exact start curves.
 */
function nodePose(p: Pose, headings: number): Pose | null {
  const x = Math.floor(p.x) + 0.5, y = Math.floor(p.y) + 0.5;
  if (Math.abs(p.x - x) > 1e-6 || Math.abs(p.y - y) > 1e-6) return null;
  const h = nearestHeading(p.heading, headings);
  const heading = headingAngle(h, headings);
  return angleDistance(heading, p.heading) <= 1e-6 ? { x, y, heading } : null;
}

/** The segments re-emitted one after the other from `start` (exact joins after snapped step starts). */
function rechain(segs: readonly Segment[], start: Pose): Segment[] {
  const out: Segment[] = [];
  appendChained(out, start, segs);
  return out;
}

/**
 * Where to cut a step's answer: the node pose (tile center, table heading) with the longest run up to it that
 * is at most `target` long, else the first one after it. Node poses are segment ends and, inside a straight
 * line at a multiple of 45 degrees that starts on a tile center, the tile centers it passes (long straight
 * answers, often one analytic line, can then be cut near the middle instead of at their first node). Returns
 * the whole segments kept and the first piece of the next one (a line cut at a tile center), or null when no
 * node pose is found.
 */
export function cutAtNode(
  segs: readonly Segment[],
  target: number,
  headings: number,
): { keep: number; piece: Segment | null } | null {
  let acc = 0;
  let best: { keep: number; piece: Segment | null } | null = null;
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (
      s.curvature === 0 && acc < target && acc + s.length > target && nodePose(s.start, headings) !== null
    ) {
      const eighth = s.start.heading / (Math.PI / 4);
      if (Math.abs(eighth - Math.round(eighth)) < 1e-9) {
        const step = Math.round(eighth) % 2 === 0 ? 1 : Math.SQRT2;
        const k = Math.floor((target - acc) / step + 1e-9);
        const piece = k >= 1 ? lineSegment(s.start, k * step, s.direction) : null;
        if (piece !== null && piece.length < s.length - 1e-9 && nodePose(piece.end, headings) !== null) {
          return { keep: i, piece };
        }
      }
    }
    acc += s.length;
    if (acc > target && best !== null) return best;
    if (nodePose(s.end, headings) !== null) {
      best = { keep: i + 1, piece: null };
      if (acc > target) return best;
    }
  }
  return best;
}

/** The index in `path[from..to]` of the tile nearest to (x, y). */
function nearestIndex(
  path: ArrayLike<number>,
  width: number,
  from: number,
  to: number,
  x: number,
  y: number,
) {
  let best = from, bd = Infinity;
  for (let i = from; i <= to; i++) {
    const t = path[i];
    const ty = (t / width) | 0;
    const d = Math.hypot(t - ty * width + 0.5 - x, ty + 0.5 - y);
    if (d < bd) bd = d, best = i;
  }
  return best;
}

/**
 * Directional search along a corridor, window by window (see the module doc). Returns a run like
 * {@link directionalSearch}'s: "found" with the stitched segments, or the status of the step that failed (its
 * message says which step and window) with the legal prefix planned so far.
 */
export function refineCorridor(
  layer: PassLayer,
  req: CorridorRequest,
  search: WindowSearch,
  stopped: () => boolean,
): DirectionalRun {
  const path = req.corridor;
  const W = layer.width, H = layer.height;
  const segments: Segment[] = [];
  const tiles: number[] = [Math.floor(req.start.y) * W + Math.floor(req.start.x)];
  let expansions = 0;
  let pose: Pose = { ...req.start };
  let idx = 0;
  let steps = 0;
  let keptCost = 0;
  let tables: DirectionalRun["tables"] = { source: "none", millis: 0, key: "" };
  const last = path.length - 1;
  const horizon = req.horizon ?? CORRIDOR_HORIZON;
  for (;;) {
    const end = path.length <= CORRIDOR_MIN_TILES || idx + horizon >= last ? last : idx + horizon;
    const final = end === last;
    const t = path[end];
    const goal: DirectionalGoal = final ? req.goal : {
      x: (t % W) + 0.5,
      y: ((t / W) | 0) + 0.5,
      tolerance: 1,
      headingTolerance: Math.PI,
    };
    let run: DirectionalRun | null = null;
    for (const margin of [CORRIDOR_MARGIN, 2 * CORRIDOR_MARGIN]) {
      const stretch = Array.from({ length: end - idx + 1 }, (_, k) => path[idx + k]);
      stretch.push(Math.floor(pose.y) * W + Math.floor(pose.x));
      const window = corridorWindow(stretch, W, H, margin);
      const wide = Math.ceil((window.x1 - window.x0) / WIDTH_STEP) * WIDTH_STEP;
      window.x1 = Math.min(W, window.x0 + wide);
      window.x0 = Math.max(0, window.x1 - wide);
      run = search({
        ...req,
        start: pose,
        goal,
        window,
        maxExpansions: req.maxExpansions - expansions,
        heuristicWeight: req.weight ?? CORRIDOR_WEIGHT,
        geodesic: false,
      });
      expansions += run.expansions;
      tables = run.tables;
      if (run.status === "found" || run.status === "cancelled" || stopped()) break;
      if (expansions >= req.maxExpansions) break;
    }
    steps++;
    if (run === null || run.status !== "found") {
      const r = run!;
      const w = `corridor step ${steps} (tiles ${idx}..${end} of ${path.length})`;
      return {
        status: r.status === "no_legal_path" ? "budget" : r.status,
        segments,
        tiles,
        expansions,
        tables,
        message: r.status === "no_legal_path"
          ? `${w}: no legal directional path in the corridor's windows; a path outside them is not ruled out`
          : `${w}: ${r.message}`,
      };
    }
    // Keep the whole answer on the last step, else up to the node pose nearest CORRIDOR_KEEP of it (cutAtNode).
    let kept = run.segments;
    if (!final) {
      const total = run.segments.reduce((a, s) => a + s.length, 0);
      const cut = cutAtNode(run.segments, total * (req.keep ?? CORRIDOR_KEEP), req.headings);
      if (cut !== null) kept = [...run.segments.slice(0, cut.keep), ...(cut.piece ? [cut.piece] : [])];
    }
    for (const seg of kept) {
      const e = seg.end;
      segments.push(seg);
      const tile = Math.floor(e.y) * W + Math.floor(e.x);
      if (tiles[tiles.length - 1] !== tile) tiles.push(tile);
    }
    if (final) break;
    if (req.maxWindows && steps >= req.maxWindows.limit && kept.length > 0) {
      req.maxWindows.reached = true;
      break;
    }
    if (req.abortAtCost && kept.length > 0) {
      const { cap, costOf, minCost } = req.abortAtCost;
      keptCost += costOf(kept);
      const e = kept[kept.length - 1].end;
      const rest = Math.max(0, Math.hypot(req.goal.x - e.x, req.goal.y - e.y) - req.goal.tolerance) * minCost;
      if (keptCost + rest >= cap) {
        req.abortAtCost.reached = true;
        return {
          status: "budget",
          segments: [],
          tiles,
          expansions,
          tables,
          message:
            `corridor refinement: after ${steps} windows the path costs ${keptCost.toFixed(2)} with at ` +
            `least ${rest.toFixed(2)} to go, not less than ${cap.toFixed(2)}`,
        };
      }
    }
    if (kept.length > 0) {
      const endPose = kept[kept.length - 1].end;
      pose = nodePose(endPose, req.headings) ?? endPose;
    }
    const next = nearestIndex(path, W, idx, end, pose.x, pose.y);
    // Always move on along the corridor.
    idx = kept === run.segments ? end : Math.max(next, idx + 1);
  }
  // Snapped step starts moved joins by at most 1e-6: re-chain from the start and sweep the result again.
  const chained = rechain(segments, req.start);
  for (const seg of chained) {
    if (segmentHitsBlocked(layer, seg, req.footprint)) {
      return {
        status: "budget",
        segments: [],
        tiles,
        expansions,
        tables,
        message: "corridor refinement: the re-chained path failed the sweep check",
      };
    }
  }
  return {
    status: "found",
    segments: chained,
    tiles,
    expansions,
    tables,
    message: req.maxWindows?.reached
      ? `corridor refinement: the first ${steps} windows of a ${path.length}-tile corridor (a prefix)`
      : `corridor refinement: ${steps} windows along a ${path.length}-tile corridor`,
  };
}
