/**
 * Transition costs of the directional search (fixed point, {@link COST_SCALE}): (forward length + reverse
 * length * reversePenalty) * the child tile's cost + turnPenalty per radian + cuspPenalty per change of
 * direction (inside a curve, or between the last motion and the curve's first piece).
 *
 * Table transitions are costed from per-transition terms computed once per table and penalties
 * ({@link costTermsOf}, {@link transitionCost}); curves computed on the fly (exact start, analytic expansion)
 * from their measure ({@link curveCost}).
 *
 * @module
 */
import type { Segment } from "../geometry/types.ts";
import { COST_SCALE } from "./astar.ts";
import type { DirectionalSetup } from "./directionalSetup.ts";
import { FIRST_REVERSE, type HitCheckTable, measureCurve } from "./hitCheckTable.ts";

/**
 * Per transition of a table under given penalties: forward + reverse * reversePenalty, turn * turnPenalty +
 * cusps * cuspPenalty, whether its first piece is reverse, and the edge costs by tile cost for uniform windows
 * (see {@link uniformCosts}).
 */
export interface CostTerms {
  /** Per transition: forward length + reverse length * reversePenalty. */
  lengthTerm: Float64Array;
  /** Per transition: turn * turnPenalty + cusps * cuspPenalty. */
  penaltyTerm: Float64Array;
  /** Per transition: 1 when its first piece is driven in reverse. */
  firstReverse: Uint8Array;
  /** The cusp penalty (charged when a transition starts against the last motion). */
  cuspPenalty: number;
  /** Tile cost -> [costs from a forward state, costs from a reverse state]. */
  uniform: Map<number, [Float64Array, Float64Array]>;
}

const costTermCache = new WeakMap<HitCheckTable, Map<string, CostTerms>>();

/** The cost terms of a table under penalties (computed once per table and penalties, a few kept). */
export function costTermsOf(
  hit: HitCheckTable,
  reversePenalty: number,
  turnPenalty: number,
  cuspPenalty: number,
): CostTerms {
  let byPenalty = costTermCache.get(hit);
  if (!byPenalty) {
    byPenalty = new Map();
    costTermCache.set(hit, byPenalty);
  }
  const key = `${reversePenalty}|${turnPenalty}|${cuspPenalty}`;
  const cached = byPenalty.get(key);
  if (cached) return cached;
  const n = hit.dx.length;
  const lengthTerm = new Float64Array(n);
  const penaltyTerm = new Float64Array(n);
  const firstReverse = new Uint8Array(n);
  for (let t = 0; t < n; t++) {
    lengthTerm[t] = hit.forwardLength[t] + hit.reverseLength[t] * reversePenalty;
    penaltyTerm[t] = hit.turn[t] * turnPenalty + hit.cusps[t] * cuspPenalty;
    firstReverse[t] = (hit.flags[t] & FIRST_REVERSE) !== 0 ? 1 : 0;
  }
  const out: CostTerms = { lengthTerm, penaltyTerm, firstReverse, cuspPenalty, uniform: new Map() };
  if (byPenalty.size >= 16) byPenalty.clear();
  byPenalty.set(key, out);
  return out;
}

/**
 * The fixed-point cost of table transition t onto a tile of cost `tileCost`, from a state whose last motion
 * was `dir` (0 forward, 1 reverse): one more cusp when its first piece goes the other way. The one formula of
 * every table edge (the search loop, the uniform-cost tables, the variant the path takes).
 */
export function transitionCost(terms: CostTerms, t: number, tileCost: number, dir: number): number {
  const cusp = terms.firstReverse[t] !== dir ? terms.cuspPenalty : 0;
  return Math.round(COST_SCALE * (terms.lengthTerm[t] * tileCost + terms.penaltyTerm[t] + cusp));
}

/**
 * Per transition, the edge costs when every open tile costs `tileCost` (from a forward state, from a reverse
 * state), so the search loop looks them up; cached per tile cost in the terms.
 */
export function uniformCosts(terms: CostTerms, tileCost: number): [Float64Array, Float64Array] {
  const cached = terms.uniform.get(tileCost);
  if (cached) return cached;
  const n = terms.lengthTerm.length;
  const out: [Float64Array, Float64Array] = [new Float64Array(n), new Float64Array(n)];
  if (terms.uniform.size >= 8) terms.uniform.clear();
  terms.uniform.set(tileCost, out);
  const cost = Math.fround(tileCost);
  for (let t = 0; t < n; t++) {
    for (let dir = 0; dir < 2; dir++) out[dir][t] = transitionCost(terms, t, cost, dir);
  }
  return out;
}

/**
 * Fixed-point cost of a curve computed on the fly, ending on a tile of cost `tileCost` (0: counts 1), after a
 * motion in direction `lastDir` (1 forward, -1 reverse, 0 none).
 */
export function curveCost(
  segs: readonly Segment[],
  tileCost: number,
  lastDir: number,
  s: Pick<DirectionalSetup, "reversePenalty" | "turnPenalty" | "cuspPenalty">,
): number {
  const m = measureCurve(segs);
  const tc = tileCost || 1;
  const cusps = m.cusps + (lastDir !== 0 && segs.length > 0 && m.first !== lastDir ? 1 : 0);
  return Math.round(
    COST_SCALE *
      ((m.forward + m.reverse * s.reversePenalty) * tc + m.turn * s.turnPenalty + cusps * s.cuspPenalty),
  );
}
