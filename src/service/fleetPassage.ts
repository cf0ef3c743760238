/**
 * Keeping the plan's order of passage after a delay, with a delay per unit (the action-dependency graph of
 * robust multi-agent plan execution, Hönig et al. 2016/2019, settled on the reservation table): every unit keeps
 * its path; where two units' trajectories meet after the repair, the one that came there later in the plan must
 * still come later, so it gets the least delay (in steps) that keeps it behind, and a conflict raises the later
 * unit's delay again until no member meets anyone (a fixpoint: delays only grow, each raise by at least a
 * sample, up to MAX_EXTRA, so it ends). A unit standing at the repair's time takes its delay as a wait where it
 * stands; a moving one slows down along its path from then on (fleetSlowDown.ts: braking at most at its
 * deceleration, never a stop it cannot brake into) and drives on exactly its delay behind. The later of two
 * units is the one whose old trajectory first came near the place where they meet later (read from where each
 * was at the repair's time). Every trajectory is committed through the scheduler and every check is the
 * reservation table's own, so the result is conflict-free when it settles; when it cannot (a unit that would
 * have to wait stands for good, brakes from a halt or has arrived; a delay past the cap; too many raises), the
 * caller rolls it back. Synchronous, no I/O.
 *
 * @module
 */
import { poseAlongInto } from "../geometry/segment.ts";
import type { Pose } from "../geometry/types.ts";
import {
  distanceAtTime,
  type Trajectory,
  trajectoryEnd,
  trajectoryEndPose,
  trajectoryPose,
} from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import { slowedBy } from "./fleetSlowDown.ts";

/** Most delay (seconds) a unit may take beyond the late unit's own before the propagation is given up. */
const MAX_EXTRA = 30;
/** Delay raises per unit of the fleet before it is given up (bounds the cost of a chain that does not settle). */
const RAISES_PER_UNIT = 4;

/** One unit the propagation has looked at. */
interface Member {
  u: FleetUnitState;
  /** Its trajectory before the repair (the plan whose order is kept). */
  old: Trajectory;
  /** Fleet time from which `old` is read (where it was when the repair began). */
  anchor: number;
  /** The trajectory its delay is taken from, from `t0` on, and the delay that one already has over `old`. */
  base: Trajectory;
  t0: number;
  baseDelay: number;
  /** Its delay over `old`, seconds. */
  delay: number;
  /** The units it must pass after (met later than they in the plan), kept clear of when it slows down. */
  after: Set<Member>;
  /** Whether it slows down as late as it may (a follower could not brake for it slowing down at once). */
  lateStart: boolean;
  /** The meeting its delay was last raised for. */
  at: number;
}

/** The late unit as the propagation starts from it. */
export interface LateStart {
  u: FleetUnitState;
  /** Its trajectory before the report and the fleet time from which it is read (where it is now). */
  old: Trajectory;
  from: number;
  /** Its new trajectory (the old one from `from`, `delay` later), committed by the caller. */
  late: Trajectory;
  /** The time it sets out on `late` (its slowing down starts there). */
  t0: number;
  delay: number;
}

/** What a propagation did: the ids whose trajectories changed (the late unit first), or why it failed. */
export type PassageResult = { ok: true; changed: Set<string> } | { ok: false; reason: string };

/**
 * When `traj` first has the unit within `r` of (cx, cy) in [from, to] (every `h` seconds) and when it is first
 * out again after that: [Infinity, Infinity] if it never comes near, out Infinity if it stays for good.
 */
function visit(traj: Trajectory, from: number, to: number, cx: number, cy: number, r: number, h: number) {
  const segs = traj.segments, p: Pose = { x: 0, y: 0, heading: 0 };
  const r2 = r * r, end = trajectoryEnd(traj);
  let i = 0, segStart = traj.startTime, into = Infinity;
  for (let t = from; into === Infinity ? t <= to + 1e-9 : t <= end + h; t += h) {
    if (segs.length === 0 || t <= traj.startTime) Object.assign(p, traj.startPose);
    else {
      while (i < segs.length && t >= segStart + (segs[i].duration ?? 0)) segStart += segs[i++].duration ?? 0;
      if (i >= segs.length) Object.assign(p, trajectoryEndPose(traj));
      else {
        const s = segs[i], u = distanceAtTime(s, t - segStart);
        poseAlongInto(s.start.x, s.start.y, s.start.heading, s.curvature, s.direction, u, p);
      }
    }
    const near = (p.x - cx) ** 2 + (p.y - cy) ** 2 <= r2;
    if (into === Infinity && near) into = t;
    else if (into !== Infinity && !near) return [into, t];
  }
  return [into, Infinity];
}

/** Where a unit meeting another at `at` may start slowing down, latest first (the last is `t0`: at once). */
function slowdownStarts(t0: number, at: number): number[] {
  const out: number[] = [];
  if (!Number.isFinite(at)) return [t0];
  for (let back = 0.5; at - back > t0; back *= 2) out.push(at - back);
  out.push(t0);
  return out;
}

/** A trajectory's positions at samples and their bounding box. */
interface Samples {
  k0: number;
  dt: number;
  xy: Float64Array;
  box: [number, number, number, number];
}

const sampleCache = new WeakMap<Trajectory, Samples>();

/** Positions of `traj` from sample k0 to one past its end (x, y interleaved), kept per trajectory. */
function samplesOf(traj: Trajectory, k0: number, dt: number): Samples {
  const hit = sampleCache.get(traj);
  if (hit && hit.k0 === k0 && hit.dt === dt) return hit;
  const xy = sampled(traj, k0, Math.max(k0, Math.ceil(trajectoryEnd(traj) / dt) + 1), dt);
  const box: Samples["box"] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let j = 0; j < xy.length; j += 2) {
    box[0] = Math.min(box[0], xy[j]);
    box[1] = Math.min(box[1], xy[j + 1]);
    box[2] = Math.max(box[2], xy[j]);
    box[3] = Math.max(box[3], xy[j + 1]);
  }
  const out = { k0, dt, xy, box };
  sampleCache.set(traj, out);
  return out;
}

/** Positions of `traj` at samples k0..k1 (x, y interleaved), walking its segments once. */
function sampled(traj: Trajectory, k0: number, k1: number, dt: number): Float64Array {
  const out = new Float64Array(2 * (k1 - k0 + 1));
  const segs = traj.segments, p: Pose = { x: 0, y: 0, heading: 0 };
  let i = 0, segStart = traj.startTime;
  for (let k = k0; k <= k1; k++) {
    const t = k * dt;
    if (segs.length === 0 || t <= traj.startTime) Object.assign(p, traj.startPose);
    else {
      while (i < segs.length && t >= segStart + (segs[i].duration ?? 0)) segStart += segs[i++].duration ?? 0;
      if (i >= segs.length) Object.assign(p, trajectoryEndPose(traj));
      else {
        const s = segs[i];
        poseAlongInto(
          s.start.x,
          s.start.y,
          s.start.heading,
          s.curvature,
          s.direction,
          distanceAtTime(s, t - segStart),
          p,
        );
      }
    }
    out[2 * (k - k0)] = p.x;
    out[2 * (k - k0) + 1] = p.y;
  }
  return out;
}

/**
 * Whether unit `a` on `ta` keeps clear of unit `b` on `tb` from `from` on, where `a` is the later one, by the
 * reservation table's own margin at its samples (bounding discs, plus both top speeds' motion over half a
 * sample): the check a unit's slowing down is chosen by (the table has the last word). A stretch where they
 * are too close with `b` the later one (`aLater` false at its first sample) is `b`'s to keep clear of.
 */
function clearOf(
  a: FleetUnitState,
  ta: Trajectory,
  b: FleetUnitState,
  tb: Trajectory,
  from: number,
  dt: number,
  aLater: (at: number) => boolean,
): boolean {
  const k0 = Math.floor(from / dt);
  const sa = samplesOf(ta, k0, dt), sb = samplesOf(tb, k0, dt);
  const gap = a.unit.boundingRadius + b.unit.boundingRadius + ((a.unit.maxSpeed + b.unit.maxSpeed) * dt) / 2;
  // Never near each other's ground at all: clear (most pairs of a warehouse's paths).
  const [ba, bb] = [sa.box, sb.box];
  if (ba[0] > bb[2] + gap || bb[0] > ba[2] + gap || ba[1] > bb[3] + gap || bb[1] > ba[3] + gap) return true;
  const pa = sa.xy, pb = sb.xy;
  const g2 = gap * gap;
  const la = pa.length - 2, lb = pb.length - 2;
  let skipping = false;
  // Past both ends each stands at its last sample: one more comparison there covers forever.
  for (let j = 0; j <= Math.max(la, lb); j += 2) {
    const ja = j < la ? j : la, jb = j < lb ? j : lb;
    const close = (pa[ja] - pb[jb]) ** 2 + (pa[ja + 1] - pb[jb + 1]) ** 2 < g2;
    if (!close) skipping = false;
    else if (!skipping) {
      if (aLater((k0 + j / 2) * dt)) return false;
      skipping = true;
    }
  }
  return true;
}

/**
 * Propagates the late unit's delay with a delay per unit (see the module doc). The caller has committed
 * `start.late`; on success every changed trajectory is committed, on failure the caller rolls back.
 */
export function keepPassage(
  sched: FleetScheduler,
  start: LateStart,
  time: number,
  eager = false,
): PassageResult {
  const dt = sched.table.dt;
  const seen = new Map<string, Member>();
  const L: Member = {
    u: start.u,
    old: start.old,
    anchor: start.from,
    base: start.late,
    t0: start.t0,
    baseDelay: start.delay,
    delay: start.delay,
    after: new Set(),
    lateStart: !eager,
    at: Infinity,
  };
  seen.set(L.u.id, L);
  const changed = new Set([L.u.id]);
  const member = (id: string): Member | null => {
    let m = seen.get(id);
    if (!m) {
      const u = sched.units.get(id);
      if (!u) return null;
      const t0 = time, at = Infinity;
      m = {
        u,
        old: u.traj,
        anchor: time,
        base: u.traj,
        t0,
        baseDelay: 0,
        delay: 0,
        after: new Set(),
        lateStart: !eager,
        at,
      };
      seen.set(id, m);
    }
    return m;
  };
  // Which of two meeting units came to the place later in the plan.
  // The order found at a pair's first meeting is kept (read again at a later sample of the same passage, the
  // places can make it flip, and two units each raised past the other never settle).
  const order = new Map<string, Member>();
  const laterOf = (a: Member, b: Member, at: number, ta = a.u.traj): Member => {
    const key = a.u.id < b.u.id ? `${a.u.id}\n${b.u.id}` : `${b.u.id}\n${a.u.id}`;
    let later = order.get(key);
    if (!later) order.set(key, later = passedLater(a, b, at, ta));
    return later;
  };
  const passedLater = (a: Member, b: Member, at: number, ta: Trajectory): Member => {
    const pa = trajectoryPose(ta, at), pb = trajectoryPose(b.u.traj, at);
    const cx = (pa.x + pb.x) / 2, cy = (pa.y + pb.y) / 2;
    // Half the table's gap: both units are inside when they meet.
    const r = (a.u.unit.boundingRadius + b.u.unit.boundingRadius) / 2 +
      ((a.u.unit.maxSpeed + b.u.unit.maxSpeed) * dt) / 4 + 1e-6;
    const [ina, outa] = visit(a.old, a.anchor, at, cx, cy, r, dt / 2);
    const [inb, outb] = visit(b.old, b.anchor, at, cx, cy, r, dt / 2);
    // Both there when the repair began: the one that leaves first went first.
    if (Math.abs(ina - inb) < dt / 4) return outa > outb ? a : b;
    return ina > inb ? a : b;
  };
  const cap = start.delay + MAX_EXTRA;
  let raises = RAISES_PER_UNIT * sched.units.size;
  // The trajectory with delay `d` that keeps `m` clear of every unit it must pass after (met first at `at`),
  // slowing down at once if that does (the closer to a time shift of the plan, the fewer meetings it makes),
  // else as late as it may; for a `lateStart` member, as late as it may. Null when none does, undefined when it
  // has arrived before any start.
  const fitting = (m: Member, d: number, at: number): Trajectory | null | undefined => {
    let any: Trajectory | undefined;
    const late = slowdownStarts(m.t0, at);
    for (const tb of m.lateStart ? late : [m.t0, ...late.slice(0, -1)]) {
      // A start after its arrival slows nothing down: an earlier one is tried.
      const t = slowedBy(m.base, tb, d - m.baseDelay, m.u.unit);
      if (!t) continue;
      any = t;
      const later = (e: Member) => (at: number) => laterOf(m, e, at, t) === m;
      // The newest leader first: the one most likely still in the way.
      if ([...m.after].reverse().every((e) => clearOf(m.u, t, e.u, e.u.traj, time, dt, later(e)))) return t;
    }
    return any === undefined ? undefined : null;
  };
  // Raises `m`'s delay to the least (in samples, from `earlier`'s on) that keeps it clear of the units it must
  // pass after, `earlier` now among them: doubling steps, then bisection. When none does and `earlier` slows
  // down at once, `earlier` is made to slow down as late as it may instead (answered: it changed). A reason
  // when neither helps.
  const raise = (m: Member, earlier: Member, at: number): string | null | Member => {
    if (m.u.brake !== undefined && m.u.traj === m.u.brake) return `${m.u.id} is braking from a halt`;
    if (raises-- <= 0) return "too many delay raises";
    m.after.add(earlier);
    const lo = m.delay < earlier.delay - 1e-9 ? earlier.delay : m.delay + dt;
    let bad = Math.ceil(lo / dt - 1e-9) - 1, step = 1;
    let good: { k: number; traj: Trajectory } | null = null;
    const capK = Math.floor(cap / dt + 1e-9);
    for (let k = bad + 1; k <= capK; k = Math.min(bad + step, capK), step *= 2) {
      const t = fitting(m, k * dt, at);
      if (t === undefined) return `${m.u.id} stands for good`;
      if (t) {
        good = { k, traj: t };
        break;
      }
      bad = k;
      if (k === capK) break;
    }
    if (!good && !earlier.lateStart && earlier.delay > earlier.baseDelay) {
      earlier.lateStart = true;
      const t = fitting(earlier, earlier.delay, earlier.at);
      if (t) {
        sched.commit(earlier.u, t);
        return earlier;
      }
    }
    if (!good) return `${m.u.id} cannot keep behind ${earlier.u.id} within ${MAX_EXTRA} s`;
    while (good.k - bad > 1) {
      const k = Math.floor((good.k + bad) / 2), t = fitting(m, k * dt, at);
      if (t) good = { k, traj: t };
      else bad = k;
    }
    sched.commit(m.u, good.traj);
    m.delay = good.k * dt;
    m.at = at;
    changed.add(m.u.id);
    return null;
  };
  // Members to look at, by the time of the meeting that changed them: earlier meetings first, so a unit's
  // delay is mostly raised once its leaders' are settled.
  const queue = new Map<string, number>([[L.u.id, time]]);
  const enqueue = (id: string, at: number) => queue.set(id, Math.min(queue.get(id) ?? Infinity, at));
  while (queue.size > 0) {
    let id = "", first = Infinity;
    for (const [q, at] of queue) if (at < first) [id, first] = [q, at];
    queue.delete(id);
    const m = seen.get(id)!;
    const ignore = new Set<string>();
    for (;;) {
      const c = sched.table.firstConflict(sched.table.get(id)!, time, ignore);
      if (!c) break;
      ignore.add(c.id);
      const other = member(c.id);
      if (!other) return { ok: false, reason: `${c.id} is not a unit of the fleet` };
      const later = laterOf(m, other, c.time);
      // It would have to pass after a unit that stands there for good from then on: no delay helps.
      if (later === m && c.forever) return { ok: false, reason: `${id} meets ${c.id} standing for good` };
      const earlier = later === m ? other : m;
      const why = raise(later, earlier, c.time);
      if (typeof why === "string") return { ok: false, reason: why };
      if (why) {
        // `earlier` slows down later now: both are looked at again (the later one raised then, if need be).
        enqueue(why.u.id, c.time);
        enqueue(later.u.id, c.time);
        if (why === m) break;
        continue;
      }
      enqueue(later.u.id, c.time);
      // Its own trajectory changed: it is looked at again from the start.
      if (later === m) break;
    }
  }
  return { ok: true, changed };
}
