/**
 * Shortest Reeds-Shepp paths (forward and reverse, minimum turning radius r).
 *
 * The formulas are those of Reeds & Shepp (1990), section 8, on the normalized problem: the goal expressed in
 * the start's frame with lengths divided by r. The base solvers (8.1 LpSpLp, 8.2 LpSpRp, 8.3 LpRmL, 8.7
 * LpRupLumRm, 8.8 LpRumLumRp, 8.9 LpRmSmLm, 8.10 LpRmSmRm, 8.11 LpRmSLmRp, in reedsSheppFormulas.ts) are
 * applied here, word family by word family, to the goal under the paper's symmetries: timeflip (x, y, phi) -> (-x, y, -phi) reverses every piece, reflect (x, y, phi) ->
 * (x, -y, -phi) swaps L and R, and backwards (the path read from goal to start) reverses the word's order.
 * That is 44 evaluations covering all 48 words of the sufficient family (CCC with a free third sign covers
 * C|C|C, C|CC and CC|C at once). Signed piece lengths: a negative value is driven in reverse.
 *
 * {@link reedsSheppLength} allocates nothing; it is meant for heuristics and inner loops.
 *
 * @module
 */

import { mod2pi, TWO_PI, wrapPi } from "./angle.ts";
import {
  cscOpen,
  lpRmL,
  lpRmLOpen,
  lpRmSLmRp,
  lpRmSLmRpOpen,
  lpRmSmLm,
  lpRmSmLmOpen,
  lpRmSmRm,
  lpRmSmRmOpen,
  lpRumLumRp,
  lpRumLumRpOpen,
  lpRupLumRm,
  lpRupLumRmOpen,
  lpSpLp,
  lpSpRp,
  SHARED,
} from "./reedsSheppFormulas.ts";
import { checkTurningRadius, type CurvePath, wordPath, type WordPiece } from "./segment.ts";
import type { Pose } from "./types.ts";

// The formulas' scratch and constants as module constants (see SHARED).
const { OUT, GOALS, RHO_A2, RHO_B2, TURN_MOD, TURN_WRAP, TURN_HALF, BEST, PI, HALF_PI, GATE_SLACK } = SHARED;

/** Free lower bounds of the eight CSC variants (straight part plus the turn the two arcs must make). */
const CSC_FREE_BOUND = new Float64Array(8);
/** Words of the CSC variants, by index (see cscVariant). */
const CSC_LETTERS = ["LSL", "LSL", "RSR", "RSR", "LSR", "LSR", "RSL", "RSL"];
/** Index of the best CSC variant so far (8: none yet). */
let bestCsc = 8;

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
  // The start-frame normalization, as in dubinsLengthCoords: written out, a helper would box its results.
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
  checkTurningRadius(r);
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
  return wordPath(word, length, start, pieces, r);
}
