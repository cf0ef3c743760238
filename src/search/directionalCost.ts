/**
 * Transition costs of the directional search (fixed point, {@link COST_SCALE}): the path cost model of
 * src/motion/pathCost.ts per edge: the terrain integral along the curve (forward distance + reverse distance *
 * reversePenalty, each times the cost of the tile it is driven in) + turnPenalty per radian + cuspPenalty per
 * change of direction (inside a curve, or between the last motion and the curve's first piece).
 *
 * Table transitions are costed from per-transition terms computed once per table and penalties
 * ({@link costTermsOf}): on uniform-cost windows from their length ({@link transitionCost}, looked up per
 * tile cost), else from their terrain pieces, the tiles the reference point crosses and the distance in each
 * ({@link terrainTransitionCost}). Curves computed on the fly (exact start, analytic expansion) are measured
 * and, on non-uniform terrain, integrated over the map ({@link curveCost}).
 *
 * @module
 */
import type { Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { forEachTilePiece, segmentTerrainCost } from "../motion/pathCost.ts";
import { COST_SCALE } from "./astar.ts";
import { headingAngle } from "./directionTable.ts";
import type { DirectionalSetup } from "./directionalSetup.ts";
import {
  FIRST_REVERSE,
  type HitCheckTable,
  IS_REEDS_SHEPP,
  measureCurve,
  transitionCurve,
  VARIANT_DUBINS,
  VARIANT_REEDS_SHEPP,
} from "./hitCheckTable.ts";

/**
 * Per table transition, the tiles its reference point crosses (offsets from the origin tile) and the forward
 * and reverse distance driven in each: pieces pieceStart[t]..pieceStart[t + 1]. They sum to the transition's
 * forward and reverse lengths.
 */
export interface TerrainPieces {
  /** Per transition (plus one): its first piece. */
  pieceStart: Uint32Array;
  /** Per piece: tile offset x from the origin tile. */
  dx: Int8Array;
  /** Per piece: tile offset y. */
  dy: Int8Array;
  /** Per piece: distance driven forward in the tile. */
  forward: Float64Array;
  /** Per piece: distance driven in reverse in the tile. */
  reverse: Float64Array;
}

const pieceCache = new WeakMap<HitCheckTable, TerrainPieces>();

/** The terrain pieces of a table's transitions (computed once per table from its curves). */
export function terrainPiecesOf(hit: HitCheckTable): TerrainPieces {
  const cached = pieceCache.get(hit);
  if (cached) return cached;
  const { headings: H, turningRadius: r } = hit.profile;
  const n = hit.dx.length;
  const pieceStart = new Uint32Array(n + 1);
  const dx: number[] = [], dy: number[] = [], fwd: number[] = [], rev: number[] = [];
  for (let h = 0; h < H; h++) {
    const start = { x: 0.5, y: 0.5, heading: headingAngle(h, H) };
    for (let t = hit.transitionStart[h]; t < hit.transitionStart[h + 1]; t++) {
      pieceStart[t] = dx.length;
      const goal = { x: hit.dx[t] + 0.5, y: hit.dy[t] + 0.5, heading: headingAngle(hit.endHeading[t], H) };
      const variant = (hit.flags[t] & IS_REEDS_SHEPP) !== 0 ? VARIANT_REEDS_SHEPP : VARIANT_DUBINS;
      for (const seg of transitionCurve(start, goal, r, variant)) {
        forEachTilePiece(seg, (x, y, len) => {
          const tx = Math.floor(x), ty = Math.floor(y);
          const last = dx.length - 1;
          // Consecutive pieces in one tile (a segment join) are one piece.
          if (last >= pieceStart[t] && dx[last] === tx && dy[last] === ty) {
            if (seg.direction < 0) rev[last] += len;
            else fwd[last] += len;
            return;
          }
          dx.push(tx);
          dy.push(ty);
          fwd.push(seg.direction < 0 ? 0 : len);
          rev.push(seg.direction < 0 ? len : 0);
        });
      }
    }
  }
  pieceStart[n] = dx.length;
  const out: TerrainPieces = {
    pieceStart,
    dx: Int8Array.from(dx),
    dy: Int8Array.from(dy),
    forward: Float64Array.from(fwd),
    reverse: Float64Array.from(rev),
  };
  pieceCache.set(hit, out);
  return out;
}

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
  /** The table's terrain pieces (computed on first use, for non-uniform windows). */
  pieces: TerrainPieces | null;
  /** Per piece: forward + reverse * reversePenalty (with {@link pieces}). */
  pieceWeight: Float64Array | null;
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
  const out: CostTerms = {
    lengthTerm,
    penaltyTerm,
    firstReverse,
    cuspPenalty,
    uniform: new Map(),
    pieces: null,
    pieceWeight: null,
  };
  const pieces = pieceCache.get(hit);
  if (pieces) withPieces(out, pieces, reversePenalty);
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

function withPieces(terms: CostTerms, pieces: TerrainPieces, reversePenalty: number): void {
  const w = new Float64Array(pieces.forward.length);
  for (let k = 0; k < w.length; k++) w[k] = pieces.forward[k] + pieces.reverse[k] * reversePenalty;
  terms.pieces = pieces;
  terms.pieceWeight = w;
}

/**
 * The terms' terrain pieces and their weights under the terms' reverse penalty (computed on first use: a
 * non-uniform window needs them, a uniform one never does).
 */
export function piecesOf(
  terms: CostTerms,
  hit: HitCheckTable,
  reversePenalty: number,
): { pieces: TerrainPieces; weight: Float64Array } {
  if (!terms.pieces || !terms.pieceWeight) withPieces(terms, terrainPiecesOf(hit), reversePenalty);
  return { pieces: terms.pieces!, weight: terms.pieceWeight! };
}

/**
 * The fixed-point cost of table transition t from local tile `origin` of a window whose tile costs are `cost`
 * (`pieceLocal`: the pieces' local offsets for the window's stride), from a state whose last motion was `dir`:
 * the terrain integral along the transition's curve. On a uniform window it equals {@link transitionCost}.
 */
export function terrainTransitionCost(
  terms: CostTerms,
  t: number,
  cost: Float32Array,
  origin: number,
  pieceLocal: Int32Array,
  dir: number,
): number {
  const start = terms.pieces!.pieceStart, weight = terms.pieceWeight!;
  let terrain = 0;
  for (let k = start[t], e = start[t + 1]; k < e; k++) terrain += weight[k] * cost[origin + pieceLocal[k]];
  const cusp = terms.firstReverse[t] !== dir ? terms.cuspPenalty : 0;
  return Math.round(COST_SCALE * (terrain + terms.penaltyTerm[t] + cusp));
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
 * Fixed-point cost of a curve computed on the fly, after a motion in direction `lastDir` (1 forward, -1
 * reverse, 0 none): with `terrain` (a non-uniform window's layer), the terrain integral along the curve;
 * without, its length times `tileCost` (the uniform window's cost; 0 counts 1).
 */
export function curveCost(
  segs: readonly Segment[],
  tileCost: number,
  lastDir: number,
  s: Pick<DirectionalSetup, "reversePenalty" | "turnPenalty" | "cuspPenalty">,
  terrain: PassLayer | null = null,
): number {
  const m = measureCurve(segs);
  const cusps = m.cusps + (lastDir !== 0 && segs.length > 0 && m.first !== lastDir ? 1 : 0);
  let driven: number;
  if (terrain) {
    driven = 0;
    for (const seg of segs) {
      driven += segmentTerrainCost(seg, terrain) * (seg.direction < 0 ? s.reversePenalty : 1);
    }
  } else driven = (m.forward + m.reverse * s.reversePenalty) * (tileCost || 1);
  return Math.round(COST_SCALE * (driven + m.turn * s.turnPenalty + cusps * s.cuspPenalty));
}
