/**
 * Delay propagation (the idea behind executing a multi-agent plan by its action-dependency graph: keep the
 * plan's order of passage, shift the times). A late unit L is Δ behind its schedule: its new trajectory is its
 * old one from the point it reported on, Δ later. The units it now meets must pass after it as before, and so on
 * along the plan's order of passage. Three ways, tried in turn by the caller (fleetRepair.ts):
 * - "uniform" (shiftUniform): every unit whose committed trajectory conflicts with L's joins the shifted set S
 *   and waits where its trajectory has it at `now` for Δ, then drives the rest as before, Δ later; units that
 *   conflict with a member join in turn. After now + Δ the members are a time-translation of a schedule that was
 *   conflict-free, so the closure leaves everyone else clear by construction. It fails on what translation cannot
 *   vouch for (L driving over [now, now + Δ] while a member stands; two members meeting) and on units whose future
 *   cannot be shifted this way (standing for good, braking from a halt, moving at `now`: a wait inserted there
 *   would stop it dead, harder than it can brake). Cheap; in a fleet mostly standing at the report it holds.
 * - "late" and "eager" (fleetPassage.ts): a delay per unit, raised to a fixpoint on the reservation table; moving
 *   units slow down along their own paths within their limits (fleetSlowDown.ts), so a fleet driving at the
 *   report keeps its order of passage too.
 * Δ is rounded up to whole reservation samples so that a translation is exact at the table's samples (L then
 * stands at its reported pose for less than a sample first). Every trajectory is committed through the
 * scheduler and every check is the reservation table's own. Synchronous, no I/O.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import {
  progressAt,
  type Trajectory,
  trajectoryEnd,
  trajectoryPose,
  trajectoryPoseInto,
  waitSegment,
} from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import { keepPassage, type PassageResult } from "./fleetPassage.ts";
import { cutAt } from "./fleetSlowDown.ts";

/**
 * The fleet time at which `traj` had the unit at `at` (the nearest sample from its start up to `time`, as the
 * session found the reported point; fleetSession.ts #progress).
 */
export function reportedTime(traj: Trajectory, at: Pose, time: number, dt: number): number {
  let best = Infinity, bestT = traj.startTime;
  for (let t = traj.startTime; t <= time + 1e-9; t += dt) {
    const p = trajectoryPose(traj, t);
    const d = Math.hypot(p.x - at.x, p.y - at.y);
    if (d < best) [best, bestT] = [d, t];
  }
  return bestT;
}

/**
 * `traj` with the unit held at its pose at `time` for `delta` seconds: the same until `time`, then a wait, then
 * the rest as before, `delta` later. Null when it has no motion left after `time` (it stands for good).
 */
export function shiftedAt(traj: Trajectory, time: number, delta: number): Trajectory | null {
  if (traj.segments.length === 0) return null;
  if (time <= traj.startTime) return { ...traj, startTime: traj.startTime + delta };
  const { head, tail } = cutAt(traj, time);
  if (tail.length === 0) return null;
  const wait = waitSegment(trajectoryPose(traj, time), delta);
  return { startTime: traj.startTime, startPose: traj.startPose, segments: [...head, wait, ...tail] };
}

/**
 * Units shifted at most (or this share of the fleet, if more) before the propagation is given up: each costs a
 * walk of its whole trajectory through the reservation table (~5-15 ms for a warehouse robot's), so the whole
 * fleet would cost seconds; the caller's ways are cheaper then.
 */
const MIN_SHIFTED = 20;
const SHIFTED_SHARE = 0.1;

/**
 * Ids of units with motion left whose poses at `time` the late unit's trajectory `late` passes over within
 * [time, time + delta]. Such a unit may keep its trajectory (a follower the report puts ahead of the late unit
 * stays ahead), but shifted it would stand there while the late unit drives through: the propagation fails as
 * soon as one joins (units standing for good are the table's to find). Cheap: a few dozen samples against
 * every unit.
 */
function standsInWay(
  sched: FleetScheduler,
  u: FleetUnitState,
  late: Trajectory,
  time: number,
  delta: number,
): Set<string> {
  const dt = sched.table.dt;
  const others: { id: string; x: number; y: number; r: number }[] = [];
  for (const o of sched.units.values()) {
    if (o === u || o.traj.segments.length === 0 || trajectoryEnd(o.traj) <= time) continue;
    const p = trajectoryPose(o.traj, time);
    others.push({ id: o.id, x: p.x, y: p.y, r: o.unit.boundingRadius + u.unit.boundingRadius });
  }
  const out = new Set<string>();
  const p = { x: 0, y: 0, heading: 0 };
  for (let t = time; t <= time + delta + dt / 2; t += dt / 2) {
    trajectoryPoseInto(late, t, p);
    for (const o of others) if ((o.x - p.x) ** 2 + (o.y - p.y) ** 2 < o.r * o.r) out.add(o.id);
  }
  return out;
}

/** Whether `u` may wait at its pose at `time` as it is: at rest then, or a profile that stops and starts at once. */
function restsAt(u: FleetUnitState, time: number): boolean {
  if (u.unit.deceleration === 0 && u.unit.acceleration === 0) return true;
  const traj = u.traj;
  if (traj.segments.length === 0 || time <= traj.startTime || time >= trajectoryEnd(traj)) return true;
  const { index, into } = progressAt(traj, time);
  const seg = traj.segments[index];
  if (!seg) return true;
  const D = seg.duration ?? 0, v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0;
  return Math.abs(D > 0 ? v0 + ((v1 - v0) * into) / D : v0) < 1e-9;
}

/**
 * The first way (the propagation as it was before delays per unit): the closure of units conflicting with the
 * late unit's trajectory all shifted by its delay, at once where they stand; given up as soon as one is moving
 * at `time`, two members meet, or the closure grows past MIN_SHIFTED. Cheap, and exact where it holds (a time
 * translation of a conflict-free plan), so it is tried first.
 */
function shiftUniform(
  sched: FleetScheduler,
  u: FleetUnitState,
  late: Trajectory,
  time: number,
  delta: number,
): ShiftResult {
  const inWay = standsInWay(sched, u, late, time, delta);
  const most = Math.max(MIN_SHIFTED, Math.ceil(SHIFTED_SHARE * sched.units.size));
  const members = new Set([u.id]);
  const queue = [u.id];
  while (queue.length > 0) {
    const id = queue.pop()!;
    for (const other of sched.table.conflictsWith(sched.table.get(id)!, time)) {
      if (members.has(other)) return { ok: false, reason: `${id} meets shifted ${other}` };
      if (inWay.has(other)) {
        return { ok: false, reason: `${other} would stand in its way while it catches up` };
      }
      const o = sched.units.get(other)!;
      // A wait inserted while it moves would stop it dead and restart it at speed: only units at rest then (or
      // that stop at once by their profile) are shifted; for the others the caller's ways brake.
      if (!restsAt(o, time)) {
        return { ok: false, reason: `${other} is moving at ${time} (it cannot stop at once)` };
      }
      const moved = o.traj !== o.brake ? shiftedAt(o.traj, time, delta) : null;
      if (!moved) return { ok: false, reason: `${other} cannot be shifted` };
      sched.commit(o, moved);
      members.add(other);
      if (members.size > most) return { ok: false, reason: `more than ${most} units to shift` };
      queue.push(other);
    }
  }
  return { ok: true, changed: members };
}

/** What a propagation did: the ids it shifted (the late unit first), or why it failed. */
export type ShiftResult = PassageResult;

/**
 * How a delay is propagated: "uniform", everyone by the late unit's delay where they stand (shiftUniform);
 * "late" and "eager", a delay per unit (fleetPassage.ts), slowing down as late as may be or at once if that does.
 */
export type PropagationWay = "uniform" | "late" | "eager";

/**
 * Propagates late unit `u`'s delay: `old` is its trajectory before the report, which had it at `at` at fleet time
 * `from`; now is `time`. Commits the shifted trajectories (the caller rolls them back when it fails).
 */
export function propagateDelay(
  sched: FleetScheduler,
  u: FleetUnitState,
  old: Trajectory,
  at: Pose,
  from: number,
  time: number,
  way: PropagationWay = "uniform",
): ShiftResult {
  const dt = sched.table.dt;
  const delta = Math.ceil((time - from) / dt - 1e-9) * dt;
  const tail = cutAt(old, from).tail;
  if (tail.length === 0 || delta <= 0) return { ok: false, reason: "nothing left to shift" };
  const start = tail[0].start;
  if (Math.hypot(start.x - at.x, start.y - at.y) > 1e-6) {
    return { ok: false, reason: "not on its trajectory" };
  }
  const late: Trajectory = { startTime: from + delta, startPose: at, segments: tail };
  sched.commit(u, late);
  const kept = way === "uniform"
    ? shiftUniform(sched, u, late, time, delta)
    : keepPassage(sched, { u, old, from, late, t0: from + delta, delay: delta }, time, way === "eager");
  if (!kept.ok) return kept;
  u.status = "moving";
  u.message = "";
  return kept;
}
