/**
 * A reservation table for timed trajectories: every reserved unit's bounding disc sampled on a fixed grid of
 * fleet times (k * dt), bucketed by time slice and spatial cell, plus its standing spans (before its start and
 * after its end, the latter forever). A candidate trajectory is tested at the same sample times against the
 * discs nearby. Between samples each unit moves at most speed * dt / 2 from the nearest sample, so requiring a
 * gap of (speed_a + speed_b) * dt / 2 at every sample guarantees the discs never overlap in between. Discs are
 * the footprints' bounding discs, so the test is conservative for rectangles. The moving samples are also
 * indexed by cell over all times, so the parts of a candidate that stand (before its start, after its end) are
 * tested once per nearby cell rather than once per sample; a candidate path's samples are kept per segments
 * array and start phase (motion/reservationSampling.ts), so a scheduler trying many start delays walks the path
 * once. A removed reservation's moving samples stay in the time slices marked dead until compacted, so a unit
 * rolled back to a trajectory it had gets them back without sampling it again. The samples are stored flat, in
 * typed arrays with pooled slots chained per time slice and cell (motion/reservationStore.ts), and the per-cell
 * index of all times holds typed runs of those slots (motion/reservationCells.ts): adding, removing and putting
 * back a reservation allocates no object per sample.
 *
 * Braking envelopes: a unit with a deceleration cannot stop at once, so while it moves its reservation at each
 * sample also covers the stretch of its own path to where it would stop if it braked then (v^2 / (2 b) tiles,
 * motion/braking.ts), as discs every `spacing` tiles of radius sqrt(r^2 + spacing^2 / 4) (so they cover the
 * footprint's bounding disc anywhere on the stretch). Envelopes are tested against envelopes at the same sample, so units
 * halted at the same moment brake inside disjoint envelopes and never meet. Between samples (within dt / 2 of
 * one) the stretch starts within the body disc's margin and ends between the sampled stop point and where the
 * stop point is half a step later (it never runs back; it stands still while the unit brakes and runs ahead
 * fastest while it accelerates): that distance is the margin of the last disc, the discs between need none. On a leg braking to a planned stop the envelope is exactly the rest
 * of the leg. Pure.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import { type Trajectory, trajectoryEnd, trajectoryEndPose } from "./trajectory.ts";
import { envelopeSpec, PathSampler } from "./reservationSampling.ts";
import { OCC_WORDS, occBit, SampleStore } from "./reservationStore.ts";
import { CellIndex, type CellOwner, NO_RUNS } from "./reservationCells.ts";

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
  /** Braking deceleration, tiles/s^2 (0 or absent: it stops at once, no braking envelope). */
  deceleration?: number;
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

interface Span {
  id: string;
  x: number;
  y: number;
  radius: number;
  /** First sample index it covers. */
  from: number;
  /** Last sample index it covers (Infinity: forever). */
  to: number;
}

interface Entry extends CellOwner {
  res: Reservation;
  /** Its owner number in the sample store (samples name it; -1 once they are released). */
  slot: number;
  /** False once removed: its samples left in the time slices are skipped (and dropped by compact). */
  live: boolean;
  /** Whether its moving samples are in the time slices (removed and not yet compacted, or live). */
  inLists: boolean;
  /** Its moving samples' slots in the store, in the order they were added (released by compact). */
  samples: Int32Array;
  spans: { cell: number; span: Span }[];
}

/** Samples either side of a hint tested first (see ReservationTable.firstConflict). */
const HINT_SAMPLES = 10;

/** Dead samples (of removed reservations) in the time slices before compaction is considered. */
const COMPACT_MIN = 50_000;

/** Cell side in tiles. */
const CELL = 2;
/** Spatial cells the table can index. */
const CELL_SPACE = 1 << 22;

/** Sampled reservations of many units over time. */
export class ReservationTable {
  /** Seconds between samples. */
  readonly dt: number;
  readonly #sampler: PathSampler;
  readonly #cols: number;
  readonly #rows: number;
  /** Moving samples, flat and pooled, by time slice and cell (motion/reservationStore.ts). */
  readonly #store = new SampleStore();
  /** Entries by owner number (the store's samples name their entry by it), with whether each is live. */
  readonly #owners: (Entry | undefined)[] = [];
  #ownerLive = new Uint8Array(64);
  readonly #freeOwners: number[] = [];
  /** The moving samples by cell over all times, per reservation (motion/reservationCells.ts). */
  readonly #cells: CellIndex;
  /** A new entry's sample slots while it is added (grown as needed). */
  #scratch = new Int32Array(1024);
  readonly #standing = new Map<number, Span[]>();
  /** The same lists as #standing, by cell index (read per sample in the hot loops: an array read, not a hash). */
  readonly #standingAt: (Span[] | undefined)[] = [];
  readonly #entries = new Map<string, Entry>();
  #maxRadius = 0;
  // Upper bounds over all reservations ever made (never lowered: only the query's reach grows).
  #maxSpeed = 0;
  #lastMovingSample = 0;
  /** Whether moving reservations with a deceleration also hold their braking envelopes. */
  readonly envelopes: boolean;

  /**
   * A table for a map of `width` x `height` tiles, sampling every `dt` seconds; `envelopes` false reserves no
   * braking envelopes (reservations' decelerations are ignored: the bodies alone are kept apart).
   */
  constructor(width: number, height: number, dt = 0.05, envelopes = true) {
    this.dt = dt;
    this.#sampler = new PathSampler(dt);
    this.envelopes = envelopes;
    this.#cols = Math.ceil(width / CELL) + 1;
    this.#rows = Math.ceil(height / CELL) + 1;
    if (this.#cols * this.#rows > CELL_SPACE) throw new RangeError("map too large for the reservation table");
    this.#cells = new CellIndex(this.#store, this.#cols * this.#rows);
  }

  /**
   * Work done by {@link firstConflict} so far: calls, and moving samples of candidates tested (the replay bench,
   * bench/fleetRepairReplay.ts, reports them beside its times: they do not depend on the machine's load).
   */
  readonly work = { queries: 0, samples: 0 };

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

  /** A free owner number for `e`, marked live. */
  #own(e: Entry): number {
    const slot = this.#freeOwners.length > 0 ? this.#freeOwners.pop()! : this.#owners.length;
    this.#owners[slot] = e;
    if (slot >= this.#ownerLive.length) {
      const grown = new Uint8Array(2 * this.#ownerLive.length);
      grown.set(this.#ownerLive);
      this.#ownerLive = grown;
    }
    this.#ownerLive[slot] = 1;
    return slot;
  }

  /** Reserves a trajectory (replacing the unit's previous one). */
  add(res: Reservation): void {
    this.remove(res.id);
    const { traj, radius, speed, id } = res;
    // The maxima and the last moving sample were raised when it was first added (they are never lowered).
    const old = this.#removed.get(traj);
    if (
      old && old.inLists && old.res.id === id && old.res.radius === radius && old.res.speed === speed &&
      (old.res.deceleration ?? 0) === (res.deceleration ?? 0)
    ) return this.#putBack(old, res);
    const dt = this.dt;
    const none = new Int32Array(0);
    const entry: Entry = {
      id,
      res,
      slot: -1,
      live: true,
      inLists: true,
      samples: none,
      runs: NO_RUNS,
      spans: [],
    };
    const env = this.envelopes ? envelopeSpec(res.radius, res.deceleration) : null;
    this.#maxRadius = Math.max(this.#maxRadius, radius, env?.radius ?? 0);
    this.#maxSpeed = Math.max(this.#maxSpeed, speed);
    const end = trajectoryEnd(traj);
    // Sample k covers time k * dt; the moving part holds the samples strictly between start and end.
    const kStart = Math.floor(traj.startTime / dt);
    const kEnd = Math.ceil(end / dt);
    const standAt = (p: Pose, from: number, to: number) => {
      const span: Span = { id, x: p.x, y: p.y, radius, from, to };
      const cell = this.#cell(p.x, p.y);
      let list = this.#standing.get(cell);
      if (!list) this.#standing.set(cell, this.#standingAt[cell] = list = []);
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
    const slot = entry.slot = this.#own(entry);
    // The poses from the path's sample cache (a trajectory is usually committed right after it was checked, so
    // its path is not walked again); before its first sample it stands at its start, after its last at its end.
    const path = this.#sampler.sampled(traj, end - traj.startTime, env);
    const k1 = Math.round((traj.startTime + path.phase) / dt), last = path.xs.length - 1;
    const first = traj.startPose, final = trajectoryEndPose(traj);
    const st = this.#store;
    let n = 0;
    const put = (k: number, x: number, y: number, r: number, v: number) => {
      const s = st.alloc();
      st.x[s] = x;
      st.y[s] = y;
      st.r[s] = r;
      st.v[s] = v;
      st.k[s] = k;
      st.cell[s] = this.#cell(x, y);
      st.owner[s] = slot;
      st.link(s);
      if (n === this.#scratch.length) {
        const grown = new Int32Array(2 * n);
        grown.set(this.#scratch);
        this.#scratch = grown;
      }
      this.#scratch[n++] = s;
    };
    for (let k = kStart; k <= kEnd; k++) {
      const j = k - k1;
      const x = j < 0 ? first.x : j > last ? final.x : path.xs[j];
      const y = j < 0 ? first.y : j > last ? final.y : path.ys[j];
      put(k, x, y, radius, speed);
      if (env && j >= 0 && j <= last) {
        const tip = path.eo[j + 1] - 1;
        if (tip >= path.eo[j] && path.es[j] > this.#maxSpeed) this.#maxSpeed = path.es[j];
        for (let m = path.eo[j]; m <= tip; m++) {
          put(k, path.ex[m], path.ey[m], env.radius, m === tip ? path.es[j] : 0);
        }
      }
    }
    entry.samples = this.#scratch.slice(0, n);
    entry.runs = this.#cells.runsOf(entry.samples);
    this.#cells.list(entry);
    if (kEnd > this.#lastMovingSample) this.#lastMovingSample = kEnd;
    standAt(trajectoryEndPose(traj), kEnd + 1, Infinity);
    this.#liveSamples += n;
    this.#entries.set(id, entry);
  }

  /** Drops a unit's reservation. */
  remove(id: string): void {
    const e = this.#entries.get(id);
    if (!e) return;
    this.#entries.delete(id);
    // Its moving samples stay in the time slices, skipped as dead, until compacted (a unit rolled back to this
    // trajectory gets them back for nothing).
    e.live = false;
    if (e.slot >= 0) this.#ownerLive[e.slot] = 0;
    this.#liveSamples -= e.samples.length;
    if (e.inLists && e.samples.length > 0) {
      this.#dead += e.samples.length;
      this.#deadEntries.add(e);
    }
    this.#cells.unlist(e);
    for (const { cell, span } of e.spans) {
      const list = this.#standing.get(cell)!;
      const i = list.indexOf(span);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) {
        this.#standing.delete(cell);
        this.#standingAt[cell] = undefined;
      }
    }
    this.#removed.set(e.res.traj, e);
    if (this.#dead > COMPACT_MIN && this.#dead > this.#liveSamples) this.compact();
  }

  /** Moving samples of removed reservations still in the time slices, and of live ones. */
  #dead = 0;
  #liveSamples = 0;
  readonly #deadEntries = new Set<Entry>();

  /**
   * Drops the samples of removed reservations from the time slices and frees their slots (done by remove when
   * they outnumber the live ones: a query skips them, but each costs a look). A unit later given one of those
   * trajectories back has it sampled again (the same samples, put after the others as before).
   */
  compact(): void {
    const owner = this.#store.owner, live = this.#ownerLive;
    this.#store.unlinkWhere((s) => live[owner[s]] === 0);
    for (const e of this.#deadEntries) {
      e.inLists = false;
      this.#owners[e.slot] = undefined;
      this.#freeOwners.push(e.slot);
      e.slot = -1;
      e.samples = new Int32Array(0);
      e.runs = NO_RUNS;
    }
    this.#deadEntries.clear();
    this.#dead = 0;
  }

  /**
   * Reservations dropped, by trajectory: a unit given back a trajectory it had (a repair's roll-back, a retry
   * that failed) gets the same samples back without sampling and indexing it again.
   */
  readonly #removed = new WeakMap<Trajectory, Entry>();

  /** Makes a dropped entry live again for `res` (the same trajectory, unit and sizes; its samples still linked). */
  #putBack(old: Entry, res: Reservation): void {
    if (old.samples.length > 0) {
      this.#dead -= old.samples.length;
      this.#deadEntries.delete(old);
    }
    old.live = true;
    if (old.slot >= 0) this.#ownerLive[old.slot] = 1;
    old.res = res;
    this.#liveSamples += old.samples.length;
    this.#cells.list(old);
    for (const { cell, span } of old.spans) {
      let list = this.#standing.get(cell);
      if (!list) this.#standing.set(cell, this.#standingAt[cell] = list = []);
      list.push(span);
    }
    this.#removed.delete(res.traj);
    this.#entries.set(res.id, old);
  }

  /**
   * The earliest conflict of a candidate standing at (x, y) over samples `k0`..`k1` (k1 may be Infinity), from
   * the per-cell index: one look at each nearby cell instead of one per sample.
   */
  #standingConflict(
    cand: Reservation,
    x: number,
    y: number,
    k0: number,
    k1: number,
    ignore?: ReadonlySet<string>,
  ): Conflict | null {
    if (k1 < k0) return null;
    const reach = cand.radius + this.#maxRadius + this.#maxSpeed * this.dt / 2;
    const x0 = Math.max(0, Math.floor((x - reach) / CELL)),
      x1 = Math.min(this.#cols - 1, Math.floor((x + reach) / CELL));
    const y0 = Math.max(0, Math.floor((y - reach) / CELL)),
      y1 = Math.min(this.#rows - 1, Math.floor((y + reach) / CELL));
    const half = this.dt / 2;
    const cells = this.#cells;
    let best: Conflict | null = null, bestK = Infinity;
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        const cell = cy * this.#cols + cx;
        const k = cells.earliest(cell, x, y, cand.radius, half, k0, k1, bestK, cand.id, ignore);
        if (k < bestK) {
          bestK = k;
          best = { id: cells.met!.id, time: k * this.dt, forever: false };
        }
        const standing = this.#standingAt[cell];
        if (standing) {
          for (const s of standing) {
            const k = Math.max(s.from, k0);
            if (k > s.to || k > k1 || k >= bestK || s.id === cand.id || ignore?.has(s.id)) continue;
            const gap = cand.radius + s.radius;
            if ((s.x - x) ** 2 + (s.y - y) ** 2 < gap * gap) {
              bestK = k;
              best = { id: s.id, time: k * this.dt, forever: s.to === Infinity };
            }
          }
        }
      }
    }
    return best;
  }

  /**
   * The first sample time from `from` on where `cand` comes too close to a reserved unit (other than
   * `cand.id` and those in `ignore`), or null if it never does. While the candidate stands (before its start,
   * after its end) the per-cell index answers; while it moves, the samples of its time slices. With `hint`
   * (seconds after the candidate's start where a conflict is likely, e.g. where the previous try of the same
   * path met one), the samples within HINT_SAMPLES of it are tested first, and a conflict found there is
   * answered even if an earlier one exists: null still means none at all.
   */
  firstConflict(
    cand: Reservation,
    from: number,
    ignore?: ReadonlySet<string>,
    hint?: number,
  ): Conflict | null {
    const dt = this.dt;
    const half = dt / 2;
    const k0 = Math.floor(from / dt);
    this.work.queries++;
    const traj = cand.traj;
    if (traj.segments.length === 0) {
      return this.#standingConflict(cand, traj.startPose.x, traj.startPose.y, k0, Infinity, ignore);
    }
    const candStart = traj.startTime, candEnd = trajectoryEnd(traj);
    // Samples whose half-step windows reach into the motion: kA..kB (same test as the reserved side).
    let kA = Math.floor((candStart - half) / dt);
    while (kA * dt + half <= candStart) kA++;
    while ((kA - 1) * dt + half > candStart) kA--;
    let kB = Math.ceil((candEnd + half) / dt);
    while ((kB - 1) * dt - half >= candEnd) kB--;
    while (kB * dt - half < candEnd) kB++;
    kB--; // last sample whose window reaches into the motion
    const head = this.#standingConflict(cand, traj.startPose.x, traj.startPose.y, k0, kA - 1, ignore);
    if (head) return head;
    const reach = cand.radius + this.#maxRadius + (cand.speed + this.#maxSpeed) * half;
    const mFrom = Math.max(k0, kA);
    if (mFrom <= kB) {
      const cs = cand.speed;
      const env = this.envelopes ? envelopeSpec(cand.radius, cand.deceleration) : null;
      // Poses sampled as far as the check reads (it often stops at an early conflict).
      const sampler = this.#sampler, path = sampler.sampled(traj, candEnd - candStart, env, -1);
      // Sample k is the path's sample j = k - k1 (k1 * dt is the first sample time after the start).
      const k1 = Math.round((candStart + path.phase) / dt);
      const last = path.xs.length - 1;
      const start = traj.startPose, end = trajectoryEndPose(traj);
      const work = this.work;
      const at = (k: number): Conflict | null => {
        work.samples++;
        const j = k - k1;
        if ((j >= path.filled || j < path.from) && j >= 0 && j <= last) sampler.fill(path, j);
        const px = j < 0 ? start.x : j > last ? end.x : path.xs[j];
        const py = j < 0 ? start.y : j > last ? end.y : path.ys[j];
        const c = this.#movingConflict(cand, k, px, py, cand.radius, cs, reach, ignore);
        if (c || !env || j < 0 || j > last) return c;
        const tip = path.eo[j + 1] - 1;
        for (let m = path.eo[j]; m <= tip; m++) {
          const es = m === tip ? path.es[j] : 0;
          const envReach = env.radius + this.#maxRadius + (es + this.#maxSpeed) * half;
          const e = this.#movingConflict(cand, k, path.ex[m], path.ey[m], env.radius, es, envReach, ignore);
          if (e) return e;
        }
        return null;
      };
      // Where the last try of this path met someone, the next try likely does too: look there first.
      if (hint !== undefined) {
        const kh = k1 + Math.round(hint / dt);
        for (let k = Math.max(mFrom, kh - HINT_SAMPLES); k <= Math.min(kB, kh + HINT_SAMPLES); k++) {
          const c = at(k);
          if (c) return c;
        }
      }
      for (let k = mFrom; k <= kB; k++) {
        const c = at(k);
        if (c) return c;
      }
    }
    const end = trajectoryEndPose(traj);
    return this.#standingConflict(cand, end.x, end.y, Math.max(k0, kB + 1), Infinity, ignore);
  }

  /** The conflict of a candidate's disc of radius `cr` moving at `cs` tiles/s, at (px, py) at sample `k`, if any. */
  #movingConflict(
    cand: Reservation,
    k: number,
    px: number,
    py: number,
    cr: number,
    cs: number,
    reach: number,
    ignore?: ReadonlySet<string>,
  ): Conflict | null {
    const dt = this.dt, half = dt / 2, id = cand.id, cols = this.#cols;
    const st = this.#store, X = st.x, Y = st.y, R = st.r, V = st.v, owner = st.owner, next = st.next;
    const live = this.#ownerLive;
    const occ = st.occupied, occAt = k * OCC_WORDS;
    const x0 = Math.max(0, Math.floor((px - reach) / CELL));
    const x1 = Math.min(cols - 1, Math.floor((px + reach) / CELL));
    const y0 = Math.max(0, Math.floor((py - reach) / CELL));
    const y1 = Math.min(this.#rows - 1, Math.floor((py + reach) / CELL));
    // The distance first: most samples nearby are not close enough (the cheap test rules them out).
    for (let cy = y0; cy <= y1; cy++) {
      for (let cx = x0; cx <= x1; cx++) {
        const cell = cy * cols + cx;
        const b = occBit(cell);
        if (occAt < occ.length && (occ[occAt + (b >>> 5)] & (1 << (b & 31))) !== 0) {
          for (let s = st.first(k, cell); s >= 0; s = next[s]) {
            const dx = X[s] - px, dy = Y[s] - py, gap = cr + R[s] + (cs + V[s]) * half;
            if (dx * dx + dy * dy >= gap * gap || live[owner[s]] === 0) continue;
            const sid = this.#owners[owner[s]]!.res.id;
            if (sid === id || ignore?.has(sid)) continue;
            return { id: sid, time: k * dt, forever: false };
          }
        }
        const standing = this.#standingAt[cell];
        if (standing) {
          for (let i = 0; i < standing.length; i++) {
            const s = standing[i];
            if (k < s.from || k > s.to) continue;
            const dx = s.x - px, dy = s.y - py, gap = cr + s.radius + cs * half;
            if (dx * dx + dy * dy >= gap * gap || s.id === id || ignore?.has(s.id)) continue;
            return { id: s.id, time: k * dt, forever: s.to === Infinity };
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
