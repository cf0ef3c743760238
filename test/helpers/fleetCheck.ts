/**
 * An independent fleet checker for the tests: integrates every unit's trajectories in time (fine steps, poses
 * in closed form from the segment contract of docs/segments.md, written here again rather than imported) and
 * reports pairwise footprint overlaps (exact discs and oriented rectangles), wall contacts (a footprint
 * overlapping the interior of a blocked tile), arrivals and the makespan. A later trajectory of a unit
 * replaces its earlier ones from its start_time on; before its first trajectory a unit stands at its start pose.
 * For units given their speed limits it also follows the speed in time and reports a change between
 * consecutive steps faster than the unit's deceleration (an instant stop) or acceleration allow, or above its
 * top speed. Contract errors: a segment whose length is not its mean speed times its duration, one whose own
 * geometry integrated from its start pose does not reach its `end` (when given), consecutive ones that do not join.
 *
 * @module
 */

/** A pose. */
export interface CPose {
  x: number;
  y: number;
  heading: number;
}

/** A segment as the wire gives it (the fields the contract needs). */
export interface CSegment {
  start: CPose;
  length: number;
  curvature: number;
  direction: number;
  start_speed: number;
  end_speed: number;
  duration: number;
  /** Where the segment ends, when given (the wire gives it): checked against the integrated end. */
  end?: { x: number; y: number };
}

/**
 * In-process segments (src's Segment, typed by shape so the checker imports nothing of src) as the wire gives
 * them: the speed fields snake_case, 0 when absent.
 */
export function wireSegments(
  segs: readonly {
    start: CPose;
    length: number;
    curvature: number;
    direction: number;
    startSpeed?: number;
    endSpeed?: number;
    duration?: number;
    end?: { x: number; y: number };
  }[],
): CSegment[] {
  return segs.map((s) => ({
    start: s.start,
    ...(s.end ? { end: { x: s.end.x, y: s.end.y } } : {}),
    length: s.length,
    curvature: s.curvature,
    direction: s.direction,
    start_speed: s.startSpeed ?? 0,
    end_speed: s.endSpeed ?? 0,
    duration: s.duration ?? 0,
  }));
}

/** One trajectory as the wire gives it. */
export interface CTrajectory {
  start_time: number;
  segments: CSegment[];
}

/** One unit to check. */
export interface CUnit {
  id: string;
  /** Circle radius (when width and length are 0). */
  radius: number;
  width: number;
  length: number;
  /** Where it stands before its first trajectory. */
  start: CPose;
  /** Its goal (for arrivals). */
  goal: { x: number; y: number };
  /** Its trajectories in the order received. */
  trajectories: CTrajectory[];
  /** Speed limits to check (absent: speeds not checked). */
  limits?: { maxSpeed: number; acceleration: number; deceleration: number };
}

/** A unit as a fleet client sent it: id, start (x, y, optional heading h) and goal. */
export interface SentUnit {
  id: string;
  x: number;
  y: number;
  h?: number;
  gx: number;
  gy: number;
}

/** A disc unit's record for the checker, from its start and goal (heading 0 at the start). */
export function discUnit(
  s: { id: string; x: number; y: number; gx: number; gy: number },
  radius: number,
  trajectories: CTrajectory[],
): CUnit {
  return {
    id: s.id,
    radius,
    width: 0,
    length: 0,
    start: { x: s.x, y: s.y, heading: 0 },
    goal: { x: s.gx, y: s.gy },
    trajectories,
  };
}

/**
 * The checker's units from the units sent and the Fleet updates received (each unit's trajectories in the order
 * received): disc units of `radius` (a soldier's 0.3 by default), with `limits` when speeds are to be checked.
 */
export function unitsFromUpdates(
  sent: readonly SentUnit[],
  // deno-lint-ignore no-explicit-any
  updates: readonly any[],
  radius = 0.3,
  limits?: CUnit["limits"],
): CUnit[] {
  return sent.map((s) => ({
    id: s.id,
    radius,
    width: 0,
    length: 0,
    start: { x: s.x, y: s.y, heading: s.h ?? 0 },
    goal: { x: s.gx, y: s.gy },
    trajectories: updates.flatMap((u) => u.trajectories ?? []).filter((
      t: CTrajectory & { unit_id: string },
    ) => t.unit_id === s.id),
    ...(limits ? { limits } : {}),
  }));
}

/** What the checker found. */
export interface FleetReport {
  /** Pairs of units whose footprints overlap at some checked moment (first moment per pair). */
  overlaps: { a: string; b: string; time: number; depth: number }[];
  /** Units whose footprint overlaps a blocked tile's interior (first moment per unit). */
  wallContacts: { id: string; time: number; tile: [number, number] }[];
  /** Units that end within `arrivalTolerance` of their goal. */
  arrived: string[];
  /** Latest time any unit is still moving. */
  makespan: number;
  /** Segments whose length disagrees with (start_speed + end_speed) / 2 * duration, or that do not join. */
  contractErrors: string[];
  /**
   * Units (with `limits`) whose speed changes between consecutive steps by more than their deceleration or
   * acceleration allow, or exceeds their top speed (first moment per unit): speeds at `time` and the step after.
   */
  speedErrors: { id: string; time: number; from: number; to: number; limit: string }[];
}

function poseAlong(s: CSegment, u: number): CPose {
  const h0 = s.start.heading, d = s.direction, k = s.curvature;
  const dh = d * k * u;
  if (Math.abs(k) < 1e-12) {
    return { x: s.start.x + d * u * Math.cos(h0), y: s.start.y + d * u * Math.sin(h0), heading: h0 };
  }
  // Integrate d*(cos, sin)(h0 + d k s) over [0, u]: (sin(h) - sin(h0)) / k, -(cos(h) - cos(h0)) / k.
  const h = h0 + dh;
  return {
    x: s.start.x + (Math.sin(h) - Math.sin(h0)) / k,
    y: s.start.y - (Math.cos(h) - Math.cos(h0)) / k,
    heading: h,
  };
}

function trajPose(t: CTrajectory, start: CPose, time: number): { pose: CPose; moving: boolean } {
  let tau = time - t.start_time;
  const first = t.segments[0]?.start ?? start;
  if (tau <= 0 || t.segments.length === 0) return { pose: first, moving: false };
  for (const s of t.segments) {
    if (tau < s.duration) {
      const u = Math.min(
        s.length,
        s.start_speed * tau + (s.end_speed - s.start_speed) * tau * tau / (2 * s.duration),
      );
      return { pose: poseAlong(s, Math.max(0, u)), moving: true };
    }
    tau -= s.duration;
  }
  const last = t.segments[t.segments.length - 1];
  return { pose: poseAlong(last, last.length), moving: false };
}

function trajSpeed(t: CTrajectory, time: number): number {
  let tau = time - t.start_time;
  if (tau < 0 || t.segments.length === 0) return 0;
  for (const s of t.segments) {
    if (tau < s.duration) return s.start_speed + (s.end_speed - s.start_speed) * tau / s.duration;
    tau -= s.duration;
  }
  return 0;
}

/** The speed of a unit at `time` by its latest trajectory that has started (0 while it stands). */
export function unitSpeed(u: CUnit, time: number): number {
  let cur: CTrajectory | null = null;
  for (const t of u.trajectories) if (t.start_time <= time + 1e-12) cur = t;
  return cur ? trajSpeed(cur, time) : 0;
}

/** The pose of a unit at `time` by its latest trajectory that has started. */
export function unitPose(u: CUnit, time: number): { pose: CPose; moving: boolean } {
  let cur: CTrajectory | null = null;
  for (const t of u.trajectories) if (t.start_time <= time + 1e-12) cur = t;
  if (!cur) {
    // Before any trajectory has started: the first one's start pose (or the unit's start).
    return { pose: u.trajectories[0]?.segments[0]?.start ?? u.start, moving: false };
  }
  return trajPose(cur, u.start, time);
}

type Pt = [number, number];

function corners(u: CUnit, p: CPose): Pt[] {
  const c = Math.cos(p.heading), s = Math.sin(p.heading);
  const hl = u.length / 2, hw = u.width / 2;
  return [[hl, hw], [-hl, hw], [-hl, -hw], [hl, -hw]].map((
    [a, b],
  ) => [p.x + a * c - b * s, p.y + a * s + b * c]);
}

const isRect = (u: CUnit) => u.width > 0 && u.length > 0;

/** Overlap depth of two convex polygons by the separating axis test (<= 0: apart or touching). */
function polyDepth(a: Pt[], b: Pt[]): number {
  let depth = Infinity;
  for (const poly of [a, b]) {
    for (let i = 0; i < poly.length; i++) {
      const p = poly[i], q = poly[(i + 1) % poly.length];
      const n: Pt = [q[1] - p[1], p[0] - q[0]];
      const len = Math.hypot(n[0], n[1]);
      const ax: Pt = [n[0] / len, n[1] / len];
      const proj = (pts: Pt[]) => pts.map((v) => v[0] * ax[0] + v[1] * ax[1]);
      const pa = proj(a), pb = proj(b);
      const d = Math.min(Math.max(...pa) - Math.min(...pb), Math.max(...pb) - Math.min(...pa));
      depth = Math.min(depth, d);
    }
  }
  return depth;
}

/** Overlap depth of a disc and a convex polygon (<= 0: apart or touching). */
function discPolyDepth(cx: number, cy: number, r: number, poly: Pt[]): number {
  let inside = true;
  let best = Infinity;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i], q = poly[(i + 1) % poly.length];
    const ex = q[0] - p[0], ey = q[1] - p[1];
    const t = Math.max(0, Math.min(1, ((cx - p[0]) * ex + (cy - p[1]) * ey) / (ex * ex + ey * ey)));
    const d = Math.hypot(cx - (p[0] + t * ex), cy - (p[1] + t * ey));
    best = Math.min(best, d);
    if ((ex * (cy - p[1]) - ey * (cx - p[0])) < 0) inside = false;
  }
  // Counter-clockwise polygons (all built here are, in the y-down frame too, by the cross-product sign used).
  return inside ? r + best : r - best;
}

function ccw(poly: Pt[]): Pt[] {
  let area = 0;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i], q = poly[(i + 1) % poly.length];
    area += p[0] * q[1] - q[0] * p[1];
  }
  return area < 0 ? [...poly].reverse() : poly;
}

/** Overlap depth of two units' footprints at poses (<= 0: apart or touching). */
export function footprintDepth(a: CUnit, pa: CPose, b: CUnit, pb: CPose): number {
  if (!isRect(a) && !isRect(b)) return a.radius + b.radius - Math.hypot(pa.x - pb.x, pa.y - pb.y);
  if (isRect(a) && isRect(b)) return polyDepth(corners(a, pa), corners(b, pb));
  const [d, pd, r, pr] = isRect(a) ? [b, pb, a, pa] : [a, pa, b, pb];
  return discPolyDepth(pd.x, pd.y, d.radius, ccw(corners(r, pr)));
}

function wallDepth(u: CUnit, p: CPose, tx: number, ty: number): number {
  const square: Pt[] = ccw([[tx, ty], [tx + 1, ty], [tx + 1, ty + 1], [tx, ty + 1]]);
  if (!isRect(u)) return discPolyDepth(p.x, p.y, Math.max(u.radius, 1e-6), square);
  return polyDepth(corners(u, p), square);
}

/** Checks a fleet on a map (`rows[y][x]` is "@" or "T" for blocked) from time 0 to `until`, every `step` s. */
export function checkFleet(
  rows: string[],
  units: CUnit[],
  opts: { until?: number; step?: number; arrivalTolerance?: number; eps?: number } = {},
): FleetReport {
  const step = opts.step ?? 0.01, eps = opts.eps ?? 1e-6, tol = opts.arrivalTolerance ?? 0.6;
  const report: FleetReport = {
    overlaps: [],
    wallContacts: [],
    arrived: [],
    makespan: 0,
    contractErrors: [],
    speedErrors: [],
  };
  for (const u of units) {
    for (const t of u.trajectories) {
      let end = t.start_time;
      t.segments.forEach((s, i) => {
        end += s.duration;
        if (s.duration > 0 && Math.abs(s.length - (s.start_speed + s.end_speed) / 2 * s.duration) > 1e-6) {
          report.contractErrors.push(`${u.id} segment ${i}: length ${s.length} vs speeds*duration`);
        }
        // A segment whose own geometry (start pose, heading, curvature, length) does not reach its end: a client
        // driving it goes elsewhere than the server planned (e.g. a heading left over from the segment before).
        const reached = poseAlong(s, s.length);
        if (s.end && Math.hypot(reached.x - s.end.x, reached.y - s.end.y) > 1e-6) {
          report.contractErrors.push(
            `${u.id} segment ${i}: integrated end (${reached.x.toFixed(4)}, ${
              reached.y.toFixed(4)
            }) vs its end ` +
              `(${s.end.x.toFixed(4)}, ${s.end.y.toFixed(4)})`,
          );
        }
        const next = t.segments[i + 1];
        if (next) {
          const e = reached;
          if (Math.hypot(e.x - next.start.x, e.y - next.start.y) > 1e-6) {
            report.contractErrors.push(`${u.id} segments ${i}-${i + 1} do not join`);
          }
        }
      });
      report.makespan = Math.max(report.makespan, end);
    }
  }
  const until = opts.until ?? report.makespan + 1;
  const blocked = (x: number, y: number) => {
    const c = rows[y]?.[x];
    return c === undefined || c === "@" || c === "T" || c === "O";
  };
  const seenPair = new Set<string>(), seenWall = new Set<string>(), seenSpeed = new Set<string>();
  const speeds = units.map(() => 0);
  const cell = 2 *
    Math.max(...units.map((u) => isRect(u) ? Math.hypot(u.width, u.length) / 2 : u.radius), 0.5);
  for (let k = 0; k * step <= until + 1e-9; k++) {
    const time = k * step;
    const poses = units.map((u) => unitPose(u, time).pose);
    // Broad phase: units bucketed in cells as wide as the largest pair reach; pairs from the 3x3 cells around.
    const buckets = new Map<number, number[]>();
    const cellOf = (p: CPose) => Math.floor(p.x / cell) * 65536 + Math.floor(p.y / cell);
    poses.forEach((p, i) => {
      const k = cellOf(p);
      const list = buckets.get(k);
      if (list) list.push(i);
      else buckets.set(k, [i]);
    });
    const neighbours = (i: number): number[] => {
      const p = poses[i], cx = Math.floor(p.x / cell), cy = Math.floor(p.y / cell);
      const out: number[] = [];
      for (let dx = -1; dx <= 1; dx++) {
        for (let dy = -1; dy <= 1; dy++) {
          for (const j of buckets.get((cx + dx) * 65536 + cy + dy) ?? []) if (j > i) out.push(j);
        }
      }
      return out;
    };
    units.forEach((u, i) => {
      const lim = u.limits;
      if (!lim) return;
      // Between steps the speed may change by at most the rate times the step (plus rounding).
      const v = unitSpeed(u, time), was = speeds[i];
      speeds[i] = v;
      if (k === 0 || seenSpeed.has(u.id)) return;
      const slack = 1e-6 + 1e-6 * Math.max(v, was);
      const limit = v > lim.maxSpeed + slack
        ? `max_speed ${lim.maxSpeed}`
        : was - v > lim.deceleration * step + slack
        ? `deceleration ${lim.deceleration}`
        : v - was > lim.acceleration * step + slack
        ? `acceleration ${lim.acceleration}`
        : "";
      if (limit) {
        seenSpeed.add(u.id);
        report.speedErrors.push({ id: u.id, time: time - step, from: was, to: v, limit });
      }
    });
    for (let i = 0; i < units.length; i++) {
      const a = units[i], pa = poses[i];
      const reach = isRect(a) ? Math.hypot(a.width, a.length) / 2 : a.radius;
      if (!seenWall.has(a.id)) {
        for (let ty = Math.floor(pa.y - reach) - 1; ty <= Math.floor(pa.y + reach) + 1; ty++) {
          for (let tx = Math.floor(pa.x - reach) - 1; tx <= Math.floor(pa.x + reach) + 1; tx++) {
            if (!blocked(tx, ty) || seenWall.has(a.id)) continue;
            if (wallDepth(a, pa, tx, ty) > eps) {
              seenWall.add(a.id);
              report.wallContacts.push({ id: a.id, time, tile: [tx, ty] });
            }
          }
        }
      }
      for (const j of neighbours(i)) {
        const key = `${a.id}|${units[j].id}`;
        if (seenPair.has(key)) continue;
        const depth = footprintDepth(a, pa, units[j], poses[j]);
        if (depth > eps) {
          seenPair.add(key);
          report.overlaps.push({ a: a.id, b: units[j].id, time, depth });
        }
      }
    }
  }
  for (const u of units) {
    const p = unitPose(u, until + 1e6).pose;
    if (Math.hypot(p.x - u.goal.x, p.y - u.goal.y) <= tol) report.arrived.push(u.id);
  }
  return report;
}
