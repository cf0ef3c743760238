/**
 * The one cost model of a path for a unit (docs/cost.md): the terrain cost integrated along the path (each
 * tile's cost multiplier times the distance the unit's reference point travels inside that tile), with reverse
 * distance weighted by `reversePenalty`, plus `cuspPenalty` per change of direction and `turnPenalty` per
 * radian turned (on arcs and at corners turned in place). Every planner's answer is priced by it, and the
 * directional search's transition costs are this model per edge.
 *
 * @module
 */
import { normalizeAngle } from "../geometry/angle.ts";
import type { Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { UnitSpec } from "../units/unit.ts";

/** The unit's weights the model uses. */
export type CostWeights = Pick<UnitSpec, "reversePenalty" | "turnPenalty" | "cuspPenalty">;

/** A path's cost and its parts. */
export interface PathCost {
  /** terrain + reverse extra + cusps * cuspPenalty + turning * turnPenalty. */
  total: number;
  /** Terrain cost integrated along the path, forward and reverse alike. */
  terrain: number;
  /** What reverse driving adds: (reversePenalty - 1) * the terrain integral of the reverse segments. */
  reverseExtra: number;
  /** Distance driven in reverse, tiles. */
  reverseLength: number;
  /** Changes of direction. */
  cusps: number;
  /** Radians turned (arcs and corners turned in place). */
  turning: number;
}

// Crossing parameters of one segment, reused (a path is priced once per answer).
let crossings = new Float64Array(256);

function pushCrossing(n: number, u: number): number {
  if (n === crossings.length) {
    const grown = new Float64Array(2 * n);
    grown.set(crossings);
    crossings = grown;
  }
  crossings[n] = u;
  return n + 1;
}

/** The tile cost at a point (blocked tiles and points off the map count as cost 1: the path is flagged). */
function costAt(layer: PassLayer, x: number, y: number): number {
  const tx = Math.floor(x), ty = Math.floor(y);
  if (tx < 0 || ty < 0 || tx >= layer.width || ty >= layer.height) return 1;
  const c = layer.tileCost[ty * layer.width + tx];
  return c > 0 ? c : 1;
}

/**
 * Sorts crossings[0..n) ascending (insertion sort: the lists are short and nearly sorted; a long line's two
 * sorted runs of x and y crossings go to the typed-array sort, as insertion sort is quadratic there: 1.7 s of a
 * 4096^2 hybrid query's final smoothing).
 */
function sortCrossings(n: number): void {
  if (n > 64) {
    crossings.subarray(0, n).sort();
    return;
  }
  for (let i = 1; i < n; i++) {
    const v = crossings[i];
    let j = i - 1;
    while (j >= 0 && crossings[j] > v) {
      crossings[j + 1] = crossings[j];
      j--;
    }
    crossings[j + 1] = v;
  }
}

/**
 * Cuts a segment where it crosses tile borders (exactly, for lines and arcs) and calls `visit` with each
 * piece's midpoint and length, in order along the segment: the tiles the reference point crosses and how far
 * it travels in each (the directional tables' per-transition terrain pieces, the terrain integral below).
 */
export function forEachTilePiece(seg: Segment, visit: (x: number, y: number, length: number) => void): void {
  const L = seg.length;
  if (!(L > 0)) return;
  const { x: x0, y: y0, heading: h0 } = seg.start;
  const d = seg.direction, k = seg.curvature;
  let n = 0;
  n = pushCrossing(n, 0);
  if (k === 0) {
    const dx = d * Math.cos(h0), dy = d * Math.sin(h0);
    const x1 = x0 + dx * L, y1 = y0 + dy * L;
    if (Math.abs(dx) > 1e-15) {
      for (let X = Math.ceil(Math.min(x0, x1)); X <= Math.max(x0, x1); X++) {
        const u = (X - x0) / dx;
        if (u > 0 && u < L) n = pushCrossing(n, u);
      }
    }
    if (Math.abs(dy) > 1e-15) {
      for (let Y = Math.ceil(Math.min(y0, y1)); Y <= Math.max(y0, y1); Y++) {
        const u = (Y - y0) / dy;
        if (u > 0 && u < L) n = pushCrossing(n, u);
      }
    }
  } else {
    // Position = center + (sin h, -cos h) / k with h(u) = h0 + d k u (docs/segments.md).
    const cx = x0 - Math.sin(h0) / k, cy = y0 + Math.cos(h0) / k;
    const R = 1 / Math.abs(k);
    const rate = d * k;
    const hEnd = h0 + rate * L;
    const hLo = Math.min(h0, hEnd), hHi = Math.max(h0, hEnd);
    const addAngle = (base: number) => {
      // Every h = base + 2 pi m inside (hLo, hHi), as a distance along the segment.
      let h = base + 2 * Math.PI * Math.ceil((hLo - base) / (2 * Math.PI));
      for (; h < hHi; h += 2 * Math.PI) {
        const u = (h - h0) / rate;
        if (u > 0 && u < L) n = pushCrossing(n, u);
      }
    };
    for (let X = Math.ceil(cx - R); X <= cx + R; X++) {
      const s = k * (X - cx); // sin h
      if (s < -1 || s > 1) continue;
      const a = Math.asin(s);
      addAngle(a);
      addAngle(Math.PI - a);
    }
    for (let Y = Math.ceil(cy - R); Y <= cy + R; Y++) {
      const c = -k * (Y - cy); // cos h
      if (c < -1 || c > 1) continue;
      const a = Math.acos(c);
      addAngle(a);
      addAngle(-a);
    }
  }
  n = pushCrossing(n, L);
  sortCrossings(n);
  for (let i = 1; i < n; i++) {
    const u0 = crossings[i - 1], u1 = crossings[i];
    if (u1 - u0 <= 0) continue;
    const um = 0.5 * (u0 + u1);
    let px: number, py: number;
    if (k === 0) {
      px = x0 + d * um * Math.cos(h0);
      py = y0 + d * um * Math.sin(h0);
    } else {
      const h = h0 + d * k * um;
      px = x0 + (Math.sin(h) - Math.sin(h0)) / k;
      py = y0 - (Math.cos(h) - Math.cos(h0)) / k;
    }
    visit(px, py, u1 - u0);
  }
}

/**
 * The integral of the tile cost along a segment: the segment is cut where it crosses tile borders (exactly,
 * for lines and arcs) and each piece is charged the cost of the tile its midpoint lies in.
 */
export function segmentTerrainCost(seg: Segment, layer: PassLayer): number {
  let total = 0;
  forEachTilePiece(seg, (x, y, len) => {
    total += len * costAt(layer, x, y);
  });
  return total;
}

/**
 * The cost of a path for a unit on a layer (the unit's own terrain layer; null prices every tile at 1, the
 * map-free cost of a Curve answer).
 */
export function pathCost(segments: readonly Segment[], unit: CostWeights, layer: PassLayer | null): PathCost {
  const reversePenalty = Math.max(1, unit.reversePenalty);
  let terrain = 0, reverseExtra = 0, reverseLength = 0, cusps = 0, turning = 0;
  let lastDirection = 0;
  let last: Segment | null = null;
  for (const seg of segments) {
    if (!(seg.length > 0)) continue;
    const t = layer ? segmentTerrainCost(seg, layer) : seg.length;
    terrain += t;
    if (seg.direction < 0) {
      reverseExtra += (reversePenalty - 1) * t;
      reverseLength += seg.length;
    }
    if (lastDirection !== 0 && seg.direction !== lastDirection) cusps++;
    lastDirection = seg.direction;
    turning += Math.abs(seg.curvature) * seg.length;
    // A heading jump between segments is a turn in place (a corner of a line path).
    if (last) turning += Math.abs(normalizeAngle(seg.start.heading - last.end.heading));
    last = seg;
  }
  const total = terrain + reverseExtra + cusps * unit.cuspPenalty + turning * unit.turnPenalty;
  return { total, terrain, reverseExtra, reverseLength, cusps, turning };
}
