/**
 * Re-timing a set of late units for the detour pass (fleetDetour.ts): each in turn takes the earliest-arriving of
 * its alternatives against the reservation table, and the set is kept only when the makespan it promises is
 * shorter; one at a time, all stood up at their starts first, or (the polish round) all lifted from the table.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { Reservation } from "../motion/reservations.ts";
import { standing, type Trajectory, trajectoryEnd } from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import { SippRouter } from "./fleetSipp.ts";
import type { PlannedStop } from "./fleetWaits.ts";

/** A variant must arrive at least this much earlier (seconds) to replace the current trajectory. */
const GAIN = 0.05;

/** Sum of segment durations. */
export function duration(segs: readonly Segment[]): number {
  let d = 0;
  for (const s of segs) d += s.duration ?? 0;
  return d;
}

/** The reservation of `traj` for unit `u` (as the scheduler makes it, for a check against the table). */
export function reservation(u: FleetUnitState, traj: Trajectory): Reservation {
  return {
    id: u.id,
    traj,
    radius: u.unit.boundingRadius,
    speed: u.unit.maxSpeed,
    deceleration: u.unit.deceleration,
  };
}

/**
 * The makespan `units` promise: the latest arrival, and for a unit left standing with its path (retried after
 * the others, so it sets out about when the last of them arrives) that arrival plus its driving time.
 */
function makespan(units: readonly FleetUnitState[]): number {
  let last = 0, after = 0;
  for (const u of units) {
    if (u.traj.segments.length === 0) after = Math.max(after, duration(u.path));
    else last = Math.max(last, trajectoryEnd(u.traj));
  }
  return last + after;
}

/** What a round may change of a unit (to try a round both ways and keep one). */
type UnitSnap = Pick<FleetUnitState, "traj" | "path" | "status" | "message" | "failed">;

/** The fields a round may change, per unit. */
function snapshot(units: readonly FleetUnitState[]): UnitSnap[] {
  return units.map((u) => ({
    traj: u.traj,
    path: u.path,
    status: u.status,
    message: u.message,
    failed: u.failed,
  }));
}

/** Puts `units` back as `snaps` has them, in the table too. */
function restore(sched: FleetScheduler, units: readonly FleetUnitState[], snaps: readonly UnitSnap[]): void {
  units.forEach((u, i) => {
    sched.table.remove(u.id);
    Object.assign(u, snaps[i]);
    sched.commit(u, u.traj);
  });
}

/** A round's outcome to compare by: units left standing, then the makespan the late units promise. */
function score(units: readonly FleetUnitState[]): [number, number] {
  return [units.filter((u) => u.traj.segments.length === 0).length, makespan(units)];
}

/**
 * A round of {@link resettle} one at a time, and where `both` (a small round: fleetDetour.ts BOTH_MAX_UNITS) stood
 * up first as well from the same state, keeping whichever promises the shorter makespan (fewer left standing
 * first). Either way alone loses somewhere: circle 50 in process came to 1.33 one at a time and 1.32 stood up,
 * but rounds of one after rounds of the other (the way picked by the time left) to 1.48; the 20-unit e2e crossing
 * keeps within 1.3x stood up only. `router` makes a fresh SIPP router (its occupancy follows the table as a run
 * leaves it).
 */
export function resettleBest(
  sched: FleetScheduler,
  time: number,
  late: readonly { u: FleetUnitState; pose: Pose }[],
  variants: readonly Segment[][][],
  changed: Set<string>,
  detoured: Set<string>,
  spent: () => boolean,
  router: () => SippRouter | undefined,
  both: boolean,
): boolean {
  if (!both) return resettle(sched, time, late, variants, changed, detoured, spent, router(), false);
  const units = late.map((l) => l.u);
  const base = snapshot(units);
  const oneChanged = new Set<string>(), oneDetoured = new Set<string>();
  const oneOk = resettle(sched, time, late, variants, oneChanged, oneDetoured, spent, router(), false);
  if (spent()) {
    oneChanged.forEach((id) => changed.add(id));
    oneDetoured.forEach((id) => detoured.add(id));
    return oneOk;
  }
  const oneScore = score(units), oneSnap = snapshot(units);
  restore(sched, units, base);
  const upChanged = new Set<string>(), upDetoured = new Set<string>();
  const upOk = resettle(sched, time, late, variants, upChanged, upDetoured, spent, router(), true);
  const upScore = score(units);
  const upWins = upOk &&
    (!oneOk || upScore[0] < oneScore[0] || (upScore[0] === oneScore[0] && upScore[1] < oneScore[1]));
  if (!upWins && oneOk) restore(sched, units, oneSnap);
  const [c, d] = upWins ? [upChanged, upDetoured] : [oneChanged, oneDetoured];
  c.forEach((id) => changed.add(id));
  d.forEach((id) => detoured.add(id));
  return upWins || oneOk;
}

/**
 * Prioritised re-timing of the late units with their alternatives in the order given (latest first): each takes
 * the earliest-arriving timing of its path or a variant against the whole table when it arrives GAIN earlier than
 * its trajectory from before (where that is still clear), else keeps that. Three ways:
 * - one at a time (`standUp` false): the units re-timed before it on their new trajectories, the rest still on
 *   theirs; the table is conflict-free after every unit, so once `spent` says the budget is gone the rest simply
 *   keep theirs and the round's gains so far can be kept;
 * - all stood at their starts first (`standUp`): the first re-timed may drive where the others' old trajectories
 *   were; once the budget is gone the rest keep theirs where still clear (one check each), and where one is not,
 *   the round is put back (timing its path again had run a 300 ms pass to 739 ms, circle 100 over gRPC);
 * - all lifted from the table first (`standUp` "lift", the polish round): as stood up, but they are nowhere until
 *   re-timed, so the first goes as if the others were not there.
 * Measured in process (circles 30-100, mean makespan / slowest solo, load ~8): at a 600 ms budget 1.41 one at a
 * time against 1.99 stood up, at 300 ms 1.91 against 2.05, unbounded 1.33 both; the 20-unit e2e crossing (ample
 * budget) keeps within 1.3x stood up only (1.302 one at a time). Hence both where time allows (resettleBest).
 * When the makespan they promise (see makespan) is not shorter than before, more of them are left standing, or one
 * left standing is in the way of another unit, everything is put back. Returns whether anything changed.
 */
export function resettle(
  sched: FleetScheduler,
  time: number,
  late: readonly { u: FleetUnitState; pose: Pose }[],
  variants: readonly Segment[][][],
  changed: Set<string>,
  detoured: Set<string>,
  spent: () => boolean = () => false,
  sipp?: SippRouter,
  standUp: boolean | "lift" = false,
): boolean {
  const units = late.map((l) => l.u);
  const saved = units.map((u) => ({ traj: u.traj, path: u.path, status: u.status, message: u.message }));
  const before = makespan(units), waitingBefore = units.filter((u) => u.traj.segments.length === 0).length;
  let outOfTime = false, hopeless = false, standingNow = 0;
  for (const l of standUp ? late : []) {
    sched.table.remove(l.u.id);
    if (standUp === "lift") continue;
    sched.commit(l.u, standing(l.pose, time));
    sipp?.record(l.u);
  }
  for (const [i, l] of late.entries()) {
    const u = l.u;
    sched.table.remove(u.id);
    const old = saved[i];
    /** Its trajectory from before, if it still keeps clear of everything committed since. */
    const keep = () =>
      old.traj.segments.length > 0 && sched.table.firstConflict(reservation(u, old.traj), time) === null;
    // Its trajectory from before (clear: every unit re-timed since was checked against it) is the one to beat:
    // timings that cannot arrive GAIN earlier stop early (timing's `latest`: no start delay arriving later is tried).
    let best: Trajectory | null = null, bestPath = u.path, bestEnd = Infinity;
    if (standUp ? keep() : old.traj.segments.length > 0) {
      [best, bestPath, bestEnd] = [old.traj, old.path, trajectoryEnd(old.traj)];
    }
    outOfTime ||= spent();
    // Out of time: it and the rest keep their trajectories (each re-timed unit was checked against them).
    if (outOfTime && !standUp) {
      sched.commit(u, old.traj);
      break;
    }
    if (outOfTime && !best) {
      hopeless = true;
      break;
    }
    // One at a time, a unit SIPP routes without via points (the first round) skips re-timing its own path: it has
    // that timing already, SIPP's route is the candidate that wins (in process, circles 30-100: 207 of ~260 units,
    // own path 15), and at a 300 ms budget the time saved re-timed more units (mean makespan / slowest solo 1.47
    // against 1.81, load ~8; 600 ms 1.41 against 1.43; unbounded 1.33 both).
    const own = standUp || !(sipp && SippRouter.applies(u) && variants[i].length === 0);
    const paths = outOfTime
      ? []
      : [...(own ? [u.path] : []), ...[...variants[i]].sort((a, b) => duration(a) - duration(b))];
    const tryPath = (path: Segment[], planned?: PlannedStop[]) => {
      const traj = sched.timing(u, path, time, l.pose, bestEnd - GAIN, planned);
      if (traj && trajectoryEnd(traj) < bestEnd - GAIN) {
        [best, bestPath, bestEnd] = [traj, path, trajectoryEnd(traj)];
      }
    };
    for (const [k, path] of paths.entries()) {
      // A timing can take tens of milliseconds on a busy machine: the budget is watched between them too.
      if (k > 0 && (outOfTime ||= spent())) break;
      tryPath(path);
    }
    // Then a route searched in space and time against the table as it is now (the units re-timed before this one
    // on their new trajectories, the rest on theirs), only if it may beat the best so far: proposed geometry, timed
    // like the others.
    if (sipp && !(outOfTime ||= spent())) {
      const got = sipp.routes(u, l.pose, bestEnd - GAIN);
      for (const path of got.paths) tryPath(path);
      // And its geometry with SIPP's own waits as stops (the scheduler's timing follows them, checking each leg).
      if (got.waits && !(outOfTime ||= spent())) tryPath(got.waits.path, got.waits.stops);
    }
    u.path = bestPath;
    const still = standing(l.pose, time);
    // Left standing at its start for good (only a unit that stood before: the others keep their trajectories):
    // another unit may have been timed to pass there after it would have left (when every late unit was first
    // stood at its start, circle 100 left c78 standing where c27, outside the round, drove past 0.023 deep).
    // Nothing re-times the others here, so such a round is not kept.
    const blocks = !best && sched.table.firstConflict(reservation(u, still), time) !== null;
    sched.commit(u, best ?? still);
    sipp?.record(u);
    // The round cannot be kept once one unit arrives no earlier than the makespan before, or more stand than
    // before: the rest are not re-timed (a round that does not help costs less).
    if (!best) standingNow++;
    if ((best && bestEnd >= before - GAIN) || standingNow > waitingBefore || blocks) {
      hopeless = true;
      break;
    }
  }
  const after = makespan(units);
  // Never more units left standing (they are retried after everyone, at times no estimate knows).
  const better = !hopeless && after < before - GAIN &&
    units.filter((u) => u.traj.segments.length === 0).length <= waitingBefore;
  units.forEach((u, i) => {
    if (!better) {
      sched.table.remove(u.id);
      Object.assign(u, saved[i]);
      sched.commit(u, u.traj);
      return;
    }
    if (u.traj === saved[i].traj) return;
    if (u.path !== saved[i].path) detoured.add(u.id);
    if (u.traj.segments.length > 0) {
      u.status = "moving";
      u.message = "";
    } else {
      u.status = "waiting";
      u.message = "no start time keeps it clear of the other units; it stands and is retried after changes";
    }
    u.failed = undefined;
    changed.add(u.id);
  });
  return better;
}
