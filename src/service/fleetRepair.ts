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
  return retryAmong(sched, time, changed);
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
  return retryAmong(sched, time, sched.settle(time, dirty, false));
}

/** Scheduling tries a repair's retry may make per unit it changed (bounds a cascade's cost). */
const RETRY_TRIES = 3;

/**
 * Retries the units the repair left waiting (`changed`), in order of addition, pass after pass while one starts:
 * a unit stopped by one halted later in the same repair (still standing where it stopped when it was tried) can
 * go once that one has its new trajectory. At most RETRY_TRIES tries per changed unit. Returns `changed` with
 * the units that started (and any bumped) added.
 */
function retryAmong(sched: FleetScheduler, time: number, changed: Set<string>): Set<string> {
  let tries = RETRY_TRIES * changed.size;
  for (let progress = true; progress && tries > 0;) {
    progress = false;
    const waiting = [...changed].map((id) => sched.units.get(id)).filter((w): w is FleetUnitState =>
      w !== undefined && w.status === "waiting" && w.path.length > 0 && w.traj.segments.length === 0
    ).sort((a, b) => a.order - b.order);
    for (const w of waiting) {
      if (tries-- <= 0) break;
      const pose = w.traj.startPose;
      const before = w.traj;
      sched.table.remove(w.id);
      if (sched.scheduleAhead(w, time, pose)) {
        w.status = "moving";
        w.message = "";
        for (const id of sched.takeBumped()) changed.add(id);
        progress = true;
      } else sched.commit(w, before);
    }
  }
  return changed;
}
