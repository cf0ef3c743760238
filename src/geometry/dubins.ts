/**
 * Shortest Dubins paths (forward motion only, minimum turning radius r): the six words LSL, RSR, LSR, RSL,
 * RLR, LRL, in the tangent-circle construction on the normalized problem (the goal seen from the start's frame,
 * lengths divided by r).
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

/** Keeps the word if shorter than the best so far. */
function offer(word: number, t: number, p: number, q: number, best: number): number {
  const len = t + p + q;
  if (len < best) {
    bestWord = word, bestT = t, bestP = p, bestQ = q;
    return len;
  }
  return best;
}

/**
 * Solves the problem normalized to the start's frame (goal at (x, y), heading change phi, lengths / r); returns
 * the shortest length divided by r and fills the scratch. Each word is built from the vector V between the
 * centers of its first and last turning circles: the start's left circle is centered at (0, 1), its right at
 * (0, -1); the goal's at (x -+ sin phi, y +- cos phi). Words are pruned by a cheap lower bound before their
 * atan2.
 */
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
  const ch = Math.cos(h0);
  const sh = Math.sin(h0);
  const x = dx * ch + dy * sh;
  const y = dy * ch - dx * sh;
  const phi = h1 - h0;
  const s = Math.sin(phi);
  const c = Math.cos(phi);
  const turnLeft = mod2pi(phi); // the total turn of LSL
  const turnRight = mod2pi(-phi); // the total turn of RSR
  let best = Infinity;
  bestWord = -1;

  // LSL: left circles, outer tangent; t + q = phi (mod 2*pi).
  const lx = x - s;
  const ly = y + c - 1;
  const l2 = lx * lx + ly * ly;
  let angleL = NaN; // direction of the LSL center vector, computed at most once
  {
    const p = Math.sqrt(l2);
    if (turnLeft + p < best) {
      angleL = Math.atan2(ly, lx);
      const t = arcAngle(angleL);
      best = offer(0, t, p, arcAngle(phi - t), best);
    }
  }
  // RSR: right circles, the mirror image.
  const rx = x + s;
  const ry = y - c + 1;
  const r2 = rx * rx + ry * ry;
  let angleR = NaN;
  {
    const p = Math.sqrt(r2);
    if (turnRight + p < best) {
      angleR = Math.atan2(ry, rx);
      const t = arcAngle(-angleR);
      best = offer(1, t, p, arcAngle(-phi - t), best);
    }
  }
  // LSR: start's left circle to goal's right circle, inner tangent of length sqrt(D^2 - 4).
  {
    const vx = x + s;
    const vy = y - c - 1;
    let p2 = vx * vx + vy * vy - 4;
    if (p2 < 0 && p2 > -SQUARE_SLACK * (8 + p2)) p2 = 0;
    if (p2 >= 0 && p2 < best * best) {
      const p = Math.sqrt(p2);
      // angle(V) + atan2(2, p) as one atan2.
      const t = arcAngle(Math.atan2(vy * p + 2 * vx, vx * p - 2 * vy));
      best = offer(2, t, p, arcAngle(t - phi), best);
    }
  }
  // RSL: the mirror image of LSR.
  {
    const vx = x - s;
    const vy = y + c + 1;
    let p2 = vx * vx + vy * vy - 4;
    if (p2 < 0 && p2 > -SQUARE_SLACK * (8 + p2)) p2 = 0;
    if (p2 >= 0 && p2 < best * best) {
      const p = Math.sqrt(p2);
      const t = arcAngle(Math.atan2(2 * vx - vy * p, vx * p + 2 * vy));
      best = offer(3, t, p, arcAngle(t + phi), best);
    }
  }
  // CCC words: the middle arc (of length p >= pi) touches both outer circles, possible when D <= 4.
  if (Math.PI < best) {
    // RLR: right circles.
    let cr = 1 - r2 / 8;
    if (cr < -1 && cr > -1 - ACOS_SLACK) cr = -1;
    if (cr >= -1) {
      const p = arcAngle(TWO_PI - Math.acos(cr > 1 ? 1 : cr));
      if (p < best) {
        if (angleR !== angleR) angleR = Math.atan2(ry, rx);
        const t = arcAngle(0.5 * p - angleR);
        best = offer(4, t, p, arcAngle(-phi - t + p), best);
      }
    }
    // LRL: left circles.
    let cl = 1 - l2 / 8;
    if (cl < -1 && cl > -1 - ACOS_SLACK) cl = -1;
    if (cl >= -1) {
      const p = arcAngle(TWO_PI - Math.acos(cl > 1 ? 1 : cl));
      if (p < best) {
        if (angleL !== angleL) angleL = Math.atan2(ly, lx);
        const t = arcAngle(angleL + 0.5 * p);
        best = offer(5, t, p, arcAngle(phi - t + p), best);
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
