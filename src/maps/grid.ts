/**
 * The one map representation shared by the main thread and the workers.
 *
 * Everything here is flat typed arrays over SharedArrayBuffer, so a map version is posted to each worker once
 * and never copied per request. A tile index is `y * width + x`.
 *
 * @module
 */

/** Terrain codes are bytes; a table has one entry per code. */
export const TERRAIN_CODES = 256;

/** A typed-array constructor we can allocate over shared memory. */
type SharedCtor<T> = { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number };

/** Allocates a typed array of `length` elements backed by a SharedArrayBuffer (zero-filled). */
export function sharedArray<T>(ctor: SharedCtor<T>, length: number): T {
  return new ctor(new SharedArrayBuffer(Math.max(1, length) * ctor.BYTES_PER_ELEMENT));
}

/**
 * Per-code terrain rules. `cost[c]` is the step cost multiplier (>= 1) for entering a tile of code c;
 * `impassable[c]` is 1 when no unit with this table may enter it; `road[c]` marks road terrain.
 */
export interface TerrainTable {
  /** Cost multiplier per code (entering a tile of that code). */
  cost: Float64Array;
  /** 1 if the code is impassable. */
  impassable: Uint8Array;
  /** 1 if the code is road. */
  road: Uint8Array;
}

/**
 * A grid of terrain codes: its size and one code per tile, `tiles[y * width + x]` (SharedArrayBuffer-backed).
 * What parsing gives and what pass layers are built from (with whichever terrain table applies).
 */
export interface TileGrid {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** Terrain code per tile, row-major, SharedArrayBuffer-backed. */
  tiles: Uint8Array;
}

/** The content of one map version: its tile grid and its own terrain table. Immutable once built. */
export interface GridMap extends TileGrid {
  /** The map's own terrain table (before any unit override). */
  terrain: TerrainTable;
}

/**
 * What one unit class sees of a map: which tiles it may enter, at what cost, and how much room each tile has.
 * Built at map load for the map's own terrain table (and on first use for a unit's terrain override), never
 * per request.
 */
export interface PassLayer {
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** Cost multiplier to enter each tile; 0 means blocked. */
  tileCost: Float32Array;
  /**
   * Clearance per tile as a code: the index in {@link CLEARANCE_VALUES} of the Euclidean distance from the
   * tile's center to the nearest blocked tile square (or the map border), capped at {@link MAX_CLEARANCE}; code
   * 0 (value 0) for blocked tiles. A disc of radius r centered on the tile's center touches no blocked tile's
   * interior iff the value is >= r, that is iff the code is >= {@link clearanceCodeAtLeast}(r). One byte a tile
   * instead of a float32's four (issue 13).
   */
  clearanceCode: Uint8Array;
  /** Smallest cost multiplier among passable codes (for admissible heuristics). */
  minCost: number;
  /** 1 where the tile is road terrain (one zero element when the terrain table has no road code). */
  road: Uint8Array;
}

/** Clearance values are capped here: wider units are not expected, and it bounds the transform's work. */
export const MAX_CLEARANCE = 16;

/**
 * Every value a tile's clearance can take, ascending, as float32 (the index is the tile's clearance code):
 * sqrt(a^2 + b^2) with a, b in {0, 0.5, 1.5, 2.5, ...} below {@link MAX_CLEARANCE}, then the cap itself; 0 is
 * a blocked tile. Sums 4(a^2 + b^2) are sums of two odd squares or of 0 and an odd square (101 values in all),
 * so a byte holds the code, and because the table is ascending codes compare as their values do.
 */
export const CLEARANCE_VALUES: Float32Array = (() => {
  const cap4 = 4 * MAX_CLEARANCE * MAX_CLEARANCE;
  const squares = [0];
  for (let k = 1; (2 * k - 1) ** 2 <= cap4; k++) squares.push((2 * k - 1) ** 2);
  const sums = new Set<number>([cap4]);
  for (const a of squares) for (const b of squares) if (a + b < cap4) sums.add(a + b);
  // sqrt(4 d) / 2 equals sqrt(d) exactly (scaling by a power of 4 commutes with rounded sqrt).
  const values = [...sums].map((b) => Math.fround(Math.min(Math.sqrt(b) * 0.5, MAX_CLEARANCE)));
  return Float32Array.from(new Set(values)).sort();
})();

/**
 * The code of a clearance value: its index in {@link CLEARANCE_VALUES}. Throws a RangeError for a value that
 * is not in the table (no tile can have it), so a stray value is never silently rounded.
 */
export function clearanceCode(value: number): number {
  const code = clearanceCodeAtLeast(Math.fround(value));
  if (code >= CLEARANCE_VALUES.length || CLEARANCE_VALUES[code] !== Math.fround(value)) {
    throw new RangeError(`clearanceCode: ${value} is not a clearance value (see CLEARANCE_VALUES)`);
  }
  return code;
}

/**
 * The smallest code whose value is >= `threshold` ({@link CLEARANCE_VALUES}.length when none is, e.g. for
 * Infinity or NaN): for every tile, `clearanceCode[t] >= clearanceCodeAtLeast(r)` iff its clearance value
 * is >= r, an integer compare in place of a float one. Thresholds are compared as float64, like the float32
 * clearances they replace were.
 */
export function clearanceCodeAtLeast(threshold: number): number {
  if (!(threshold > 0)) return threshold <= 0 ? 0 : CLEARANCE_VALUES.length;
  let lo = 0, hi = CLEARANCE_VALUES.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CLEARANCE_VALUES[mid] >= threshold) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The clearance value of tile t (the float a tile's code stands for). */
export function tileClearance(layer: PassLayer, t: number): number {
  return CLEARANCE_VALUES[layer.clearanceCode[t]];
}

const uniformCosts = new WeakMap<Float32Array, number>();

/**
 * The cost shared by every passable tile of the layer, or 0 when passable tiles differ in cost (or there are
 * none). Computed once per layer (cached by its tileCost array).
 */
export function uniformCost(layer: PassLayer): number {
  const tileCost = layer.tileCost;
  let cost = uniformCosts.get(tileCost);
  if (cost === undefined) {
    cost = 0;
    for (let i = 0; i < tileCost.length; i++) {
      const c = tileCost[i];
      if (c <= 0) continue;
      if (cost === 0) cost = c;
      else if (c !== cost) {
        cost = 0;
        break;
      }
    }
    uniformCosts.set(tileCost, cost);
  }
  return cost;
}

/** Covers the float32 rounding of stored clearances (at most ~1e-6 below {@link MAX_CLEARANCE} = 16). */
const CLEARANCE_MARGIN = 1e-5;

/**
 * Free radius around a point: a disc of this radius centered there overlaps no blocked tile's interior (and
 * stays on the map). It is the tile's clearance less the point's distance to the tile center, less a margin
 * for the float32 rounding of stored clearances; negative when nothing is known (a blocked or off-map tile, or
 * a layer whose clearance is all zero). The sweeps use it to certify stretches of a path free without
 * testing cells.
 */
export function freeRadius(layer: PassLayer, x: number, y: number): number {
  const tx = Math.floor(x);
  const ty = Math.floor(y);
  if (tx < 0 || ty < 0 || tx >= layer.width || ty >= layer.height) return -1;
  const dx = x - tx - 0.5;
  const dy = y - ty - 0.5;
  return CLEARANCE_VALUES[layer.clearanceCode[ty * layer.width + tx]] - Math.sqrt(dx * dx + dy * dy) -
    CLEARANCE_MARGIN;
}
