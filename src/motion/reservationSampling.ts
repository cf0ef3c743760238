/**
 * A trajectory's poses at the reservation table's sample times (k * dt), and with braking envelopes the envelope
 * points and the stop point's speed margin at each (motion/braking.ts), cached per path: the sampling side of
 * motion/reservations.ts. Pure.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { poseAlongInto } from "../geometry/segment.ts";
import { distanceAtTime, type Trajectory } from "./trajectory.ts";
import { envelopeInto, stoppingDistance } from "./braking.ts";

/** Envelope disc spacing, as a fraction of the bounding radius. */
const ENVELOPE_SPACING = 0.5;
/** The least envelope disc spacing, tiles (point units). */
const MIN_ENVELOPE_SPACING = 0.1;

/** How a reservation's braking envelope is sampled. */
export interface EnvelopeSpec {
  /** Deceleration. */
  b: number;
  /** Disc spacing along the stretch, tiles. */
  spacing: number;
  /** Disc radius (covers the bounding disc anywhere between two discs). */
  radius: number;
}

/**
 * How the braking envelope of a disc of radius `r` braking at `deceleration` is sampled, or null when it has
 * none (deceleration 0 or absent: it stops at once).
 */
export function envelopeSpec(r: number, deceleration?: number): EnvelopeSpec | null {
  const b = deceleration ?? 0;
  if (!(b > 0)) return null;
  const spacing = Math.max(ENVELOPE_SPACING * r, MIN_ENVELOPE_SPACING);
  // Discs of radius sqrt(r^2 + (h/2)^2) centred every h along a straight piece cover every disc of radius r
  // centred on it (the farthest point lies r to the side, halfway between two centres); on an arc of curvature k
  // the concave side adds r k h^2 / 4 (k <= 1 here: turning radii below 1 tile are corners, which are centres).
  const radius = Math.sqrt(r * r + (spacing * spacing / 4) * (1 + r));
  return { b, spacing, radius };
}

/** A path's poses at the sample times of one phase (see PathSampler.sampled). */
export interface SampledPath {
  phase: number;
  /**
   * Poses of samples from..filled - 1 are in xs, ys (all of them with envelopes; see PathSampler.fill: a check
   * from a time well into the path, as a wait at a stop on the way, reads on from there only).
   */
  from: number;
  filled: number;
  /** The trajectory the samples are walked along (its segments, at this phase). */
  traj: Trajectory;
  xs: Float64Array;
  ys: Float64Array;
  /** Deceleration and spacing the envelopes were sampled for (0: none). */
  b: number;
  spacing: number;
  /** Envelope points of sample j: (ex[m], ey[m]) for m in eo[j]..eo[j + 1] - 1 (empty without envelopes). */
  ex: Float64Array;
  ey: Float64Array;
  eo: Int32Array;
  /**
   * Speed margin of sample j's stop point: how far it runs ahead (along the path) in the half step after the
   * sample, over half a step (the stop point never runs back: d/dt (s + v^2 / 2b) = v (1 + v' / b) >= 0).
   */
  es: Float64Array;
  /** Where the filling left off (absent once filled). */
  walk?: SampleWalk;
  /** The first sample's index in the table (k1 * dt is the first sample time at or after the start). */
  k1: number;
}

/**
 * A walk along a trajectory's segments at increasing times, resumable: each call picks up where the last one
 * left off, so sampling a path piece by piece costs what sampling it at once does (a pose per sample from the
 * start would cost the number of segments each time).
 */
class SampleWalk {
  readonly #traj: Trajectory;
  readonly #pose: Pose = { x: 0, y: 0, heading: 0 };
  /** A straight segment's direction, worked out once per segment rather than per sample (the same arithmetic
   * as poseAlongInto's at curvature 0, so the same poses to the bit). */
  #lineOf = -1;
  #cos = 0;
  #sin = 0;
  #i = 0;
  #segStart: number;

  constructor(traj: Trajectory) {
    this.#traj = traj;
    this.#segStart = traj.startTime;
  }

  /**
   * Calls `fn(k, x, y, i, u, v)` for the poses at sample times k * dt, k = `k0`..`k1` (later than any walked
   * before); i, u and v are the segment, the distance into it and the speed (i = -1 while it stands).
   */
  walk(
    k0: number,
    k1: number,
    dt: number,
    fn: (k: number, x: number, y: number, i: number, u: number, v: number) => void,
  ): void {
    const traj = this.#traj, segs = traj.segments, pose = this.#pose;
    for (let k = k0; k <= k1; k++) {
      const t = k * dt;
      if (t <= traj.startTime || segs.length === 0) {
        fn(k, traj.startPose.x, traj.startPose.y, -1, 0, 0);
        continue;
      }
      while (this.#i < segs.length && t - this.#segStart >= (segs[this.#i].duration ?? 0)) {
        this.#segStart += segs[this.#i++].duration ?? 0;
      }
      const i = this.#i;
      if (i >= segs.length) {
        const end = segs[segs.length - 1].end;
        fn(k, end.x, end.y, -1, 0, 0);
        continue;
      }
      const seg = segs[i];
      const tau = t - this.#segStart, D = seg.duration ?? 0;
      const u = distanceAtTime(seg, tau);
      if (seg.curvature === 0) {
        if (this.#lineOf !== i) {
          this.#lineOf = i;
          this.#cos = Math.cos(seg.start.heading);
          this.#sin = Math.sin(seg.start.heading);
        }
        const chord = seg.direction * u;
        pose.x = seg.start.x + chord * this.#cos;
        pose.y = seg.start.y + chord * this.#sin;
      } else {poseAlongInto(
          seg.start.x,
          seg.start.y,
          seg.start.heading,
          seg.curvature,
          seg.direction,
          u,
          pose,
        );}
      const v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0;
      fn(k, pose.x, pose.y, i, u, D > 0 ? v0 + ((v1 - v0) * Math.min(tau, D)) / D : 0);
    }
  }
}

/** Samples filled at a time by {@link PathSampler.fill} beyond the one asked for (a check reads on from it). */
const FILL_AHEAD = 32;

/** Samples paths at the times k * dt of a table, keeping the last sampling of each path (segments array). */
export class PathSampler {
  /** Seconds between samples. */
  readonly dt: number;

  /** A sampler for samples every `dt` seconds. */
  constructor(dt: number) {
    this.dt = dt;
  }

  readonly #paths = new WeakMap<Segment[], SampledPath>();

  /**
   * The poses of a path `phase` + j * dt seconds after its start (j = 0, 1, ... while it moves), where k * dt is
   * the first sample time at or after the start. Kept per segments array: a scheduler trying start delays that
   * are whole samples apart walks the path once, not once per try. Without envelopes the poses are filled as
   * far as `upTo` (all by default; see {@link fill}): a check that meets someone early never samples the rest.
   */
  sampled(traj: Trajectory, duration: number, env: EnvelopeSpec | null, upTo = Infinity): SampledPath {
    const dt = this.dt;
    const phase = Math.ceil(traj.startTime / dt - 1e-9) * dt - traj.startTime;
    const b = env?.b ?? 0, spacing = env?.spacing ?? 0;
    const hit = this.#paths.get(traj.segments);
    if (hit && Math.abs(hit.phase - phase) < 1e-9 && hit.b === b && hit.spacing === spacing) {
      if (upTo === Infinity) this.#fillAll(hit);
      else if (upTo >= 0) this.fill(hit, upTo);
      return hit;
    }
    const n = Math.max(0, Math.ceil((duration - phase) / dt));
    const xs = new Float64Array(n), ys = new Float64Array(n);
    const eo = new Int32Array(env ? n + 1 : 1);
    const es = new Float64Array(env ? n : 0);
    const pts: number[] = [];
    const k1 = Math.round((traj.startTime + phase) / dt);
    const walk = new SampleWalk(traj);
    const out: SampledPath = {
      phase,
      from: 0,
      filled: 0,
      traj,
      xs,
      ys,
      b,
      spacing,
      ex: es,
      ey: es,
      eo,
      es,
      walk,
      k1,
    };
    if (!env) {
      this.#paths.set(traj.segments, out);
      if (upTo === Infinity) this.#fillAll(out);
      else if (upTo >= 0) this.fill(out, upTo);
      return out;
    }
    // Path distance at each segment's start: the stop point's place along the path is before[i] + u + d.
    const before = new Float64Array(traj.segments.length + 1);
    traj.segments.forEach((seg, i) => before[i + 1] = before[i] + seg.length);
    const total = before[traj.segments.length];
    // Half steps: the even ones are the samples, the odd ones bound how far each sample's stop point runs.
    let tip = 0;
    walk.walk(2 * k1, 2 * (k1 + n - 1) + 1, dt / 2, (k2, x, y, i, u, v) => {
      const j = (k2 - 2 * k1) >> 1;
      const d = i >= 0 ? stoppingDistance(v, b) : 0;
      const at = i >= 0 ? Math.min(total, before[i] + u + d) : total;
      if ((k2 & 1) === 1) {
        es[j] = Math.max(0, at - tip) / (dt / 2);
        return;
      }
      xs[j] = x;
      ys[j] = y;
      tip = at;
      if (i >= 0) envelopeInto(traj.segments, i, u, d, spacing, pts);
      eo[j + 1] = pts.length / 2;
    });
    const ex = new Float64Array(pts.length / 2), ey = new Float64Array(pts.length / 2);
    for (let m = 0; m < ex.length; m++) [ex[m], ey[m]] = [pts[2 * m], pts[2 * m + 1]];
    out.ex = ex;
    out.ey = ey;
    out.filled = n;
    out.walk = undefined;
    this.#paths.set(traj.segments, out);
    return out;
  }

  /**
   * Fills `path`'s pose at sample `j` and FILL_AHEAD more (or to its end). Read further ahead than that past the
   * filled ones, the walk skips to `j` (those filled before are dropped: a stop's wait on the way is checked from
   * its arrival on, and walking its path from the start for every wait tried cost 12% of circle 100's detour pass);
   * read before the filled ones, it walks again from `j`. The poses are the same to the bit either way (the walk
   * steps through the segments by their durations, whatever samples it is asked for).
   */
  fill(path: SampledPath, j: number): void {
    const n = path.xs.length;
    if (j < 0 || j >= n || (j >= path.from && j < path.filled)) return;
    if (j < path.from || j > path.filled + FILL_AHEAD || !path.walk) {
      if (j < path.from || !path.walk) path.walk = new SampleWalk(path.traj);
      path.from = path.filled = j;
    }
    const walk = path.walk!;
    const to = Math.min(n - 1, j + FILL_AHEAD), k1 = path.k1, xs = path.xs, ys = path.ys;
    walk.walk(k1 + path.filled, k1 + to, this.dt, (k, x, y) => {
      xs[k - k1] = x;
      ys[k - k1] = y;
    });
    path.filled = to + 1;
    if (path.filled >= n) path.walk = undefined;
  }

  /** Fills all of `path`'s poses. */
  #fillAll(path: SampledPath): void {
    const n = path.xs.length;
    if (n === 0 || (path.from === 0 && path.filled >= n)) return;
    if (path.from > 0) this.fill(path, 0);
    while (path.filled < n) this.fill(path, path.filled);
  }
}
