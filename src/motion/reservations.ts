/**
 * A reservation table for timed trajectories: every reserved unit's bounding disc sampled on a fixed grid of
 * fleet times (k * dt), bucketed by time slice and spatial cell, plus its standing spans (before its start and
 * after its end, the latter forever). A candidate trajectory is tested at the same sample times against the
 * discs nearby. Between samples each unit moves at most speed * dt / 2 from the nearest sample, so requiring a
 * gap of (speed_a + speed_b) * dt / 2 at every sample guarantees the discs never overlap in between. Discs are
 * the footprints' bounding discs, so the test is conservative for rectangles. Pure.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import { type Trajectory, trajectoryEnd, trajectoryEndPose, trajectoryPoseInto } from "./trajectory.ts";

/** One unit's trajectory with what the overlap test needs. */
export interface Reservation {
  /** Unit id. */
  id: string;
  /** The trajectory (standing before its start and after its end). */
  traj: Trajectory;
  /** Bounding radius of the footprint, tiles. */
  radius: number;
  /** Top speed, tiles/s (bounds the motion between samples). */
  speed: number;
}

/** A conflict found by {@link ReservationTable.firstConflict}. */
export interface Conflict {
  /** The other unit. */
  id: string;
  /** Fleet time of the first sample where the discs are too close. */
  time: number;
  /** True when the other unit stands there forever from then on (no later start can avoid it). */
  forever: boolean;
}

interface Sample {
  id: string;
  x: number;
  y: number;
  radius: number;
  speed: number;
}

interface Span extends Sample {
  /** First sample index it covers. */
  from: number;
  /** Last sample index it covers (Infinity: forever). */
  to: number;
}

interface Entry {
  res: Reservation;
  keys: number[];
  spans: { cell: number; span: Span }[];
}

/** Cell side in tiles. */
const CELL = 2;
/** Spatial cells per time slice in the bucket key. */
const CELL_SPACE = 1 << 22;

/** Sampled reservations of many units over time. */
export class ReservationTable {
  /** Seconds between samples. */
  readonly dt: number;
  readonly #cols: number;
  readonly #rows: number;
  readonly #moving = new Map<number, Sample[]>();
  readonly #standing = new Map<number, Span[]>();
  readonly #entries = new Map<string, Entry>();
  #maxRadius = 0;
  // Upper bounds over all reservations ever made (never lowered: only the query's reach grows).
  #maxSpeed = 0;
  #lastMovingSample = 0;

  /** A table for a map of `width` x `height` tiles, sampling every `dt` seconds. */
  constructor(width: number, height: number, dt = 0.05) {
    this.dt = dt;
    this.#cols = Math.ceil(width / CELL) + 1;
    this.#rows = Math.ceil(height / CELL) + 1;
    if (this.#cols * this.#rows > CELL_SPACE) throw new RangeError("map too large for the reservation table");
  }

  /** Fleet time of the last moving sample ever reserved (after it, everything reserved stands still). */
  get lastMotion(): number {
    return this.#lastMovingSample * this.dt;
  }

  /** Reserved unit ids. */
  ids(): IterableIterator<string> {
    return this.#entries.keys();
  }

  /** The reservation of a unit, if any. */
  get(id: string): Reservation | undefined {
    return this.#entries.get(id)?.res;
  }

  #cell(x: number, y: number): number {
    const cx = Math.min(this.#cols - 1, Math.max(0, Math.floor(x / CELL)));
    const cy = Math.min(this.#rows - 1, Math.max(0, Math.floor(y / CELL)));
    return cy * this.#cols + cx;
  }

  /** Reserves a trajectory (replacing the unit's previous one). */
  add(res: Reservation): void {
    this.remove(res.id);
    const { traj, radius, speed, id } = res;
    const dt = this.dt;
    const entry: Entry = { res, keys: [], spans: [] };
    this.#maxRadius = Math.max(this.#maxRadius, radius);
    this.#maxSpeed = Math.max(this.#maxSpeed, speed);
    const end = trajectoryEnd(traj);
    // Sample k covers time k * dt; the moving part holds the samples strictly between start and end.
    const kStart = Math.floor(traj.startTime / dt);
    const kEnd = Math.ceil(end / dt);
    const standAt = (p: Pose, from: number, to: number) => {
      const span: Span = { id, x: p.x, y: p.y, radius, speed: 0, from, to };
      const cell = this.#cell(p.x, p.y);
      let list = this.#standing.get(cell);
      if (!list) this.#standing.set(cell, list = []);
      list.push(span);
      entry.spans.push({ cell, span });
    };
    // Standing spans move nothing (speed 0 in the gap); the samples whose half-step windows reach into the
    // motion (kStart and kEnd) are moving samples with the unit's speed.
    if (traj.segments.length === 0) {
      // Standing for good: one span, nothing moves.
      standAt(traj.startPose, -Infinity, Infinity);
      this.#entries.set(id, entry);
      return;
    }
    standAt(traj.startPose, -Infinity, kStart - 1);
    const pose: Pose = { x: 0, y: 0, heading: 0 };
    for (let k = kStart; k <= kEnd; k++) {
      trajectoryPoseInto(traj, k * dt, pose);
      const key = k * CELL_SPACE + this.#cell(pose.x, pose.y);
      let list = this.#moving.get(key);
      if (!list) this.#moving.set(key, list = []);
      list.push({ id, x: pose.x, y: pose.y, radius, speed });
      entry.keys.push(key);
    }
    if (kEnd > this.#lastMovingSample) this.#lastMovingSample = kEnd;
    standAt(trajectoryEndPose(traj), kEnd + 1, Infinity);
    this.#entries.set(id, entry);
  }

  /** Drops a unit's reservation. */
  remove(id: string): void {
    const e = this.#entries.get(id);
    if (!e) return;
    this.#entries.delete(id);
    for (const key of e.keys) {
      const list = this.#moving.get(key)!;
      const i = list.findIndex((s) => s.id === id);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.#moving.delete(key);
    }
    for (const { cell, span } of e.spans) {
      const list = this.#standing.get(cell)!;
      const i = list.indexOf(span);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) this.#standing.delete(cell);
    }
  }

  /**
   * The first sample time from `from` on where `cand` comes too close to a reserved unit (other than
   * `cand.id` and those in `ignore`), or null if it never does.
   */
  firstConflict(cand: Reservation, from: number, ignore?: ReadonlySet<string>): Conflict | null {
    const dt = this.dt;
    const k0 = Math.floor(from / dt);
    // After both the candidate's and every reservation's last moving sample nothing moves any more.
    const candStart = cand.traj.startTime, candEnd = trajectoryEnd(cand.traj);
    const still = cand.traj.segments.length === 0;
    const kLast = Math.max(Math.ceil(candEnd / dt) + 1, this.#lastMovingSample + 1, k0);
    const reach = cand.radius + this.#maxRadius + (cand.speed + this.#maxSpeed) * dt / 2;
    const pose: Pose = { x: 0, y: 0, heading: 0 };
    const half = dt / 2;
    for (let k = k0; k <= kLast; k++) {
      const t = k * dt;
      trajectoryPoseInto(cand.traj, t, pose);
      // Standing all through the sample's half-step window: it moves nothing there.
      const cs = still || t + half <= candStart || t - half >= candEnd ? 0 : cand.speed;
      const x0 = Math.max(0, Math.floor((pose.x - reach) / CELL));
      const x1 = Math.min(this.#cols - 1, Math.floor((pose.x + reach) / CELL));
      const y0 = Math.max(0, Math.floor((pose.y - reach) / CELL));
      const y1 = Math.min(this.#rows - 1, Math.floor((pose.y + reach) / CELL));
      for (let cy = y0; cy <= y1; cy++) {
        for (let cx = x0; cx <= x1; cx++) {
          const cell = cy * this.#cols + cx;
          const moving = this.#moving.get(k * CELL_SPACE + cell);
          if (moving) {
            for (const s of moving) {
              if (s.id === cand.id || ignore?.has(s.id)) continue;
              const gap = cand.radius + s.radius + (cs + s.speed) * half;
              if ((s.x - pose.x) ** 2 + (s.y - pose.y) ** 2 < gap * gap) {
                return { id: s.id, time: t, forever: false };
              }
            }
          }
          const standing = this.#standing.get(cell);
          if (standing) {
            for (const s of standing) {
              if (k < s.from || k > s.to || s.id === cand.id || ignore?.has(s.id)) continue;
              const gap = cand.radius + s.radius + cs * half;
              if ((s.x - pose.x) ** 2 + (s.y - pose.y) ** 2 < gap * gap) {
                return { id: s.id, time: t, forever: s.to === Infinity };
              }
            }
          }
        }
      }
    }
    return null;
  }

  /** Ids of reserved units whose trajectories come too close to `cand` from `from` on. */
  conflictsWith(cand: Reservation, from: number): Set<string> {
    const found = new Set<string>();
    for (;;) {
      const c = this.firstConflict(cand, from, found);
      if (!c) return found;
      found.add(c.id);
    }
  }
}
