/**
 * The fleet's repair after one unit reports a delay (behind its schedule, on its path), conflict-driven: first
 * the late unit alone is rescheduled around everyone else's trajectories (a start delay and waits along its
 * path). When that fails, it drives the rest of its path at once and only the units whose trajectories conflict
 * with that stop where they are and are rescheduled after it (with waits along their paths); the rest of the
 * fleet keeps its trajectories. (Tried and dropped: a timing that ignores the few units that stopped it, and
 * trying several ways and keeping the one that leaves fewest units waiting — 0.5-5 s for 300 robots, and in a
 * one-tile aisle grid every way sometimes cascades.) A unit with no path left or on a refuge's legs stands where
 * it is and the units whose reservations would hit it are rescheduled (the first way). Synchronous, no I/O.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";

/**
 * Repairs the schedule for late unit `u`, standing at `at` on its path at `time` with `u.path` what is left of it;
 * returns the ids whose trajectories changed.
 */
export function repairLate(sched: FleetScheduler, u: FleetUnitState, at: Pose, time: number): Set<string> {
  sched.table.remove(u.id);
  if (u.path.length > 0 && u.legOne === undefined && sched.scheduleAhead(u, time, at)) {
    u.status = "moving";
    u.message = "";
    return new Set([u.id, ...sched.takeBumped()]);
  }
  if (u.path.length === 0 || u.legOne !== undefined) return stand(sched, u, at, time);
  return driveOn(sched, u, at, time);
}

/**
 * The late unit drives the rest of its path at once; the units its new trajectory conflicts with stop where they
 * are and are rescheduled after it (with waits along their paths).
 */
function driveOn(sched: FleetScheduler, u: FleetUnitState, at: Pose, time: number): Set<string> {
  sched.commit(u, { startTime: time, startPose: at, segments: u.path });
  u.status = "moving";
  u.message = "";
  const dirty = new Set<string>();
  for (const id of sched.table.conflictsWith(sched.table.get(u.id)!, time)) {
    const o = sched.units.get(id)!;
    sched.haltAt(o, time);
    sched.commit(o, o.traj);
    dirty.add(id);
  }
  const changed = sched.settle(time, dirty, false);
  changed.add(u.id);
  return changed;
}

/** The late unit stands where it is; units whose reservations would hit it stop and are rescheduled. */
function stand(sched: FleetScheduler, u: FleetUnitState, at: Pose, time: number): Set<string> {
  sched.commit(u, { startTime: time, startPose: at, segments: [] });
  const dirty = new Set([u.id]);
  for (const id of sched.conflictsOfStanding(u, at, time)) {
    const o = sched.units.get(id)!;
    sched.haltAt(o, time);
    sched.commit(o, o.traj);
    dirty.add(id);
  }
  return sched.settle(time, dirty, false);
}
