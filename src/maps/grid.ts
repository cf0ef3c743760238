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
   * Clearance per tile: the Euclidean distance from the tile's center to the nearest blocked tile square (or
   * the map border), capped at {@link MAX_CLEARANCE}; 0 for blocked tiles. A disc of radius r centered on the
   * tile's center touches no blocked tile's interior iff clearance >= r.
   */
  clearance: Float32Array;
  /** Smallest cost multiplier among passable codes (for admissible heuristics). */
  minCost: number;
  /** 1 where the tile is road terrain (one zero element when the terrain table has no road code). */
  road: Uint8Array;
}

/** Clearance values are capped here: wider units are not expected, and it bounds the transform's work. */
export const MAX_CLEARANCE = 16;

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
  return layer.clearance[ty * layer.width + tx] - Math.sqrt(dx * dx + dy * dy) - CLEARANCE_MARGIN;
}
