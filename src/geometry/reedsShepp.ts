/**
 * Shortest Reeds-Shepp paths (forward and reverse, minimum turning radius r).
 *
 * The formulas are those of Reeds & Shepp (1990), section 8, on the normalized problem: the goal expressed in
 * the start's frame with lengths divided by r. Five base solvers (8.1 LpSpLp, 8.2 LpSpRp, 8.3 LpRmL, 8.7
 * LpRupLumRm, 8.8 LpRumLumRp, 8.9 LpRmSmLm, 8.10 LpRmSmRm, 8.11 LpRmSLmRp) are applied to the goal under the
 * paper's symmetries: timeflip (x, y, phi) -> (-x, y, -phi) reverses every piece, reflect (x, y, phi) ->
 * (x, -y, -phi) swaps L and R, and backwards (the path read from goal to start) reverses the word's order.
 * That is 44 evaluations covering all 48 words of the sufficient family (CCC with a free third sign covers
 * C|C|C, C|CC and CC|C at once). Signed piece lengths: a negative value is driven in reverse.
 *
 * {@link reedsSheppLength} allocates nothing; it is meant for heuristics and inner loops.
 *
 * @module
 */

import { mod2pi, normalizeAngle, TWO_PI, wrapPi } from "./angle.ts";
import { APPROX_ANGLE_ERROR, approxAtan2 } from "./angleBounds.ts";
import { appendWord, type CurvePath, type WordPiece } from "./segment.ts";
import type { Pose } from "./types.ts";

const PI = Math.PI;
const HALF_PI = 0.5 * Math.PI;
/** Sign tolerance of the base solvers: a piece of length -ZERO still counts as non-negative. */
const ZERO = 10 * Number.EPSILON;
/**
 * A piece is rejected before its atan2 only when the sine of its angle is below -SIGN_SLACK: far beyond
 * rounding, so the angle is certainly below -ZERO.
 */
const SIGN_SLACK = 1e-9;
/**
 * Estimated pieces (from approxAtan2) decide a sign only beyond this margin, which exceeds their error (a few
 * APPROX_ANGLE_ERROR) by far: an exact value of the other sign is impossible there.
 */
const ESTIMATE_MARGIN = 1e-4;
/** Below this squared center distance the LpRupLumRm estimate is not made (its atan2 arguments vanish at 0). */
const ESTIMATE_MIN_RHO2 = 1e-6;
/** Absolute slack of the algebraic sine checks in LpRumLumRp (its atan2 arguments are of length 2 to 10). */
const ESTIMATE_SIGN_SLACK = 1e-9;
/** Rounding allowance on a length bound from estimated pieces (the estimates' own errors are subtracted). */
const ESTIMATE_SLACK = 1e-9;

// Module scratch, so nothing is allocated per call: numbers kept in typed arrays stay unboxed, where module
// variables or number arguments of calls V8 does not inline would each become a heap number.
/** Base solver outputs t, u, v. */
const OUT = new Float64Array(3);
/**
 * The normalized goal under the eight symmetries, five numbers each (x, y, phi, sin phi, cos phi); a base solver
 * takes the offset of its row.
 */
const GOALS = new Float64Array(40);
/** Per GOALS row: squared distance to the goal's left-circle center in the L+ frame (xi = x - s, eta = y - 1 + c). */
const RHO_A2 = new Float64Array(8);
/** Per GOALS row: the same for the right circle (xi = x + s, eta = y - 1 - c). */
const RHO_B2 = new Float64Array(8);
/** Per GOALS row: mod2pi(phi), the least total turn of LpSpLp (its first prune, hoisted to the caller). */
const TURN_MOD = new Float64Array(8);
/** Per GOALS row: |wrapPi(phi)|, the least total turn of LpSpRp and LpRmSLmRp outside their fixed arcs. */
const TURN_WRAP = new Float64Array(8);
/** Per GOALS row: |wrapPi(phi - pi/2)|, the least turn of LpRmSmLm and LpRmSmRm outside their fixed arc. */
const TURN_HALF = new Float64Array(8);
/** Slack of the call gates (square roots and squares compared across rounding). */
const GATE_SLACK = 1e-9;
/** Free lower bounds of the eight CSC variants (straight part plus the turn the two arcs must make). */
const CSC_FREE_BOUND = new Float64Array(8);
/** Words of the CSC variants, by index (see cscVariant). */
const CSC_LETTERS = ["LSL", "LSL", "RSR", "RSR", "LSR", "LSR", "RSL", "RSL"];
/** Index of the best CSC variant so far (8: none yet). */
let bestCsc = 8;
/** The best normalized length so far. */
const BEST = new Float64Array(1);

// The best word found so far: its letters and signed normalized piece lengths.
let bestLetters = "";
let bestCount = 0;
const bestValues = new Float64Array(5);

function consider3(letters: string, a: number, b: number, c: number): void {
  const len = Math.abs(a) + Math.abs(b) + Math.abs(c);
  if (len < BEST[0]) {
    BEST[0] = len, bestLetters = letters, bestCount = 3;
    bestValues[0] = a, bestValues[1] = b, bestValues[2] = c;
  }
}

function consider4(letters: string, a: number, b: number, c: number, d: number): void {
  const len = Math.abs(a) + Math.abs(b) + Math.abs(c) + Math.abs(d);
  if (len < BEST[0]) {
    BEST[0] = len, bestLetters = letters, bestCount = 4;
    bestValues[0] = a, bestValues[1] = b, bestValues[2] = c, bestValues[3] = d;
  }
}

function consider5(letters: string, a: number, b: number, c: number, d: number, e: number): void {
  const len = Math.abs(a) + Math.abs(b) + Math.abs(c) + Math.abs(d) + Math.abs(e);
  if (len < BEST[0]) {
    BEST[0] = len, bestLetters = letters, bestCount = 5;
    bestValues[0] = a, bestValues[1] = b, bestValues[2] = c, bestValues[3] = d, bestValues[4] = e;
  }
}

// Each base solver takes the normalized goal and prunes itself when a cheap lower bound on its total length is
// already no better than the best word found (BEST[0]), before its costly trigonometry.
// Each base solver takes the offset of a GOALS row (x, y, phi, s = sin phi, c = cos phi) and on success sets OUT.

/** 8.1: L+ S+ L+. */
function lpSpLp(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x - s;
  const eta = y - 1 + c;
  const rho2 = xi * xi + eta * eta;
  // Pruning: t, v >= 0 with t + v = phi (mod 2*pi), so the length is at least rho + mod2pi(phi).
  const turn = mod2pi(phi);
  if (turn >= BEST[0] || rho2 >= (BEST[0] - turn) * (BEST[0] - turn)) return false;
  // Signs before the atan2: sin t = eta / rho and sin v = (xi * s - eta * c) / rho, with t, v in (-pi, pi], so
  // either clearly negative means a negative piece.
  const signSlack = SIGN_SLACK * Math.sqrt(rho2);
  if (eta < -signSlack || xi * s - eta * c < -signSlack) return false;
  const t = Math.atan2(eta, xi);
  if (t < -ZERO) return false;
  const v = wrapPi(phi - t);
  if (v < -ZERO) return false;
  OUT[0] = t, OUT[1] = Math.sqrt(rho2), OUT[2] = v;
  return true;
}

/** 8.2: L+ S+ R+. */
function lpSpRp(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x + s;
  const eta = y - 1 - c;
  const rho2 = xi * xi + eta * eta;
  // Pruning: t - v = phi (mod 2*pi), so |t| + |v| >= |wrapPi(phi)|.
  const turn = Math.abs(wrapPi(phi));
  if (rho2 < 4 || turn >= BEST[0] || rho2 - 4 >= (BEST[0] - turn) * (BEST[0] - turn)) return false;
  const u = Math.sqrt(rho2 - 4);
  // The atan2 arguments have length rho^2: a clearly negative sine means t < 0.
  if (eta * u + 2 * xi < -SIGN_SLACK * rho2) return false;
  const t = wrapPi(Math.atan2(eta * u + 2 * xi, xi * u - 2 * eta));
  if (t < -ZERO) return false;
  const v = wrapPi(t - phi);
  if (v < -ZERO) return false;
  OUT[0] = t, OUT[1] = u, OUT[2] = v;
  return true;
}

/** 8.3: L+ R- L (the last piece's sign is free). */
function lpRmL(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x - s;
  const eta = y - 1 + c;
  const rho = Math.sqrt(xi * xi + eta * eta);
  // Pruning: the middle arc 2*asin(rho/4) is at least rho/2.
  if (rho > 4 || 0.5 * rho >= BEST[0]) return false;
  // Estimated pieces (approxAtan2; asin(z) as atan2(z, sqrt((1 - z)(1 + z)))): u within 2 E, t within 2 E and
  // v within 4 E on the circle (E = APPROX_ANGLE_ERROR), and |wrapPi| moves no more than its argument does.
  const z = 0.25 * rho;
  const cosHalfU = Math.sqrt((1 - z) * (1 + z));
  // t = angle(xi, eta) + pi - alpha with sin alpha = z, cos alpha = cosHalfU: rho * sin t = xi * z - eta *
  // cosHalfU, so a clearly negative value means t < 0.
  if (xi * z - eta * cosHalfU < -SIGN_SLACK * rho) return false;
  const uEstimate = -2 * approxAtan2(z, cosHalfU);
  const tEstimate = wrapPi(approxAtan2(eta, xi) + 0.5 * uEstimate + PI);
  // A t certainly below 0 (and not near the -pi/pi wrap) is rejected before any exact trigonometry.
  if (tEstimate < -ESTIMATE_MARGIN && tEstimate > ESTIMATE_MARGIN - PI) return false;
  const vEstimate = wrapPi(phi - tEstimate + uEstimate);
  if (
    Math.abs(tEstimate) - uEstimate + Math.abs(vEstimate) - 8 * APPROX_ANGLE_ERROR - ESTIMATE_SLACK >= BEST[0]
  ) return false;
  const u = -2 * Math.asin(z);
  // t - u + v = phi (mod 2*pi) bounds |t| + |v| by |wrapPi(phi + u)|.
  if (-u + Math.abs(wrapPi(phi + u)) >= BEST[0]) return false;
  const t = wrapPi(Math.atan2(eta, xi) + 0.5 * u + PI);
  if (t < -ZERO || u > ZERO) return false;
  OUT[0] = t, OUT[1] = u, OUT[2] = wrapPi(phi - t + u);
  return true;
}

/** The (tau, omega) helper of formulas 8.7 and 8.8; sets T and V. */
function tauOmega(u: number, v: number, xi: number, eta: number, phi: number): void {
  const delta = wrapPi(u - v);
  const cd = Math.cos(delta);
  const cu = Math.cos(u);
  const a = Math.sin(u) - Math.sin(delta);
  const b = cu - cd - 1;
  const t1 = Math.atan2(eta * a - xi * b, xi * a + eta * b);
  const t2 = 2 * (cd - Math.cos(v) - cu) + 3;
  const tau = t2 < 0 ? wrapPi(t1 + PI) : wrapPi(t1);
  OUT[0] = tau;
  OUT[2] = wrapPi(tau - u + v - phi);
}

/** 8.7: L+ R+ L- R- (the two middle arcs of equal length u). */
function lpRupLumRm(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x + s;
  const eta = y - 1 - c;
  const rho = 0.25 * (2 + Math.sqrt(xi * xi + eta * eta));
  if (rho > 1) return false;
  // Estimated pieces, algebraic in rho (cos u = rho, sin u = sqrt(1 - rho^2), delta = 2u): tauOmega's atan2
  // arguments are (xi, eta) times (a, b) = (1 - 2 rho) (sin u, rho), of length rho_xi_eta^2 / 2, so away from
  // 0 the estimate is within 2 E and its t2 = (2 rho - 1)^2 is clearly positive as in the exact form.
  const rho2 = xi * xi + eta * eta;
  if (rho2 > ESTIMATE_MIN_RHO2) {
    const sinU = Math.sqrt((1 - rho) * (1 + rho));
    const uEstimate = approxAtan2(sinU, rho);
    const a = sinU * (1 - 2 * rho);
    const b = rho * (1 - 2 * rho);
    const tauEstimate = approxAtan2(eta * a - xi * b, xi * a + eta * b);
    const omegaEstimate = wrapPi(tauEstimate - 2 * uEstimate - phi);
    if (
      (tauEstimate < -ESTIMATE_MARGIN && tauEstimate > ESTIMATE_MARGIN - PI) ||
      (omegaEstimate > ESTIMATE_MARGIN && omegaEstimate < PI - ESTIMATE_MARGIN) ||
      Math.abs(tauEstimate) + 2 * uEstimate + Math.abs(omegaEstimate) - 10 * APPROX_ANGLE_ERROR -
            ESTIMATE_SLACK >= BEST[0]
    ) return false;
  }
  const u = Math.acos(rho);
  // t - 2u - v = phi (mod 2*pi) bounds |t| + |v|.
  if (2 * u + Math.abs(wrapPi(phi + 2 * u)) >= BEST[0]) return false;
  tauOmega(u, -u, xi, eta, phi);
  if (OUT[0] < -ZERO || OUT[2] > ZERO) return false;
  OUT[1] = u;
  return true;
}

/** 8.8: L+ R- L- R+ (the two middle arcs of equal length u). */
function lpRumLumRp(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x + s;
  const eta = y - 1 - c;
  const rho = (20 - xi * xi - eta * eta) / 16;
  if (rho < 0 || rho > 1) return false;
  // Estimated pieces, algebraic in rho (cos u = rho, sin u = -sqrt(1 - rho^2), delta = 0): tauOmega's atan2
  // arguments are (xi, eta) times (a, b) = (sin u, rho - 2), of length at least 2, and t2 = 5 - 4 rho > 0.
  {
    const sinU = -Math.sqrt((1 - rho) * (1 + rho));
    const b = rho - 2;
    const tauY = eta * sinU - xi * b;
    const tauX = xi * sinU + eta * b;
    // tau = angle(tauX, tauY) and omega = tau - phi: clearly negative sines mean negative pieces. The
    // arguments' length is 2 to 10 here (rho_xi_eta^2 in [4, 20] times 5 - 4 rho in [1, 5]), so the slack is
    // absolute.
    if (tauY < -ESTIMATE_SIGN_SLACK || tauY * c - tauX * s < -ESTIMATE_SIGN_SLACK) return false;
    const uEstimate = -approxAtan2(-sinU, rho);
    const tauEstimate = approxAtan2(tauY, tauX);
    const omegaEstimate = wrapPi(tauEstimate - phi);
    if (
      (tauEstimate < -ESTIMATE_MARGIN && tauEstimate > ESTIMATE_MARGIN - PI) ||
      (omegaEstimate < -ESTIMATE_MARGIN && omegaEstimate > ESTIMATE_MARGIN - PI) ||
      Math.abs(tauEstimate) - 2 * uEstimate + Math.abs(omegaEstimate) - 10 * APPROX_ANGLE_ERROR -
            ESTIMATE_SLACK >= BEST[0]
    ) return false;
  }
  const u = -Math.acos(rho);
  // t - v = phi (mod 2*pi) bounds |t| + |v|.
  if (u < -HALF_PI || -2 * u + Math.abs(wrapPi(phi)) >= BEST[0]) return false;
  tauOmega(u, u, xi, eta, phi);
  if (OUT[0] < -ZERO || OUT[2] < -ZERO) return false;
  OUT[1] = u;
  return true;
}

/** 8.9: L+ R-(pi/2) S- L-. */
function lpRmSmLm(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x - s;
  const eta = y - 1 + c;
  const rho2 = xi * xi + eta * eta;
  if (rho2 < 4) return false;
  const r = Math.sqrt(rho2 - 4);
  const u = 2 - r;
  // The first three pieces turn by t + pi/2 and the last by +-v, summing to phi (mod 2*pi).
  if (u > ZERO || HALF_PI + Math.abs(u) + Math.abs(wrapPi(phi - HALF_PI)) >= BEST[0]) return false;
  // The atan2 arguments have length rho^2: a clearly negative sine means t < 0.
  if (xi * r - 2 * eta < -SIGN_SLACK * rho2) return false;
  const ty = xi * r - 2 * eta;
  const tx = -2 * xi - eta * r;
  // sin v = -cos(phi - t) = -(c * tx + s * ty) / rho^2: clearly positive means v > 0.
  if (c * tx + s * ty < -SIGN_SLACK * rho2) return false;
  // Estimated t and v (each within E): rejected when certainly of the wrong sign, or when too long.
  const tEstimate = approxAtan2(ty, tx);
  const vEstimate = wrapPi(phi - HALF_PI - tEstimate);
  if (
    (tEstimate < -ESTIMATE_MARGIN && tEstimate > ESTIMATE_MARGIN - PI) ||
    (vEstimate > ESTIMATE_MARGIN && vEstimate < PI - ESTIMATE_MARGIN) ||
    Math.abs(tEstimate) + HALF_PI - u + Math.abs(vEstimate) - 2 * APPROX_ANGLE_ERROR - ESTIMATE_SLACK >=
      BEST[0]
  ) return false;
  const t = wrapPi(Math.atan2(ty, tx));
  const v = wrapPi(phi - HALF_PI - t);
  if (t < -ZERO || u > ZERO || v > ZERO) return false;
  OUT[0] = t, OUT[1] = u, OUT[2] = v;
  return true;
}

/** 8.10: L+ R-(pi/2) S- R-. */
function lpRmSmRm(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x + s;
  const eta = y - 1 - c;
  const rho2 = xi * xi + eta * eta;
  if (rho2 < 4) return false;
  const u = 2 - Math.sqrt(rho2);
  // The first three pieces turn by t + pi/2 and the last by +-v, summing to phi (mod 2*pi).
  if (u > ZERO || HALF_PI + Math.abs(u) + Math.abs(wrapPi(phi - HALF_PI)) >= BEST[0]) return false;
  const rho = Math.sqrt(rho2);
  if (xi < -SIGN_SLACK * rho) return false; // sin t < 0
  // sin v = cos(t - phi) = (xi * s - eta * c) / rho: clearly positive means v > 0.
  if (xi * s - eta * c > SIGN_SLACK * rho) return false;
  // Estimated t and v (each within E): rejected when certainly of the wrong sign, or when too long.
  const tEstimate = approxAtan2(xi, -eta);
  const vEstimate = wrapPi(tEstimate + HALF_PI - phi);
  if (
    (tEstimate < -ESTIMATE_MARGIN && tEstimate > ESTIMATE_MARGIN - PI) ||
    (vEstimate > ESTIMATE_MARGIN && vEstimate < PI - ESTIMATE_MARGIN) ||
    Math.abs(tEstimate) + HALF_PI - u + Math.abs(vEstimate) - 2 * APPROX_ANGLE_ERROR - ESTIMATE_SLACK >=
      BEST[0]
  ) return false;
  const t = Math.atan2(xi, -eta);
  const v = wrapPi(t + HALF_PI - phi);
  if (t < -ZERO || u > ZERO || v > ZERO) return false;
  OUT[0] = t, OUT[1] = u, OUT[2] = v;
  return true;
}

/** 8.11: L+ R-(pi/2) S- L-(pi/2) R+. */
function lpRmSLmRp(k: number): boolean {
  const x = GOALS[k], y = GOALS[k + 1], phi = GOALS[k + 2], s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = x + s;
  const eta = y - 1 - c;
  const rho2 = xi * xi + eta * eta;
  if (rho2 < 4) return false;
  const u = 4 - Math.sqrt(rho2 - 4);
  // t - v = phi (mod 2*pi) bounds |t| + |v|.
  if (u > ZERO || PI + Math.abs(u) + Math.abs(wrapPi(phi)) >= BEST[0]) return false;
  // The atan2 arguments have length rho^2: a clearly negative sine means t < 0.
  if ((4 - u) * xi - 2 * eta < -SIGN_SLACK * rho2) return false;
  const t = wrapPi(Math.atan2((4 - u) * xi - 2 * eta, -2 * xi + (u - 4) * eta));
  const v = wrapPi(t - phi);
  if (t < -ZERO || v < -ZERO) return false;
  OUT[0] = t, OUT[1] = u, OUT[2] = v;
  return true;
}

/**
 * CSC variant i (0-3: LpSpLp on GOALS rows 0-3, i.e. LSL, LSL timeflipped, RSR, RSR timeflipped; 4-7: LpSpRp
 * likewise for LSR and RSL), gated on its free bound. Equal lengths go to the lower i, so the chosen word does
 * not depend on the evaluation order.
 */
function cscVariant(i: number): void {
  const row = i & 3;
  const best = BEST[0];
  if (i < 4) {
    if (!(RHO_A2[row] < best * best) || !lpSpLp(5 * row)) return;
  } else if (!(RHO_B2[row] >= 4 && RHO_B2[row] - 4 < best * best) || !lpSpRp(5 * row)) return;
  const sign = (row & 1) === 0 ? 1 : -1;
  const t = sign * OUT[0], u = sign * OUT[1], v = sign * OUT[2];
  const len = Math.abs(t) + Math.abs(u) + Math.abs(v);
  if (len < best || (len === best && i < bestCsc)) {
    BEST[0] = len, bestLetters = CSC_LETTERS[i], bestCount = 3, bestCsc = i;
    bestValues[0] = t, bestValues[1] = u, bestValues[2] = v;
  }
}

/**
 * The first prunes of the base solvers, bit for bit as each solver makes them, hoisted to the callers: these
 * small functions take only a row index and inline, where a call to a solver does not and costs more than most
 * of the prunes it would make.
 */
function cscOpen(i: number): boolean {
  const row = i & 3;
  const k = 5 * row;
  const best = BEST[0];
  const x = GOALS[k], y = GOALS[k + 1], s = GOALS[k + 3], c = GOALS[k + 4];
  if (i < 4) {
    const turn = TURN_MOD[row];
    const rho2 = RHO_A2[row];
    if (turn >= best || rho2 >= (best - turn) * (best - turn)) return false;
    const xi = x - s;
    const eta = y - 1 + c;
    const signSlack = SIGN_SLACK * Math.sqrt(rho2);
    return !(eta < -signSlack || xi * s - eta * c < -signSlack);
  }
  const turn = TURN_WRAP[row];
  const rho2 = RHO_B2[row];
  if (rho2 < 4 || turn >= best || rho2 - 4 >= (best - turn) * (best - turn)) return false;
  const u = Math.sqrt(rho2 - 4);
  const xi = x + s;
  const eta = y - 1 - c;
  return !(eta * u + 2 * xi < -SIGN_SLACK * rho2);
}

/** LpRmL's first prune and sign check. */
function lpRmLOpen(row: number): boolean {
  const k = 5 * row;
  const rho = Math.sqrt(RHO_A2[row]);
  if (rho > 4 || 0.5 * rho >= BEST[0]) return false;
  // The middle arc is |u| = 2 asin(rho / 4) >= rho / 2 and the outer arcs must still turn by phi + u, so the
  // length is at least a + |wrapPi(phi - a)| for any a <= |u| (that sum does not decrease with a).
  const halfRho = 0.5 * rho;
  if (halfRho + Math.abs(wrapPi(GOALS[k + 2] - halfRho)) - GATE_SLACK >= BEST[0]) return false;
  const s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = GOALS[k] - s;
  const eta = GOALS[k + 1] - 1 + c;
  const z = 0.25 * rho;
  const cosHalfU = Math.sqrt((1 - z) * (1 + z));
  return !(xi * z - eta * cosHalfU < -SIGN_SLACK * rho);
}

/**
 * LpRupLumRm's range check and a bound: its two arcs u = acos(rho) sum to at least a = 2 sqrt(2 (1 - rho))
 * (2 sin(u / 2) <= u), and 2u + |wrapPi(phi + 2u)| (which does not decrease with u) bounds the length.
 */
function lpRupLumRmOpen(row: number): boolean {
  const rho = 0.25 * (2 + Math.sqrt(RHO_B2[row]));
  if (rho > 1) return false;
  const a = 2 * Math.sqrt(2 * (1 - rho));
  return !(a + Math.abs(wrapPi(GOALS[5 * row + 2] + a)) - GATE_SLACK >= BEST[0]);
}

/** LpRumLumRp's range check and sign checks. */
function lpRumLumRpOpen(row: number): boolean {
  const k = 5 * row;
  const s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = GOALS[k] + s;
  const eta = GOALS[k + 1] - 1 - c;
  const rho = (20 - xi * xi - eta * eta) / 16;
  if (rho < 0 || rho > 1) return false;
  // |u| = acos(rho) >= sqrt(2 (1 - rho)) (2 sin(|u| / 2) <= |u|), and the outer arcs turn by at least |wrapPi(phi)|.
  if (2 * Math.sqrt(2 * (1 - rho)) + TURN_WRAP[row] - GATE_SLACK >= BEST[0]) return false;
  const sinU = -Math.sqrt((1 - rho) * (1 + rho));
  const b = rho - 2;
  const tauY = eta * sinU - xi * b;
  const tauX = xi * sinU + eta * b;
  return !(tauY < -ESTIMATE_SIGN_SLACK || tauY * c - tauX * s < -ESTIMATE_SIGN_SLACK);
}

/** LpRmSmLm's first prune and sign checks, on a row whose RHO_A2 is at least 4. */
function lpRmSmLmOpen(row: number): boolean {
  const rho2 = RHO_A2[row];
  const r = Math.sqrt(rho2 - 4);
  const u = 2 - r;
  if (u > ZERO || HALF_PI + Math.abs(u) + TURN_HALF[row] >= BEST[0]) return false;
  const k = 5 * row;
  const s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = GOALS[k] - s;
  const eta = GOALS[k + 1] - 1 + c;
  if (xi * r - 2 * eta < -SIGN_SLACK * rho2) return false;
  const ty = xi * r - 2 * eta;
  const tx = -2 * xi - eta * r;
  return !(c * tx + s * ty < -SIGN_SLACK * rho2);
}

/** LpRmSmRm's first prune and sign checks. */
function lpRmSmRmOpen(row: number): boolean {
  const rho2 = RHO_B2[row];
  const u = 2 - Math.sqrt(rho2);
  if (u > ZERO || HALF_PI + Math.abs(u) + TURN_HALF[row] >= BEST[0]) return false;
  const rho = Math.sqrt(rho2);
  const k = 5 * row;
  const s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = GOALS[k] + s;
  const eta = GOALS[k + 1] - 1 - c;
  return !(xi < -SIGN_SLACK * rho || xi * s - eta * c > SIGN_SLACK * rho);
}

/** LpRmSLmRp's first prune and sign check, on a row whose RHO_B2 is at least 4. */
function lpRmSLmRpOpen(row: number): boolean {
  const rho2 = RHO_B2[row];
  const u = 4 - Math.sqrt(rho2 - 4);
  if (u > ZERO || PI + Math.abs(u) + TURN_WRAP[row] >= BEST[0]) return false;
  const k = 5 * row;
  const s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = GOALS[k] + s;
  const eta = GOALS[k + 1] - 1 - c;
  return !((4 - u) * xi - 2 * eta < -SIGN_SLACK * rho2);
}

// One function per family, each with a single call site per base solver: V8 inlines the small gates and the
// consider calls there, where the unrolled calls of every row at once exhausted its inlining budget.

/** The eight CSC variants. */
function cscWords(): void {
  // CSC: the variant with the least free bound first (it is nearly always the shortest CSC word, and a good
  // best prunes every later call), then the rest in their usual order.
  const bound = CSC_FREE_BOUND;
  let first = 0;
  for (let i = 0; i < 8; i++) {
    const turn = GOALS[5 * (i & 3) + 2];
    if (i < 4) bound[i] = Math.sqrt(RHO_A2[i]) + (turn < 0 ? turn + TWO_PI : turn);
    else bound[i] = RHO_B2[i - 4] >= 4 ? Math.sqrt(RHO_B2[i - 4] - 4) + Math.abs(turn) : Infinity;
    if (bound[i] < bound[first]) first = i;
  }
  bestCsc = 8;
  if (cscOpen(first)) cscVariant(first);
  for (let i = 0; i < 8; i++) if (i !== first && cscOpen(i)) cscVariant(i);
}

/** CCC: LpRmL on the eight rows (the backwards rows read the word in reverse). */
function cccWords(): void {
  for (let row = 0; row < 8; row++) {
    const rho2 = RHO_A2[row];
    if (!(rho2 <= 16 && rho2 < 4 * (BEST[0] + GATE_SLACK) ** 2 && lpRmLOpen(row) && lpRmL(5 * row))) continue;
    const sign = (row & 1) === 0 ? 1 : -1;
    const letters = (row & 2) === 0 ? "LRL" : "RLR";
    if (row < 4) consider3(letters, sign * OUT[0], sign * OUT[1], sign * OUT[2]);
    else consider3(letters, sign * OUT[2], sign * OUT[1], sign * OUT[0]);
  }
}

/** CCCC: LpRupLumRm, then LpRumLumRp, on rows 0-3 (those words are their own backwards forms). */
function ccccWords(): void {
  for (let row = 0; row < 4; row++) {
    if (!(RHO_B2[row] <= 4 + GATE_SLACK && lpRupLumRmOpen(row) && lpRupLumRm(5 * row))) continue;
    const sign = (row & 1) === 0 ? 1 : -1;
    consider4(row < 2 ? "LRLR" : "RLRL", sign * OUT[0], sign * OUT[1], -sign * OUT[1], sign * OUT[2]);
  }
  for (let row = 0; row < 4; row++) {
    const rho2 = RHO_B2[row];
    if (!(rho2 >= 4 - GATE_SLACK && rho2 <= 20 && lpRumLumRpOpen(row) && lpRumLumRp(5 * row))) continue;
    const sign = (row & 1) === 0 ? 1 : -1;
    consider4(row < 2 ? "LRLR" : "RLRL", sign * OUT[0], sign * OUT[1], sign * OUT[1], sign * OUT[2]);
  }
}

/** Words of LpRmSmLm and LpRmSmRm per row: CCSC on rows 0-3, CSCC (read backwards) on rows 4-7. */
const CCSC_LEFT_LETTERS = ["LRSL", "LRSL", "RLSR", "RLSR", "LSRL", "LSRL", "RSLR", "RSLR"];
const CCSC_RIGHT_LETTERS = ["LRSR", "LRSR", "RLSL", "RLSL", "RSRL", "RSRL", "LSLR", "LSLR"];

/**
 * The square of the longest straight-plus-2 distance (sqrt of the squared center distance the caller compares) a
 * CCSC word of `row` may have and still beat the best: its fixed arc (pi/2) and least turn of the rest
 * (TURN_HALF) are subtracted, with slack for the square root the solver takes. 0 when even that is not left.
 */
function ccscReach(row: number): number {
  const reach = BEST[0] - HALF_PI - TURN_HALF[row] + 2 + GATE_SLACK;
  return reach > 0 ? reach * reach : 0;
}

/** As {@link ccscReach} for CCSCC (fixed arcs pi, straight u - 4, least turn of the rest TURN_WRAP). */
function ccsccReach(row: number): number {
  const reach = BEST[0] - PI - TURN_WRAP[row] + 4 + GATE_SLACK;
  return reach > 0 ? reach * reach : 0;
}

/** CCSC (first = 0) or CSCC (first = 4): LpRmSmLm, then LpRmSmRm, on rows first to first + 3. */
function ccscWords(first: number): void {
  for (let row = first; row < first + 4; row++) {
    const rho2 = RHO_A2[row];
    if (
      !(rho2 >= 8 - GATE_SLACK && rho2 - 4 < ccscReach(row) && lpRmSmLmOpen(row) &&
        lpRmSmLm(5 * row))
    ) continue;
    const sign = (row & 1) === 0 ? 1 : -1;
    const letters = CCSC_LEFT_LETTERS[row];
    if (row < 4) consider4(letters, sign * OUT[0], sign * -HALF_PI, sign * OUT[1], sign * OUT[2]);
    else consider4(letters, sign * OUT[2], sign * OUT[1], sign * -HALF_PI, sign * OUT[0]);
  }
  for (let row = first; row < first + 4; row++) {
    const rho2 = RHO_B2[row];
    if (
      !(rho2 >= 4 - GATE_SLACK && rho2 < ccscReach(row) && lpRmSmRmOpen(row) &&
        lpRmSmRm(5 * row))
    ) continue;
    const sign = (row & 1) === 0 ? 1 : -1;
    const letters = CCSC_RIGHT_LETTERS[row];
    if (row < 4) consider4(letters, sign * OUT[0], sign * -HALF_PI, sign * OUT[1], sign * OUT[2]);
    else consider4(letters, sign * OUT[2], sign * OUT[1], sign * -HALF_PI, sign * OUT[0]);
  }
}

/** CCSCC: LpRmSLmRp on rows 0-3 (its own backwards form). */
function ccsccWords(): void {
  for (let row = 0; row < 4; row++) {
    const rho2 = RHO_B2[row];
    if (
      !(rho2 >= 20 - GATE_SLACK && rho2 - 4 < ccsccReach(row) && lpRmSLmRpOpen(row) &&
        lpRmSLmRp(5 * row))
    ) continue;
    const sign = (row & 1) === 0 ? 1 : -1;
    consider5(
      row < 2 ? "LRSLR" : "RLSRL",
      sign * OUT[0],
      sign * -HALF_PI,
      sign * OUT[1],
      sign * -HALF_PI,
      sign * OUT[2],
    );
  }
}

function setGoal(k: number, x: number, y: number, phi: number, s: number, c: number): void {
  GOALS[k] = x, GOALS[k + 1] = y, GOALS[k + 2] = phi, GOALS[k + 3] = s, GOALS[k + 4] = c;
}

/**
 * Length of the shortest Reeds-Shepp path from (x0, y0, h0) to (x1, y1, h1) with turning radius r.
 * Allocates nothing. Headings may be any finite angle. Also fills the module scratch (best word and pieces).
 *
 * Normalizes the goal into the start's frame (lengths / r) and runs the 44 evaluations, each base solver call
 * gated by a cheap necessary condition. This is the exported function itself, not a wrapper around a solver:
 * a call V8 does not inline would box the arguments and the result into heap numbers.
 */
export function reedsSheppLengthCoords(
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
  const y = -dx * sh + dy * ch;
  const phi = wrapPi(h1 - h0);
  BEST[0] = Infinity;
  bestCount = 0;
  const s = Math.sin(phi);
  const c = Math.cos(phi);
  // The goal seen from the goal back to the start, for the "backwards" words.
  const xb = x * c + y * s;
  const yb = x * s - y * c;
  setGoal(0, x, y, phi, s, c);
  setGoal(5, -x, y, -phi, -s, c); // timeflip
  setGoal(10, x, -y, -phi, -s, c); // reflect
  setGoal(15, -x, -y, phi, s, c); // timeflip and reflect
  setGoal(20, xb, yb, phi, s, c); // backwards, then the same three
  setGoal(25, -xb, yb, -phi, -s, c);
  setGoal(30, xb, -yb, -phi, -s, c);
  setGoal(35, -xb, -yb, phi, s, c);
  // Squared distances to the goal's circle centers per row, computed as the base solvers do (bit for bit): the
  // gates below skip a base solver call when a necessary condition of its own checks already fails.
  // The turns per row take only two values: computed once each.
  const modPos = mod2pi(phi), modNeg = mod2pi(-phi);
  const wrapPos = Math.abs(wrapPi(phi)), wrapNeg = Math.abs(wrapPi(-phi));
  const halfPos = Math.abs(wrapPi(phi - HALF_PI)), halfNeg = Math.abs(wrapPi(-phi - HALF_PI));
  for (let row = 0, k = 0; row < 8; row++, k += 5) {
    const gx = GOALS[k], gy = GOALS[k + 1], gs = GOALS[k + 3], gc = GOALS[k + 4];
    const xiA = gx - gs, etaA = gy - 1 + gc, xiB = gx + gs, etaB = gy - 1 - gc;
    RHO_A2[row] = xiA * xiA + etaA * etaA;
    RHO_B2[row] = xiB * xiB + etaB * etaB;
    // Rows 0, 3, 4 and 7 hold phi, the others -phi.
    const flipped = ((row ^ (row >> 1)) & 1) === 1;
    TURN_MOD[row] = flipped ? modNeg : modPos;
    TURN_WRAP[row] = flipped ? wrapNeg : wrapPos;
    TURN_HALF[row] = flipped ? halfNeg : halfPos;
  }

  cscWords();
  cccWords();
  ccccWords();
  ccscWords(0);
  ccscWords(4);
  ccsccWords();
  return r * BEST[0];
}

/** Length of the shortest Reeds-Shepp path from `start` to `goal` with turning radius r. Allocates nothing. */
export function reedsSheppLength(start: Pose, goal: Pose, r: number): number {
  return reedsSheppLengthCoords(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, r);
}

/**
 * The shortest Reeds-Shepp path from `start` to `goal` with turning radius r: the word (letter and sign per
 * piece, e.g. "L+S+R-"), the length and the segments (zero-length pieces left out). Cusps are consecutive
 * segments with opposite directions.
 */
export function reedsSheppShortest(start: Pose, goal: Pose, r: number): CurvePath {
  if (!(r > 0) || !Number.isFinite(r)) {
    throw new RangeError(`turning radius must be finite and > 0, got ${r}`);
  }
  const length = reedsSheppLengthCoords(start.x, start.y, start.heading, goal.x, goal.y, goal.heading, r);
  const pieces: WordPiece[] = [];
  let word = "";
  for (let i = 0; i < bestCount; i++) {
    const value = bestValues[i];
    const letter = bestLetters[i] as "L" | "S" | "R";
    const direction = value < 0 ? -1 : 1;
    word += letter + (direction < 0 ? "-" : "+");
    pieces.push({ letter, direction, length: Math.abs(value) * r });
  }
  const segments: CurvePath["segments"] = [];
  appendWord(segments, { x: start.x, y: start.y, heading: normalizeAngle(start.heading) }, pieces, r);
  return { word, length, segments };
}
