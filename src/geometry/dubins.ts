/**
 * Shortest Dubins paths (forward motion only, minimum turning radius r): the six words LSL, RSR, LSR, RSL,
 * RLR, LRL, in the tangent-circle construction on the normalized problem (the goal seen from the start's frame,
 * lengths divided by r).
 *
 * {@link dubinsLength} allocates nothing; it is meant for heuristics and inner loops.
 *
 * @module
 */

import { mod2pi, TWO_PI } from "./angle.ts";
import { APPROX_ANGLE_ERROR, approxAtan2, approxAtan2Batch } from "./angleBounds.ts";
import { checkTurningRadius, type CurvePath, wordPath, type WordPiece } from "./segment.ts";
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

// Solver output for the shortest word (module scratch so the length function allocates nothing).
let bestWord = -1;
/** The best word's arcs t, p, q (a typed array keeps them unboxed: a module number would be a heap number). */
const BEST_PIECES = new Float64Array(3);
/**
 * Per CSC word w (0 LSL, 1 RSR, 2 LSR, 3 RSL), at 2w and 2w + 1: the (y, x) pair whose atan2 is the word's
 * first arc (before wrapping to [0, 2*pi)).
 */
const CSC_ATAN = new Float64Array(8);
/** Per CSC word: its straight length (Infinity where the word does not exist). */
const CSC_STRAIGHT = new Float64Array(4);
/** Per CSC word: the lower bound of its length from the estimated arcs. */
const CSC_BOUND = new Float64Array(4);
/**
 * (y, x) pairs estimated in one batch for the CCC words past their gate, RLR's first: (sin, cos) of the middle
 * arc's complement, then the center vector.
 */
const CCC_ESTIMATE = new Float64Array(8);
/** Slack of the cheap CCC gate (covers the rounding of acos and of the clamped cosine). */
const CCC_GATE_SLACK = 1e-9;

/**
 * Slack on the lower bounds below: a word is evaluated unless its bound exceeds the best length by more than
 * this. It covers rounding, so pruning never drops a word that would have been shorter.
 */
const BOUND_SLACK = 1e-12;
/**
 * Error allowed for an estimated last arc: the estimate's error, a possible full-turn snap of the first arc, and
 * the rounding of the heading change wrapped once to [0, 2*pi) (relative to its size; see PHI_ROUNDING).
 */
const ARC_ERROR = APPROX_ANGLE_ERROR + FULL_TURN_SNAP;
/** Slack of the free CSC bounds: an arc snapped to 0 (FULL_TURN_SNAP) moves t + q by up to 1e-10 each. */
const TURN_SLACK = 1e-9;
/** Relative rounding allowance for wrapping the heading change once (far above the real few ulps). */
const PHI_ROUNDING = 1e-14;
/**
 * Error of the estimated CCC arcs: the middle arc's estimate (an angle estimate, with a sine that may be off by
 * rounding where D^2/8 is near 0 or 2) counts twice in the last arc.
 */
const CCC_ERROR = 4 * APPROX_ANGLE_ERROR;
/** 4*pi (exact: twice TWO_PI). */
const FOUR_PI = 2 * TWO_PI;
/**
 * Distance from -2*pi and +-4*pi within which an angle is wrapped by mod2pi itself: farther away, floor(a / 2*pi)
 * is certainly -1, -2 or 1, and adding the multiple of 2*pi directly gives mod2pi's result bit for bit.
 */
const WRAP_EDGE = 1e-9;
/** The largest arc not snapped to 0. */
const SNAP_LIMIT = TWO_PI - FULL_TURN_SNAP;

/**
 * Length of the shortest Dubins path from (x0, y0, h0) to (x1, y1, h1) with turning radius r. Allocates nothing.
 * Headings may be any finite angle. Also fills the module scratch (best word and arcs) for dubinsShortest.
 *
 * Solves the problem normalized to the start's frame (goal at (x, y), heading change phi, lengths / r). Each word is built from the vector V between the
 * centers of its first and last turning circles: the start's left circle is centered at (0, 1), its right at
 * (0, -1); the goal's at (x -+ sin phi, y +- cos phi).
 *
 * Pruning: each CSC word has a free lower bound, its straight part plus the turn its two arcs must make (t + q
 * = +-phi or t - q = +-phi modulo 2*pi). The word with the least free bound is evaluated exactly first; each other
 * word only if its free bound, then its bound from arcs estimated with approxAtan2 (about half the cost of
 * Math.atan2, error below APPROX_ANGLE_ERROR), can still beat the best. The CCC words have a middle arc
 * p = 2*pi - 2*asin(D/4) >= pi*(2 - D/4) for centers D <= 4 apart, which gates their estimates. The exact
 * values are bit for bit those of the all-words evaluation, pruning only skips words that cannot be shorter,
 * and equal lengths go to the lower word index.
 *
 * Written out in one function on purpose: helpers V8 does not inline (once this function's inlining budget is
 * spent) would box every number passed or returned into a heap number. For the same reason this is the exported
 * function itself (a call into a solver would box the seven arguments and the result). Arcs are wrapped by
 * range (adding a multiple of 2*pi) rather than with Math.floor; the bounds use phi wrapped once.
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
  // The start-frame normalization, as in reedsSheppLengthCoords: written out, a helper would box its results.
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
  // phi wrapped to [0, 2*pi) and -phi likewise: the last arcs are differences of these and the first arcs.
  const phiLeft = phi >= 0 && phi < TWO_PI ? phi : phi < 0 && phi >= -TWO_PI ? phi + TWO_PI : mod2pi(phi);
  const phiRight = phiLeft === 0 ? 0 : TWO_PI - phiLeft;
  const lastError = ARC_ERROR + PHI_ROUNDING * Math.abs(phi);

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
  const pLsr = pLsr2 >= 0 ? Math.sqrt(pLsr2) : Infinity;
  const pRsl = pRsl2 >= 0 ? Math.sqrt(pRsl2) : Infinity;

  const a = CSC_ATAN;
  const straight = CSC_STRAIGHT;
  a[0] = ly, a[1] = lx, straight[0] = Math.sqrt(l2);
  a[2] = ry, a[3] = rx, straight[1] = Math.sqrt(r2); // RSR's first arc is -angle(V)
  // LSR: angle(V) + atan2(2, p) as one atan2; RSL: angle(V) - atan2(2, p).
  a[4] = lsrY * pLsr + 2 * rx, a[5] = rx * pLsr - 2 * lsrY, straight[2] = pLsr;
  a[6] = 2 * lx - rslY * pRsl, a[7] = lx * pRsl + 2 * rslY, straight[3] = pRsl;

  // Free lower bounds (no angle needed): the arcs t, q of LSL satisfy t + q = phi (mod 2*pi), so t + q >=
  // mod2pi(phi); RSR likewise with -phi; LSR and RSL have t - q = +-phi, so t + q >= the smaller of the two.
  // TURN_SLACK covers snapped arcs (a snap moves the congruence by 1e-10) and rounding.
  const turnSlack = TURN_SLACK + PHI_ROUNDING * Math.abs(phi);
  const turnLeft = phiLeft > TWO_PI - turnSlack ? 0 : phiLeft > turnSlack ? phiLeft - turnSlack : 0;
  const turnRight = phiRight > TWO_PI - turnSlack ? 0 : phiRight > turnSlack ? phiRight - turnSlack : 0;
  const turnMixed = turnLeft < turnRight ? turnLeft : turnRight;
  const bound = CSC_BOUND;
  bound[0] = straight[0] + turnLeft - BOUND_SLACK;
  bound[1] = straight[1] + turnRight - BOUND_SLACK;
  bound[2] = pLsr + turnMixed - BOUND_SLACK;
  bound[3] = pRsl + turnMixed - BOUND_SLACK;
  let first = 0;
  if (bound[1] < bound[first]) first = 1;
  if (bound[2] < bound[first]) first = 2;
  if (bound[3] < bound[first]) first = 3;

  // The word with the least free bound first, then the others whose free bound can still win, if a tighter
  // bound from estimated arcs still can: t + p + q with t from approxAtan2 and q = +-(t -+ phi), each arc less
  // its error (or 0 where the estimate is too close to 0 or a full turn to tell on which side it wraps).
  let best = Infinity;
  for (let pass = -1; pass < 4; pass++) {
    const w = pass < 0 ? first : pass;
    if (pass >= 0) {
      if (w === first || !(bound[w] < best)) continue;
      let tEstimate = approxAtan2(a[2 * w], a[2 * w + 1]);
      if (w === 1) tEstimate = -tEstimate;
      if (tEstimate < 0) tEstimate += TWO_PI;
      const turnEstimate = (w & 1) === 0 ? phiLeft : phiRight;
      let qEstimate = w < 2 ? turnEstimate - tEstimate : tEstimate - turnEstimate;
      if (qEstimate < 0) qEstimate += TWO_PI;
      const tLow = tEstimate > APPROX_ANGLE_ERROR && tEstimate < SNAP_LIMIT - APPROX_ANGLE_ERROR
        ? tEstimate - APPROX_ANGLE_ERROR
        : 0;
      const qLow = qEstimate > lastError && qEstimate < SNAP_LIMIT - lastError ? qEstimate - lastError : 0;
      if (!(straight[w] + tLow + qLow - BOUND_SLACK < best)) continue;
    }
    let t = Math.atan2(a[2 * w], a[2 * w + 1]);
    if (w === 1) t = -t;
    if (t < 0) t += TWO_PI;
    if (t > SNAP_LIMIT) t = 0;
    // The last arc from phi itself (not phiLeft), wrapped exactly as mod2pi does, so lengths stay bit for bit
    // those of the all-words evaluation.
    const turn = (w & 1) === 0 ? phi : -phi;
    let q = w < 2 ? turn - t : t - turn;
    if (q < 0) {
      if (q >= -TWO_PI) q += TWO_PI;
      else if (q < -TWO_PI - WRAP_EDGE && q >= -FOUR_PI + WRAP_EDGE) q += FOUR_PI;
      else q = mod2pi(q);
    } else if (q >= TWO_PI) q = q < FOUR_PI - WRAP_EDGE ? q - TWO_PI : mod2pi(q);
    if (q > SNAP_LIMIT) q = 0;
    const p = straight[w];
    const length = t + p + q;
    // Equal lengths go to the lower word index, whatever the evaluation order (dubinsShortest's word is stable).
    if (length < best || (length === best && w < bestWord)) {
      best = length, bestWord = w, BEST_PIECES[0] = t, BEST_PIECES[1] = p, BEST_PIECES[2] = q;
    }
  }

  // CCC words: the middle arc p = 2*pi - acos(1 - D^2 / 8) is in [pi, 2*pi] (never snapped: a full loop is not
  // an empty turn), so they only matter while the best is above pi and the circles are at most 4 apart. Before
  // the exact acos and atan2, the word is bounded with p estimated as 2*pi - approxAtan2(sin, cos), where
  // sin^2 = 1 - cos^2 = (D^2/8) * (2 - D^2/8) avoids cancellation.
  if (Math.PI - BOUND_SLACK < best) {
    let cr = 1 - r2 / 8;
    if (cr < -1 && cr > -1 - ACOS_SLACK) cr = -1;
    let cl = 1 - l2 / 8;
    if (cl < -1 && cl > -1 - ACOS_SLACK) cl = -1;
    // p = 2*pi - 2*asin(D/4) >= pi * (2 - D/4) (asin(z) <= z * pi/2 on [0, 1]): a cheap first gate.
    const rlr = cr >= -1 && Math.PI * (2 - 0.25 * straight[1]) - CCC_GATE_SLACK < best;
    const lrl = cl >= -1 && Math.PI * (2 - 0.25 * straight[0]) - CCC_GATE_SLACK < best;
    if (rlr || lrl) {
      // Only the words past the gate are estimated: two pairs each, RLR's (if any) first.
      const ccc = CCC_ESTIMATE;
      let pairs = 0;
      if (rlr) {
        const uR = r2 / 8;
        ccc[0] = Math.sqrt(uR < 2 ? uR * (2 - uR) : 0), ccc[1] = 1 - uR, ccc[2] = ry, ccc[3] = rx;
        pairs = 2;
      }
      const lrlAt = 2 * pairs;
      if (lrl) {
        const uL = l2 / 8;
        ccc[lrlAt] = Math.sqrt(uL < 2 ? uL * (2 - uL) : 0), ccc[lrlAt + 1] = 1 - uL;
        ccc[lrlAt + 2] = ly, ccc[lrlAt + 3] = lx;
        pairs += 2;
      }
      approxAtan2Batch(ccc, pairs);
      const qError = 2 * CCC_ERROR + FULL_TURN_SNAP + PHI_ROUNDING * Math.abs(phi);
      // RLR and LRL are written out twice on purpose: one loop over both measured about 3% slower.
      // RLR: right circles; t = p/2 - angle(V), q = p - t - phi.
      if (rlr) {
        const pEstimate = TWO_PI - ccc[0];
        let t = 0.5 * pEstimate - ccc[2];
        if (t < 0) t += TWO_PI;
        else if (t >= TWO_PI) t -= TWO_PI;
        let q = phiRight - t + pEstimate;
        if (q < 0) q += TWO_PI;
        else if (q >= TWO_PI) q -= TWO_PI;
        const tLow = t > CCC_ERROR && t < SNAP_LIMIT - CCC_ERROR ? t - CCC_ERROR : 0;
        const qLow = q > qError && q < SNAP_LIMIT - qError ? q - qError : 0;
        if (pEstimate - CCC_ERROR + tLow + qLow - BOUND_SLACK < best) {
          const p = TWO_PI - Math.acos(cr > 1 ? 1 : cr);
          if (p - BOUND_SLACK < best) {
            let tExact = 0.5 * p - Math.atan2(ry, rx);
            if (tExact < 0) tExact += TWO_PI;
            else if (tExact >= TWO_PI) tExact -= TWO_PI;
            if (tExact > SNAP_LIMIT) tExact = 0;
            let qExact = -phi - tExact + p;
            if (qExact < 0) {
              if (qExact >= -TWO_PI) qExact += TWO_PI;
              else if (qExact < -TWO_PI - WRAP_EDGE && qExact >= -FOUR_PI + WRAP_EDGE) qExact += FOUR_PI;
              else qExact = mod2pi(qExact);
            } else if (qExact >= TWO_PI) {
              qExact = qExact < FOUR_PI - WRAP_EDGE ? qExact - TWO_PI : mod2pi(qExact);
            }
            if (qExact > SNAP_LIMIT) qExact = 0;
            const length = tExact + p + qExact;
            if (length < best) {
              best = length,
                bestWord = 4,
                BEST_PIECES[0] = tExact,
                BEST_PIECES[1] = p,
                BEST_PIECES[2] = qExact;
            }
          }
        }
      }
      // LRL: left circles; t = angle(V) + p/2, q = p - t + phi.
      if (lrl) {
        const pEstimate = TWO_PI - ccc[lrlAt];
        let t = ccc[lrlAt + 2] + 0.5 * pEstimate;
        if (t < 0) t += TWO_PI;
        else if (t >= TWO_PI) t -= TWO_PI;
        let q = phiLeft - t + pEstimate;
        if (q < 0) q += TWO_PI;
        else if (q >= TWO_PI) q -= TWO_PI;
        const tLow = t > CCC_ERROR && t < SNAP_LIMIT - CCC_ERROR ? t - CCC_ERROR : 0;
        const qLow = q > qError && q < SNAP_LIMIT - qError ? q - qError : 0;
        if (pEstimate - CCC_ERROR + tLow + qLow - BOUND_SLACK < best) {
          const p = TWO_PI - Math.acos(cl > 1 ? 1 : cl);
          if (p - BOUND_SLACK < best) {
            let tExact = Math.atan2(ly, lx) + 0.5 * p;
            if (tExact < 0) tExact += TWO_PI;
            else if (tExact >= TWO_PI) tExact -= TWO_PI;
            if (tExact > SNAP_LIMIT) tExact = 0;
            let qExact = phi - tExact + p;
            if (qExact < 0) {
              if (qExact >= -TWO_PI) qExact += TWO_PI;
              else if (qExact < -TWO_PI - WRAP_EDGE && qExact >= -FOUR_PI + WRAP_EDGE) qExact += FOUR_PI;
              else qExact = mod2pi(qExact);
            } else if (qExact >= TWO_PI) {
              qExact = qExact < FOUR_PI - WRAP_EDGE ? qExact - TWO_PI : mod2pi(qExact);
            }
            if (qExact > SNAP_LIMIT) qExact = 0;
            const length = tExact + p + qExact;
            if (length < best) {
              best = length,
                bestWord = 5,
                BEST_PIECES[0] = tExact,
                BEST_PIECES[1] = p,
                BEST_PIECES[2] = qExact;
            }
          }
        }
      }
    }
  }
  return r * best;
}

/** Length of the shortest Dubins path from `start` to `goal` with turning radius r. Allocates nothing. */
export function dubinsLength(start: Pose, goal: Pose, r: number): number {
  return dubinsLengthCoords(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, r);
}

/**
 * The shortest Dubins path from `start` to `goal` with turning radius r: word (e.g. "LSR"), length and
 * segments (zero-length pieces left out; identical poses give no segments).
 */
export function dubinsShortest(start: Pose, goal: Pose, r: number): CurvePath {
  checkTurningRadius(r);
  const length = dubinsLengthCoords(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, r);
  const word = DUBINS_WORDS[bestWord];
  const values = [BEST_PIECES[0], BEST_PIECES[1], BEST_PIECES[2]];
  const pieces: WordPiece[] = [];
  for (let i = 0; i < 3; i++) {
    pieces.push({ letter: word[i] as "L" | "S" | "R", direction: 1, length: values[i] * r });
  }
  return wordPath(word, length, start, pieces, r);
}
