/**
 * Units halted too close to set out (issue 12: circle 10 after one delay left two units waiting for good in the
 * open field). The reservation table lets a unit stand as close as the two radii to another standing unit, but a
 * moving sample needs the radii plus the motion between samples ((v_a + v_b) * dt / 2: the unit may move that far
 * before the next sample, motion/reservations.ts). Two units stopped side by side in that band (a unit stopped at
 * once beside a late one) are legal as they stand, yet the table refuses either one's first step, whichever way it
 * goes: neither ever sets out, and each waits for the other for good (a standoff, fleetDeadlock.ts).
 *
 * The standoff breaker then times the unit that gives way with those close standing neighbours lifted from the
 * table, and checks its trajectory against each of them exactly instead: they stand still (for good, until they
 * are rescheduled against the table), so it is enough that no point of its path comes within the two radii of
 * where one stands. Every other unit is still checked by the table. A route planned on tiles may start across
 * such a neighbour (both on one tile, or the tile's centre beside it): the unit may go straight to the route's
 * second corner instead of its tile's centre, or first step straight to the centre of a tile around it, away from
 * them ({@link escapes}), and be routed on from there ({@link waysOut}). Synchronous, no I/O.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { lineSegment, poseAlong } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import { clearanceCodeAtLeast, type PassLayer } from "../maps/grid.ts";
import { clearanceClass } from "../maps/layer.ts";
import { type Trajectory, trajectoryEnd, trajectoryEndPose } from "../motion/trajectory.ts";
import { profiled } from "../motion/trajectoryRest.ts";
import type { UnitSpec } from "../units/unit.ts";
import type { SippCandidates } from "./fleetSipp.ts";
import type { PlannedStop } from "./fleetWaits.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";

/** Arcs are checked every ARC_STEP tiles (a point of the arc lies within half a step of a sample). */
const ARC_STEP = 0.02;

/**
 * The units standing for good by `time` (no motion left) so close to `pose` that the table would refuse `u`'s
 * first step from there: within both radii plus both units' motion between two samples.
 */
export function pinnedBy(
  sched: FleetScheduler,
  u: FleetUnitState,
  pose: Pose,
  time: number,
): FleetUnitState[] {
  const out: FleetUnitState[] = [];
  const half = sched.table.dt / 2;
  for (const o of sched.units.values()) {
    if (o === u || trajectoryEnd(o.traj) > time + 1e-9) continue;
    const p = trajectoryEndPose(o.traj);
    const gap = u.unit.boundingRadius + o.unit.boundingRadius + (u.unit.maxSpeed + o.unit.maxSpeed) * half;
    if (Math.hypot(p.x - pose.x, p.y - pose.y) < gap) out.push(o);
  }
  return out;
}

/** Distance from (x, y) to the segment's ground (exact for lines, within ARC_STEP / 2 below for arcs). */
function distanceTo(seg: Segment, x: number, y: number): number {
  if (seg.length <= 0) return Math.hypot(seg.start.x - x, seg.start.y - y);
  if (seg.curvature === 0) {
    const ax = seg.start.x, ay = seg.start.y, dx = seg.end.x - ax, dy = seg.end.y - ay;
    const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy || 1)));
    return Math.hypot(ax + t * dx - x, ay + t * dy - y);
  }
  let best = Infinity;
  for (let d = 0; d < seg.length + ARC_STEP; d += ARC_STEP) {
    const p = poseAlong(seg, Math.min(d, seg.length));
    best = Math.min(best, Math.hypot(p.x - x, p.y - y));
  }
  return best - ARC_STEP / 2;
}

/** Whether a unit of radius `radius` driving `traj` (and standing at its ends) never touches `o` where it stands. */
export function clearOfStanding(traj: Trajectory, radius: number, o: FleetUnitState): boolean {
  const p = trajectoryEndPose(o.traj), need = radius + o.unit.boundingRadius;
  if (Math.hypot(traj.startPose.x - p.x, traj.startPose.y - p.y) < need) return false;
  return traj.segments.every((seg) => distanceTo(seg, p.x, p.y) >= need);
}

/**
 * Runs `attempt` (which times and commits `u`, standing at `pose` at `time`, and says whether it did) with the
 * units pinning `u` there (see {@link pinnedBy}) lifted from the table, then puts them back. Returns true when the
 * attempt committed a trajectory that keeps clear of each of them (checked exactly, see the module doc); false
 * otherwise, and then the caller puts `u` back as it was.
 */
export function withPinnedLifted(
  sched: FleetScheduler,
  u: FleetUnitState,
  pose: Pose,
  time: number,
  attempt: () => boolean,
): boolean {
  const lifted = pinnedBy(sched, u, pose, time);
  for (const o of lifted) sched.table.remove(o.id);
  try {
    if (!attempt()) return false;
    return lifted.every((o) => clearOfStanding(u.traj, u.unit.boundingRadius, o));
  } finally {
    for (const o of lifted) sched.commit(o, o.traj);
  }
}

/**
 * Where a unit standing at `pose` among the units pinning it (`pinned`, see {@link pinnedBy}) may step first: the
 * centres of the tiles around its own (its own included when `pose` is off it), open for its clearance, reached by a
 * straight step clear of walls and of the pinned units (both radii), no longer pinned by them there (both radii and
 * the motion between samples of `dt`); nearest to `goal` first. None when nothing pins it.
 */
export function escapes(
  layer: PassLayer,
  unit: UnitSpec,
  pose: Pose,
  pinned: readonly FleetUnitState[],
  goal: Pose,
  dt: number,
): Pose[] {
  if (pinned.length === 0) return [];
  const tx = Math.floor(pose.x), ty = Math.floor(pose.y), w = layer.width;
  const need = clearanceCodeAtLeast(clearanceClass(unit.boundingRadius));
  const out: Pose[] = [];
  for (let y = ty - 1; y <= ty + 1; y++) {
    for (let x = tx - 1; x <= tx + 1; x++) {
      if (x < 0 || y < 0 || x >= w || y >= layer.height) continue;
      const t = y * w + x;
      if (!(layer.tileCost[t] > 0) || layer.clearanceCode[t] < need) continue;
      const cx = x + 0.5, cy = y + 0.5, len = Math.hypot(cx - pose.x, cy - pose.y);
      if (len < 1e-6) continue;
      const step = lineSegment({ x: pose.x, y: pose.y, heading: Math.atan2(cy - pose.y, cx - pose.x) }, len);
      const free = pinned.every((o) => {
        const p = trajectoryEndPose(o.traj), r = unit.boundingRadius + o.unit.boundingRadius;
        const gap = r + (unit.maxSpeed + o.unit.maxSpeed) * dt / 2;
        return Math.hypot(cx - p.x, cy - p.y) >= gap && distanceTo(step, p.x, p.y) >= r;
      });
      if (free && !segmentHitsBlocked(layer, step, unit.footprint)) out.push(step.end);
    }
  }
  const toGoal = (p: Pose) => Math.hypot(goal.x - p.x, goal.y - p.y);
  return out.sort((a, b) => toGoal(a) - toGoal(b));
}

/**
 * A straight step from `pose` to where `route` (LINE segments, as SIPP routes are) starts, then the route, profiled
 * as one drive from rest to rest for `unit`; with the step's length (to shift distances along the route).
 */
export function stepThen(
  unit: UnitSpec,
  pose: Pose,
  route: readonly Segment[],
): { path: Segment[]; step: number } {
  const to = route[0].start, step = Math.hypot(to.x - pose.x, to.y - pose.y);
  const segs = [
    lineSegment({ x: pose.x, y: pose.y, heading: Math.atan2(to.y - pose.y, to.x - pose.x) }, step),
  ];
  for (const seg of route) if (seg.length > 0) segs.push(lineSegment(seg.start, seg.length, seg.direction));
  return { path: profiled(segs, unit), step };
}

/** A way for a unit to set out: a path from where it stands, and SIPP's waits on it as planned stops (or null). */
export interface WayOut {
  /** The path, profiled from rest to rest. */
  path: Segment[];
  /** Planned stops along it (fleetWaits.ts), or null when none. */
  stops: PlannedStop[] | null;
}

/**
 * The ways, in turn, a unit standing at `pose` may set out along space-time routes (`route`: SIPP's candidates
 * from a pose, fleetSipp.ts): the route from `pose`; and when units pin it there (`pinned`, see {@link pinnedBy})
 * also that route going straight to its second corner (not by its own tile's centre, which may lie beside them),
 * and the routes from each of its {@link escapes} after a straight step there. Walls are checked for the straight
 * pieces added; the rest is the caller's (the table, and the exact check of {@link withPinnedLifted}).
 */
export function* waysOut(
  unit: UnitSpec,
  layer: PassLayer,
  pose: Pose,
  pinned: readonly FleetUnitState[],
  goal: Pose,
  dt: number,
  route: (from: Pose) => SippCandidates,
): Generator<WayOut> {
  // One at a time, each searched when asked for: the caller stops at the first it can time.
  const plain = route(pose);
  if (plain.paths.length > 0) yield { path: plain.paths[0], stops: plain.waits?.stops ?? null };
  if (pinned.length === 0) return;
  if (plain.paths.length > 0) {
    const cut = cutFirstCorner(unit, layer, pose, plain.paths[0]);
    if (cut) yield { path: cut, stops: null };
  }
  for (const from of escapes(layer, unit, pose, pinned, goal, dt)) {
    const got = route(from);
    if (got.paths.length === 0) continue;
    const { path, step } = stepThen(unit, pose, got.paths[0]);
    yield {
      path,
      stops: got.waits ? got.waits.stops.map((s) => ({ at: s.at + step, depart: s.depart })) : null,
    };
  }
}

/**
 * `route` (LINE segments from `pose`) going straight from `pose` to its second corner, profiled from rest to rest;
 * null when it has fewer corners or the straight piece meets a wall.
 */
function cutFirstCorner(
  unit: UnitSpec,
  layer: PassLayer,
  pose: Pose,
  route: readonly Segment[],
): Segment[] | null {
  // The corners: where the heading changes (pieces split at speed phases run on straight).
  const pts: Pose[] = [pose];
  for (const seg of route) {
    if (seg.length <= 0) continue;
    const n = pts.length;
    if (n >= 2) {
      const a = pts[n - 2], b = pts[n - 1], c = seg.end;
      const cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
      const dot = (b.x - a.x) * (c.x - b.x) + (b.y - a.y) * (c.y - b.y);
      if (Math.abs(cross) < 1e-9 && dot > 0) {
        pts[n - 1] = seg.end;
        continue;
      }
    }
    pts.push(seg.end);
  }
  if (pts.length < 3) return null;
  const to = pts[2], len = Math.hypot(to.x - pose.x, to.y - pose.y);
  if (len < 1e-9) return null;
  const first = lineSegment({ x: pose.x, y: pose.y, heading: Math.atan2(to.y - pose.y, to.x - pose.x) }, len);
  if (segmentHitsBlocked(layer, first, unit.footprint)) return null;
  const segs = [first];
  for (let i = 3; i < pts.length; i++) {
    const a = pts[i - 1], b = pts[i];
    segs.push(
      lineSegment(
        { x: a.x, y: a.y, heading: Math.atan2(b.y - a.y, b.x - a.x) },
        Math.hypot(b.x - a.x, b.y - a.y),
      ),
    );
  }
  return profiled(segs, unit);
}
