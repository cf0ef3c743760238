/**
 * The article's pose-to-point curve ("Adding Realistic Turns"): turn on the left or the right turning circle
 * until facing the destination, then drive straight to it; keep the shorter of the two. The goal heading is
 * free (it ends up being the line's direction).
 *
 * A destination strictly inside one turning circle cannot be reached by that side (no tangent line exists):
 * that side is skipped. The two circles' open discs are disjoint (they touch only at the start), so the other
 * side always works and a path is always returned. A destination on a circle gives a pure arc (the tangent
 * length is 0); a destination straight ahead gives a pure line. The destination equal to the start gives an
 * empty path.
 *
 * @module
 */

import { mod2pi, normalizeAngle, TWO_PI } from "./angle.ts";
import { arcSegment, checkTurningRadius, type CurvePath, lineSegment } from "./segment.ts";
import type { Pose, Segment } from "./types.ts";

/** Turns within this of a full circle count as no turn (rounding for a destination straight ahead). */
const FULL_TURN_SNAP = 1e-12;

/** Turn (radians) and tangent length of the last {@link arcThenLineParts} call (module scratch: no allocation). */
const parts = { turn: 0, tangent: 0 };

/**
 * The arc-then-line on one side, as numbers: fills {@link parts} and returns the length, or -1 when the
 * destination is strictly inside that side's turning circle. `h0` must be normalized.
 */
function arcThenLineParts(
  x: number,
  y: number,
  h0: number,
  goalX: number,
  goalY: number,
  r: number,
  side: 1 | -1,
) {
  // Center P of the turning circle, r to the left (side +1) or right (side -1) of the heading.
  const px = x - side * r * Math.sin(h0);
  const py = y + side * r * Math.cos(h0);
  const dx = goalX - px;
  const dy = goalY - py;
  const h2 = dx * dx + dy * dy;
  const r2 = r * r;
  // Relative slack so a destination on the circle (up to rounding) counts as on it, not inside.
  if (h2 < r2 * (1 - 1e-12)) return -1;
  const h = Math.sqrt(h2);
  const tangent = h2 > r2 ? Math.sqrt(h2 - r2) : 0;
  const ratio = r / h > 1 ? 1 : r / h;
  // Line direction: the angle from P to the destination, turned by asin(r/h) toward the turning side.
  const lineHeading = Math.atan2(dy, dx) + side * Math.asin(ratio);
  let turn = mod2pi(side * (lineHeading - h0));
  if (turn > TWO_PI - FULL_TURN_SNAP) turn = 0;
  parts.turn = turn;
  parts.tangent = tangent;
  return turn * r + tangent;
}

/**
 * Length of the arc-then-line path on one side (see {@link arcThenLineSide}), or -1 when the destination is
 * strictly inside that side's turning circle. Allocates nothing: for choosing a side before building it.
 */
export function arcThenLineSideLength(
  start: Pose,
  goalX: number,
  goalY: number,
  r: number,
  side: 1 | -1,
): number {
  checkTurningRadius(r);
  if (goalX === start.x && goalY === start.y) return 0;
  return arcThenLineParts(start.x, start.y, normalizeAngle(start.heading), goalX, goalY, r, side);
}

/**
 * The arc-then-line path on one side: `side` +1 turns left (counter-clockwise), -1 right. Returns null when the
 * destination is strictly inside that side's turning circle. Word "LS" or "RS".
 */
export function arcThenLineSide(
  start: Pose,
  goalX: number,
  goalY: number,
  r: number,
  side: 1 | -1,
): CurvePath | null {
  checkTurningRadius(r);
  const h0 = normalizeAngle(start.heading);
  const begin: Pose = { x: start.x, y: start.y, heading: h0 };
  const word = side > 0 ? "LS" : "RS";
  if (goalX === start.x && goalY === start.y) return { word, length: 0, segments: [] };
  const length = arcThenLineParts(start.x, start.y, h0, goalX, goalY, r, side);
  if (length < 0) return null;
  const { turn, tangent } = parts;
  const segments: Segment[] = [];
  let pose = begin;
  if (turn * r >= 1e-12 * r) {
    const arc = arcSegment(pose, side / r, turn * r, 1);
    segments.push(arc);
    pose = arc.end;
  }
  if (tangent >= 1e-12 * r) segments.push(lineSegment(pose, tangent, 1));
  return { word, length, segments };
}

/**
 * The article's arc-then-line path from `start` to the point (goalX, goalY) with turning radius r: the shorter
 * of the left ("LS") and right ("RS") versions; ties go left. Never fails (see the module doc).
 */
export function arcThenLine(start: Pose, goalX: number, goalY: number, r: number): CurvePath {
  const left = arcThenLineSide(start, goalX, goalY, r, 1);
  const right = arcThenLineSide(start, goalX, goalY, r, -1);
  if (left === null) return right as CurvePath;
  if (right === null) return left;
  return right.length < left.length ? right : left;
}

/** Length of the {@link arcThenLine} path (a convenience: it builds the path, so it allocates). */
export function arcThenLineLength(start: Pose, goalX: number, goalY: number, r: number): number {
  return arcThenLine(start, goalX, goalY, r).length;
}
