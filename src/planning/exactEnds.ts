/**
 * The line planners' exact ends: their searches run between tile centres, but a unit stands at its own pose and
 * the goal is a point (poses are continuous, ../shared/design/api.md). This joins the exact start to a tile-centre
 * polyline and the polyline to the exact goal with LINE segments, each checked with the footprint sweep
 * (geometry/sweep.ts) and, at the start, the turn in place from the unit's heading to the join's. Turns at the
 * tile centres the joins meet need no check: the line planners' grid keeps the bounding disc clear there.
 *
 * One implementation for GRID, SMOOTH and HIERARCHICAL (gridPlanner.ts, hierarchical.ts); O(1) sweeps per query.
 *
 * @module
 */
import { lineSegment } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import type { PassLayer } from "../maps/grid.ts";
import { segmentTerrainCost } from "../motion/pathCost.ts";
import type { UnitSpec } from "../units/unit.ts";
import { turnHitsBlocked } from "./fixedAngle.ts";
import type { PlanTask } from "./task.ts";

/** Ends closer than this to their tile centre (tiles, per axis) move the centre instead of adding a line. */
const NEAR = 1e-9;

function near(ax: number, ay: number, bx: number, by: number): boolean {
  return Math.abs(ax - bx) <= NEAR && Math.abs(ay - by) <= NEAR;
}

/** A polyline with the exact ends joined, and what the joins did. */
export interface JoinedEnds {
  /** x, y pairs from the exact start to the exact goal (or the last point, when there is no goal). */
  points: Float64Array;
  /** The first tile centre was skipped: the start joins the second point directly. */
  skippedStart: boolean;
  /** The last tile centre was skipped: the second-to-last point joins the goal directly. */
  skippedGoal: boolean;
  /** The terrain integral (the cost model's, motion/pathCost.ts) of the join segments. */
  joinCost: number;
}

/** The start pose and the goal point to join; `goal` null keeps the polyline's last point (NEAREST, partial). */
export interface ExactEnds {
  /** The unit's exact start pose. */
  start: { x: number; y: number; heading: number };
  /** The exact goal point, or null. */
  goal: { x: number; y: number } | null;
}

/** The exact ends of a line planner's path: the start pose, and the goal point when the path reaches it. */
export function exactEnds(task: PlanTask, toGoal: boolean): ExactEnds {
  return { start: task.start, goal: toGoal ? { x: task.goal.x, y: task.goal.y } : null };
}

/**
 * Joins `ends` to the tile-centre polyline `points` (x, y pairs, at least one point). Each end takes the shorter
 * of two LINE joins that is legal for the unit: skipping the end's tile centre (straight to the second point,
 * taken when `preferSkip` and it costs no more terrain than the two lines it replaces: the smoothing's first
 * and last steps) or the direct join to the tile centre. Returns a message instead when neither join is
 * legal (the disc or footprint fits at the pose, but both lines clip a blocked tile): never an illegal path.
 */
export function joinExactEnds(
  layer: PassLayer,
  unit: UnitSpec,
  points: Float64Array,
  ends: ExactEnds,
  preferSkip: boolean,
): JoinedEnds | string {
  const { start, goal } = ends;
  const n0 = points.length;
  if (
    start.x === points[0] && start.y === points[1] &&
    (goal === null || (goal.x === points[n0 - 2] && goal.y === points[n0 - 1]))
  ) {
    // Tile-centre queries (the Moving AI benchmark): nothing to join, no copy.
    return { points, skippedStart: false, skippedGoal: false, joinCost: 0 };
  }
  const xs: number[] = [], ys: number[] = [];
  for (let i = 0; i + 1 < points.length; i += 2) xs.push(points[i]), ys.push(points[i + 1]);
  const cost = (ax: number, ay: number, bx: number, by: number): number => {
    const len = Math.hypot(bx - ax, by - ay);
    if (len === 0) return 0;
    return segmentTerrainCost(
      lineSegment({ x: ax, y: ay, heading: Math.atan2(by - ay, bx - ax) }, len),
      layer,
    );
  };
  // Point 0 is the off-centre start pose once joined: a line leaving it also needs the turn in place there.
  let startJoined = false;
  const legal = (i: number, bx: number, by: number): boolean => {
    const ax = xs[i], ay = ys[i];
    const len = Math.hypot(bx - ax, by - ay);
    if (len === 0) return true;
    const heading = Math.atan2(by - ay, bx - ax);
    if (i === 0 && startJoined && turnHitsBlocked(layer, ax, ay, start.heading, heading, unit.footprint)) {
      return false;
    }
    return !segmentHitsBlocked(layer, lineSegment({ x: ax, y: ay, heading }, len), unit.footprint);
  };
  // Skipping point `drop` (between a and b) never costs more terrain than the two lines it replaces.
  const skipCheap = (a: number, drop: number, bx: number, by: number): boolean =>
    cost(xs[a], ys[a], bx, by) <=
      cost(xs[a], ys[a], xs[drop], ys[drop]) + cost(xs[drop], ys[drop], bx, by) + 1e-9;
  let skippedStart = false, skippedGoal = false, goalJoined = false, startLine = false;
  // An end within NEAR of its tile centre (a pose computed along an earlier path, off by rounding) moves the
  // centre onto it instead of adding a line of 1e-15 tiles (a spurious turn), when the moved line is legal.
  if ((start.x !== xs[0] || start.y !== ys[0]) && xs.length >= 2 && near(start.x, start.y, xs[0], ys[0])) {
    const ox = xs[0], oy = ys[0];
    xs[0] = start.x, ys[0] = start.y;
    startJoined = true;
    if (!legal(0, xs[1], ys[1])) xs[0] = ox, ys[0] = oy, startJoined = false;
  }
  if (start.x !== xs[0] || start.y !== ys[0]) {
    xs.unshift(start.x), ys.unshift(start.y);
    startJoined = startLine = true;
    // Now point 1 is the first tile centre and point 2 (if any) the second waypoint.
    const canSkip = xs.length >= 3;
    const skip = () => canSkip && legal(0, xs[2], ys[2]);
    if (preferSkip && canSkip && skipCheap(0, 1, xs[2], ys[2]) && skip()) skippedStart = true;
    else if (!legal(0, xs[1], ys[1])) {
      if (!skip()) {
        return `the line from the start pose (${start.x}, ${start.y}) to the path's first tile centre ` +
          `(${xs[1]}, ${ys[1]})${
            canSkip ? " and the line to its second waypoint clip" : " clips"
          } a blocked ` +
          `tile for the unit's footprint (PLANNER_HYBRID or PLANNER_DIRECTIONAL plan from this pose)`;
      }
      skippedStart = true;
    }
    if (skippedStart) xs.splice(1, 1), ys.splice(1, 1);
  }
  const last = xs.length - 1;
  if (
    goal !== null && (goal.x !== xs[last] || goal.y !== ys[last]) && last >= 1 &&
    near(goal.x, goal.y, xs[last], ys[last])
  ) {
    const ox = xs[last], oy = ys[last];
    xs[last] = goal.x, ys[last] = goal.y;
    if (!legal(last - 1, goal.x, goal.y)) xs[last] = ox, ys[last] = oy;
  }
  if (goal !== null && (goal.x !== xs[last] || goal.y !== ys[last])) {
    goalJoined = true;
    // The last point is a tile centre unless it is the start pose (a path of one point).
    const canSkip = last >= 1;
    const skip = () => canSkip && legal(last - 1, goal.x, goal.y);
    if (preferSkip && canSkip && skipCheap(last - 1, last, goal.x, goal.y) && skip()) skippedGoal = true;
    else if (!legal(last, goal.x, goal.y)) {
      if (!skip()) {
        return `the line from the path's last tile centre (${xs[last]}, ${
          ys[last]
        }) to the goal (${goal.x}, ` +
          `${goal.y})${
            canSkip ? " and the line from the waypoint before it clip" : " clips"
          } a blocked tile ` +
          `for the unit's footprint (PLANNER_HYBRID or PLANNER_DIRECTIONAL plan to this goal)`;
      }
      skippedGoal = true;
    }
    if (skippedGoal) xs[last] = goal.x, ys[last] = goal.y;
    else xs.push(goal.x), ys.push(goal.y);
  }
  const out = new Float64Array(xs.length * 2);
  for (let i = 0; i < xs.length; i++) out[2 * i] = xs[i], out[2 * i + 1] = ys[i];
  // The join lines: the first (from the start pose) and the last (to the goal); one line when they coincide.
  const m = xs.length - 1;
  let joinCost = startLine && m >= 1 ? cost(xs[0], ys[0], xs[1], ys[1]) : 0;
  if (goalJoined && !(startLine && m === 1)) joinCost += cost(xs[m - 1], ys[m - 1], xs[m], ys[m]);
  return { points: out, skippedStart, skippedGoal, joinCost };
}
