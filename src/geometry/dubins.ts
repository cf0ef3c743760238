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
import { APPROX_ANGLE_ERROR, approxAtan2Batch, arcLowerBound } from "./angleBounds.ts";
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
/** The best word's arcs t, p, q (a typed array keeps them unboxed: a module number would be a heap number). */
const BEST_PIECES = new Float64Array(3);
/** (y, x) pairs whose angles are estimated in one batch: LSL, RSR, LSR, RSL centers, then RLR, LRL arcs. */
const ESTIMATES = new Float64Array(12);

/** Keeps the word if shorter than the best so far. */
function offer(word: number, t: number, p: number, q: number, best: number): number {
  const len = t + p + q;
  if (len < best) {
    bestWord = word, BEST_PIECES[0] = t, BEST_PIECES[1] = p, BEST_PIECES[2] = q;
    return len;
  }
  return best;
}

/**
 * Slack on the lower bounds below: a word is evaluated unless its bound exceeds the best length by more than
 * this. It covers rounding, so pruning never drops a word that would have been shorter.
 */
const BOUND_SLACK = 1e-12;
/** Error allowed for an estimated arc: the estimate's error plus a possible full-turn snap of the first arc. */
const ARC_ERROR = APPROX_ANGLE_ERROR + FULL_TURN_SNAP;
/**
 * Error of the estimated CCC arcs: the middle arc's estimate (an angle estimate, with a sine that may be off by
 * rounding where D^2/8 is near 0 or 2) counts twice in the last arc.
 */
const CCC_ERROR = 4 * APPROX_ANGLE_ERROR;

/** Evaluates CSC word `word` (0 LSL, 1 RSR, 2 LSR, 3 RSL) exactly from its center vector; see solveDubins. */
function evalCsc(word: number, vx: number, vy: number, p: number, phi: number, best: number): number {
  switch (word) {
    case 0: {
      const t = arcAngle(Math.atan2(vy, vx));
      return offer(0, t, p, arcAngle(phi - t), best);
    }
    case 1: {
      const t = arcAngle(-Math.atan2(vy, vx));
      return offer(1, t, p, arcAngle(-phi - t), best);
    }
    case 2: {
      // angle(V) + atan2(2, p) as one atan2.
      const t = arcAngle(Math.atan2(vy * p + 2 * vx, vx * p - 2 * vy));
      return offer(2, t, p, arcAngle(t - phi), best);
    }
    default: {
      const t = arcAngle(Math.atan2(2 * vx - vy * p, vx * p + 2 * vy));
      return offer(3, t, p, arcAngle(t + phi), best);
    }
  }
}

/**
 * Solves the problem normalized to the start's frame (goal at (x, y), heading change phi, lengths / r); returns
 * the shortest length divided by r and fills the scratch. Each word is built from the vector V between the
 * centers of its first and last turning circles: the start's left circle is centered at (0, 1), its right at
 * (0, -1); the goal's at (x -+ sin phi, y +- cos phi).
 *
 * Pruning: each CSC word's length is bounded from below by its straight part plus its two arcs computed from
 * {@link approxAtan2} (an order of magnitude cheaper than Math.atan2, error below APPROX_ANGLE_ERROR). The word
 * with the least bound is evaluated exactly first and the others only while their bound can still win, so
 * nearly always a single Math.atan2 is made. The CCC words have a middle arc p = 2*pi - 2*asin(D/4) >=
 * pi*(2 - D/4) for centers D <= 4 apart, which rules them out cheaply in most cases. The exact values are those
 * of the all-words evaluation; pruning only skips words that cannot be shorter.
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
  bestWord = -1;

  // Center vectors: LSL (left circles), RSR (right circles), LSR (start left to goal right), RSL.
  const lx = x - s;
  const ly = y + c - 1;
  const l2 = lx * lx + ly * ly;
  const rx = x + s;
  const ry = y - c + 1;
  const r2 = rx * rx + ry * ry;
  const lsrY = ry - 2;
  const rslY = ly + 2;
  let pLsr2 = rx * rx + lsrY * lsrY - 4;
  if (pLsr2 < 0 && pLsr2 > -SQUARE_SLACK * (8 + pLsr2)) pLsr2 = 0;
  let pRsl2 = lx * lx + rslY * rslY - 4;
  if (pRsl2 < 0 && pRsl2 > -SQUARE_SLACK * (8 + pRsl2)) pRsl2 = 0;
  const pLsl = Math.sqrt(l2);
  const pRsr = Math.sqrt(r2);

  // Lower bounds of the CSC words from estimated arcs (all angle estimates in one batch; see angleBounds.ts).
  const pLsr = pLsr2 >= 0 ? Math.sqrt(pLsr2) : Infinity;
  const pRsl = pRsl2 >= 0 ? Math.sqrt(pRsl2) : Infinity;
  const uR = r2 / 8;
  const uL = l2 / 8;
  const e = ESTIMATES;
  e[0] = ly, e[1] = lx, e[2] = ry, e[3] = rx;
  if (pLsr2 >= 0) e[4] = lsrY * pLsr + 2 * rx, e[5] = rx * pLsr - 2 * lsrY;
  if (pRsl2 >= 0) e[6] = 2 * lx - rslY * pRsl, e[7] = lx * pRsl + 2 * rslY;
  // sin of acos(1 - u) is sqrt(u * (2 - u)) (no cancellation); clamped where the CCC word does not exist.
  e[8] = Math.sqrt(uR < 2 ? uR * (2 - uR) : 0), e[9] = 1 - uR;
  e[10] = Math.sqrt(uL < 2 ? uL * (2 - uL) : 0), e[11] = 1 - uL;
  approxAtan2Batch(e, 6);
  const tLsl = e[0];
  const boundLsl = pLsl + arcLowerBound(tLsl, APPROX_ANGLE_ERROR, FULL_TURN_SNAP) +
    arcLowerBound(phi - tLsl, ARC_ERROR, FULL_TURN_SNAP) - BOUND_SLACK;
  const tRsr = -e[2];
  const boundRsr = pRsr + arcLowerBound(tRsr, APPROX_ANGLE_ERROR, FULL_TURN_SNAP) +
    arcLowerBound(-phi - tRsr, ARC_ERROR, FULL_TURN_SNAP) - BOUND_SLACK;
  let boundLsr = Infinity;
  if (pLsr2 >= 0) {
    const t = e[4];
    boundLsr = pLsr + arcLowerBound(t, APPROX_ANGLE_ERROR, FULL_TURN_SNAP) +
      arcLowerBound(t - phi, ARC_ERROR, FULL_TURN_SNAP) - BOUND_SLACK;
  }
  let boundRsl = Infinity;
  if (pRsl2 >= 0) {
    const t = e[6];
    boundRsl = pRsl + arcLowerBound(t, APPROX_ANGLE_ERROR, FULL_TURN_SNAP) +
      arcLowerBound(t + phi, ARC_ERROR, FULL_TURN_SNAP) - BOUND_SLACK;
  }

  // The word with the least bound first: it is nearly always the shortest, and prunes the rest.
  let first = 0;
  let firstBound = boundLsl;
  if (boundRsr < firstBound) first = 1, firstBound = boundRsr;
  if (boundLsr < firstBound) first = 2, firstBound = boundLsr;
  if (boundRsl < firstBound) first = 3, firstBound = boundRsl;
  let best = Infinity;
  switch (first) {
    case 0:
      best = evalCsc(0, lx, ly, pLsl, phi, best);
      break;
    case 1:
      best = evalCsc(1, rx, ry, pRsr, phi, best);
      break;
    case 2:
      best = evalCsc(2, rx, lsrY, pLsr, phi, best);
      break;
    default:
      best = evalCsc(3, lx, rslY, pRsl, phi, best);
  }
  if (first !== 0 && boundLsl < best) best = evalCsc(0, lx, ly, pLsl, phi, best);
  if (first !== 1 && boundRsr < best) best = evalCsc(1, rx, ry, pRsr, phi, best);
  if (first !== 2 && boundLsr < best) best = evalCsc(2, rx, lsrY, pLsr, phi, best);
  if (first !== 3 && boundRsl < best) best = evalCsc(3, lx, rslY, pRsl, phi, best);

  // CCC words: the middle arc p = 2*pi - acos(1 - D^2 / 8) is in [pi, 2*pi] (never snapped: a full loop is not
  // an empty turn), so they only matter while the best is above pi and the circles are at most 4 apart. Before
  // the exact acos and atan2, the word is bounded with p estimated as 2*pi - approxAtan2(sin, cos), where
  // sin^2 = 1 - cos^2 = (D^2/8) * (2 - D^2/8) avoids cancellation.
  if (Math.PI - BOUND_SLACK < best) {
    // RLR: right circles.
    let cr = 1 - r2 / 8;
    if (cr < -1 && cr > -1 - ACOS_SLACK) cr = -1;
    if (cr >= -1) {
      const pEstimate = TWO_PI - e[8];
      const tEstimate = 0.5 * pEstimate + tRsr;
      const bound = pEstimate - CCC_ERROR + arcLowerBound(tEstimate, CCC_ERROR, FULL_TURN_SNAP) +
        arcLowerBound(-phi - tEstimate + pEstimate, 2 * CCC_ERROR + FULL_TURN_SNAP, FULL_TURN_SNAP);
      if (bound - BOUND_SLACK < best) {
        const p = TWO_PI - Math.acos(cr > 1 ? 1 : cr);
        if (p - BOUND_SLACK < best) {
          const t = arcAngle(0.5 * p - Math.atan2(ry, rx));
          best = offer(4, t, p, arcAngle(-phi - t + p), best);
        }
      }
    }
    // LRL: left circles.
    let cl = 1 - l2 / 8;
    if (cl < -1 && cl > -1 - ACOS_SLACK) cl = -1;
    if (cl >= -1) {
      const pEstimate = TWO_PI - e[10];
      const tEstimate = tLsl + 0.5 * pEstimate;
      const bound = pEstimate - CCC_ERROR + arcLowerBound(tEstimate, CCC_ERROR, FULL_TURN_SNAP) +
        arcLowerBound(phi - tEstimate + pEstimate, 2 * CCC_ERROR + FULL_TURN_SNAP, FULL_TURN_SNAP);
      if (bound - BOUND_SLACK < best) {
        const p = TWO_PI - Math.acos(cl > 1 ? 1 : cl);
        if (p - BOUND_SLACK < best) {
          const t = arcAngle(Math.atan2(ly, lx) + 0.5 * p);
          best = offer(5, t, p, arcAngle(phi - t + p), best);
        }
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
  const values = [BEST_PIECES[0], BEST_PIECES[1], BEST_PIECES[2]];
  const pieces: WordPiece[] = [];
  for (let i = 0; i < 3; i++) {
    pieces.push({ letter: word[i] as "L" | "S" | "R", direction: 1, length: values[i] * r });
  }
  const segments: CurvePath["segments"] = [];
  appendWord(segments, { x: start.x, y: start.y, heading: normalizeAngle(start.heading) }, pieces, r);
  return { word, length: norm * r, segments };
}
