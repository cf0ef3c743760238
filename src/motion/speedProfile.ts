/**
 * Speed profiles along a path ("Speed and Other Movement Restrictions", "People Movement" in the article):
 * the fastest motion that respects the unit's top speed, its acceleration and braking, and its lateral
 * acceleration on curves.
 *
 * The model, per segment i of length L_i:
 * - a speed cap c_i = maxSpeed (maxSpeed / 2 in reverse), and on an arc of radius rho also sqrt(a_lat * rho)
 *   (the speed at which the centripetal acceleration v^2 / rho reaches the lateral limit; a lateral limit of 0
 *   means "none");
 * - speeds at the joints: 0 at the path's start and end and at every cusp (a change of direction), at most the
 *   caps of both neighbours elsewhere. A heading jump between two segments (a turn in place, or a corner of a
 *   fixed-angle path) is driven as the largest circle that fits the corner (tangent to both sides within half
 *   of each side's length, radius min(L_a, L_b) / (2 tan(alpha / 2)) for a turn alpha), so the joint speed is at
 *   most sqrt(a_lat * that radius) — the speed whose {@link fluidTurningRadius} is that radius: a person slows
 *   down to turn tighter. Units with turningRadius 0 and no fluid turning stop there instead (they turn in place).
 * - a forward pass (v_{j+1}^2 <= v_j^2 + 2 a L) and a backward pass (v_j^2 <= v_{j+1}^2 + 2 b L) bound the joint
 *   speeds by what acceleration a and braking b allow;
 * - inside a segment the classic trapezoid: accelerate at a from v_j, cruise at the cap, brake at b to v_{j+1},
 *   or a triangle when the segment is too short to reach the cap. Its duration is integrated exactly
 *   (v^2 = v0^2 + 2 a s on the ramps, L/c on the cruise).
 *
 * The wire contract (docs/segments.md, `poseAtTime` in src/geometry/segment.ts) has the speed linear in time
 * within a segment, so length = (startSpeed + endSpeed) / 2 * duration. A profiled segment may hold several
 * phases; {@link splitAtSpeedPhases} splits it at the phase changes, and every answer is split so
 * (planning/plan.ts for plans, motion/pathCorridor.ts for a stream's joined paths).
 *
 * @module
 */
import { normalizeAngle } from "../geometry/angle.ts";
import { arcSegment, lineSegment } from "../geometry/segment.ts";
import type { Segment } from "../geometry/types.ts";
import type { UnitSpec } from "../units/unit.ts";

/** Speed phases shorter than this (tiles) are not split off (see {@link splitAtSpeedPhases}). */
const PHASE_EPS = 1e-9;

/** Headings within this of each other count as joined (no corner). */
const HEADING_JOIN_EPS = 1e-9;

/** The speed limits a profile needs from a unit. */
export type SpeedLimits = Pick<
  UnitSpec,
  "maxSpeed" | "acceleration" | "deceleration" | "lateralAcceleration" | "turningRadius" | "fluidTurning"
>;

/**
 * The turning radius of a fluid-turning unit (people) at `speed`: speed^2 / lateralAcceleration, so a unit that
 * slows down can turn tighter. Its inverse is the speed limit on a curve of radius rho, sqrt(a_lat * rho), which
 * {@link applySpeedProfile} applies on arcs and at corners: a fluid-turning unit approaches a sharp corner slowly
 * enough that the corner's fillet radius is its turning radius at that speed. Returns 0 for speed 0 and
 * Infinity when the unit has no lateral limit (lateralAcceleration 0) and speed > 0.
 */
export function fluidTurningRadius(speed: number, unit: Pick<UnitSpec, "lateralAcceleration">): number {
  if (speed === 0) return 0;
  if (!(unit.lateralAcceleration > 0)) return Infinity;
  return (speed * speed) / unit.lateralAcceleration;
}

/** The highest speed on a curve of radius `radius` for the lateral limit (Infinity when there is none). */
export function curveSpeedLimit(radius: number, lateralAcceleration: number): number {
  if (!(lateralAcceleration > 0)) return Infinity;
  return Math.sqrt(lateralAcceleration * radius);
}

/** The speed cap on one segment: maxSpeed (half in reverse), and the lateral limit on an arc. */
export function segmentSpeedCap(seg: Segment, unit: SpeedLimits): number {
  let cap = seg.direction < 0 ? 0.5 * unit.maxSpeed : unit.maxSpeed;
  if (seg.curvature !== 0) {
    cap = Math.min(cap, curveSpeedLimit(1 / Math.abs(seg.curvature), unit.lateralAcceleration));
  }
  return cap;
}

/** The speed limit at the joint between segments a and b (before the acceleration passes). */
function jointLimit(a: Segment, b: Segment, unit: SpeedLimits, capA: number, capB: number): number {
  if (a.direction !== b.direction) return 0; // a cusp: stop and drive the other way
  const limit = Math.min(capA, capB);
  const turn = Math.abs(normalizeAngle(b.start.heading - a.end.heading));
  if (turn <= HEADING_JOIN_EPS) return limit;
  if (unit.turningRadius === 0 && !unit.fluidTurning) return 0; // turn in place
  if (turn >= Math.PI - HEADING_JOIN_EPS) return 0;
  const fillet = Math.min(a.length, b.length) / (2 * Math.tan(0.5 * turn));
  return Math.min(limit, curveSpeedLimit(fillet, unit.lateralAcceleration));
}

/**
 * Seconds to drive `length` starting at v0 and ending at v1 under the cap, accelerating at `accel` and braking at
 * `decel` (a trapezoid, or a triangle when the cap is not reached). The joint speeds must be reachable
 * (v1^2 <= v0^2 + 2 accel length and v0^2 <= v1^2 + 2 decel length), as the passes of
 * {@link applySpeedProfile} guarantee.
 */
export function trapezoidDuration(
  length: number,
  v0: number,
  v1: number,
  cap: number,
  accel: number,
  decel: number,
): number {
  if (!(length > 0)) return 0;
  // Peak speed where the acceleration ramp from v0 meets the braking ramp to v1.
  let peak = Math.sqrt((2 * accel * decel * length + decel * v0 * v0 + accel * v1 * v1) / (accel + decel));
  // Rounding can put the peak a hair below an end speed.
  peak = Math.max(peak, v0, v1);
  if (peak <= cap) {
    if (!(peak > 0)) return Infinity;
    return (peak - v0) / accel + (peak - v1) / decel;
  }
  const rampUp = (cap * cap - v0 * v0) / (2 * accel);
  const rampDown = (cap * cap - v1 * v1) / (2 * decel);
  const cruise = Math.max(0, length - rampUp - rampDown);
  return (cap - v0) / accel + cruise / cap + (cap - v1) / decel;
}

// Per-segment caps and joint speeds, reused by every call (a profile is computed per returned path, and small
// typed-array allocations cost more than the profile of a short path).
let scratchCaps = new Float64Array(64);
let scratchJoints = new Float64Array(65);

/**
 * A path that continues another one without stopping: it starts at the end of `previous` (a stream's kept part,
 * cut at the splice point) with the unit moving at `speed`.
 */
export interface ProfileStart {
  /** The segment (or the piece of it) the path continues. */
  previous: Segment;
  /** The speed at the joint, tiles/s. */
  speed: number;
}

/**
 * Fills startSpeed, endSpeed and duration of every segment in place (see the module doc for the model) and
 * returns the total duration in seconds. A unit without a speed limit (maxSpeed 0) leaves the segments alone
 * and returns 0. The unit stops at the path's start and end and at every cusp.
 *
 * With `from`, the path starts at `from.speed` instead of at rest. When the unit cannot keep that speed (the
 * joint with `from.previous` is a cusp or a corner it must slow down for, the first segment's cap is lower, or
 * there is not enough room to brake for what follows), the result is NaN and the segments are left unprofiled:
 * the caller then profiles a path from rest instead.
 */
export function applySpeedProfile(segments: Segment[], unit: SpeedLimits, from?: ProfileStart): number {
  const n = segments.length;
  if (!(unit.maxSpeed > 0) || n === 0) return 0;
  const accel = unit.acceleration;
  const decel = unit.deceleration;
  if (scratchCaps.length < n) {
    scratchCaps = new Float64Array(2 * n);
    scratchJoints = new Float64Array(2 * n + 1);
  }
  const caps = scratchCaps;
  for (let i = 0; i < n; i++) caps[i] = segmentSpeedCap(segments[i], unit);
  // Joint j sits between segment j-1 and segment j; joints 0 and n are the path's ends.
  const v = scratchJoints;
  v[0] = 0;
  v[n] = 0;
  if (from !== undefined && from.speed > 0) {
    const previousCap = segmentSpeedCap(from.previous, unit);
    // 1e-9: the speed read off the kept part may carry rounding above a cap it was computed from.
    if (from.speed > jointLimit(from.previous, segments[0], unit, previousCap, caps[0]) + 1e-9) return NaN;
    v[0] = Math.min(from.speed, caps[0]);
  }
  for (let j = 1; j < n; j++) v[j] = jointLimit(segments[j - 1], segments[j], unit, caps[j - 1], caps[j]);
  for (let j = 1; j < n; j++) {
    const reach = Math.sqrt(v[j - 1] * v[j - 1] + 2 * accel * segments[j - 1].length);
    if (reach < v[j]) v[j] = reach;
  }
  for (let j = n - 1; j >= 1; j--) {
    const reach = Math.sqrt(v[j + 1] * v[j + 1] + 2 * decel * segments[j].length);
    if (reach < v[j]) v[j] = reach;
  }
  // A moving start cannot be lowered: without room to brake for the first joint, there is no such profile.
  if (v[0] > 0 && Math.sqrt(v[1] * v[1] + 2 * decel * segments[0].length) < v[0] - 1e-9) return NaN;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const seg = segments[i];
    seg.startSpeed = v[i];
    seg.endSpeed = v[i + 1];
    seg.duration = trapezoidDuration(seg.length, v[i], v[i + 1], caps[i], accel, decel);
    total += seg.duration;
  }
  return total;
}

/**
 * The speed at distance u along a profiled segment (after {@link applySpeedProfile}): the trapezoid's
 * acceleration ramp from startSpeed, its cruise at the segment's cap and its braking ramp to endSpeed, whichever
 * is lowest there. 0 for a segment without a profile.
 */
export function speedAt(seg: Segment, u: number, unit: SpeedLimits): number {
  const v0 = seg.startSpeed, v1 = seg.endSpeed;
  if (v0 === undefined || v1 === undefined || !(unit.maxSpeed > 0)) return 0;
  const at = u <= 0 ? 0 : u >= seg.length ? seg.length : u;
  const up = Math.sqrt(v0 * v0 + 2 * unit.acceleration * at);
  const down = Math.sqrt(v1 * v1 + 2 * unit.deceleration * (seg.length - at));
  return Math.min(up, down, Math.max(segmentSpeedCap(seg, unit), v0, v1));
}

/** Appends a piece of `seg` from distance u0 to u1 (same curvature and direction) with the given speeds. */
function pushPiece(
  out: Segment[],
  seg: Segment,
  from: Segment | null,
  u0: number,
  u1: number,
  v0: number,
  v1: number,
) {
  const start = from ? from.end : seg.start;
  const length = u1 - u0;
  const piece = seg.curvature === 0
    ? lineSegment(start, length, seg.direction)
    : arcSegment(start, seg.curvature, length, seg.direction);
  piece.startSpeed = v0;
  piece.endSpeed = v1;
  // Constant acceleration: the mean speed is the average of the ends.
  piece.duration = v0 + v1 > 0 ? (2 * length) / (v0 + v1) : 0;
  if (seg.touchesBlocked) piece.touchesBlocked = true;
  if (seg.tightened) piece.tightened = true;
  out.push(piece);
  return piece;
}

/**
 * Splits profiled segments (after {@link applySpeedProfile}) at the ends of their acceleration, cruise and
 * braking phases, so every piece has constant acceleration. On such pieces `poseAtTime` (speed linear in time
 * from startSpeed to endSpeed) is exact. Geometry is unchanged: the pieces chain end to start. Segments without
 * a profile are copied as they are.
 */
export function splitAtSpeedPhases(segments: readonly Segment[], unit: SpeedLimits): Segment[] {
  const out: Segment[] = [];
  for (const seg of segments) {
    const v0 = seg.startSpeed, v1 = seg.endSpeed;
    if (v0 === undefined || v1 === undefined || !(seg.length > 0) || !(unit.maxSpeed > 0)) {
      out.push({ ...seg, start: { ...seg.start }, end: { ...seg.end } });
      continue;
    }
    const a = unit.acceleration, b = unit.deceleration, L = seg.length;
    const cap = segmentSpeedCap(seg, unit);
    let peak = Math.sqrt((2 * a * b * L + b * v0 * v0 + a * v1 * v1) / (a + b));
    peak = Math.min(Math.max(peak, v0, v1), Math.max(cap, v0, v1));
    const up = Math.min(L, Math.max(0, (peak * peak - v0 * v0) / (2 * a)));
    const down = Math.min(L - up, Math.max(0, (peak * peak - v1 * v1) / (2 * b)));
    // Phases shorter than PHASE_EPS are merged into their neighbour (no sliver pieces; every piece still has
    // length = mean speed * duration); the last piece always ends exactly at L.
    const cuts = [0];
    for (const u of [up, L - down]) {
      if (u > cuts[cuts.length - 1] + PHASE_EPS && u < L - PHASE_EPS) cuts.push(u);
    }
    cuts.push(L);
    const speeds = (
      u: number,
    ) => (u <= up
      ? Math.sqrt(v0 * v0 + 2 * a * u)
      : u >= L - down
      ? Math.sqrt(v1 * v1 + 2 * b * (L - u))
      : peak);
    let prev: Segment | null = null;
    for (let i = 1; i < cuts.length; i++) {
      const s0 = i === 1 ? v0 : speeds(cuts[i - 1]);
      const s1 = i === cuts.length - 1 ? v1 : speeds(cuts[i]);
      prev = pushPiece(out, seg, prev, cuts[i - 1], cuts[i], Math.min(s0, peak), Math.min(s1, peak));
    }
    // The last piece ends where the segment did, so joins between segments stay exact.
    if (prev) prev.end = { ...seg.end };
  }
  return out;
}
