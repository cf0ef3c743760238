/**
 * Fixed-angle character art (the article's "Fixed-Angle Character Art", Figures 14 and 15): a unit drawn at only
 * 8 or 16 headings must move along legal headings, or it visibly slides. A continuous path is rewritten into
 * straight lines whose headings are all multiples of 2*pi / headings:
 *
 * - an arc is followed from just outside its circle: the circumscribed polygon whose sides are tangent to the
 *   circle at the legal headings (its vertices sit at the half-way headings, radius / cos(pi / headings) from
 *   the center); if that polygon hits a blocked tile, the inscribed polygon through the circle points at the
 *   half-way headings is tried (its chords have legal headings too);
 * - any other straight stretch from A to B becomes two lines at the two legal headings either side of its
 *   direction, meeting where they intersect (Figure 15). Both orders (the route on either side of the original
 *   line) are tried; if neither is free of blocked tiles the stretch is split at its midpoint and each half is
 *   done the same way, up to a depth limit.
 *
 * Consecutive lines join in position; the heading jumps between them are the art's frame changes (a turn in
 * place). Reverse segments keep their direction: the facing heading is what must be legal, the motion is the
 * opposite way (legal heading sets are symmetric under a half turn for 8 and 16).
 *
 * @module
 */
import { normalizeAngle } from "../geometry/angle.ts";
import { arcCenter, lineSegment } from "../geometry/segment.ts";
import { footprintHitsBlocked, segmentHitsBlocked } from "../geometry/sweep.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { Footprint } from "../units/footprint.ts";
import type { PassLayer } from "../maps/grid.ts";

/** A heading within this (radians) of a multiple of the legal step counts as legal. */
const LEGAL_EPS = 1e-9;
/** How many times a stretch may be halved looking for a collision-free pair of legal lines. */
const MAX_SPLIT_DEPTH = 8;

/** The map and unit the rewritten path must stay legal for. */
export interface FixedAngleContext {
  /** Blocked tiles (tileCost 0). */
  layer: PassLayer;
  /** The unit's footprint (also checked while it turns in place between two lines). */
  footprint: Footprint;
  /** When false, nothing is checked (an approximation was requested); the result is never null then. */
  check: boolean;
}

/** The legal heading nearest to `heading` for `headings` art directions, in [-pi, pi). */
export function snapHeading(heading: number, headings: number): number {
  const step = (2 * Math.PI) / headings;
  return normalizeAngle(Math.round(heading / step) * step);
}

/** True if `heading` is a multiple of 2*pi / headings (within 1e-9). */
export function isLegalHeading(heading: number, headings: number): boolean {
  return Math.abs(normalizeAngle(heading - snapHeading(heading, headings))) <= LEGAL_EPS;
}

/** Largest heading step between the sampled poses of a rectangle turning in place, radians. */
const TURN_SAMPLE_STEP = 0.05;

/**
 * True if the footprint may overlap a blocked tile while turning in place at (x, y) from heading h0 to h1 (the
 * shorter way). A disc does not change; a rectangle is sampled every {@link TURN_SAMPLE_STEP} radians and grown
 * by the most any of its points moves between two samples (half-diagonal * step / 2), so the check is
 * conservative.
 */
export function turnHitsBlocked(
  layer: PassLayer,
  x: number,
  y: number,
  h0: number,
  h1: number,
  footprint: Footprint,
): boolean {
  if (!(footprint.width > 0) && !(footprint.length > 0)) {
    return footprintHitsBlocked(layer, x, y, h0, footprint);
  }
  const turn = normalizeAngle(h1 - h0);
  const steps = Math.max(1, Math.ceil(Math.abs(turn) / TURN_SAMPLE_STEP));
  const halfDiagonal = 0.5 * Math.hypot(footprint.width, footprint.length);
  const grow = (halfDiagonal * Math.abs(turn)) / steps / 2 + 1e-12;
  const grown = {
    radius: footprint.radius,
    width: footprint.width + 2 * grow,
    length: footprint.length + 2 * grow,
  };
  for (let i = 0; i <= steps; i++) {
    if (footprintHitsBlocked(layer, x, y, h0 + (turn * i) / steps, grown)) return true;
  }
  return false;
}

/** Builds the legal lines from `from` to (bx, by) driven in `direction`; null when no free route was found. */
function legalLines(
  fx: number,
  fy: number,
  bx: number,
  by: number,
  direction: 1 | -1,
  headings: number,
  fc: FixedAngleContext,
  depth: number,
): Segment[] | null {
  const dx = bx - fx, dy = by - fy;
  const dist = Math.hypot(dx, dy);
  if (dist < 1e-12) return [];
  const step = (2 * Math.PI) / headings;
  const motion = Math.atan2(dy, dx);
  const facing = direction > 0 ? motion : motion + Math.PI;
  const q = facing / step;
  const nearest = Math.round(q);
  if (Math.abs(q - nearest) * step <= LEGAL_EPS) {
    const line = lineSegment({ x: fx, y: fy, heading: normalizeAngle(nearest * step) }, dist, direction);
    return !fc.check || !segmentHitsBlocked(fc.layer, line, fc.footprint) ? [line] : null;
  }
  // The two legal facings either side; solve s*u(ma) + t*u(mb) = (dx, dy) for the motion directions.
  const fa = Math.floor(q) * step, fb = fa + step;
  const ma = direction > 0 ? fa : fa + Math.PI, mb = ma + step;
  const det = Math.sin(step);
  const s = Math.max(0, (dx * Math.sin(mb) - dy * Math.cos(mb)) / det);
  const t = Math.max(0, (dy * Math.cos(ma) - dx * Math.sin(ma)) / det);
  const orders: [number, number, number, number][] = [[fa, s, fb, t], [fb, t, fa, s]];
  for (const [h1, l1, h2, l2] of orders) {
    const first = lineSegment({ x: fx, y: fy, heading: normalizeAngle(h1) }, l1, direction);
    const second = lineSegment(
      { x: first.end.x, y: first.end.y, heading: normalizeAngle(h2) },
      l2,
      direction,
    );
    if (
      !fc.check ||
      (!segmentHitsBlocked(fc.layer, first, fc.footprint) &&
        !segmentHitsBlocked(fc.layer, second, fc.footprint) &&
        !turnHitsBlocked(
          fc.layer,
          first.end.x,
          first.end.y,
          first.end.heading,
          second.start.heading,
          fc.footprint,
        ))
    ) {
      return [first, second].filter((seg) => seg.length > 0);
    }
  }
  if (depth >= MAX_SPLIT_DEPTH) return null;
  const mx = 0.5 * (fx + bx), my = 0.5 * (fy + by);
  const head = legalLines(fx, fy, mx, my, direction, headings, fc, depth + 1);
  if (!head) return null;
  const end = head.length > 0 ? head[head.length - 1].end : { x: fx, y: fy };
  const tail = legalLines(end.x, end.y, bx, by, direction, headings, fc, depth + 1);
  if (!tail) return null;
  if (
    fc.check && head.length > 0 && tail.length > 0 &&
    turnHitsBlocked(
      fc.layer,
      end.x,
      end.y,
      head[head.length - 1].end.heading,
      tail[0].start.heading,
      fc.footprint,
    )
  ) return null;
  return head.concat(tail);
}

/** Points an arc is replaced by (excluding its start, including its end): a polygon around or in its circle. */
function arcPolygon(seg: Segment, headings: number, outside: boolean): { x: number; y: number }[] {
  const step = (2 * Math.PI) / headings;
  const k = seg.curvature;
  const c = arcCenter(seg);
  const h0 = seg.start.heading;
  const sweep = seg.direction * k * seg.length;
  const scale = outside ? 1 / Math.cos(0.5 * step) : 1;
  const pts: { x: number; y: number }[] = [];
  // Vertices at the half-way headings (j + 1/2) * step strictly inside the sweep, in the order driven.
  const lo = Math.min(h0, h0 + sweep), hi = Math.max(h0, h0 + sweep);
  const jFirst = Math.ceil((lo + LEGAL_EPS) / step - 0.5);
  const jLast = Math.floor((hi - LEGAL_EPS) / step - 0.5);
  const order: number[] = [];
  for (let j = jFirst; j <= jLast; j++) order.push(j);
  if (sweep < 0) order.reverse();
  for (const j of order) {
    const theta = (j + 0.5) * step;
    // The circle point where the facing heading is theta is c + (sin theta, -cos theta) / k.
    pts.push({ x: c.x + (scale * Math.sin(theta)) / k, y: c.y - (scale * Math.cos(theta)) / k });
  }
  pts.push({ x: seg.end.x, y: seg.end.y });
  return pts;
}

/** Legal lines through a list of points from (fx, fy); null if a piece has no free route. */
function throughPoints(
  fx: number,
  fy: number,
  pts: { x: number; y: number }[],
  direction: 1 | -1,
  headings: number,
  fc: FixedAngleContext,
): Segment[] | null {
  const out: Segment[] = [];
  const at = { x: fx, y: fy };
  for (const p of pts) {
    const lines = legalLines(at.x, at.y, p.x, p.y, direction, headings, fc, 0);
    if (!lines || !appendStretch(out, lines, at, fc)) return null;
  }
  return out;
}

/**
 * Appends one stretch's legal lines, which start at `at`, to `out` and moves `at` to their end. False (nothing
 * appended) when the unit, starting the stretch with a new facing, would turn in place into a blocked tile.
 */
function appendStretch(
  out: Segment[],
  lines: readonly Segment[],
  at: { x: number; y: number },
  fc: FixedAngleContext,
): boolean {
  // Where this stretch starts with a new facing, the unit turns in place: that disc must be free too.
  const last = out.length > 0 ? out[out.length - 1] : null;
  if (
    fc.check && last && lines.length > 0 &&
    turnHitsBlocked(fc.layer, at.x, at.y, last.end.heading, lines[0].start.heading, fc.footprint)
  ) return false;
  for (const line of lines) out.push(line);
  if (lines.length > 0) {
    const end = lines[lines.length - 1].end;
    at.x = end.x, at.y = end.y;
  }
  return true;
}

/**
 * Rewrites a path so every line has a legal heading for `headings` (8 or 16) art directions and every arc
 * becomes lines (see the module doc). Zero-length segments (heading markers) are kept with their heading
 * snapped. Returns null when some stretch has no collision-free legal route (only when `fc.check`). Flags such
 * as touchesBlocked are not carried over: the caller recomputes them on the new lines.
 * `headings` 0 returns the path unchanged.
 */
export function toFixedAngles(
  segs: readonly Segment[],
  headings: number,
  fc: FixedAngleContext,
): Segment[] | null {
  if (!(headings > 0) || segs.length === 0) return segs.slice();
  const out: Segment[] = [];
  const at = { x: segs[0].start.x, y: segs[0].start.y };
  for (const seg of segs) {
    const { x, y } = at;
    let lines: Segment[] | null;
    if (seg.length === 0) {
      const pose: Pose = { x, y, heading: snapHeading(seg.start.heading, headings) };
      lines = [lineSegment(pose, 0, seg.direction)];
    } else if (seg.curvature === 0) {
      lines = legalLines(x, y, seg.end.x, seg.end.y, seg.direction, headings, fc, 0);
    } else {
      lines = throughPoints(x, y, arcPolygon(seg, headings, true), seg.direction, headings, fc) ??
        throughPoints(x, y, arcPolygon(seg, headings, false), seg.direction, headings, fc);
    }
    if (!lines || !appendStretch(out, lines, at, fc)) return null;
  }
  return out;
}
