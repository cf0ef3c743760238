/**
 * The fleet's scheduler: prioritised planning in space-time with path-velocity decomposition. Each unit has a
 * geometric path (from the planners, legal on the map); the scheduler only chooses when it starts (a wait at
 * its current pose) so that its whole trajectory, including standing at its goal forever after, keeps clear of
 * every other unit's reserved trajectory (motion/reservations.ts). A unit with no such start time stands where
 * it is ("waiting"), and units whose reservations would hit it are rescheduled in turn; standing everyone still
 * at their current poses is always conflict-free, so the cascade ends with a conflict-free fleet. Priority is the
 * order of scheduling: a unit never makes a unit scheduled before it change, so no cycle of waiting can form;
 * waiting units are retried, in order of addition, after every change. One exception (scheduleAhead): a unit
 * stopped for good by the goal of a unit that has not set out yet goes first and that unit starts later, only
 * if both find a start (a bumped unit bumps nobody in that step, so each step ends). Synchronous, no I/O.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { type Conflict, type Reservation, ReservationTable } from "../motion/reservations.ts";
import type { Braking } from "../motion/braking.ts";
import {
  standing,
  type Trajectory,
  trajectoryEnd,
  trajectoryEndPose,
  trajectoryPose,
  waitSegment,
} from "../motion/trajectory.ts";
import { type PlannedStop, timePath } from "./fleetWaits.ts";
import { backingPaths, type OtherUnit } from "./fleetBackUp.ts";
import { brakeToHalt, hardStop, restAt } from "./fleetHalt.ts";
import { nextDelay, timeViaRefuge } from "./fleetVia.ts";
import type { FleetUnitState } from "./fleetUnitState.ts";

// The fleet's callers import these from here as before.
export { remainingPath, trajectoryFrom } from "../motion/trajectoryRest.ts";
export type { FailedAt, FleetUnitState, FleetUnitStatus } from "./fleetUnitState.ts";

/** Units a blocked unit may be scheduled ahead of (see FleetScheduler.scheduleAhead). */
const MAX_BUMPS = 3;

/** Keeps every unit's trajectory and the reservations, and reschedules. */
export class FleetScheduler {
  readonly table: ReservationTable;
  readonly units = new Map<string, FleetUnitState>();

  /**
   * A scheduler for a map of `width` x `height` tiles, sampling every `dt` seconds; `midPathWaits` false times
   * paths by their start only (the bench's peer); `backUp` false never backs a unit up (the bench's peer);
   * `envelopes` true reserves every moving unit's braking envelope (motion/reservations.ts), so that a halt
   * always brakes within the unit's deceleration; without them a halt brakes when its braking keeps clear of
   * the units already stopped, else the unit stops at once and its message says so (see settle).
   */
  constructor(
    width: number,
    height: number,
    dt = 0.05,
    midPathWaits = true,
    backUp = true,
    envelopes = false,
  ) {
    this.table = new ReservationTable(width, height, dt, envelopes);
    this.#stops = midPathWaits;
    this.#backs = backUp;
  }

  readonly #stops: boolean;
  /** Whether units back up a step in head-on meetings (false: the bench's peer, bench/fleetBackUp.ts). */
  readonly #backs: boolean;

  #reservation(u: FleetUnitState, traj: Trajectory): Reservation {
    const { boundingRadius: radius, maxSpeed: speed, deceleration } = u.unit;
    return { id: u.id, traj, radius, speed, deceleration };
  }

  /** Commits a trajectory for a unit (and its reservation). */
  commit(u: FleetUnitState, traj: Trajectory): void {
    u.traj = traj;
    this.table.add(this.#reservation(u, traj));
  }

  /** Adds a unit standing at `pose` from `time` on, with no path yet. */
  addStanding(u: Omit<FleetUnitState, "traj" | "path" | "status" | "message">, pose: Pose, time: number) {
    const state: FleetUnitState = {
      ...u,
      traj: standing(pose, time),
      path: [],
      status: "waiting",
      message: "",
    };
    this.units.set(u.id, state);
    this.commit(state, state.traj);
    return state;
  }

  /** Removes a unit. */
  remove(id: string): void {
    this.#freed++;
    this.units.delete(id);
    this.table.remove(id);
  }

  /**
   * Ids of units whose reservations come too close to `u` standing at `pose` from `time` on (a unit braking
   * from a halt: its braking, then standing where it stops).
   */
  conflictsOfStanding(u: FleetUnitState, pose: Pose, time: number): Set<string> {
    const still = this.#braking(u, time) ? u.traj : standing(pose, time);
    return this.table.conflictsWith(this.#reservation(u, still), time);
  }

  /** Whether `u` is still braking from a halt at `time` (its trajectory is that braking). */
  #braking(u: FleetUnitState, time: number): boolean {
    return u.brake !== undefined && u.traj === u.brake && trajectoryEnd(u.brake) > time + 1e-9;
  }

  /**
   * The braking the last {@link haltAt} refused because it touched a blocked tile (`blocked`); the unit was
   * stopped at once instead. Null otherwise.
   */
  refusedBrake: Braking | null = null;

  /**
   * Stops a unit that its trajectory has moving at `time`: it brakes along its own path at its deceleration
   * (fleetHalt.ts) and stands where it stops; `path` becomes the geometry after that (re-profiled from rest). A
   * unit at rest then, or with deceleration 0, stands where it is (deceleration 0 means it stops at once). When
   * the braking would touch a tile `blocked` says is blocked (a patch put a wall within its braking distance), it
   * is stopped at once instead and {@link refusedBrake} says so. Returns where it stands.
   */
  haltAt(u: FleetUnitState, time: number, blocked?: (seg: Segment) => boolean): Pose {
    this.#freed++;
    const { pose, refused } = brakeToHalt(u, time, blocked);
    this.refusedBrake = refused;
    return pose;
  }

  /** Sets a unit's message, with what a hard stop of it (if any since it was last told) did. */
  #say(u: FleetUnitState, message: string): void {
    u.message = u.hardStop ? (message ? `${message}; ${u.hardStop}` : u.hardStop) : message;
    u.hardStop = undefined;
  }

  /**
   * Finds a timing of the unit's path — a start delay (in steps of DELAY_STEP from `time`, fleetVia.ts) and stops along the
   * way (fleetWaits.ts) — with which it, then standing at its end forever, keeps clear of every reservation;
   * commits it and returns true. Otherwise returns false and leaves the unit's trajectory as it was.
   */
  schedule(u: FleetUnitState, time: number, pose: Pose): boolean {
    if (this.#braking(u, time)) return this.#scheduleBraking(u, time, u.traj);
    return this.#scheduleAt(u, time, pose);
  }

  /**
   * {@link schedule} for a unit braking from a halt: its path timed from where and when the braking ends, the
   * braking in front; the whole must keep clear from `time` on (the braking cannot be changed: the caller halts
   * those it meets, see settle).
   */
  #scheduleBraking(u: FleetUnitState, time: number, brake: Trajectory): boolean {
    const stopTime = trajectoryEnd(brake), stop = trajectoryEndPose(brake);
    if (!this.#scheduleAt(u, stopTime, stop)) {
      u.traj = brake;
      return false;
    }
    const rest = u.traj;
    const wait = rest.startTime - stopTime;
    const segments = rest.segments.length === 0
      ? brake.segments
      : [...brake.segments, ...(wait > 1e-9 ? [waitSegment(stop, wait)] : []), ...rest.segments];
    const whole: Trajectory = { startTime: brake.startTime, startPose: brake.startPose, segments };
    const hit = this.table.firstConflict(this.#reservation(u, whole), time);
    if (hit !== null) {
      this.table.remove(u.id);
      u.traj = brake;
      this.#lastHit = hit;
      return false;
    }
    this.commit(u, whole);
    return true;
  }

  #scheduleAt(u: FleetUnitState, time: number, pose: Pose): boolean {
    this.#lastHit = null;
    if (u.legOne !== undefined && u.legOne < u.path.length) {
      const via = timeViaRefuge(
        this.table,
        (traj) => this.#reservation(u, traj),
        u.path,
        u.legOne,
        time,
        pose,
      );
      if (via === null) return false;
      this.commit(u, via);
      u.legOne = undefined;
      return true;
    }
    if (u.path.length === 0) {
      const still = standing(pose, time);
      if (this.table.firstConflict(this.#reservation(u, still), time) !== null) return false;
      this.commit(u, still);
      return true;
    }
    const horizon = this.table.lastMotion + 2 * this.table.dt;
    const dt = this.table.dt;
    const next = (d: number) => nextDelay(d, dt);
    const found = timePath(this.table, u.id, u.unit, u.path, time, pose, horizon, next, this.#stops);
    if (found.traj === null) {
      this.#lastHit = found.hit;
      return false;
    }
    this.commit(u, found.traj);
    return true;
  }

  /**
   * The timing {@link schedule} would find for `path` (no refuge) from `pose` at `time`, against the table as it
   * is (take the unit's own reservation out first), without committing it; null when none. With `latest`, no
   * timing arriving after it is tried (fleetWaits.ts timePath); `planned`: stops along the path.
   */
  timing(
    u: FleetUnitState,
    path: Segment[],
    time: number,
    pose: Pose,
    latest = Infinity,
    planned: readonly PlannedStop[] = [],
  ): Trajectory | null {
    const dt = this.table.dt;
    const drive = path.reduce((d, s) => d + (s.duration ?? 0), 0);
    const horizon = Math.min(this.table.lastMotion + 2 * dt, latest - drive);
    if (horizon < time) return null;
    const next = (d: number) => nextDelay(d, dt);
    return timePath(this.table, u.id, u.unit, path, time, pose, horizon, next, this.#stops, planned, latest)
      .traj;
  }

  #lastHit: Conflict | null = null;
  /** Units rescheduled behind another by {@link scheduleAhead} since the caller last took them. */
  #bumped = new Set<string>();

  /**
   * {@link schedule}, and when the unit is stopped for good by a unit that will stand at its goal there but has
   * not set out yet (an arrival in a doorway on its way), the priority rule: it goes first and that unit starts
   * later (waiting at its start, so nothing in motion has to stop). Both must find a start, or nothing changes.
   * Bumped units are reported by {@link takeBumped}.
   */
  scheduleAhead(u: FleetUnitState, time: number, pose: Pose): boolean {
    const fromStanding = u.traj.segments.length === 0;
    if (this.#scheduleAhead(u, time, pose)) {
      u.failed = undefined;
      if (fromStanding) this.#moved++;
      return true;
    }
    const hit = this.#lastHit;
    const blocker = hit?.forever ? this.units.get(hit.id) : undefined;
    u.failed = {
      blocker: blocker ? { id: blocker.id, traj: blocker.traj } : null,
      freed: this.#freed,
      moved: this.#moved,
      time,
      path: u.path,
    };
    return false;
  }

  /**
   * Whether retrying a unit that failed may succeed now: something was freed since, or (for one stopped by a
   * unit standing for good) that unit changed, or (for one that ran out of delays) some unit set out.
   */
  #mayStart(u: FleetUnitState, time: number): boolean {
    const f = u.failed;
    if (!f || f.freed !== this.#freed || f.time !== time || f.path !== u.path) return true;
    if (f.blocker) return this.units.get(f.blocker.id)?.traj !== f.blocker.traj;
    return f.moved !== this.#moved;
  }

  #freed = 0;
  #moved = 0;

  #scheduleAhead(u: FleetUnitState, time: number, pose: Pose): boolean {
    if (this.schedule(u, time, pose)) return true;
    const swapped: { o: FleetUnitState; traj: Trajectory; path: Segment[] }[] = [];
    const revert = () => {
      for (const s of swapped) {
        s.o.path = s.path;
        this.commit(s.o, s.traj);
      }
    };
    for (let i = 0; i < MAX_BUMPS; i++) {
      const hit = this.#lastHit;
      const o = hit?.forever ? this.units.get(hit.id) : undefined;
      if (
        !o || o.status !== "moving" || o.legOne !== undefined || o.traj.segments.length === 0 ||
        o.traj.startTime < time || o.traj.segments.some((seg) => seg.length === 0)
      ) break;
      swapped.push({ o, traj: o.traj, path: o.path });
      o.path = o.traj.segments;
      this.commit(o, standing(o.traj.startPose, time));
      if (!this.schedule(u, time, pose)) continue;
      for (const s of swapped) {
        this.table.remove(s.o.id);
        if (!this.schedule(s.o, time, s.o.traj.startPose)) {
          this.table.remove(u.id);
          revert();
          return false;
        }
      }
      for (const s of swapped) this.#bumped.add(s.o.id);
      this.#freed++;
      return true;
    }
    revert();
    return false;
  }

  /** Ids bumped by {@link scheduleAhead} since the last call (their trajectories changed). */
  takeBumped(): string[] {
    const out = [...this.#bumped];
    this.#bumped.clear();
    return out;
  }

  /**
   * A head-on meeting (fleetBackUp.ts): the unit, stopped by one that moves (not one standing for good), backs
   * up over the ground it drove to the nearest point clear of every other unit's trajectory and remaining path
   * (a refuge reached by backing), waits there while it
   * passes, and goes on (timed as a refuge's legs); when no wait there lets it go on, it parks there. False,
   * with nothing changed, when it cannot back up or no such timing exists.
   */
  #backUp(u: FleetUnitState, time: number, pose: Pose): boolean {
    const hit = this.#lastHit;
    const other = hit && !hit.forever ? this.units.get(hit.id) : undefined;
    if (!this.#backs || !other || u.legOne !== undefined || !u.travelled?.length || u.path.length === 0) {
      return false;
    }
    const end = u.travelled[u.travelled.length - 1].end;
    if (Math.hypot(end.x - pose.x, end.y - pose.y) > 1e-6) return false;
    const saved = u.path;
    const others: OtherUnit[] = [];
    for (const o of this.units.values()) {
      if (o !== u) others.push({ traj: o.traj, path: o.path, radius: o.unit.boundingRadius });
    }
    const ways = backingPaths(u.unit, u.travelled, saved, others);
    for (const way of ways) {
      u.path = way.path;
      u.legOne = way.legOne;
      if (this.schedule(u, time, pose)) {
        u.status = "moving";
        u.message = "backs up a step to let a unit coming head-on pass, then goes on";
        u.travelled = undefined;
        this.#moved++;
        return true;
      }
      if (this.park(u, time, pose)) {
        u.status = "waiting";
        u.message =
          "backs up a step to let a unit coming head-on pass; goes on when it can (retried after changes)";
        u.travelled = undefined;
        return true;
      }
    }
    u.path = saved;
    u.legOne = undefined;
    return false;
  }

  /** Parks a unit with a refuge there: its first leg only, at the earliest start that keeps clear. */
  park(u: FleetUnitState, time: number, pose: Pose): boolean {
    if (u.legOne === undefined) return false;
    const full = u.path, split = u.legOne;
    u.path = full.slice(0, split);
    u.legOne = undefined;
    const ok = this.schedule(u, time, pose);
    u.path = full;
    u.legOne = split;
    return ok;
  }

  /**
   * Reschedules `dirty` units at `time` (each already halted: standing where it is, `path` what it has left),
   * lowest order first. A unit with no start time stays standing ("waiting"); units whose reservations would hit
   * it are halted and rescheduled in turn. Then (with `retry`) waiting units are retried until none more can
   * start (a repair after a delay skips that: it frees no room). Returns
   * the ids whose trajectories changed. When more than `maxStuck` units find no start it stops at once and sets
   * {@link stopped} (a repair's cascade guard).
   */
  settle(time: number, dirty: Iterable<string>, retry = true, maxStuck = Infinity): Set<string> {
    const changed = new Set<string>();
    const queue = new Set<string>(dirty);
    // Units left standing or braking by this settle: halting one again changes nothing (a braking cannot be
    // shortened), and two that met only through a braking would halt each other for ever.
    const still = new Set<string>();
    let stuck = 0;
    this.stopped = false;
    while (queue.size > 0) {
      // The lowest order first (a scan: sorting the whole queue per step costs n^2 log n for a big batch).
      let id = "", low = Infinity;
      for (const q of queue) {
        const order = this.units.get(q)?.order ?? -1;
        if (order < low) [id, low] = [q, order];
      }
      queue.delete(id);
      const u = this.units.get(id);
      if (!u) continue;
      changed.add(id);
      let braking = this.#braking(u, time);
      let pose = braking ? trajectoryEndPose(u.traj) : trajectoryPose(u.traj, time);
      this.table.remove(id);
      if (u.status !== "unreachable" && this.scheduleAhead(u, time, pose)) {
        u.status = "moving";
        this.#say(u, "");
        continue;
      }
      if (u.status !== "unreachable" && this.park(u, time, pose)) {
        u.status = "waiting";
        this.#say(
          u,
          "steps aside to a refuge to let others pass; goes on when it can (retried after changes)",
        );
        continue;
      }
      if (u.status !== "unreachable" && this.#backUp(u, time, pose)) continue;
      if (u.status !== "unreachable") {
        u.status = "waiting";
        this.#say(
          u,
          "no start time keeps it clear of the other units; it stands and is retried after changes",
        );
        // A cascade (fleetRepair.ts tries another way): stop here, the caller rolls the units back.
        if (++stuck > maxStuck) {
          this.stopped = true;
          return changed;
        }
      }
      // Standing is always safe against units standing where they are now (a braking unit: inside its braking
      // envelope, disjoint from every other unit's at this time); move the others out of its way.
      let stands = braking ? u.brake! : standing(pose, time);
      still.add(id);
      let conflicts = this.table.conflictsWith(this.#reservation(u, stands), time);
      // A braking that meets a unit already stopped in this settle cannot be kept (without envelopes, or where a
      // unit appeared inside a braking stretch): it stops at once, which never meets units standing at `time`.
      if (braking && [...conflicts].some((o) => still.has(o))) {
        pose = hardStop(u, time);
        stands = u.traj;
        braking = false;
        this.#say(u, u.message);
        conflicts = this.table.conflictsWith(this.#reservation(u, stands), time);
      }
      for (const other of conflicts) {
        if (still.has(other)) {
          const o = this.units.get(other)!;
          if (this.#braking(o, time)) {
            // Its braking meets this unit standing: it stops at once too, and is settled again from there.
            this.table.remove(other);
            hardStop(o, time);
            this.commit(o, o.traj);
            queue.add(other);
            continue;
          }
          // Two units standing where they are at `time` overlap only where one was added or reported inside the
          // other: neither can get out of the way; say so rather than hide it.
          u.message =
            `cannot keep clear of unit ${JSON.stringify(other)}: one stands within the other's braking ` +
            `distance (a pose reported or a unit added there)`;
          continue;
        }
        const o = this.units.get(other)!;
        this.haltAt(o, time);
        this.commit(o, o.traj);
        queue.add(other);
      }
      this.commit(u, stands);
    }
    if (retry) { for (const id of this.retryWaiting(time)) changed.add(id); }
    for (const id of this.takeBumped()) changed.add(id);
    return changed;
  }

  /**
   * Set by {@link settle} when more than its `maxStuck` units found no start and it stopped half-way: the
   * schedule is then not conflict-free until the caller restores the units it had before (fleetRepair.ts).
   */
  stopped = false;

  /**
   * Retries waiting units in order of addition until a pass starts none (or `deadline`, performance.now, passes);
   * returns those that started.
   */
  retryWaiting(time: number, deadline = Infinity): string[] {
    const started: string[] = [];
    for (let progress = true; progress;) {
      progress = false;
      const waiting = [...this.units.values()].filter((u) => u.status === "waiting" && u.path.length > 0)
        .sort((a, b) => a.order - b.order);
      for (const u of waiting) {
        if (performance.now() >= deadline) return started;
        if (!this.#mayStart(u, time)) continue;
        const pose = this.#braking(u, time) ? trajectoryEndPose(u.traj) : trajectoryPose(u.traj, time);
        const before = { traj: u.traj, path: u.path, legOne: u.legOne };
        restAt(u, time);
        this.table.remove(u.id);
        if (this.scheduleAhead(u, time, pose)) {
          u.status = "moving";
          u.message = "";
          started.push(u.id, ...this.takeBumped());
          progress = true;
        } else {
          u.path = before.path;
          u.legOne = before.legOne;
          this.commit(u, before.traj);
        }
      }
    }
    return started;
  }
}
