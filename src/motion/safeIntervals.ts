/**
 * When each tile is taken, for safe-interval path planning (search/sippSpace.ts): a tile is taken while a disc of
 * the unit's radius plus a pad, standing on the tile's centre, comes too close to another unit. The pad covers
 * what the tile-centre model leaves out: part of the swept move (the unit is handed a tile halfway through the
 * move onto it) and the unit's own motion between samples. Each sample taken covers the half step either side.
 *
 * The units are read from their trajectories (the same ones the reservation table holds, sampled at its step;
 * the bodies only, no braking envelopes: SIPP only proposes routes, the table checks them). Pure.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import { type Trajectory, trajectoryEnd, trajectoryEndPose, trajectoryPoseInto } from "./trajectory.ts";

/** A changing unit: its trajectory (standing: no segments), radius and top speed. */
export interface MovingUnit {
  /** Unit id. */
  id: string;
  /** Its trajectory now. */
  traj: Trajectory;
  /** Bounding radius, tiles. */
  radius: number;
  /** Top speed, tiles/s. */
  speed: number;
}

/**
 * What a tile holds: per unit, runs of sample indices (parallel arrays; -Infinity / Infinity for standing), kept
 * sorted by `from` (so occupied merges them in one pass, with no sort per query), and the run the unit being
 * sampled last put here (its next sample there may join it).
 */
interface TileRuns {
  ids: string[];
  from: number[];
  to: number[];
  lastId: string;
  lastRun: number;
  /** When the tile is taken by any unit (occupied's answer for a unit with nothing here), null until asked. */
  all: number[] | null;
}

/** The answer for a tile nobody comes near. */
const NONE: readonly number[] = Object.freeze([]);

/** Side of the square blocks of tiles that units are filed under until they are sampled (tiles). */
const BLOCK = 16;

/**
 * Tile occupancy for disc units of radius `radius` + `pad` on a map `width` x `height` tiles, sampled every `dt`
 * seconds (the reservation table's step): every unit's trajectory is sampled into the tiles it comes near once
 * ({@link set}; a later set replaces the unit's tiles), so many searches share the work and a unit re-timed
 * costs only its own trajectory. A unit is sampled when a query first reaches a block of tiles its trajectory's
 * bounding box touches (on a large map with many units, a search sees only the units near where it goes).
 */
export class TileOccupancy {
  readonly #tiles = new Map<number, TileRuns>();
  /** Tiles each sampled unit holds something in. */
  readonly #held = new Map<string, Set<number>>();
  /** Units not sampled yet, by block; and the blocks of each. */
  readonly #pendingIn = new Map<number, Set<string>>();
  readonly #pending = new Map<string, { u: MovingUnit; blocks: number[] }>();
  readonly #blockCols: number;
  readonly #reach: number;

  /** See the class doc. */
  constructor(
    readonly width: number,
    readonly height: number,
    readonly dt: number,
    readonly radius: number,
    readonly pad: number,
  ) {
    this.#reach = radius + pad;
    this.#blockCols = Math.ceil(width / BLOCK);
  }

  /**
   * Records a unit's trajectory (a trajectory without segments stands for good), replacing what it held; it is
   * sampled when a query first comes near it.
   */
  set(u: MovingUnit): void {
    this.remove(u.id);
    // A box around everything the trajectory reaches: a segment stays within its length of its start.
    const p0 = u.traj.startPose;
    let x0 = p0.x, x1 = p0.x, y0 = p0.y, y1 = p0.y;
    for (const seg of u.traj.segments) {
      const r = seg.curvature === 0 ? 0 : seg.length;
      for (const p of [seg.start, seg.end]) {
        x0 = Math.min(x0, p.x - r),
          x1 = Math.max(x1, p.x + r),
          y0 = Math.min(y0, p.y - r),
          y1 = Math.max(y1, p.y + r);
      }
    }
    const gap = this.#reach + u.radius + u.speed * this.dt / 2 + 1;
    const bx0 = Math.max(0, Math.floor((x0 - gap) / BLOCK)),
      bx1 = Math.min(this.#blockCols - 1, Math.floor((x1 + gap) / BLOCK));
    const rows = Math.ceil(this.height / BLOCK);
    const by0 = Math.max(0, Math.floor((y0 - gap) / BLOCK)),
      by1 = Math.min(rows - 1, Math.floor((y1 + gap) / BLOCK));
    const blocks: number[] = [];
    for (let by = by0; by <= by1; by++) {
      for (let bx = bx0; bx <= bx1; bx++) {
        const b = by * this.#blockCols + bx;
        blocks.push(b);
        let set = this.#pendingIn.get(b);
        if (!set) this.#pendingIn.set(b, set = new Set());
        set.add(u.id);
      }
    }
    this.#pending.set(u.id, { u, blocks });
  }

  /** Samples a pending unit into the tiles it comes near. */
  #sample(id: string): void {
    const pending = this.#pending.get(id)!;
    this.#pending.delete(id);
    for (const b of pending.blocks) this.#pendingIn.get(b)!.delete(id);
    const u = pending.u;
    const dt = this.dt, traj = u.traj, held = new Set<number>();
    this.#held.set(u.id, held);
    const put = (t: number, a: number, b: number) => {
      let e = this.#tiles.get(t);
      if (!e) this.#tiles.set(t, e = { ids: [], from: [], to: [], lastId: "", lastRun: -1, all: null });
      e.all = null;
      // Samples come in time order: a tile's consecutive samples join the unit's last run there (a run the unit put
      // after it would start later, so its index stays put while the unit is sampled).
      const r = e.lastId === u.id ? e.lastRun : -1;
      if (r >= 0 && e.to[r] >= a - 1) {
        e.to[r] = Math.max(e.to[r], b);
        return;
      }
      held.add(t);
      // Into its place by `from` (after the runs that start no later).
      let i = e.ids.length;
      e.ids.push(u.id), e.from.push(a), e.to.push(b);
      for (; i > 0 && e.from[i - 1] > a; i--) {
        e.ids[i] = e.ids[i - 1], e.from[i] = e.from[i - 1], e.to[i] = e.to[i - 1];
      }
      e.ids[i] = u.id, e.from[i] = a, e.to[i] = b;
      e.lastId = u.id;
      e.lastRun = i;
    };
    const standGap = this.#reach + u.radius;
    if (traj.segments.length === 0) {
      this.#eachTileNear(traj.startPose.x, traj.startPose.y, standGap, (t) => put(t, -Infinity, Infinity));
      return;
    }
    const k0 = Math.floor(traj.startTime / dt), k1 = Math.ceil(trajectoryEnd(traj) / dt);
    this.#eachTileNear(traj.startPose.x, traj.startPose.y, standGap, (t) => put(t, -Infinity, k0 - 1));
    const p: Pose = { x: 0, y: 0, heading: 0 };
    const gap = standGap + u.speed * dt / 2;
    for (let k = k0; k <= k1; k++) {
      trajectoryPoseInto(traj, k * dt, p);
      this.#eachTileNear(p.x, p.y, gap, (t) => put(t, k, k));
    }
    const end = trajectoryEndPose(traj);
    this.#eachTileNear(end.x, end.y, standGap, (t) => put(t, k1 + 1, Infinity));
  }

  /** Forgets a unit. */
  remove(id: string): void {
    const p = this.#pending.get(id);
    if (p) {
      this.#pending.delete(id);
      for (const b of p.blocks) this.#pendingIn.get(b)!.delete(id);
    }
    for (const t of this.#held.get(id) ?? []) {
      const e = this.#tiles.get(t)!;
      let w = 0;
      for (let i = 0; i < e.ids.length; i++) {
        if (e.ids[i] === id) continue;
        e.ids[w] = e.ids[i], e.from[w] = e.from[i], e.to[w] = e.to[i];
        w++;
      }
      e.ids.length = e.from.length = e.to.length = w;
      e.lastId = "", e.lastRun = -1, e.all = null;
    }
    this.#held.delete(id);
  }

  #eachTileNear(x: number, y: number, gap: number, fn: (t: number) => void): void {
    const w = this.width;
    const x0 = Math.max(0, Math.ceil(x - gap - 0.5)), x1 = Math.min(w - 1, Math.floor(x + gap - 0.5));
    const y0 = Math.max(0, Math.ceil(y - gap - 0.5)),
      y1 = Math.min(this.height - 1, Math.floor(y + gap - 0.5));
    for (let ty = y0; ty <= y1; ty++) {
      for (let tx = x0; tx <= x1; tx++) {
        if ((tx + 0.5 - x) ** 2 + (ty + 0.5 - y) ** 2 < gap * gap) fn(ty * w + tx);
      }
    }
  }

  /**
   * When tile `t` is taken by anyone but `except`: sorted disjoint closed ranges in seconds as pairs
   * (see SippQuery.occupied). Read-only: for a unit with nothing in the tile, the answer is kept for the tile until
   * a unit's samples there change (the searches of a detour pass, one per unit, ask for the same tiles again
   * while few units change between them).
   */
  occupied(t: number, except: string): readonly number[] {
    const x = t % this.width,
      block = Math.floor(Math.floor(t / this.width) / BLOCK) * this.#blockCols +
        Math.floor(x / BLOCK);
    const waiting = this.#pendingIn.get(block);
    if (waiting && waiting.size > 0) { for (const id of [...waiting]) this.#sample(id); }
    const e = this.#tiles.get(t);
    if (!e) return NONE;
    const mine = this.#held.get(except)?.has(t) === true;
    if (!mine && e.all !== null) return e.all;
    const out: number[] = [];
    // The runs are sorted by `from`: merged in one pass.
    for (let i = 0; i < e.ids.length; i++) {
      if (e.ids[i] === except) continue;
      const a = e.from[i], b = e.to[i], n = out.length;
      if (n > 0 && a <= out[n - 1] + 1) out[n - 1] = Math.max(out[n - 1], b);
      else out.push(a, b);
    }
    const dt = this.dt;
    for (let i = 0; i < out.length; i += 2) {
      out[i] = out[i] * dt - dt / 2;
      out[i + 1] = out[i + 1] * dt + dt / 2;
    }
    if (!mine) e.all = out;
    return out;
  }
}
