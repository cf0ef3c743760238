/**
 * Timing a fleet unit's path with waits along it (path-velocity decomposition, SIPP-like): the geometric path is
 * kept; the unit may start late (a wait at its pose, as before) and also stop at points along the path (every
 * WAIT_SPACING tiles) and wait there while others pass, each leg driven from rest to rest with the unit's speed
 * profile. The search is greedy: drive on; where the first conflict comes, stop at a point short of it (if that
 * leg and a moment standing there are clear) and wait there as long as needed, recursively, at most MAX_STOPS
 * stops and STOP_TRIES reservation checks; when that finds nothing, the next start delay is tried, exactly as a
 * start-only scheduler would. A clear wait (or start delay) found after a failed one is bisected back to a 50 ms
 * step (waits grow by 15% a try, so without it each unit queued behind another waited 15% longer than that one).
 * Every leg is checked against the table, and the whole trajectory once more before it is answered. Pure.
 *
 * A route may come with planned stops (a space-time route's waits, fleetSipp.ts): the path is cut exactly there.
 * A planned stop the unit would reach (driving on) before the plan leaves it is a real stop: it brakes to rest
 * there, stands, and sets out from rest no earlier than PLAN_LEAD before the planned departure, later as the table
 * requires (each leg and a moment standing at its end checked; a stop found standing in someone's way sends the
 * search back to the next departure of the leg before); only waits are tried there. A planned stop it reaches
 * later anyway is driven through (stopping costs a braking and a start). Stops short of a conflict are still made
 * between planned stops (MAX_STOPS in all); PLAN_TRIES more checks per planned stop.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { segmentPiece } from "../geometry/segment.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../motion/speedProfile.ts";
import type { Conflict, ReservationTable } from "../motion/reservations.ts";
import { distanceAtTime, type Trajectory, trajectoryEnd, waitSegment } from "../motion/trajectory.ts";
import type { UnitSpec } from "../units/unit.ts";

/** Tiles between the points where a unit may stop and wait. */
export const WAIT_SPACING = 1;
/** Most stops along one path. */
const MAX_STOPS = 2;
/** Reservation checks spent on stops along the path, per scheduling (start delays are not counted). */
const STOP_TRIES = 16;
/** How far short of a conflict (tiles, beyond the unit's radius) a stop is tried, nearest first. */
const BACKOFF = [0, 1.5, 4];
/** A stop is only made where the unit can stand at least this long (seconds). */
const MIN_STAND = 0.25;
/** Reservation checks per planned stop (beside STOP_TRIES). */
const PLAN_TRIES = 8;
/**
 * A planned departure is tried this much earlier first (seconds): the plan's model drives at top speed without
 * acceleration, so its moment is an estimate.
 */
const PLAN_LEAD = 0.25;

/** A stop a route plans along its path (a space-time route's wait). */
export interface PlannedStop {
  /** Distance along the path from its start, tiles. */
  at: number;
  /** The fleet time the plan leaves it. */
  depart: number;
}

/** What {@link timePath} found: a trajectory, or the conflict that stopped the last start delay tried. */
export interface Timing {
  /** The trajectory, null when none was found. */
  traj: Trajectory | null;
  /** When none: the last conflict at the path's start (forever: a unit stands in its way for good). */
  hit: Conflict | null;
}

/** Sum of segment durations. */
function duration(segs: readonly Segment[]): number {
  let d = 0;
  for (const s of segs) d += s.duration ?? 0;
  return d;
}

/** The time (seconds) profiled segments take to drive the first `dist` tiles. */
function timeInto(segs: readonly Segment[], dist: number): number {
  let d = 0, t = 0;
  for (const s of segs) {
    const sd = s.duration ?? 0;
    if (dist - d < s.length) {
      let lo = 0, hi = sd;
      for (let k = 0; k < 30; k++) {
        const mid = (lo + hi) / 2;
        if (distanceAtTime(s, mid) < dist - d) lo = mid;
        else hi = mid;
      }
      return t + hi;
    }
    d += s.length;
    t += sd;
  }
  return t;
}

/** The distance driven `tau` seconds into profiled segments. */
function distanceInto(segs: readonly Segment[], tau: number): number {
  let d = 0, t = 0;
  for (const s of segs) {
    const sd = s.duration ?? 0;
    if (tau - t < sd) return d + distanceAtTime(s, tau - t);
    t += sd;
    d += s.length;
  }
  return d;
}

/**
 * The earliest-found timing of `path` (profiled from rest, no waits) for unit `id` from `pose` at `time`: start
 * delays from `nextDelay(0)` on and, at each, stops along the way (none with `stops` false); null traj when even
 * the last delay before `horizon` conflicts or a unit stands in the way for good. With `latest`, waits at a stop
 * along the way are tried only as long as the unit could still arrive by then (the longest such wait once), after
 * which that branch ends and the search goes on: the detour pass asks for timings that beat a unit's trajectory;
 * before, a stop's waits ran on past it, a late timing was answered and thrown away, and the checks left for
 * earlier timings were spent (in process at the default budget: circle 50 1.30 -> 1.25x the slowest solo drive).
 */
export function timePath(
  table: ReservationTable,
  id: string,
  unit: UnitSpec,
  path: Segment[],
  time: number,
  pose: Pose,
  horizon: number,
  nextDelay: (d: number) => number,
  stops = true,
  planned: readonly PlannedStop[] = [],
  latest = Infinity,
): Timing {
  const radius = unit.boundingRadius, speed = unit.maxSpeed, dt = table.dt;
  const deceleration = unit.deceleration;
  const check = (traj: Trajectory, from: number, hint?: number) =>
    table.firstConflict({ id, traj, radius, speed, deceleration }, from, undefined, hint);
  // The stop points: the path cut into pieces of at most WAIT_SPACING tiles; point i is the start of piece i.
  // Planned stops cut the path exactly where they are.
  const cuts = planned.map((p) => p.at).sort((a, b) => a - b);
  const pieces: Segment[] = [];
  let s0 = 0;
  for (const seg of path) {
    const bounds = [0, ...cuts.filter((c) => c > s0 + 1e-6 && c < s0 + seg.length - 1e-6).map((c) => c - s0)];
    bounds.push(seg.length);
    for (let b = 0; b + 1 < bounds.length; b++) {
      const a = bounds[b], len = bounds[b + 1] - a;
      const n = len > 0 ? Math.ceil(len / WAIT_SPACING - 1e-9) : 1;
      for (let k = 0; k < n; k++) {
        pieces.push(
          n === 1 && bounds.length === 2
            ? { ...seg }
            : segmentPiece(seg, a + (k * len) / n, a + ((k + 1) * len) / n),
        );
      }
    }
    s0 += seg.length;
  }
  const m = pieces.length;
  const along = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) along[i + 1] = along[i] + pieces[i].length;
  // Point index -> planned departure (a stop at the start is a planned start delay; one at the end is none).
  const plan = new Map<number, number>();
  for (const p of planned) {
    let j = 0;
    while (j < m && along[j] < p.at - 1e-6) j++;
    if (j < m && Math.abs(along[j] - p.at) < 1e-6) plan.set(j, Math.max(plan.get(j) ?? -Infinity, p.depart));
  }
  const stopsAfter = [...plan.keys()].filter((j) => j > 0).sort((a, b) => a - b);
  const maxStops = stops ? MAX_STOPS : 0;
  const legs = new Map<number, Segment[]>();
  /** Pieces i..j-1 driven from rest to rest (the whole path as given). */
  const leg = (i: number, j: number): Segment[] => {
    if (i === 0 && j === m) return path;
    const key = i * (m + 1) + j;
    let out = legs.get(key);
    if (!out) {
      const segs = pieces.slice(i, j).map((s) => ({ ...s, start: { ...s.start }, end: { ...s.end } }));
      applySpeedProfile(segs, unit);
      legs.set(key, out = splitAtSpeedPhases(segs, unit));
    }
    return out;
  };
  const waitAt = (i: number, w: number): Segment[] => w > 0 ? [waitSegment(pieces[i].start, w)] : [];
  let budget = (stops ? STOP_TRIES : 0) + PLAN_TRIES * stopsAfter.length;
  let lastHit: Conflict | null = null;
  /**
   * A unit standing for good in the way since now or before (one that arrived, or waits where it stands): no
   * start delay gets past it. After the horizon nothing moves, so a check there meets only units standing for
   * good: asked once the first start fails (before stops are tried), it spares the walk over delays up to the
   * horizon (~35 checks) without costing a unit that can start at once a whole walk of its path.
   */
  const blockedForGood = (): Conflict | null => {
    const late = check({ startTime: horizon, startPose: pose, segments: path }, horizon);
    if (!late?.forever) return null;
    const other = table.get(late.id)?.traj;
    return other && (other.segments.length === 0 || trajectoryEnd(other) <= time) ? late : null;
  };

  /**
   * From rest at point i at `arrive` (having driven `prefix` from `start`): waits there, then drives on (to the
   * next planned stop, if any). `depth` counts the stops made short of a conflict (0 and `top`: the start).
   */
  const from = (
    i: number,
    arrive: number,
    start: number,
    prefix: Segment[],
    depth: number,
    top = false,
  ): Trajectory | null => {
    let hint: number | undefined;
    const through = leg(i, m);
    // Driving on from rest here takes at least this long (a stop further on only adds to it).
    const throughTime = duration(through);
    /**
     * Where to stop next when leaving at `moveAt`: the first planned stop it would reach (driving on) before the
     * plan leaves it (a stop the unit reaches later anyway is driven through: stopping costs a braking and a
     * start), else the end.
     */
    const stopFor = (moveAt: number): number => {
      for (const j of stopsAfter) {
        if (j > i && moveAt + timeInto(through, along[j] - along[i]) < plan.get(j)! - PLAN_LEAD) return j;
      }
      return m;
    };
    const make = (w: number, rest = through): Trajectory =>
      top
        ? { startTime: time + w, startPose: pose, segments: rest }
        : { startTime: start, startPose: pose, segments: [...prefix, ...waitAt(i, w), ...rest] };
    // The last wait tried that failed in motion (not while standing): the clear one found next is bisected
    // back towards it, so that waits growing by 15% do not make each unit queued behind another wait 15% more.
    let failed = -1, capped = false;
    // Where (seconds after it moved off) the last failed wait met someone: the bisection's checks look there first
    // (only whether a wait is clear matters there, so which conflict a check names changes nothing).
    let failedAfter: number | undefined;
    // A planned departure from here: the waits tried start a little before it.
    const depart = plan.get(i);
    const w0 = depart === undefined ? 0 : Math.max(0, Math.floor((depart - PLAN_LEAD - arrive) / dt) * dt);
    for (let w = w0;; w = nextDelay(w)) {
      if (!top && budget-- <= 0) return null;
      // At the start, once the checks for planned stops are spent, later start delays cannot get past them.
      if (top && stopsAfter.length > 0 && budget <= 0) return null;
      // A wait here that cannot arrive by `latest` is not tried: the longest that can is tried once instead (if clear,
      // bisected back as any), then the branch ends. (The start's delays are bounded by `horizon`.)
      if (!top && arrive + w + throughTime > latest) {
        const cap = Math.floor((latest - throughTime - arrive) / dt + 1e-9) * dt;
        if (capped || cap <= failed + 1e-9 || cap < w0 - 1e-9) return null;
        capped = true;
        w = cap;
      }
      const moveAt = top ? time + w : arrive + w;
      const stopAt = stopsAfter.length > 0 ? stopFor(moveAt) : m;
      const rest = stopAt < m ? leg(i, stopAt) : through;
      const traj = make(w, rest);
      const hit = check(traj, arrive, top ? hint : undefined);
      if (stopAt < m) {
        // Clear until some time standing at the planned stop: on from there (else the next wait here).
        const there = moveAt + duration(rest);
        if (hit === null || hit.time >= there + MIN_STAND) {
          const found = from(stopAt, there, traj.startTime, traj.segments, depth);
          if (found) return found;
          failed = w;
          if (moveAt > horizon) return null;
          continue;
        }
      } else if (hit === null) return failed < 0 ? traj : earliest(failed, w, traj);
      if (top) {
        hint = hit.time - moveAt;
        lastHit = hit;
      }
      if (hit.forever) return null;
      // Hit while standing here (a sample a whole step before it moves): waiting longer cannot help.
      if (hit.time < moveAt - dt || moveAt > horizon) return null;
      if (top && failed < 0) {
        const stuck = blockedForGood();
        if (stuck) {
          lastHit = stuck;
          return null;
        }
      }
      failed = w;
      failedAfter = hit.time - moveAt;
      // At a planned stop the plan is to wait here: only longer waits are tried (stops short of a conflict after
      // it would spend the checks that the waits need).
      if (depth >= maxStops || (!top && plan.has(i))) continue;
      // Stop short of the conflict and wait there.
      const reach = distanceInto(rest, hit.time - moveAt);
      let tried = -1;
      for (const back of BACKOFF) {
        if (budget <= 0) break;
        const target = along[i] + reach - radius - back;
        let j = i;
        while (j + 1 < m && along[j + 1] <= target) j++;
        if (j <= i || j === tried) continue;
        tried = j;
        const piece = leg(i, j);
        const lead = top ? [] : [...prefix, ...waitAt(i, w)];
        const part: Trajectory = {
          startTime: top ? moveAt : start,
          startPose: pose,
          segments: [...lead, ...piece],
        };
        const there = moveAt + duration(piece);
        budget--;
        const ph = check(part, arrive);
        if (ph !== null && ph.time < there + MIN_STAND) continue;
        const found = from(j, there, part.startTime, part.segments, depth + 1);
        if (found) return found;
      }
    }
    /** A clear wait between `lo` (failed) and `hi` (clear, `best`), bisected to a sample. */
    function earliest(lo: number, hi: number, best: Trajectory): Trajectory {
      for (;;) {
        const mid = Math.round((lo + hi) / 2 / dt) * dt;
        if (mid <= lo + 1e-9 || mid >= hi - 1e-9) return best;
        const traj = make(mid);
        const moveAt = (top ? time : arrive) + mid;
        const hit = check(
          traj,
          arrive,
          failedAfter === undefined ? undefined : moveAt - traj.startTime + failedAfter,
        );
        if (hit === null) [hi, best] = [mid, traj];
        else [lo, failedAfter] = [mid, hit.time - moveAt];
      }
    }
  };
  const traj = from(0, time, time, [], 0, true);
  // Each leg was checked from its own start on; the whole once more (cheap next to the search, and exact). A
  // timing without stops (the path itself) was checked whole from `time` already.
  if (traj && traj.segments !== path && check(traj, time) !== null) return { traj: null, hit: lastHit };
  return { traj, hit: traj ? null : lastHit };
}
