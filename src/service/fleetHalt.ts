/**
 * Halting a fleet unit (fleetScheduler.ts): a unit moving when it is halted brakes along its own path at its
 * deceleration (motion/braking.ts) and its path becomes what is left after the stop; as a last resort a braking
 * becomes a stop at once (said in the unit's message); and what is left of a unit's path from a time. These act
 * on one unit's state and touch no reservation: the scheduler commits and counts. Pure, no I/O.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { brakeFrom, type Braking } from "../motion/braking.ts";
import { standing, trajectoryPose } from "../motion/trajectory.ts";
import { profiled, remainingPath } from "../motion/trajectoryRest.ts";
import { drivenPath, extendTravelled } from "./fleetBackUp.ts";
import type { FleetUnitState } from "./fleetUnitState.ts";

/**
 * Stops a unit that its trajectory has moving at `time`: it brakes along its own path at its deceleration and
 * stands where it stops (`traj` and `brake` become that braking); `path` becomes the geometry after that
 * (re-profiled from rest). A unit at rest then, or with deceleration 0, stands where it is (`traj` standing
 * from `time`). When the braking would touch a tile `blocked` says is blocked, it is stopped at once instead and
 * the braking is returned as `refused`. A unit still braking from an earlier halt brakes on to the same stop and
 * keeps its path after it. Returns where it stands.
 */
export function brakeToHalt(
  u: FleetUnitState,
  time: number,
  blocked?: (seg: Segment) => boolean,
): { pose: Pose; refused: Braking | null } {
  let refused: Braking | null = null;
  // Still braking from an earlier halt: its path starts where that braking stops, so what is left of the braking
  // goes in front of the path (taken for the whole rest, the path after the stop was lost: the unit stood there).
  const again = u.brake !== undefined && u.traj === u.brake;
  let b = u.traj.segments.length > 0 ? brakeFrom(u.traj, time, u.unit.deceleration) : null;
  if (b && blocked && b.traj.segments.some(blocked)) [refused, b] = [b, null];
  if (u.traj.segments.length > 0) u.travelled = extendTravelled(u.travelled, drivenPath(u.traj, time));
  if (b) {
    u.travelled = extendTravelled(u.travelled, drivenPath(b.traj, b.stopTime));
    const rest = b.rest.length > 0 ? profiled(b.rest, u.unit) : [];
    if (again) prepend(u, rest);
    else setRest(u, rest);
    u.traj = u.brake = b.traj;
    return { pose: b.stop, refused };
  }
  const pose = trajectoryPose(u.traj, time);
  if (again) prepend(u, remainingPath(u.traj, time, u.unit));
  else restAt(u, time);
  u.traj = standing(pose, time);
  return { pose, refused };
}

/**
 * Turns a unit braking from a halt at `time` into a stop at once where it is at `time` (harder than its
 * deceleration allows: the last resort when its braking meets a unit already stopped); `path` becomes the
 * rest of the braking, then what came after it. Sets `hardStop` (said in its next message). Returns its pose.
 */
export function hardStop(u: FleetUnitState, time: number): Pose {
  const brake = u.brake!;
  const pose = trajectoryPose(brake, time);
  prepend(u, remainingPath(brake, time, u.unit));
  u.brake = undefined;
  u.traj = standing(pose, time);
  u.hardStop = `stopped at once at (${pose.x.toFixed(2)}, ${pose.y.toFixed(2)}) at t=${time.toFixed(2)}, ` +
    `harder than its deceleration ${u.unit.deceleration} allows: braking would have met a unit already ` +
    `stopped (a fleet option, braking_envelopes, keeps room to brake at every moment)`;
  return pose;
}

/**
 * Sets `path` to what is left to drive from the unit's pose at `time`: the rest of its trajectory (and, for a
 * unit parked on the way to a refuge, the leg after the refuge). A standing unit's path is already that, and
 * so is a unit's braking from a halt (its path starts where the braking ends).
 */
export function restAt(u: FleetUnitState, time: number): void {
  if (u.traj.segments.length === 0 || u.traj === u.brake) return;
  setRest(u, remainingPath(u.traj, time, u.unit));
}

/** `path` := `rest`, then (for a unit on the way to a refuge) the leg after the refuge. */
function setRest(u: FleetUnitState, rest: Segment[]): void {
  if (u.legOne !== undefined) {
    const legTwo = u.path.slice(u.legOne);
    u.path = [...rest, ...legTwo];
    u.legOne = rest.length > 0 ? rest.length : undefined;
  } else u.path = rest;
}

/** `path` := `rest`, then the path (a unit on the way to a refuge: its first leg grows by `rest`). */
function prepend(u: FleetUnitState, rest: Segment[]): void {
  u.path = [...rest, ...u.path];
  if (u.legOne !== undefined) u.legOne += rest.length;
}
