/**
 * Step 3 of PLANNER_CURVED (the article's "Legal Turns: The Basic Methods"), also the hybrid planner's curve
 * fit: from the exact start pose, each smoothed waypoint is reached with a turning-radius curve (the article's
 * arc-then-line on either side, or a Dubins curve arriving with the heading of the next leg); the last leg ends
 * exactly at the goal, with a final Dubins curve when the goal has a heading. Every curve is checked against
 * the map for the unit's footprint (src/geometry/sweep.ts). When no candidate of a leg is legal, the fit
 * backtracks to the previous leg's next candidate (within a budget); when that fails too, a tile of the
 * unsmoothed grid path is inserted as an extra waypoint in the failing leg and the legs are solved again.
 * Tighter turns (radius shrunk by 0.75 steps down to 0.25 tiles, arcs flagged tightened) and backing up
 * (Reeds-Shepp curves) are extra candidates after the forward ones at full radius.
 *
 * @module
 */
import { arcThenLineSide, arcThenLineSideLength } from "../geometry/arcThenLine.ts";
import { dubinsShortest } from "../geometry/dubins.ts";
import { normalizeAngle } from "../geometry/angle.ts";
import { reedsSheppShortest } from "../geometry/reedsShepp.ts";
import { lineSegment } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { Footprint } from "../units/footprint.ts";
import type { PassLayer } from "../maps/grid.ts";
import { type CostWeights, pathCost } from "../motion/pathCost.ts";
import type { UnitSpec } from "../units/unit.ts";
import { turnHitsBlocked } from "./fixedAngle.ts";
import type { PlanBudget } from "./budget.ts";

/** Each tighter-turn retry multiplies the radius by this. */
export const TIGHTEN_FACTOR = 0.75;
/** The smallest radius a tightened turn may use, tiles. */
export const MIN_TIGHT_RADIUS = 0.25;
/** Curve checks allowed per leg solve (backtracking budget), per leg plus a constant. */
const CHECKS_PER_LEG = 40;
const CHECKS_BASE = 400;
/** At most this many grid tiles are inserted as extra waypoints before giving up. */
const MAX_INSERTIONS = 256;

/** A point the path must pass through, with its index on the grid path (for inserting tiles in between). */
interface Waypoint {
  x: number;
  y: number;
  grid: number;
}

/** What leg solving needs besides the waypoints. */
interface LegEnv {
  layer: PassLayer;
  footprint: Footprint;
  radius: number;
  rectangle: boolean;
  goalHeading: number | undefined;
  check: boolean;
  tighter: boolean;
  /** Tightened radii, in the order tried (after the full radius), when `tighter`. */
  tightRadii: number[];
  backing: boolean;
  /** The unit's reverse and cusp penalties (to weigh a reverse curve against a forward one). */
  reversePenalty: number;
  cuspPenalty: number;
  /** The unit's cost weights (pathCost). */
  weights: CostWeights;
  cancel: Int32Array | null;
  deadline: number;
  /** Curve checks left for the whole fit (across re-solves); counts down. */
  checksLeft: number;
}

function pose(x: number, y: number, heading: number): Pose {
  return { x, y, heading: normalizeAngle(heading) };
}

/** The radii tighterTurns tries after the full one: shrinking by TIGHTEN_FACTOR, ending at MIN_TIGHT_RADIUS. */
function tightenedRadii(radius: number): number[] {
  const out: number[] = [];
  let r = radius * TIGHTEN_FACTOR;
  let lastRadius = radius;
  for (;;) {
    if (r < MIN_TIGHT_RADIUS) {
      if (lastRadius <= MIN_TIGHT_RADIUS + 1e-12) break;
      r = MIN_TIGHT_RADIUS;
    }
    out.push(r);
    lastRadius = r;
    r *= TIGHTEN_FACTOR;
  }
  return out;
}

/**
 * One leg's candidates, enumerated in order and computed only when tried (most legs take their first one), with
 * no per-candidate allocation besides the curve itself. The order, per radius (the full one, then with
 * tighterTurns each tightened one; reverse curves after the full-radius forward ones):
 * - forward, with a goal heading: its Dubins curve;
 * - forward, else: the article's arc-then-line on the shorter side, a Dubins curve lined up with the next leg,
 *   arc-then-line on the other side, a Dubins curve arriving straight, a Dubins curve half way between the two;
 * - reverse (Reeds-Shepp), with a goal heading: to it, and before the forward Dubins curve when it costs less
 *   by the unit's cost model (pathCost); else arriving with the
 *   next leg's heading, its opposite, the leg's start heading, straight; or for the last leg straight, the
 *   start heading, straight reversed.
 */
class LegCursor {
  /** The leg's start pose. */
  p: Pose = { x: 0, y: 0, heading: 0 };
  /** Its end point. */
  tx = 0;
  ty = 0;
  /** Heading of the next leg, or undefined for the last leg. */
  next: number | undefined = undefined;
  /** Goal heading (last leg only). */
  goal: number | undefined = undefined;
  /** Next slot to try. */
  slot = 0;
  /** Arc-then-line sides (+1, -1, or 0 for none) for {@link sidesRadius}, shorter first. */
  private first: 0 | 1 | -1 = 0;
  private second: 0 | 1 | -1 = 0;
  private sidesRadius = -1;
  /** The last leg's Reeds-Shepp candidate goes first (slots 0 and 1 are then reverse, forward). */
  private backFirst = false;

  /** Restarts the cursor at the first candidate of the leg from `p` to waypoint `i + 1`. */
  reset(p: Pose, ws: Waypoint[], i: number, env: LegEnv): void {
    this.p = p;
    const last = i + 1 === ws.length - 1;
    const t = ws[i + 1];
    this.tx = t.x;
    this.ty = t.y;
    this.goal = last ? env.goalHeading : undefined;
    this.next = last ? undefined : Math.atan2(ws[i + 2].y - t.y, ws[i + 2].x - t.x);
    this.slot = 0;
    this.sidesRadius = -1;
    this.backFirst = false;
  }

  /** The next candidate's segments (tightened arcs flagged), or null when the leg has none left. */
  nextCandidate(env: LegEnv): Segment[] | null {
    const { p, tx, ty } = this;
    if (env.radius === 0) {
      if (this.slot++ > 0) return null;
      const dist = Math.hypot(tx - p.x, ty - p.y);
      return dist > 0 ? [lineSegment(pose(p.x, p.y, Math.atan2(ty - p.y, tx - p.x)), dist)] : [];
    }
    const forwardSlots = this.goal !== undefined ? 1 : 5;
    const backingSlots = env.check && env.backing
      ? (this.goal !== undefined ? 1 : this.next !== undefined ? 4 : 3)
      : 0;
    const tightSlots = env.check && env.tighter ? forwardSlots * env.tightRadii.length : 0;
    // The last leg of a unit that may reverse has one forward (Dubins) and one reverse (Reeds-Shepp) candidate:
    // the cheaper by the unit's own costs goes first (reverse length and cusps weighed with its penalties).
    if (this.goal !== undefined && backingSlots === 1 && this.slot < 2) {
      if (this.slot === 0) this.backFirst = this.reverseCheaper(env);
      const k = this.slot++;
      return (k === 0) === this.backFirst ? this.backing(0, env.radius) : this.forward(0, env.radius);
    }
    for (;;) {
      let k = this.slot++;
      if (k < forwardSlots) {
        const segs = this.forward(k, env.radius);
        if (segs) return segs;
        continue;
      }
      k -= forwardSlots;
      if (k < backingSlots) return this.backing(k, env.radius);
      k -= backingSlots;
      if (k >= tightSlots) return null;
      const segs = this.forward(k % forwardSlots, env.tightRadii[Math.floor(k / forwardSlots)]);
      if (!segs) continue;
      for (const s of segs) if (s.curvature !== 0) s.tightened = true;
      return segs;
    }
  }

  /**
   * True when the shortest Reeds-Shepp curve to the goal pose costs less than the forward Dubins curve by the
   * unit's cost model (pathCost: terrain integrated, reverse weighted, cusps and turning charged).
   */
  private reverseCheaper(env: LegEnv): boolean {
    const goal = pose(this.tx, this.ty, this.goal!);
    const curve = reedsSheppShortest(this.p, goal, env.radius).segments;
    const forward = dubinsShortest(this.p, goal, env.radius).segments;
    return pathCost(curve, env.weights, env.layer).total <
      pathCost(forward, env.weights, env.layer).total - 1e-9;
  }

  /** Forward slot k at radius r (see the class doc), or null when that slot does not apply. */
  private forward(k: number, r: number): Segment[] | null {
    const { p, tx, ty, next } = this;
    if (this.goal !== undefined) return dubinsShortest(p, pose(tx, ty, this.goal), r).segments;
    switch (k) {
      case 0:
      case 2: {
        if (this.sidesRadius !== r) {
          const left = arcThenLineSideLength(p, tx, ty, r, 1);
          const right = arcThenLineSideLength(p, tx, ty, r, -1);
          this.first = left < 0 ? (right < 0 ? 0 : -1) : right < 0 || left <= right ? 1 : -1;
          this.second = left < 0 || right < 0 ? 0 : this.first === 1 ? -1 : 1;
          this.sidesRadius = r;
        }
        const side = k === 0 ? this.first : this.second;
        return side === 0 ? null : arcThenLineSide(p, tx, ty, r, side)!.segments;
      }
      case 1:
        return next === undefined ? null : dubinsShortest(p, pose(tx, ty, next), r).segments;
      case 3:
        return dubinsShortest(p, pose(tx, ty, Math.atan2(ty - p.y, tx - p.x)), r).segments;
      default: {
        if (next === undefined) return null;
        // Half way between arriving straight and lining up with the next leg: the corner is shared by both legs.
        const direct = Math.atan2(ty - p.y, tx - p.x);
        return dubinsShortest(p, pose(tx, ty, direct + 0.5 * normalizeAngle(next - direct)), r).segments;
      }
    }
  }

  /** Reverse slot k (Reeds-Shepp, see the class doc). */
  private backing(k: number, r: number): Segment[] {
    const { p, tx, ty, next } = this;
    let h: number;
    if (this.goal !== undefined) h = this.goal;
    else if (next !== undefined) {
      h = k === 0 ? next : k === 1 ? next + Math.PI : k === 2 ? p.heading : Math.atan2(ty - p.y, tx - p.x);
    } else {
      const direct = Math.atan2(ty - p.y, tx - p.x);
      h = k === 0 ? direct : k === 1 ? p.heading : direct + Math.PI;
    }
    return reedsSheppShortest(p, pose(tx, ty, h), r).segments;
  }
}

/**
 * The shortest forward curve from `start` to the goal point with radius `r`: Dubins when the goal has a heading,
 * else the shorter side of the article's arc-then-line; null when there is none (a point inside both turning
 * circles with no heading asked). Obstacles are not looked at.
 */
export function directCurve(
  start: Pose,
  goal: { x: number; y: number; heading?: number },
  r: number,
): Segment[] | null {
  if (goal.heading !== undefined) {
    return dubinsShortest(start, pose(goal.x, goal.y, goal.heading), r).segments;
  }
  const left = arcThenLineSideLength(start, goal.x, goal.y, r, 1);
  const right = arcThenLineSideLength(start, goal.x, goal.y, r, -1);
  if (left < 0 && right < 0) return null;
  return arcThenLineSide(start, goal.x, goal.y, r, right < 0 || (left >= 0 && left <= right) ? 1 : -1)!
    .segments;
}

/** True if the candidate is legal: no segment hits a blocked tile, nor a turn-in-place rectangle turning. */
function legal(segs: Segment[], p: Pose, env: LegEnv): boolean {
  if (env.radius === 0 && env.rectangle && segs.length > 0) {
    if (turnHitsBlocked(env.layer, p.x, p.y, p.heading, segs[0].start.heading, env.footprint)) return false;
  }
  for (const s of segs) if (segmentHitsBlocked(env.layer, s, env.footprint)) return false;
  return true;
}

/** The clock is read once per this many curve checks (a check costs more than reading it, but not 10x more). */
const CLOCK_EVERY = 8;

/** Solves every leg (depth first, backtracking within a budget); the chosen segments or the deepest failed leg. */
function solveLegs(
  start: Pose,
  ws: Waypoint[],
  env: LegEnv,
): { segs: Segment[] } | { failedLeg: number; stopped: boolean } {
  const legs = ws.length - 1;
  const cursors: LegCursor[] = new Array(legs);
  const chosen: Segment[][] = new Array(legs);
  const poses: Pose[] = [start];
  let budget = CHECKS_BASE + CHECKS_PER_LEG * legs;
  let i = 0;
  let deepest = 0;
  let fresh = true;
  let clock = 0;
  while (i < legs) {
    if (i < 0) return { failedLeg: deepest, stopped: false };
    if (
      (env.cancel !== null && Atomics.load(env.cancel, 0) !== 0) ||
      (clock-- <= 0 && ((clock = CLOCK_EVERY), performance.now() > env.deadline))
    ) {
      return { failedLeg: deepest, stopped: true };
    }
    const cursor = cursors[i] ??= new LegCursor();
    if (fresh) cursor.reset(poses[i], ws, i, env);
    let found: Segment[] | null = null;
    for (;;) {
      const c = cursor.nextCandidate(env);
      if (c === null) break;
      if (!env.check) {
        found = c;
        break;
      }
      if (--budget < 0 || --env.checksLeft < 0) return { failedLeg: deepest, stopped: false };
      if (legal(c, poses[i], env)) {
        found = c;
        break;
      }
    }
    if (found) {
      chosen[i] = found;
      poses[i + 1] = found.length > 0 ? found[found.length - 1].end : poses[i];
      i++;
      fresh = true;
      if (i > deepest) deepest = i;
    } else {
      i--;
      fresh = false;
    }
  }
  const segs: Segment[] = [];
  for (const c of chosen) for (const s of c) segs.push(s);
  return { segs };
}

/**
 * Inserts the middle grid tile of the failing leg, or else of a neighbouring leg (they set the failing leg's start
 * heading and the heading it must line up with); false if none of them has a tile left to insert.
 */
function insertGridTile(ws: Waypoint[], leg: number, path: Int32Array, width: number): boolean {
  for (const j of [leg, leg - 1, leg + 1]) {
    if (j < 0 || j >= ws.length - 1) continue;
    const a = ws[j].grid, b = ws[j + 1].grid;
    if (b - a <= 1) continue;
    const mid = (a + b) >> 1;
    ws.splice(j + 1, 0, { x: (path[mid] % width) + 0.5, y: Math.floor(path[mid] / width) + 0.5, grid: mid });
    return true;
  }
  return false;
}

/** What {@link fitCurves} needs: the map, the unit, the grid path with its smoothed points, and the ends. */
export interface CurveFitRequest {
  /** The pass layer the curves are checked against. */
  layer: PassLayer;
  /** The unit: footprint and turning radius. */
  unit: UnitSpec;
  /** The grid tile path (full tile path, start first): tiles of it are inserted when a leg has no legal curve. */
  path: Int32Array;
  /** The smoothed waypoints as (x, y) pairs at tile centers (smoothPath of `path`), start and end included. */
  smoothed: Float64Array;
  /** The exact start pose. */
  start: Pose;
  /** The exact end point, with an optional heading to arrive with. */
  goal: { x: number; y: number; heading?: number };
  /** Check every curve against the map (false: the article's "ignore obstacles in curves"). */
  check: boolean;
  /** Try tightened radii after the full one. */
  tighterTurns: boolean;
  /** Try Reeds-Shepp curves (reverse driving) after the forward ones. */
  backingUp: boolean;
  /** The task's budget: fitting stops at its deadline or cancel flag. */
  budget: PlanBudget;
  /**
   * Most curve checks (sweeps of a candidate curve) the whole fit may make, across re-solves after inserted
   * waypoints; past it the fit fails. A work bound rather than a time bound keeps the answer the same on a
   * loaded machine. Default: unbounded (the per-solve budgets still apply).
   */
  maxChecks?: number;
}

/**
 * The result of {@link fitCurves}: the segments, or why not ("stopped": deadline or cancel flag; "failed": no
 * curve of some leg is legal even after inserting grid tiles, with a message; `limited` when the `maxChecks`
 * bound, not the map, ended it).
 */
export type CurveFit =
  | { status: "found"; segments: Segment[] }
  | { status: "stopped" }
  | { status: "failed"; message: string; limited?: boolean };

/**
 * Step 3 of PLANNER_CURVED: reaches each smoothed waypoint from the exact start pose with turning-radius curves,
 * ending exactly at the goal. With `check`, every returned segment has passed segmentHitsBlocked for the unit's
 * footprint (and, for turn-in-place rectangles, the turn itself); without `tighterTurns`, every arc has
 * curvature exactly 1 / turningRadius. Joins are exact (each leg starts at the previous leg's end pose).
 */
export function fitCurves(req: CurveFitRequest): CurveFit {
  const { layer, unit, path, smoothed } = req;
  const width = layer.width;
  const goalHeading = req.goal.heading;
  // Smoothed points, each with its index on the grid path (they are a subsequence of it).
  const ws: Waypoint[] = [{ x: req.start.x, y: req.start.y, grid: 0 }];
  let g = 0;
  for (let k = 1; k < smoothed.length / 2 - 1; k++) {
    const sx = smoothed[2 * k], sy = smoothed[2 * k + 1];
    while (
      g < path.length - 1 && ((path[g] % width) + 0.5 !== sx || Math.floor(path[g] / width) + 0.5 !== sy)
    ) g++;
    ws.push({ x: sx, y: sy, grid: g });
  }
  ws.push({ x: req.goal.x, y: req.goal.y, grid: path.length - 1 });

  const env: LegEnv = {
    layer,
    footprint: unit.footprint,
    radius: unit.turningRadius,
    rectangle: unit.footprint.width > 0 || unit.footprint.length > 0,
    goalHeading,
    check: req.check,
    tighter: req.tighterTurns && unit.turningRadius > 0,
    tightRadii: req.tighterTurns && unit.turningRadius > 0 ? tightenedRadii(unit.turningRadius) : [],
    backing: req.backingUp && unit.canReverse && unit.turningRadius > 0,
    reversePenalty: Math.max(1, unit.reversePenalty),
    cuspPenalty: unit.cuspPenalty,
    weights: unit,
    cancel: req.budget.cancel,
    deadline: req.budget.deadline,
    checksLeft: req.maxChecks ?? Infinity,
  };
  const start = pose(req.start.x, req.start.y, req.start.heading);
  if (Math.hypot(req.goal.x - start.x, req.goal.y - start.y) < 1e-9 && ws.length === 2) {
    // Already there: only a goal heading can ask for motion (a loop, or a turn in place).
    if (goalHeading === undefined || Math.abs(normalizeAngle(goalHeading - start.heading)) < 1e-12) {
      return { status: "found", segments: [] };
    }
  }
  let insertions = 0;
  for (;;) {
    const solved = solveLegs(start, ws, env);
    if ("segs" in solved) return { status: "found", segments: solved.segs };
    if (solved.stopped) return { status: "stopped" };
    if (env.checksLeft < 0) {
      return {
        status: "failed",
        message: `no legal curve fit within ${req.maxChecks} curve checks`,
        limited: true,
      };
    }
    if (insertions++ >= MAX_INSERTIONS || !insertGridTile(ws, solved.failedLeg, path, width)) {
      return {
        status: "failed",
        message: `no collision-free curve with turning radius ${unit.turningRadius} follows the grid path ` +
          `(leg ${solved.failedLeg} of ${ws.length - 1} after ${insertions} inserted waypoints)` +
          (unit.turningRadius > 0 && !req.tighterTurns ? "; tighter_turns or allow_backing_up may help" : ""),
      };
    }
  }
}
