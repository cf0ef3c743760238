/**
 * The hybrid's final simple smoothing (step 6 of src/planning/hybrid.ts) and the path helpers it shares with the
 * hybrid: exact chaining of segments and the legality check (curvature limit and exact sweep). Also applied to
 * the off-lattice search's primitives (offLattice.ts).
 *
 * @module
 */
import { dubinsLength, dubinsShortest } from "../geometry/dubins.ts";
import { reedsSheppLength, reedsSheppShortest } from "../geometry/reedsShepp.ts";
import { appendChained, arcSegment, lineSegment } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { pathCost } from "../motion/pathCost.ts";
import { POINT_TURN_RADIUS } from "./directional.ts";
import type { PlanTask } from "./task.ts";

/** Curve checks the final smoothing may spend. */
const SMOOTH_CHECKS = 48;

/** The radius curves are held to: the unit's turning radius, or POINT_TURN_RADIUS for units turning in place. */
export function radiusOf(task: PlanTask): number {
  return task.unit.turningRadius > 0 ? task.unit.turningRadius : POINT_TURN_RADIUS;
}

/** Re-emits `segs` chained from `from` (exact joins); with `reversed`, the time-reversed, heading-flipped path. */
export function chain(out: Segment[], from: Pose, segs: readonly Segment[], reversed: boolean): Pose {
  if (!reversed) return appendChained(out, from, segs);
  let pose = from;
  const n = segs.length;
  for (let i = 0; i < n; i++) {
    const s = reversed ? segs[n - 1 - i] : segs[i];
    const k = reversed ? -s.curvature : s.curvature;
    const next = k === 0
      ? lineSegment(pose, s.length, s.direction)
      : arcSegment(pose, k, s.length, s.direction);
    out.push(next);
    pose = next.end;
  }
  return pose;
}

/** True when every segment is within the curvature limit and its exact sweep is free. */
export function legalPath(layer: PassLayer, task: PlanTask, segs: readonly Segment[]): boolean {
  const r = radiusOf(task);
  for (const s of segs) {
    if (Math.abs(s.curvature) > 1 / r + 1e-9) return false;
    if (s.tightened || s.touchesBlocked) return false;
    if (segmentHitsBlocked(layer, s, task.unit.footprint)) return false;
  }
  return true;
}

function cusps(segs: readonly Segment[], from: number, to: number): number {
  let c = 0;
  for (let i = from + 1; i < to; i++) if (segs[i].direction !== segs[i - 1].direction) c++;
  return c;
}

/**
 * The final simple smoothing: merges collinear lines, then greedily replaces stretches by one shortest curve
 * when it costs less by the unit's cost model (pathCost: terrain integrated, reverse, cusps, turning), has no
 * more cusps and sweeps only open tiles. Joins stay exact.
 */
export function finalSmoothing(
  layer: PassLayer,
  task: PlanTask,
  segs: Segment[],
  reverse: boolean,
): Segment[] {
  // Collinear line merge.
  const merged: Segment[] = [];
  for (const s of segs) {
    const last = merged[merged.length - 1];
    if (
      last && last.curvature === 0 && s.curvature === 0 && last.direction === s.direction &&
      Math.abs(Math.sin(last.start.heading - s.start.heading)) < 1e-9 &&
      Math.cos(last.start.heading - s.start.heading) > 0
    ) {
      merged[merged.length - 1] = lineSegment(last.start, last.length + s.length, last.direction);
    } else merged.push(s);
  }
  const r = radiusOf(task);
  let budget = SMOOTH_CHECKS;
  let out = merged;
  const unit = task.unit;
  // Per segment of `out`: its cost alone (terrain, reverse, turning); a stretch adds its cusps.
  let segCost = out.map((q) => pathCost([q], unit, layer).total);
  for (let i = 0; i < out.length - 1 && budget > 0; i++) {
    for (let j = out.length; j >= i + 2 && budget > 0; j--) {
      let cost = cusps(out, i, j) * unit.cuspPenalty;
      for (let k = i; k < j; k++) cost += segCost[k];
      const a = out[i].start, b = out[j - 1].end;
      // Cheap refusals first: no curve costs less than its length over the cheapest terrain, nor is shorter
      // than the straight distance, and the length alone (no allocation) decides before segments are built.
      const floor = cost / layer.minCost - 1e-6;
      if (Math.hypot(b.x - a.x, b.y - a.y) >= floor) continue;
      if ((reverse ? reedsSheppLength(a, b, r) : dubinsLength(a, b, r)) >= floor) continue;
      const curve = reverse ? reedsSheppShortest(a, b, r) : dubinsShortest(a, b, r);
      if (pathCost(curve.segments, unit, layer).total >= cost - 1e-6) continue;
      if (cusps(curve.segments, 0, curve.segments.length) > cusps(out, i, j)) continue;
      budget--;
      if (!legalPath(layer, task, curve.segments)) continue;
      const next: Segment[] = out.slice(0, i);
      let pose = chain(next, a, curve.segments, false);
      pose = chain(next, pose, out.slice(j), false);
      out = next;
      segCost = out.map((q) => pathCost([q], unit, layer).total);
      break;
    }
  }
  return out;
}
