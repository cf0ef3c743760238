/**
 * The fleet's repair after one unit reports a delay (behind its schedule, on its path), conflict-driven: first
 * the late unit alone is rescheduled around everyone else's trajectories (a start delay and waits along its
 * path). When that fails, the delay is propagated (fleetShift.ts: the late unit's old trajectory shifted by the
 * delay and the units it meets, transitively, by the same delay, where nobody moves at the report). When that
 * fails too, a first round of the ways below looks for one that leaves nobody waiting; then the delay is
 * propagated with a delay per unit (PER_UNIT_WAYS: the plan's order of passage kept, moving units slowing down on
 * their paths; nobody halts). When that fails too, it drives the rest of its path (at once, or after a short wait) and only the units
 * whose trajectories conflict with that stop where they are and are rescheduled after it (with waits along
 * their paths); the rest of the fleet keeps its trajectories. Units the repair left waiting are then retried
 * among themselves (one stopped by a unit halted later in the same repair can go once that one has its new
 * trajectory).
 *
 * In a one-tile aisle grid one such way sometimes cascades: a halted unit that finds no start stands for good in
 * an aisle, the units that would pass it halt in turn, and two thirds of a 300-robot fleet end up waiting. Which
 * way cascades is chaotic (the same delay repaired with the late unit starting 0, 2 or 4 s later cascades or
 * not), so the ways are tried in turn (WAYS), each given up as soon as more than a few units find no start
 * (MAX_STUCK, the scheduler's `settle` stops there) and rolled back; the first that leaves nobody waiting is
 * kept, else the one that leaves fewest; when all are given up, once more with a higher limit. (Tried and
 * dropped earlier: trying several ways in full and keeping the best, 0.5-5 s for 300 robots: giving a cascade up
 * early is what makes it affordable.) When every way cascades even so, the first is run in full (conflict-free,
 * many units waiting). A unit with no path left or on a refuge's legs stands where it is and the units whose
 * reservations would hit it are rescheduled. Synchronous, no I/O.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import type { Trajectory } from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import type { PassLayer } from "../maps/grid.ts";
import { breakStandoffs, STANDOFF_MS } from "./fleetDeadlock.ts";
import { propagateDelay, type PropagationWay, reportedTime } from "./fleetShift.ts";
import { backingPaths, drivenPath, extendTravelled, type OtherUnit } from "./fleetBackUp.ts";

/**
 * The delay propagations with a delay per unit (fleetShift.ts), tried after the uniform shift and the ways' first
 * round: slowing down as late as may be (fewest units changed), then at once where that does (in the detoured
 * warehouse each settles some late units the other gives up: which order of meetings ratchets delays up is
 * chaotic).
 */
const PER_UNIT_WAYS: readonly PropagationWay[] = ["late", "eager"];

/** The ways tried in turn: the late unit drives on after this many seconds, or ("stand") stands where it is. */
const WAYS: readonly (number | "stand")[] = [0, "stand", 2, 4, 8];

/**
 * Units of a way that may find no start before the way is given up as a cascade (or this share of the fleet, if
 * more); when every way is given up, they are all tried again with ESCALATE times the limit. A cascade in the
 * warehouse ends near 200 of 300 robots waiting, so even the second limit gives it up early; a single limit of 6
 * left a 100-robot delay over gRPC with no way finished (44 robots waiting after the fallback), one of 12 found
 * a way leaving none.
 */
const MAX_STUCK = 6;
const MAX_STUCK_SHARE = 0.02;
const ESCALATE = 4;

/**
 * The first round's limit, below MAX_STUCK: a way that cascades mostly shows it within the first few units that
 * find no start, and each such unit costs a full search of start delays (refuges, backing up); so every way is
 * first tried with this limit, for one that leaves nobody waiting, before the rounds above.
 */
const FIRST_STUCK = 2;

/**
 * Repairs the schedule for late unit `u`, standing at `at` on its path at `time` with `u.path` what is left of it;
 * returns the ids whose trajectories changed. `propagate` false skips the delay propagation (the tests' and
 * benches' peer). With `layer` (a unit's map layer), standoffs the repair leaves among waiting units are broken
 * (fleetDeadlock.ts, within STANDOFF_MS; `memo`: its units that found no way out, and when).
 */
export function repairLate(
  sched: FleetScheduler,
  u: FleetUnitState,
  at: Pose,
  time: number,
  propagate = true,
  layer?: (u: FleetUnitState) => PassLayer | null,
  memo?: Map<string, number>,
): Set<string> {
  const changed = repairWays(sched, u, at, time, propagate);
  // A way may end in a standoff (waiting units each standing in the other's way): break it (fleetDeadlock.ts).
  if (layer) breakStandoffs(sched, time, layer, changed, STANDOFF_MS, memo);
  return changed;
}

/** {@link repairLate}'s ways, tried in turn (see the module doc). */
function repairWays(
  sched: FleetScheduler,
  u: FleetUnitState,
  at: Pose,
  time: number,
  propagate: boolean,
): Set<string> {
  const old = u.traj;
  sched.table.remove(u.id);
  if (u.path.length > 0 && u.legOne === undefined && sched.scheduleAhead(u, time, at)) {
    u.status = "moving";
    u.message = "";
    return new Set([u.id, ...sched.takeBumped()]);
  }
  const first = Math.max(MAX_STUCK, Math.ceil(MAX_STUCK_SHARE * sched.units.size));
  const ways = u.path.length === 0 || u.legOne !== undefined ? ["stand" as const] : WAYS;
  const before = snapshot(sched);
  // Keep everyone's order of passage (fleetShift.ts): nobody halts, so it never cascades. The uniform shift
  // first (cheap); the delays per unit after the ways' first round, unless a way of it left nobody waiting (it
  // may halt a moving unit, which brakes and sets off again: in the timing-only warehouse-300 fleet it changes
  // 6 units where the delays per unit change 50-103 and end later; where halts strand units, as in a fleet dense
  // in time, no first-round way leaves nobody waiting and the delays per unit run).
  const shifts = propagate && ways === WAYS && old !== u.brake;
  const from = shifts ? reportedTime(old, at, time, sched.table.dt) : time;
  const shift = (list: readonly PropagationWay[]): Set<string> | null => {
    for (const way of list) {
      const shifted = propagateDelay(sched, u, old, at, from, time, way);
      if (shifted.ok) return shifted.changed;
      restore(sched, before);
      if (sched.table.get(u.id)) sched.table.remove(u.id);
    }
    return null;
  };
  const uniform = shifts ? shift(["uniform"]) : null;
  if (uniform) return uniform;
  let best: { waiting: number; changed: Set<string>; state: Snapshot } | null = null;
  for (const limit of [FIRST_STUCK, first, first * ESCALATE]) {
    for (const way of ways) {
      const changed = way === "stand"
        ? stand(sched, u, at, time, limit)
        : driveOn(sched, u, at, time, way, limit);
      if (!sched.stopped) {
        const waiting = [...changed].filter((id) => sched.units.get(id)?.status === "waiting").length;
        if (waiting === 0) {
          return changed;
        }
        // The first round only looks for a way that leaves nobody waiting (its limit is a probe, not a verdict).
        if (limit !== FIRST_STUCK && (!best || waiting < best.waiting)) {
          best = { waiting, changed, state: snapshot(sched) };
        }
      }
      restore(sched, before);
    }
    if (best) {
      restore(sched, best.state);
      return best.changed;
    }
    if (shifts && limit === FIRST_STUCK) {
      const kept = shift(PER_UNIT_WAYS);
      if (kept) return kept;
      // Kept as the best so far (one unit waiting): only a later way leaving nobody waiting beats it.
      const backed = backUpLate(sched, u, old, from, at, time);
      if (backed) best = { waiting: u.status === "waiting" ? 1 : 0, changed: backed, state: snapshot(sched) };
      if (best?.waiting === 0) return best.changed;
      restore(sched, before);
    }
  }
  // Every way cascaded: the first in full (it ends conflict-free, with many units waiting).
  return ways[0] === "stand"
    ? stand(sched, u, at, time, Infinity)
    : driveOn(sched, u, at, time, ways[0], Infinity);
}

/**
 * The late unit backs up over the ground it drove (fleetBackUp.ts) and goes on once the way is clear, or parks
 * where it backed to (retried after changes), changing nobody else. For a late unit met head-on by one already
 * past the place they were to pass in order (it cannot wait behind, and the late unit standing where it reports
 * blocks a thoroughfare: in the warehouse-300 replay, late unit r45 standing in the two-tile cross aisle halts 18
 * units and cascades to 198 waiting). Null, with the table unchanged, when it cannot.
 */
function backUpLate(
  sched: FleetScheduler,
  u: FleetUnitState,
  old: Trajectory,
  from: number,
  at: Pose,
  time: number,
): Set<string> | null {
  const travelled = extendTravelled(undefined, drivenPath(old, from));
  const end = travelled[travelled.length - 1]?.end;
  if (!end || Math.hypot(end.x - at.x, end.y - at.y) > 1e-6) return null;
  if (sched.table.get(u.id)) sched.table.remove(u.id);
  const others: OtherUnit[] = [];
  for (const o of sched.units.values()) {
    if (o !== u) others.push({ traj: o.traj, path: o.path, radius: o.unit.boundingRadius });
  }
  const saved = u.path;
  for (const way of backingPaths(u.unit, travelled, saved, others)) {
    u.path = way.path;
    u.legOne = way.legOne;
    if (sched.schedule(u, time, at)) {
      u.status = "moving";
      u.message = "backs up a step to let a unit coming head-on pass, then goes on";
      return new Set([u.id]);
    }
    if (sched.park(u, time, at)) {
      u.status = "waiting";
      u.message =
        "backs up a step to let a unit coming head-on pass; goes on when it can (retried after changes)";
      return new Set([u.id]);
    }
  }
  u.path = saved;
  u.legOne = undefined;
  return null;
}

/** What the units' scheduling states were (to roll a way back). */
export type Snapshot = Map<FleetUnitState, SavedState>;

/** Every scheduling field of a unit, the optional ones present (possibly undefined). */
type SavedState = { [K in Exclude<keyof FleetUnitState, "id" | "order" | "unit">]-?: FleetUnitState[K] };

/**
 * Every unit's scheduling state, each field (absent optional ones as undefined, so that a restore clears what a
 * way set): a braking unit rolled back without its `brake` would be taken for one moving on its path (a later
 * halt brakes its braking again and loses the path after the stop), and a stale `hardStop` says in its next
 * message that it was stopped at once when it was not.
 */
export function snapshot(sched: FleetScheduler): Snapshot {
  const out: Snapshot = new Map();
  for (const u of sched.units.values()) {
    const { traj, path, legOne, travelled, brake, hardStop, status, message, failed } = u;
    out.set(u, { traj, path, legOne, travelled, brake, hardStop, status, message, failed });
  }
  return out;
}

/** Puts every unit back as it was in `s` (and its reservation, where the table holds another or none). */
export function restore(sched: FleetScheduler, s: Snapshot): void {
  for (const [u, was] of s) {
    Object.assign(u, was);
    if (sched.table.get(u.id)?.traj !== was.traj) sched.commit(u, was.traj);
  }
}

/**
 * The late unit drives the rest of its path after `wait` seconds; the units its new trajectory conflicts with
 * stop where they are and are rescheduled after it (with waits along their paths).
 */
function driveOn(
  sched: FleetScheduler,
  u: FleetUnitState,
  at: Pose,
  time: number,
  wait: number,
  limit: number,
): Set<string> {
  sched.commit(u, { startTime: time + wait, startPose: at, segments: u.path });
  u.status = "moving";
  u.message = "";
  const dirty = new Set<string>();
  for (const id of sched.table.conflictsWith(sched.table.get(u.id)!, time)) {
    const o = sched.units.get(id)!;
    sched.haltAt(o, time);
    sched.commit(o, o.traj);
    dirty.add(id);
  }
  const changed = sched.settle(time, dirty, false, limit);
  changed.add(u.id);
  return sched.stopped ? changed : retryAmong(sched, time, changed);
}

/** The late unit stands where it is; units whose reservations would hit it stop and are rescheduled. */
function stand(sched: FleetScheduler, u: FleetUnitState, at: Pose, time: number, limit: number): Set<string> {
  sched.commit(u, { startTime: time, startPose: at, segments: [] });
  const dirty = new Set([u.id]);
  for (const id of sched.conflictsOfStanding(u, at, time)) {
    const o = sched.units.get(id)!;
    sched.haltAt(o, time);
    sched.commit(o, o.traj);
    dirty.add(id);
  }
  const changed = sched.settle(time, dirty, false, limit);
  return sched.stopped ? changed : retryAmong(sched, time, changed);
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
