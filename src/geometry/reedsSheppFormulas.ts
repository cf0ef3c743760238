/**
 * The Reeds-Shepp formulas (Reeds & Shepp 1990, section 8) on the normalized problem: the goal in the start's
 * frame with lengths divided by r, under the paper's eight symmetries (rows of {@link GOALS}). Eight base
 * solvers (8.1 LpSpLp, 8.2 LpSpRp, 8.3 LpRmL, 8.7 LpRupLumRm, 8.8 LpRumLumRp, 8.9 LpRmSmLm, 8.10 LpRmSmRm,
 * 8.11 LpRmSLmRp), each pruning itself against the best length so far ({@link BEST}), and their first prunes
 * hoisted into small gates the word families of reedsShepp.ts call before a solver.
 *
 * Everything here works on module scratch and allocates nothing.
 *
 * @module
 */

import { mod2pi, wrapPi } from "./angle.ts";
import { APPROX_ANGLE_ERROR, approxAtan2 } from "./angleBounds.ts";

/** pi. */
const PI = Math.PI;
/** pi/2, the fixed arc of the CCSC and CCSCC words. */
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
/** The best normalized length so far. */
const BEST = new Float64Array(1);

/**
 * The module scratch and the constants above that the word families of reedsShepp.ts share. That module takes
 * them into module constants of its own: V8 reads an exported binding through its module cell on every access
 * (a measurable cost in these loops), a module constant directly.
 */
export const SHARED = {
  OUT,
  GOALS,
  RHO_A2,
  RHO_B2,
  TURN_MOD,
  TURN_WRAP,
  TURN_HALF,
  BEST,
  PI,
  HALF_PI,
  GATE_SLACK,
} as const;

// Each base solver takes the normalized goal and prunes itself when a cheap lower bound on its total length is
// already no better than the best word found (BEST[0]), before its costly trigonometry.
// Each base solver takes the offset of a GOALS row (x, y, phi, s = sin phi, c = cos phi) and on success sets OUT.

/** 8.1: L+ S+ L+. */
export function lpSpLp(k: number): boolean {
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
export function lpSpRp(k: number): boolean {
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
export function lpRmL(k: number): boolean {
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
export function lpRupLumRm(k: number): boolean {
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
export function lpRumLumRp(k: number): boolean {
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
export function lpRmSmLm(k: number): boolean {
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
export function lpRmSmRm(k: number): boolean {
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
  // Estimated t and v (each within E): rejected when certainly of the wrong sign, or when too long. (As in
  // lpRmSmLm, written out: a shared test taking three numbers would box them wherever V8 does not inline it.)
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
export function lpRmSLmRp(k: number): boolean {
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

// The first prunes of the base solvers, bit for bit as each solver makes them, hoisted to the callers: these
// small functions take only a row index and inline, where a call to a solver does not and costs more than most
// of the prunes it would make.

/** The first prunes of CSC variant i (0-3 LpSpLp on GOALS row i & 3, 4-7 LpSpRp; see reedsShepp.ts). */
export function cscOpen(i: number): boolean {
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
export function lpRmLOpen(row: number): boolean {
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
export function lpRupLumRmOpen(row: number): boolean {
  const rho = 0.25 * (2 + Math.sqrt(RHO_B2[row]));
  if (rho > 1) return false;
  const a = 2 * Math.sqrt(2 * (1 - rho));
  return !(a + Math.abs(wrapPi(GOALS[5 * row + 2] + a)) - GATE_SLACK >= BEST[0]);
}

/** LpRumLumRp's range check and sign checks. */
export function lpRumLumRpOpen(row: number): boolean {
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
export function lpRmSmLmOpen(row: number): boolean {
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
export function lpRmSmRmOpen(row: number): boolean {
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
export function lpRmSLmRpOpen(row: number): boolean {
  const rho2 = RHO_B2[row];
  const u = 4 - Math.sqrt(rho2 - 4);
  if (u > ZERO || PI + Math.abs(u) + TURN_WRAP[row] >= BEST[0]) return false;
  const k = 5 * row;
  const s = GOALS[k + 3], c = GOALS[k + 4];
  const xi = GOALS[k] + s;
  const eta = GOALS[k + 1] - 1 - c;
  return !((4 - u) * xi - 2 * eta < -SIGN_SLACK * rho2);
}
