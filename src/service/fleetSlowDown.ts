/**
 * A delay taken by slowing down along the same path (path-velocity decomposition): a unit moving at time t0 is
 * given `extra` seconds of delay without leaving its path or its limits. From t0 its speed (as a function of
 * the distance s driven since t0) is the lower of its old profile and a dip: braking at its deceleration from
 * its speed at t0 down to a floor speed, then accelerating at its acceleration. Both curves keep v^2 within the
 * unit's limits (d(v^2)/ds between -2 b and 2 a), so their minimum does too, and it never exceeds the old speed
 * (top speed, curve limits, stops at cusps and the goal kept). Once the dip's curve rises above the old profile
 * the unit drives as before, a constant time behind: the delay. The floor is found by bisection for the delay
 * asked; a delay longer than a full stop-and-go costs is taken as a wait where the slowed profile first stands
 * (so it brakes into that wait, never stops dead). Old segments have v^2 linear in s (speed linear in time),
 * and so has every piece of the minimum between its breakpoints, so the result is exact segments of the wire
 * model. A unit at rest at t0 (or one that stops at once: deceleration 0) waits there instead. Pure.
 *
 * @module
 */
import type { Segment } from "../geometry/types.ts";
import { segmentPiece } from "../geometry/segment.ts";
import { distanceAtTime, progressAt, type Trajectory, waitSegment } from "../motion/trajectory.ts";
import type { UnitSpec } from "../units/unit.ts";

/** Speeds below this (tiles/s) count as at rest. */
const REST = 1e-9;
/** Bisection steps for the floor speed (the delay is then within ~1e-12 of the asked one at soldier speeds). */
const BISECT = 48;

/** A timed segment cut `tau` seconds in: both pieces keep the linear speed of the whole (exact lengths). */
export function splitTimed(seg: Segment, tau: number): [Segment, Segment] {
  const D = seg.duration ?? 0, v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0;
  const v = v0 + ((v1 - v0) * tau) / D;
  const s = distanceAtTime(seg, tau);
  const a = segmentPiece(seg, 0, s), b = segmentPiece(seg, s, seg.length);
  Object.assign(a, { startSpeed: v0, endSpeed: v, duration: tau });
  Object.assign(b, { startSpeed: v, endSpeed: v1, duration: D - tau });
  if (seg.length === 0) b.start = a.end = { ...seg.start };
  return [a, b];
}

/** `traj`'s segments cut at fleet time `time`: those driven before it and those not begun (the one under way split). */
export function cutAt(traj: Trajectory, time: number): { head: Segment[]; tail: Segment[] } {
  const segs = traj.segments;
  if (time <= traj.startTime) return { head: [], tail: segs };
  const { index, into } = progressAt(traj, time);
  if (index >= segs.length) return { head: segs, tail: [] };
  if (into <= 0) return { head: segs.slice(0, index), tail: segs.slice(index) };
  const [a, b] = splitTimed(segs[index], into);
  return { head: [...segs.slice(0, index), a], tail: [b, ...segs.slice(index + 1)] };
}

/** The dip: v^2 braking at `b` from q0 down to qf (reached at s1), then rising at `a` (Infinity: at once). */
interface Dip {
  q0: number;
  qf: number;
  s1: number;
  b: number;
  a: number;
}

function dipAt(d: Dip, s: number): number {
  if (s <= d.s1) return d.q0 - 2 * d.b * s;
  return d.a === Infinity ? Infinity : d.qf + 2 * d.a * (s - d.s1);
}

/**
 * Walks `tail` with the speed capped by the dip; returns the seconds it takes (with `wait` added where it first
 * stands) and, when `out` is given, pushes the pieces there. Pieces the dip does not touch are the old ones.
 */
function walk(tail: readonly Segment[], d: Dip, wait: number, out?: Segment[]): number {
  let s = 0, total = 0, waited = wait <= 0, free = false;
  for (const seg of tail) {
    const D = seg.duration ?? 0, L = seg.length;
    if (free || L <= 0) {
      // Past the dip (it only rises from here), or a wait or turn in place of the old timing: kept as it was.
      out?.push(seg);
      total += D;
      s += L;
      continue;
    }
    const qa = (seg.startSpeed ?? 0) ** 2, qb = (seg.endSpeed ?? 0) ** 2;
    const old = (x: number) => qa + ((qb - qa) * x) / L;
    // Breakpoints within the segment (distances from its start): the dip's corner and the curves' crossings.
    const cuts = [0, L];
    if (d.s1 > s && d.s1 < s + L) cuts.push(d.s1 - s);
    for (const [x0, x1] of [[0, Math.min(L, Math.max(0, d.s1 - s))], [Math.max(0, d.s1 - s), L]]) {
      if (x1 <= x0) continue;
      const g0 = dipAt(d, s + x0) - old(x0), g1 = dipAt(d, s + x1) - old(x1);
      if (Number.isFinite(g0) && Number.isFinite(g1) && g0 * g1 < 0) {
        cuts.push(x0 + ((x1 - x0) * g0) / (g0 - g1));
      }
    }
    cuts.sort((p, q) => p - q);
    // v^2 this close to 0 is the dip's stop (rounding of q0 - 2 b s1): exactly at rest there.
    const q = cuts.map((x) => {
      const v = Math.min(old(x), dipAt(d, s + x));
      return v < 1e-10 ? 0 : v;
    });
    const touched = q.some((v, i) => v < old(cuts[i]) - 1e-12);
    if (!waited && q[0] === 0) {
      out?.push(waitSegment(seg.start, wait));
      total += wait;
      waited = true;
    }
    if (!touched) {
      out?.push(seg);
      total += D;
    } else {
      for (let i = 0; i + 1 < cuts.length; i++) {
        const x0 = cuts[i], x1 = cuts[i + 1];
        if (!waited && q[i] === 0) {
          out?.push(waitSegment(segmentPiece(seg, x0, x0).start, wait));
          total += wait;
          waited = true;
        }
        if (x1 - x0 <= 1e-12) continue;
        const v0 = Math.sqrt(q[i]), v1 = Math.sqrt(q[i + 1]);
        const dur = (2 * (x1 - x0)) / (v0 + v1);
        total += dur;
        if (out) {
          const piece = segmentPiece(seg, x0, x1);
          Object.assign(piece, { startSpeed: v0, endSpeed: v1, duration: dur });
          out.push(piece);
        }
      }
    }
    s += L;
    // Once past the corner with the dip above the top speed, nothing further is touched.
    if (s >= d.s1 && dipAt(d, s) >= qMax(tail)) free = true;
  }
  if (!waited) {
    // It never stood (the old profile keeps moving): the wait goes at the end, where it stands anyway.
    const last = tail[tail.length - 1];
    out?.push(waitSegment(last.end, wait));
    total += wait;
  }
  return total;
}

const qMaxMemo = new WeakMap<readonly Segment[], number>();
/** The highest v^2 of a path's segments. */
function qMax(tail: readonly Segment[]): number {
  let m = qMaxMemo.get(tail);
  if (m === undefined) {
    m = 0;
    for (const s of tail) m = Math.max(m, (s.startSpeed ?? 0) ** 2, (s.endSpeed ?? 0) ** 2);
    qMaxMemo.set(tail, m);
  }
  return m;
}

function duration(segs: readonly Segment[]): number {
  let t = 0;
  for (const s of segs) t += s.duration ?? 0;
  return t;
}

/**
 * `traj` with the unit `extra` seconds later from fleet time `t0` on, along the same path: the same until t0,
 * then slowed (see the module doc) so that it drives the rest of its path exactly `extra` behind once the dip is
 * over. A unit standing at t0 (before its start, at rest, or stopping at once) waits there `extra` instead.
 * Null when it has no motion left after t0 (it stands for good). `extra` <= 0 gives `traj` back.
 */
export function slowedBy(
  traj: Trajectory,
  t0: number,
  extra: number,
  unit: Pick<UnitSpec, "acceleration" | "deceleration">,
): Trajectory | null {
  if (extra <= 0) return traj;
  if (traj.segments.length === 0) return null;
  // Standing before its start, it waits longer; one that sets out at speed (a late unit's rest of its path)
  // slows down from its start instead.
  const launches = (traj.segments[0].startSpeed ?? 0) > REST;
  if (t0 < traj.startTime && !launches) return { ...traj, startTime: traj.startTime + extra };
  const { head, tail } = cutAt(traj, Math.max(t0, traj.startTime));
  if (tail.length === 0) return null;
  const v0 = tail[0].startSpeed ?? 0;
  const b = unit.deceleration, a = unit.acceleration > 0 ? unit.acceleration : Infinity;
  if (v0 <= REST || !(b > 0)) {
    const wait = waitSegment(tail[0].start, extra);
    return { ...traj, segments: [...head, wait, ...tail] };
  }
  const before = duration(tail);
  const q0 = v0 * v0;
  const dip = (vf: number): Dip => ({ q0, qf: vf * vf, s1: (q0 - vf * vf) / (2 * b), b, a });
  const full = walk(tail, dip(0), 0) - before;
  let floor = 0, wait = 0;
  if (extra >= full) wait = extra - full;
  else {
    let lo = 0, hi = v0;
    for (let i = 0; i < BISECT; i++) {
      const mid = (lo + hi) / 2;
      if (walk(tail, dip(mid), 0) - before > extra) lo = mid;
      else hi = mid;
    }
    floor = hi;
  }
  const out: Segment[] = [];
  walk(tail, dip(floor), wait, out);
  return { ...traj, segments: [...head, ...out] };
}
