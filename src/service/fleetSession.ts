/**
 * One Fleet stream: a map, units added, removed, re-goaled and reporting progress on the fleet's clock, and the
 * timed trajectories that keep them apart (fleetScheduler.ts). Messages are handled one at a time in arrival
 * order (consecutive unit messages together: their paths are planned in parallel on the plan service, then
 * scheduled in order), so a sync is answered after everything before it. Bad input becomes an error update
 * naming the unit and field; the fleet keeps running.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { trajectoryPose, waitSegment } from "../motion/trajectory.ts";
import { ServiceError } from "./errors.ts";
import type { MapStore, MapVersion } from "./mapStore.ts";
import type { PlanService } from "./planService.ts";
import { requireFits } from "./poseGate.ts";
import { detourCandidates } from "./fleetDetour.ts";
import { DETOUR_UNITS, FleetPlanning } from "./fleetPlanning.ts";
import { repairLate } from "./fleetRepair.ts";
import { breakStandoffs } from "./fleetDeadlock.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import type { MapRef } from "./requests.ts";
import { FleetScheduler, type FleetUnitState, remainingPath, trajectoryFrom } from "./fleetScheduler.ts";

import type {
  FleetErrorOut,
  FleetMessage,
  FleetOptions,
  FleetUpdateOut,
  UnitTrajectoryOut,
} from "./fleetTypes.ts";

// The stream's message types live in fleetTypes.ts; the server imports them from here as before.
export type {
  FleetErrorOut,
  FleetMessage,
  FleetOptions,
  FleetUpdateOut,
  UnitTrajectoryOut,
} from "./fleetTypes.ts";

/** Wall-clock budget (ms) per sync for breaking standoffs left among waiting units (fleetDeadlock.ts). */
const SYNC_STANDOFF_MS = 100;

/** Turns in a row with no unit message that end a batch of added units ({@link FleetSession}'s #batchUnits). */
const BATCH_QUIET_TURNS = 3;

/** The longest a batch of added units waits for more before it is planned (ms). */
const BATCH_MAX_MS = 50;
/** A reported pose this close to the planned one (tiles) is on schedule. */
const ON_SCHEDULE = 0.1;
/** A reported pose this close to the planned path (tiles) resumes it from there; farther, the path is replanned. */
const ON_PATH = 0.3;

/** One fleet stream's state. */
export class FleetSession {
  readonly #store: MapStore;
  readonly #emit: (u: FleetUpdateOut) => void;
  readonly #opts: FleetOptions;
  #mv: MapVersion | null = null;
  #unpin: (() => void) | null = null;
  #sched: FleetScheduler | null = null;
  #clock = 0;
  #order = 0;
  #closed = false;
  readonly #queue: FleetMessage[] = [];
  #running = false;
  /** Units whose paths must be planned before the next settle, and units to reschedule. */
  #toPlan = new Map<string, Pose>();
  #dirty = new Set<string>();
  #errors: FleetErrorOut[] = [];
  #t0 = 0;
  /** Paths, detour legs and refuge legs asked of the plan service (fleetPlanning.ts). */
  readonly #paths: FleetPlanning;

  /** A session; `emit` sends an update. */
  constructor(plans: PlanService, store: MapStore, emit: (u: FleetUpdateOut) => void, opts: FleetOptions) {
    this.#store = store;
    this.#emit = emit;
    this.#opts = opts;
    this.#paths = new FleetPlanning(plans, store, () => this.#mv!, () => this.#closed);
  }

  /**
   * Opens the fleet on a map (the first message); throws NOT_FOUND for an unknown map. `brakingEnvelopes`: every
   * moving unit keeps room to brake (FleetScheduler).
   */
  async open(map: MapRef, brakingEnvelopes = false): Promise<void> {
    const mv = await this.#store.get(map.id, map.version);
    this.#mv = mv;
    this.#unpin = this.#store.pin(mv);
    this.#sched = new FleetScheduler(mv.map.width, mv.map.height, undefined, true, true, brakingEnvelopes);
    // Opened on the latest version: patches reach the fleet (an explicit version keeps it).
    if (!map.version) {
      this.#unsubPatch = this.#store.onPatch((e) => {
        if (!this.#closed && e.id === this.#mv?.id) void this.onMessage({ kind: "patch", to: e.to });
      });
    }
  }

  #unsubPatch: (() => void) | null = null;

  /**
   * A patch: the fleet moves to the new version; units whose remaining path now touches a blocked tile stop where
   * they are at the fleet clock and are replanned, and units without a path (unreachable) are replanned too.
   */
  #patch(to: MapVersion): void {
    const sched = this.#sched!;
    this.#unpin?.();
    this.#mv = to;
    this.#unpin = this.#store.pin(to);
    for (const u of sched.units.values()) {
      const layer = this.#store.layerFor(to, u.unit).layer;
      const rest = u.traj.segments.length > 0 ? remainingPath(u.traj, this.#clock, u.unit) : u.path;
      const hit = rest.some((seg) => seg.length > 0 && segmentHitsBlocked(layer, seg, u.unit.footprint));
      if (!hit && u.status !== "unreachable") continue;
      const blocked = (seg: Segment) => seg.length > 0 && segmentHitsBlocked(layer, seg, u.unit.footprint);
      const pose = sched.haltAt(u, this.#clock, blocked);
      const refused = sched.refusedBrake;
      if (refused) {
        // Braking would touch the new wall: it is stopped at once rather than sent into it, and told so.
        this.#errors.push({
          unitId: u.id,
          code: "FAILED_PRECONDITION",
          message:
            `unit[${JSON.stringify(u.id)}]: the patch put a blocked tile within its braking distance ` +
            `(${refused.distance.toFixed(2)} tiles at ${refused.speed.toFixed(2)} tiles/s, deceleration ` +
            `${u.unit.deceleration}): it cannot stop before it; its trajectory stops it at once at (` +
            `${pose.x.toFixed(2)}, ${pose.y.toFixed(2)}), harder than it can brake`,
        });
      }
      sched.commit(u, u.traj);
      u.legOne = undefined;
      // The ground it drove may be blocked now: it must not back up over it.
      u.travelled = undefined;
      this.#toPlan.set(u.id, pose);
      this.#dirty.add(u.id);
    }
  }

  /** Units in the fleet now (the tenant's fleet_units quota counts them). */
  get unitCount(): number {
    return this.#sched?.units.size ?? 0;
  }

  /** The map version the fleet plans on. */
  get mapVersion(): MapVersion | null {
    return this.#mv;
  }

  /** Queues a client message. */
  onMessage(m: FleetMessage): Promise<void> {
    this.#queue.push(m);
    if (this.#running) return Promise.resolve();
    this.#current = this.#run();
    return this.#current;
  }

  /** Resolves once every message queued so far has been answered. */
  drained(): Promise<void> {
    return this.#current;
  }

  #current: Promise<void> = Promise.resolve();

  /** Ends the session. */
  close(): void {
    this.#closed = true;
    this.#unsubPatch?.();
    this.#unsubPatch = null;
    this.#unpin?.();
    this.#unpin = null;
  }

  /**
   * Takes every unit message that arrives meanwhile into the same batch of plans: until BATCH_QUIET_TURNS turns
   * in a row bring none, another kind of message is next, or BATCH_MAX_MS have passed. A fleet added in one go
   * is then planned and detoured as one batch even when the stream delivers it in several reads under load (a
   * fixed three turns split circle 100 into 55 + 45 and the detour pass, which may not change units already
   * sent, ended at 1.33x instead of 1.26x).
   */
  async #batchUnits(): Promise<void> {
    const until = performance.now() + BATCH_MAX_MS;
    for (let quiet = 0; quiet < BATCH_QUIET_TURNS && performance.now() < until;) {
      await new Promise((r) => setTimeout(r, 0));
      if (this.#queue.length > 0 && this.#queue[0].kind !== "unit") return;
      if (this.#queue.length === 0) quiet++;
      else quiet = 0;
      while (this.#queue[0]?.kind === "unit") {
        const n = this.#queue.shift() as Extract<FleetMessage, { kind: "unit" }>;
        this.#guard(n.id, () => this.#unit(n));
      }
    }
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#queue.length > 0 && !this.#closed) {
        const m = this.#queue.shift()!;
        this.#t0 = performance.now();
        if (m.kind === "unit") {
          this.#guard(m.id, () => this.#unit(m));
          await this.#batchUnits();
          await this.#planAndSettle();
        } else if (m.kind === "remove") {
          this.#guard(m.id, () => this.#remove(m.id, m.time));
          this.#flush(this.#sched!.retryWaiting(this.#clock));
        } else if (m.kind === "progress") {
          this.#guard(m.id, () => this.#progress(m.id, m.pose, m.time));
          // A repair: the late unit and those it now stands in the way of; nobody else is retried.
          await this.#planAndSettle(false);
        } else if (m.kind === "sync") {
          this.#guard("", () => this.#advance(m.time, "sync.time"));
          this.#flush(this.#standoffs(), m.time);
        } else if (m.kind === "patch") {
          this.#guard("", () => this.#patch(m.to));
          await this.#planAndSettle();
        } else if (m.kind === "invalid") {
          this.#errors.push({ unitId: m.id, code: m.error.code, message: m.error.message });
          this.#flush([]);
        }
      }
    } finally {
      this.#running = false;
    }
  }

  #guard(id: string, fn: () => void): void {
    try {
      fn();
    } catch (e) {
      const err = e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e));
      this.#errors.push({ unitId: id, code: err.code, message: err.message });
    }
  }

  #advance(time: number, field: string): void {
    if (time < this.#clock) {
      throw new ServiceError(
        "INVALID_ARGUMENT",
        `${field}: time went backwards (fleet clock ${this.#clock}), got ${time}`,
      );
    }
    this.#clock = time;
  }

  /** A unit message: a new unit (standing where it is until scheduled), or a new goal for a known one. */
  #unit(m: Extract<FleetMessage, { kind: "unit" }>): void {
    const sched = this.#sched!;
    const field = `unit[${JSON.stringify(m.id)}]`;
    this.#advance(m.time, `${field}.time`);
    const known = sched.units.get(m.id);
    if (known) {
      // A goal change: the unit stops where its trajectory has it now and is replanned from there.
      const pose = sched.haltAt(known, this.#clock);
      sched.commit(known, known.traj);
      known.status = "waiting";
      this.#standAside(known, pose);
      this.#paths.goals.set(m.id, { goal: m.goal, planner: m.planner });
      this.#toPlan.set(m.id, pose);
      this.#dirty.add(m.id);
      return;
    }
    this.#opts.admitUnit?.();
    if (sched.units.size >= this.#opts.maxUnits) {
      throw new ServiceError(
        "RESOURCE_EXHAUSTED",
        `${field}: the fleet has ${sched.units.size} units (limit ${this.#opts.maxUnits}, --max-fleet-units)`,
      );
    }
    if (!(m.unit.maxSpeed > 0)) {
      throw new ServiceError(
        "INVALID_ARGUMENT",
        `${field}.unit.max_speed: a fleet unit needs speed limits (a profile such as "soldier" or max_speed and ` +
          `acceleration), got ${m.unit.maxSpeed}`,
      );
    }
    requireFits(this.#store.layerFor(this.#mv!, m.unit).layer, `${field}.pose`, m.pose, m.unit.footprint);
    const r = m.unit.boundingRadius;
    for (const o of sched.units.values()) {
      const p = trajectoryPose(o.traj, this.#clock);
      if (Math.hypot(p.x - m.pose.x, p.y - m.pose.y) < r + o.unit.boundingRadius) {
        throw new ServiceError(
          "INVALID_ARGUMENT",
          `${field}.pose: overlaps unit ${JSON.stringify(o.id)} (at ${p.x.toFixed(2)}, ${
            p.y.toFixed(2)
          } at ` +
            `time ${this.#clock}), got (${m.pose.x}, ${m.pose.y})`,
        );
      }
    }
    const u = sched.addStanding({ id: m.id, order: this.#order++, unit: m.unit }, m.pose, this.#clock);
    this.#paths.goals.set(m.id, { goal: m.goal, planner: m.planner });
    this.#standAside(u, m.pose);
    this.#toPlan.set(m.id, m.pose);
    this.#dirty.add(m.id);
  }

  /** Units whose reservations would hit `u` standing at `pose` stop where they are and are rescheduled. */
  #standAside(u: FleetUnitState, pose: Pose): void {
    const sched = this.#sched!;
    for (const id of sched.conflictsOfStanding(u, pose, this.#clock)) {
      const o = sched.units.get(id)!;
      sched.haltAt(o, this.#clock);
      sched.commit(o, o.traj);
      this.#dirty.add(id);
    }
  }

  #remove(id: string, time: number): void {
    const field = `remove[${JSON.stringify(id)}]`;
    if (!this.#sched!.units.has(id)) {
      throw new ServiceError("NOT_FOUND", `${field}.id: unknown unit, got ${JSON.stringify(id)}`);
    }
    this.#advance(time, `${field}.time`);
    this.#sched!.remove(id);
    this.#paths.goals.delete(id);
  }

  /**
   * A reported pose: on schedule, nothing changes; behind or off its path, the unit is taken to stand there and
   * is rescheduled along what is left of its path (replanned when it is off the path), and the units whose
   * reservations would hit it are rescheduled after it.
   */
  #progress(id: string, pose: Pose, time: number): void {
    const sched = this.#sched!;
    const field = `progress[${JSON.stringify(id)}]`;
    const u = sched.units.get(id);
    if (!u) throw new ServiceError("NOT_FOUND", `${field}.id: unknown unit, got ${JSON.stringify(id)}`);
    this.#advance(time, `${field}.time`);
    const planned = trajectoryPose(u.traj, time);
    if (Math.hypot(planned.x - pose.x, planned.y - pose.y) <= ON_SCHEDULE) return;
    requireFits(this.#store.layerFor(this.#mv!, u.unit).layer, `${field}.pose`, pose, u.unit.footprint);
    for (const o of sched.units.values()) {
      if (o.id === id) continue;
      const p = trajectoryPose(o.traj, time);
      if (Math.hypot(p.x - pose.x, p.y - pose.y) < u.unit.boundingRadius + o.unit.boundingRadius) {
        throw new ServiceError(
          "FAILED_PRECONDITION",
          `${field}.pose: overlaps unit ${JSON.stringify(o.id)} at time ${time}, got (${pose.x}, ${pose.y})`,
        );
      }
    }
    // Where along its trajectory is it? The nearest sampled point at or before now.
    const dt = sched.table.dt;
    let best = Infinity, bestT = u.traj.startTime;
    for (let t = u.traj.startTime; t <= time + 1e-9; t += dt) {
      const p = trajectoryPose(u.traj, t);
      const d = Math.hypot(p.x - pose.x, p.y - pose.y);
      if (d < best) [best, bestT] = [d, t];
    }
    if (best <= ON_PATH) {
      const at = trajectoryPose(u.traj, bestT);
      u.path = remainingPath(u.traj, bestT, u.unit);
      this.#repair(u, at, time);
    } else {
      sched.commit(u, { startTime: time, startPose: pose, segments: [] });
      u.path = [];
      this.#standAside(u, pose);
      this.#toPlan.set(id, pose);
      this.#dirty.add(id);
    }
  }

  /** A late unit on its path: the conflict-driven repair (fleetRepair.ts). */
  #repair(u: FleetUnitState, at: Pose, time: number): void {
    const layer = (w: FleetUnitState) => this.#paths.layer(w);
    for (const id of repairLate(this.#sched!, u, at, time, true, layer, this.#standoffMemo)) {
      this.#repaired.add(id);
    }
  }

  /** Standoffs a repair's budget left among waiting units are broken on as the clock advances (fleetDeadlock.ts). */
  #standoffs(): Set<string> {
    const changed = new Set<string>();
    const layer = (w: FleetUnitState) => this.#paths.layer(w);
    if (this.#sched) {
      breakStandoffs(this.#sched, this.#clock, layer, changed, SYNC_STANDOFF_MS, this.#standoffMemo);
    }
    return changed;
  }

  /** Units that found no way out of a standoff, and when (fleetDeadlock.ts RETRY_AFTER). */
  readonly #standoffMemo = new Map<string, number>();

  /** Units a repair changed outside the settle (sent with the settle's changes). */
  readonly #repaired = new Set<string>();

  /**
   * Plans the paths asked for (in parallel, fleetPlanning.ts), then settles the schedule and sends what changed;
   * with `retry`, waiting units are retried and given refuges too.
   */
  async #planAndSettle(retry = true): Promise<void> {
    const sched = this.#sched!;
    if (!await this.#paths.planPaths(sched, this.#toPlan, (e) => this.#errors.push(e))) return;
    const dirty = [...this.#dirty].filter((id) => sched.units.has(id));
    this.#dirty.clear();
    const changed = sched.settle(this.#clock, dirty, retry);
    // Late units replan around the spots where they queue (fleetDetour.ts); the others' trajectories, which the
    // pass does not change, are sent before it runs.
    if (retry && (this.#opts.detourUnits ?? DETOUR_UNITS) > 0) {
      const mayChange = detourCandidates(sched, this.#clock);
      if (mayChange.size > 0) {
        for (const id of this.#repaired) changed.add(id);
        this.#repaired.clear();
        this.#flush([...changed].filter((id) => !mayChange.has(id)));
        for (const id of [...changed]) if (!mayChange.has(id)) changed.delete(id);
        for (const id of await this.#paths.detours(sched, this.#clock, this.#opts)) changed.add(id);
      }
    }
    if (this.#closed) return;
    for (const id of this.#repaired) changed.add(id);
    this.#repaired.clear();
    // Send what is settled now (units can set out), then what stepping aside changes.
    this.#flush(changed);
    if (retry) this.#flush(await this.#paths.stepAside(sched, this.#clock));
  }

  /** Sends the changed trajectories, errors and a sync acknowledgement (when `syncedTime` is given). */
  #flush(changed: Iterable<string>, syncedTime?: number): void {
    if (this.#closed) return;
    const sched = this.#sched!;
    const trajectories: UnitTrajectoryOut[] = [];
    for (const id of changed) {
      const u = sched.units.get(id);
      if (!u) continue;
      // A unit that stands gets one zero-length, zero-duration segment at its pose: where it stands.
      const wire = u.traj.segments.length > 0
        ? trajectoryFrom(u.traj, this.#clock)
        : { startTime: this.#clock, segments: [waitSegment(u.traj.startPose, 0)] };
      const end = u.traj.startTime + u.traj.segments.reduce((d, s) => d + (s.duration ?? 0), 0);
      trajectories.push({ unitId: id, ...wire, status: u.status, message: u.message, endTime: end });
    }
    const errors = this.#errors;
    this.#errors = [];
    if (trajectories.length === 0 && errors.length === 0 && syncedTime === undefined) return;
    this.#emit({
      trajectories,
      errors,
      synced: syncedTime !== undefined,
      syncedTime: syncedTime ?? 0,
      time: this.#clock,
      micros: Math.round((performance.now() - this.#t0) * 1000),
    });
  }
}
