/**
 * Timing a fleet unit's path through a refuge (the article's "yield": step aside, let the others pass, go on):
 * the first leg at once or after a start delay, a wait at the refuge, the second leg; the first timing that keeps
 * clear of every reservation wins. Also the ladder of start delays the scheduler tries (nextDelay). Pure, no I/O.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { Reservation, ReservationTable } from "../motion/reservations.ts";
import { type Trajectory, waitSegment } from "../motion/trajectory.ts";

/** Reservation checks one timing through a refuge may make. */
const VIA_TRIES = 120;

/** The first step of the start delays (and waits at a refuge) tried, seconds. */
export const DELAY_STEP = 0.25;

/**
 * The next delay to try after `d`: steps of DELAY_STEP, growing by 15% of the delay so far, so a wait of a minute
 * costs about 30 tries, not 240 (a unit may wait up to 15% longer than it must); whole samples of `dt`.
 */
export function nextDelay(d: number, dt: number): number {
  // Whole samples: every try of one path then samples it at the same phase (the table walks it once).
  return Math.ceil((d + Math.max(DELAY_STEP, d * 0.15)) / dt - 1e-9) * dt;
}

/**
 * A timing of `path` from `pose` at `time` through the refuge at the end of its first `split` segments: the first
 * leg at once (or after a start delay), then a wait at the refuge long enough for the others to pass, then the
 * second leg, clear of every reservation in `table` (`reserve` makes the unit's reservation of a trajectory).
 * Null when none is found (the caller parks the unit at the refuge or leaves it standing).
 */
export function timeViaRefuge(
  table: ReservationTable,
  reserve: (traj: Trajectory) => Reservation,
  path: Segment[],
  split: number,
  time: number,
  pose: Pose,
): Trajectory | null {
  const legOne = path.slice(0, split), legTwo = path.slice(split);
  const refuge = legOne[legOne.length - 1].end;
  const horizon = table.lastMotion + 2 * table.dt;
  const legOneTime = legOne.reduce((d, s) => d + (s.duration ?? 0), 0);
  // Delays times waits grows as the square of the horizon: a budget of tries bounds a long-running fleet's
  // cost (running out is as safe as finding nothing: the unit parks or stands).
  let tries = VIA_TRIES;
  for (let delay = 0; time + delay <= horizon && tries > 0; delay = nextDelay(delay, table.dt)) {
    for (
      let wait = 0;
      time + delay + legOneTime + wait <= horizon + DELAY_STEP;
      wait = nextDelay(wait, table.dt)
    ) {
      if (tries-- <= 0) break;
      const segments = wait > 0 ? [...legOne, waitSegment(refuge, wait), ...legTwo] : path;
      const traj: Trajectory = { startTime: time + delay, startPose: pose, segments };
      const hit = table.firstConflict(reserve(traj), time);
      if (hit === null) return traj;
      // A conflict before the refuge is reached is not cured by waiting there.
      if (hit.time < time + delay + legOneTime || hit.forever) break;
    }
  }
  // The tries ran out (or every wait was cut short): wait at the refuge, or at the start, until everything
  // reserved stands still. Without this a unit parked at a refuge stays there when no later change retries it.
  const dt = table.dt;
  const last = Math.max(0, Math.ceil((horizon - time) / dt) * dt);
  const ends: [number, number][] = [[0, Math.max(0, Math.ceil((last - legOneTime) / dt) * dt)], [last, 0]];
  for (const [delay, wait] of ends) {
    const segments = wait > 0 ? [...legOne, waitSegment(refuge, wait), ...legTwo] : path;
    const traj: Trajectory = { startTime: time + delay, startPose: pose, segments };
    if (table.firstConflict(reserve(traj), time) === null) return traj;
  }
  return null;
}
