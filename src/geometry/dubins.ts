/**
 * Shortest Dubins paths (forward motion only, minimum turning radius r): the six words LSL, RSR, LSR, RSL,
 * RLR, LRL, in the classical tangent-circle formulation on the normalized problem (start at the origin of a
 * frame whose x axis points at the goal, lengths divided by r).
 *
 * {@link dubinsLength} allocates nothing; it is meant for heuristics and inner loops.
 *
 * @module
 */

import { mod2pi, normalizeAngle, TWO_PI } from "./angle.ts";
import { appendWord, type CurvePath, type WordPiece } from "./segment.ts";
import type { Pose } from "./types.ts";

/** The six Dubins words, indexed as the solver reports them. */
export const DUBINS_WORDS = ["LSL", "RSR", "LSR", "RSL", "RLR", "LRL"] as const;

/**
 * Arc angles within this of 2*pi are taken as 0: rounding turns a zero turn into a full circle otherwise
 * (e.g. a goal exactly straight ahead). The resulting end-pose error is at most about 1e-10 * r.
 */
const FULL_TURN_SNAP = 1e-10;
/** How far below 0 a squared tangent length may fall from rounding and still count as 0. */
const SQUARE_SLACK = 1e-13;
/** How far past +-1 an acos argument may be pushed by rounding and still be clamped. */
const ACOS_SLACK = 1e-12;

function arcAngle(angle: number): number {
  const m = mod2pi(angle);
  return m > TWO_PI - FULL_TURN_SNAP ? 0 : m;
}

// Solver output for the shortest word (module scratch so the length function allocates nothing).
let bestWord = -1;
let bestT = 0;
let bestP = 0;
let bestQ = 0;

/** Solves the normalized problem; returns the shortest length divided by r and fills the scratch. */
function solveDubins(
  x0: number,
  y0: number,
  h0: number,
  x1: number,
  y1: number,
  h1: number,
  r: number,
): number {
  const dx = (x1 - x0) / r;
  const dy = (y1 - y0) / r;
  const d2 = dx * dx + dy * dy;
  const d = Math.sqrt(d2);
  const theta = d2 > 0 ? Math.atan2(dy, dx) : 0;
  const a = mod2pi(h0 - theta);
  const b = mod2pi(h1 - theta);
  const sa = Math.sin(a);
  const ca = Math.cos(a);
  const sb = Math.sin(b);
  const cb = Math.cos(b);
  const cab = ca * cb + sa * sb;
  const slack = SQUARE_SLACK * (4 + d2 + 4 * d);
  let best = Infinity;
  bestWord = -1;

  // LSL
  {
    let p2 = 2 + d2 - 2 * cab + 2 * d * (sa - sb);
    if (p2 < 0) p2 = 0;
    const tmp = Math.atan2(cb - ca, d + sa - sb);
    const t = arcAngle(tmp - a);
    const p = Math.sqrt(p2);
    const q = arcAngle(b - tmp);
    const len = t + p + q;
    if (len < best) {
      best = len, bestWord = 0, bestT = t, bestP = p, bestQ = q;
    }
  }
  // RSR
  {
    let p2 = 2 + d2 - 2 * cab + 2 * d * (sb - sa);
    if (p2 < 0) p2 = 0;
    const tmp = Math.atan2(ca - cb, d - sa + sb);
    const t = arcAngle(a - tmp);
    const p = Math.sqrt(p2);
    const q = arcAngle(tmp - b);
    const len = t + p + q;
    if (len < best) {
      best = len, bestWord = 1, bestT = t, bestP = p, bestQ = q;
    }
  }
  // LSR
  {
    let p2 = -2 + d2 + 2 * cab + 2 * d * (sa + sb);
    if (p2 < 0 && p2 > -slack) p2 = 0;
    if (p2 >= 0) {
      const p = Math.sqrt(p2);
      const tmp = Math.atan2(-ca - cb, d + sa + sb) - Math.atan2(-2, p);
      const t = arcAngle(tmp - a);
      const q = arcAngle(tmp - b);
      const len = t + p + q;
      if (len < best) {
        best = len, bestWord = 2, bestT = t, bestP = p, bestQ = q;
      }
    }
  }
  // RSL
  {
    let p2 = -2 + d2 + 2 * cab - 2 * d * (sa + sb);
    if (p2 < 0 && p2 > -slack) p2 = 0;
    if (p2 >= 0) {
      const p = Math.sqrt(p2);
      const tmp = Math.atan2(ca + cb, d - sa - sb) - Math.atan2(2, p);
      const t = arcAngle(a - tmp);
      const q = arcAngle(b - tmp);
      const len = t + p + q;
      if (len < best) {
        best = len, bestWord = 3, bestT = t, bestP = p, bestQ = q;
      }
    }
  }
  // RLR
  {
    let c = (6 - d2 + 2 * cab + 2 * d * (sa - sb)) / 8;
    if (c > 1 && c < 1 + ACOS_SLACK) c = 1;
    if (c < -1 && c > -1 - ACOS_SLACK) c = -1;
    if (c >= -1 && c <= 1) {
      const p = mod2pi(TWO_PI - Math.acos(c));
      const t = arcAngle(a - Math.atan2(ca - cb, d - sa + sb) + 0.5 * p);
      const q = arcAngle(a - b - t + p);
      const len = t + p + q;
      if (len < best) {
        best = len, bestWord = 4, bestT = t, bestP = p, bestQ = q;
      }
    }
  }
  // LRL
  {
    let c = (6 - d2 + 2 * cab + 2 * d * (sb - sa)) / 8;
    if (c > 1 && c < 1 + ACOS_SLACK) c = 1;
    if (c < -1 && c > -1 - ACOS_SLACK) c = -1;
    if (c >= -1 && c <= 1) {
      const p = mod2pi(TWO_PI - Math.acos(c));
      const t = arcAngle(-a - Math.atan2(ca - cb, d + sa - sb) + 0.5 * p);
      const q = arcAngle(b - a - t + p);
      const len = t + p + q;
      if (len < best) {
        best = len, bestWord = 5, bestT = t, bestP = p, bestQ = q;
      }
    }
  }
  return best;
}

function checkRadius(r: number): void {
  if (!(r > 0) || !Number.isFinite(r)) {
    throw new RangeError(`turning radius must be finite and > 0, got ${r}`);
  }
}

/**
 * Length of the shortest Dubins path from (x0, y0, h0) to (x1, y1, h1) with turning radius r. Allocates nothing.
 * Headings may be any finite angle.
 */
export function dubinsLengthCoords(
  x0: number,
  y0: number,
  h0: number,
  x1: number,
  y1: number,
  h1: number,
  r: number,
): number {
  return r * solveDubins(x0, y0, h0, x1, y1, h1, r);
}

/** Length of the shortest Dubins path from `start` to `goal` with turning radius r. Allocates nothing. */
export function dubinsLength(start: Pose, goal: Pose, r: number): number {
  return r * solveDubins(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, r);
}

/**
 * The shortest Dubins path from `start` to `goal` with turning radius r: word (e.g. "LSR"), length and
 * segments (zero-length pieces left out; identical poses give no segments).
 */
export function dubinsShortest(start: Pose, goal: Pose, r: number): CurvePath {
  checkRadius(r);
  const norm = solveDubins(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, r);
  const word = DUBINS_WORDS[bestWord];
  const values = [bestT, bestP, bestQ];
  const pieces: WordPiece[] = [];
  for (let i = 0; i < 3; i++) {
    pieces.push({ letter: word[i] as "L" | "S" | "R", direction: 1, length: values[i] * r });
  }
  const segments: CurvePath["segments"] = [];
  appendWord(segments, { x: start.x, y: start.y, heading: normalizeAngle(start.heading) }, pieces, r);
  return { word, length: norm * r, segments };
}
