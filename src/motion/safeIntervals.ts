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

/** What a tile holds: per unit, runs of sample indices (parallel arrays; -Infinity / Infinity for standing). */
interface TileRuns {
  ids: string[];
  from: number[];
  to: number[];
}

/**
 * Tile occupancy for disc units of radius `radius` + `pad` on a map `width` x `height` tiles, sampled every `dt`
 * seconds (the reservation table's step): every unit's trajectory is sampled into the tiles it comes near once
 * ({@link set}; a later set replaces the unit's tiles), so many searches share the work and a unit re-timed
 * costs only its own trajectory.
 */
export class TileOccupancy {
  readonly #tiles = new Map<number, TileRuns>();
  /** Tiles each unit holds something in. */
  readonly #held = new Map<string, Set<number>>();
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
  }

  /** Records a unit's trajectory (a trajectory without segments stands for good), replacing what it held. */
  set(u: MovingUnit): void {
    this.remove(u.id);
    const dt = this.dt, traj = u.traj, held = new Set<number>();
    this.#held.set(u.id, held);
    const put = (t: number, a: number, b: number) => {
      let e = this.#tiles.get(t);
      if (!e) this.#tiles.set(t, e = { ids: [], from: [], to: [] });
      const n = e.ids.length;
      // Samples come in time order: a tile's consecutive samples join the unit's last run there.
      if (n > 0 && e.ids[n - 1] === u.id && e.to[n - 1] >= a - 1) e.to[n - 1] = Math.max(e.to[n - 1], b);
      else {
        held.add(t);
        e.ids.push(u.id), e.from.push(a), e.to.push(b);
      }
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
    for (const t of this.#held.get(id) ?? []) {
      const e = this.#tiles.get(t)!;
      let w = 0;
      for (let i = 0; i < e.ids.length; i++) {
        if (e.ids[i] === id) continue;
        e.ids[w] = e.ids[i], e.from[w] = e.from[i], e.to[w] = e.to[i];
        w++;
      }
      e.ids.length = e.from.length = e.to.length = w;
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
   * (see SippQuery.occupied).
   */
  occupied(t: number, except: string): number[] {
    const e = this.#tiles.get(t), out: number[] = [];
    if (!e) return out;
    const order: number[] = [];
    for (let i = 0; i < e.ids.length; i++) if (e.ids[i] !== except) order.push(i);
    order.sort((a, b) => e.from[a] - e.from[b]);
    for (const i of order) {
      const a = e.from[i], b = e.to[i], n = out.length;
      if (n > 0 && a <= out[n - 1] + 1) out[n - 1] = Math.max(out[n - 1], b);
      else out.push(a, b);
    }
    const dt = this.dt;
    for (let i = 0; i < out.length; i += 2) {
      out[i] = out[i] * dt - dt / 2;
      out[i + 1] = out[i + 1] * dt + dt / 2;
    }
    return out;
  }
}
