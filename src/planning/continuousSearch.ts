/**
 * Off-lattice search with continuous poses (Hybrid A* in the manner of Dolgov et al.): the last resort of the
 * curve planners where the directional lattice cannot hold the unit. Directional states sit on tile centres,
 * and in a corridor of even width no tile centre fits a footprint that fills it (the tank, radius 0.9, on the
 * centre line of a 2-wide corridor: the centre line runs on tile borders). This search keeps the exact pose of
 * every state, so a path may run wherever the footprint fits.
 *
 * States are continuous poses binned by position ({@link POSITION_BIN} tiles) and heading
 * ({@link HEADING_BINS} bins); a bin keeps the cheapest pose that reached it. Successors are short motion
 * primitives from the exact pose: straight {@link STRAIGHT_STEP} tiles and arcs at the full turning radius
 * turning one heading bin, forward and (for units that may reverse) backward, each swept with the exact
 * footprint (segmentHitsBlocked) and priced by the one cost model (pathCost: terrain integrated, reverse,
 * turning; cusps added on a change of direction). A popped state within the goal's tolerances ends the search;
 * near the goal every popped state also tries the shortest curve to the exact goal (the analytic expansion).
 * The heuristic is the obstacle-free shortest curve times the cheapest tile cost (admissible).
 *
 * Bounded by the task's budget and {@link MAX_CONTINUOUS_EXPANSIONS}: it is a fallback for narrow places, not
 * a replacement for the lattice search in the open.
 *
 * @module
 */
import { dubinsLength, dubinsShortest } from "../geometry/dubins.ts";
import { reedsSheppLength, reedsSheppShortest } from "../geometry/reedsShepp.ts";
import { arcSegment, lineSegment } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { pathCost } from "../motion/pathCost.ts";
import type { UnitSpec } from "../units/unit.ts";
import type { PlanBudget } from "./budget.ts";

/** Heading bins of a state (5 degrees): an arc primitive turns exactly one bin. */
export const HEADING_BINS = 72;
/** Position bin of a state, in tiles: fine enough to place a footprint within 0.1 of a corridor's walls. */
export const POSITION_BIN = 0.125;
/** Length of the straight primitive, in tiles (one position bin, so a straight always leaves its bin). */
export const STRAIGHT_STEP = 0.125;
/**
 * Expansions at most, whatever the budget: beyond this the lattice's own answer stands. The corridors and the
 * Figure 12 fixture take 1.1-2k; a pair no pose joins costs at most this much on top of the lattice's
 * NO_LEGAL_PATH (about 1.3 s on this 2-core machine under load 20, its worst case).
 */
export const MAX_CONTINUOUS_EXPANSIONS = 20_000;
/** Within this many turning radii (plus 4 tiles) of the goal every popped state tries the analytic expansion. */
const ANALYTIC_RADII = 4;
/** Farther out, every this many expansions. */
const ANALYTIC_EVERY = 16;

/** What the continuous search is asked. */
export interface ContinuousRequest {
  /** Exact start pose. */
  start: Pose;
  /** Goal position, optional heading and tolerances (tiles, radians). */
  goal: { x: number; y: number; heading?: number; tolerance: number; headingTolerance: number };
  /** Whether the unit may drive backward. */
  reverse: boolean;
  /** Turning radius of the primitives (> 0). */
  turningRadius: number;
  /** Expansions at most (capped at {@link MAX_CONTINUOUS_EXPANSIONS}). */
  maxExpansions: number;
}

/** What the continuous search found. */
export interface ContinuousRun {
  /** "found"; "exhausted" when every reachable bin was expanded; "budget", "deadline" or "cancelled". */
  status: "found" | "exhausted" | "budget" | "deadline" | "cancelled";
  /** The path (merged primitives), empty unless found. */
  segments: Segment[];
  /** Expansions made. */
  expansions: number;
}

interface Node {
  pose: Pose;
  g: number;
  parent: number;
  /** The primitive from the parent (null at the start). */
  seg: Segment | null;
  direction: 1 | -1;
}

/** A minimal binary heap of node ids by f. */
class Heap {
  #f: number[] = [];
  #id: number[] = [];
  get size(): number {
    return this.#f.length;
  }
  push(id: number, f: number): void {
    const F = this.#f, I = this.#id;
    let i = F.length;
    F.push(f), I.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (F[p] <= f) break;
      F[i] = F[p], I[i] = I[p];
      i = p;
    }
    F[i] = f, I[i] = id;
  }
  pop(): number {
    const F = this.#f, I = this.#id;
    const top = I[0];
    const lf = F.pop()!, li = I.pop()!;
    const n = F.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && F[c + 1] < F[c]) c++;
        if (F[c] >= lf) break;
        F[i] = F[c], I[i] = I[c];
        i = c;
      }
      F[i] = lf, I[i] = li;
    }
    return top;
  }
}

function wrap(a: number): number {
  a %= 2 * Math.PI;
  return a < 0 ? a + 2 * Math.PI : a;
}

/** Merges consecutive primitives of the same curvature and direction into one segment (exact joins kept). */
export function mergePrimitives(segs: readonly Segment[]): Segment[] {
  const out: Segment[] = [];
  for (const s of segs) {
    const last = out[out.length - 1];
    if (last && last.curvature === s.curvature && last.direction === s.direction) {
      const len = last.length + s.length;
      out[out.length - 1] = s.curvature === 0
        ? lineSegment(last.start, len, s.direction)
        : arcSegment(last.start, s.curvature, len, s.direction);
    } else out.push(s);
  }
  return out;
}

/** The off-lattice search (see the module doc). */
export function continuousSearch(
  layer: PassLayer,
  unit: UnitSpec,
  req: ContinuousRequest,
  budget: PlanBudget,
): ContinuousRun {
  const r = req.turningRadius;
  const { goal } = req;
  const maxExp = Math.min(req.maxExpansions, MAX_CONTINUOUS_EXPANSIONS);
  const binsX = Math.ceil(layer.width / POSITION_BIN);
  const dirs = req.reverse ? 2 : 1;
  const key = (p: Pose, d: 1 | -1) => {
    const h = Math.floor(wrap(p.heading) / (2 * Math.PI) * HEADING_BINS + 0.5) % HEADING_BINS;
    const ix = Math.floor(p.x / POSITION_BIN), iy = Math.floor(p.y / POSITION_BIN);
    return ((iy * binsX + ix) * HEADING_BINS + h) * dirs + (d < 0 ? 1 : 0);
  };
  const goalPose = goal.heading === undefined ? null : { x: goal.x, y: goal.y, heading: goal.heading };
  const floorCost = layer.minCost;
  const h = (p: Pose): number => {
    const e = Math.hypot(goal.x - p.x, goal.y - p.y);
    if (goalPose === null) return Math.max(0, e - goal.tolerance) * floorCost;
    const c = req.reverse ? reedsSheppLength(p, goalPose, r) : dubinsLength(p, goalPose, r);
    return Math.max(0, Math.max(e, c) - goal.tolerance) * floorCost;
  };
  const atGoal = (p: Pose): boolean => {
    if (Math.hypot(goal.x - p.x, goal.y - p.y) > goal.tolerance) return false;
    if (goal.heading === undefined) return true;
    const dh = Math.abs(Math.atan2(Math.sin(p.heading - goal.heading), Math.cos(p.heading - goal.heading)));
    return dh <= goal.headingTolerance;
  };
  const legal = (segs: readonly Segment[]): boolean => {
    for (const s of segs) if (segmentHitsBlocked(layer, s, unit.footprint)) return false;
    return true;
  };
  const nodes: Node[] = [];
  const best = new Map<number, number>();
  const closed = new Set<number>();
  const heap = new Heap();
  const startDir: 1 | -1 = 1;
  nodes.push({ pose: req.start, g: 0, parent: -1, seg: null, direction: startDir });
  best.set(key(req.start, startDir), 0);
  heap.push(0, h(req.start));
  const dTheta = (2 * Math.PI) / HEADING_BINS;
  const arcLen = r * dTheta;
  const steps: { k: number; len: number }[] = [
    { k: 0, len: STRAIGHT_STEP },
    { k: 1 / r, len: arcLen },
    { k: -1 / r, len: arcLen },
  ];
  const directions: (1 | -1)[] = req.reverse ? [1, -1] : [1];
  const trace = (id: number, tail: readonly Segment[]): Segment[] => {
    const segs: Segment[] = [];
    for (let i = id; nodes[i].seg !== null; i = nodes[i].parent) segs.push(nodes[i].seg!);
    segs.reverse();
    return mergePrimitives([...segs, ...tail]);
  };
  let expansions = 0;
  while (heap.size > 0) {
    if ((expansions & 255) === 0) {
      if (budget.cancelled()) return { status: "cancelled", segments: [], expansions };
      if (budget.millisLeft() <= 0) return { status: "deadline", segments: [], expansions };
    }
    if (expansions >= maxExp) return { status: "budget", segments: [], expansions };
    const id = heap.pop();
    const node = nodes[id];
    const k = key(node.pose, node.direction);
    if (closed.has(k)) continue;
    closed.add(k);
    expansions++;
    if (atGoal(node.pose)) return { status: "found", segments: trace(id, []), expansions };
    // The analytic expansion: the shortest curve from this exact pose to the exact goal, when legal.
    const dist = Math.hypot(goal.x - node.pose.x, goal.y - node.pose.y);
    if (dist <= ANALYTIC_RADII * r + 4 || expansions % ANALYTIC_EVERY === 0) {
      const tail = goalPose === null
        ? null
        : (req.reverse ? reedsSheppShortest(node.pose, goalPose, r) : dubinsShortest(node.pose, goalPose, r))
          .segments;
      if (tail !== null && legal(tail)) return { status: "found", segments: trace(id, tail), expansions };
    }
    for (const d of directions) {
      for (const step of steps) {
        const seg = step.k === 0
          ? lineSegment(node.pose, step.len, d)
          : arcSegment(node.pose, step.k, step.len, d);
        const p = seg.end;
        if (p.x < 0 || p.y < 0 || p.x >= layer.width || p.y >= layer.height) continue;
        const nk = key(p, d);
        if (closed.has(nk)) continue;
        let g = node.g + pathCost([seg], unit, layer).total;
        if (node.seg !== null && node.direction !== d) g += unit.cuspPenalty;
        const old = best.get(nk);
        if (old !== undefined && old <= g) continue;
        if (segmentHitsBlocked(layer, seg, unit.footprint)) continue;
        best.set(nk, g);
        nodes.push({ pose: p, g, parent: id, seg, direction: d });
        heap.push(nodes.length - 1, g + h(p));
      }
    }
  }
  return { status: "exhausted", segments: [], expansions };
}
