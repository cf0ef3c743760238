/**
 * Pass layers: per-tile cost and clearance for one terrain table, built once per map version and terrain.
 *
 * Clearance of a tile is the Euclidean distance from its center to the nearest blocked tile square, where
 * the outside of the map counts as blocked. A blocked tile at offset (di, dj) is at distance
 * sqrt(f(|di|)^2 + f(|dj|)^2) with f(k) = max(0, k - 0.5), so the transform is separable: a row pass finds,
 * per tile, the column distance k to the nearest blocked tile in its row; a column pass then minimises
 * f(k)^2 + f(|dy|)^2 over the rows within the cap. All values are exact sums of squared half-integers, so
 * the result is exactly sqrt of that sum rounded to float32, stored as its one-byte code (the index into
 * CLEARANCE_VALUES, maps/grid.ts).
 *
 * @module
 */

import {
  clearanceCode,
  MAX_CLEARANCE,
  type PassLayer,
  sharedArray,
  type TerrainTable,
  type TileGrid,
} from "./grid.ts";

/** A half-open tile rectangle [x0, x1) x [y0, y1); empty when x0 >= x1 or y0 >= y1. */
export interface TileRect {
  /** First column. */
  x0: number;
  /** First row. */
  y0: number;
  /** One past the last column. */
  x1: number;
  /** One past the last row. */
  y1: number;
}

/** Result of {@link updatePassLayer}: the new layer and the window of tiles whose cost or clearance changed. */
export interface PassLayerUpdate {
  /** The new layer (fresh shared arrays; the old layer is unchanged). */
  layer: PassLayer;
  /** Bounding box of tiles whose tileCost or clearance differ from the old layer (empty if none). */
  changed: TileRect;
}

/**
 * Offsets beyond this many tiles cannot bring a tile nearer than the cap: f(CAP_REACH + 1) > MAX_CLEARANCE.
 * An edit therefore changes clearance at most CAP_REACH tiles away from the edited rectangle.
 */
export const CAP_REACH = Math.floor(MAX_CLEARANCE + 0.5);

/** FSQ4[k] = 4 max(0, k - 0.5)^2 = max(0, 2k - 1)^2 for k in 0..CAP_REACH + 1 (larger offsets clamp to it). */
const FSQ4 = (() => {
  const table = new Int32Array(CAP_REACH + 2);
  for (let k = 0; k < table.length; k++) table[k] = Math.max(0, 2 * k - 1) ** 2;
  return table;
})();
const FAR = CAP_REACH + 1;
const CAP_SQ4 = Math.ceil(4 * MAX_CLEARANCE * MAX_CLEARANCE);
/**
 * CODE_OF[b] = the clearance code of min(sqrt(b) / 2, MAX_CLEARANCE) for the integer 4 x squared distances b
 * the transform gives (0, sums of odd squares or of 0 and an odd square, up to CAP_SQ4); 0 for other b (never
 * produced).
 */
const CODE_OF = (() => {
  const table = new Uint8Array(CAP_SQ4 + 1);
  const odd: number[] = [];
  for (let k = 1; (2 * k - 1) ** 2 <= CAP_SQ4; k++) odd.push((2 * k - 1) ** 2);
  const reachable = [0, CAP_SQ4, ...odd, ...odd.flatMap((a) => odd.map((b) => a + b))];
  for (const b of reachable) {
    // sqrt(4 d) / 2 equals sqrt(d) exactly (scaling by a power of 4 commutes with rounded sqrt).
    if (b <= CAP_SQ4) table[b] = clearanceCode(Math.min(Math.sqrt(b) * 0.5, MAX_CLEARANCE));
  }
  return table;
})();

/** Smallest cost among the table's passable codes (1 if none), for admissible heuristics. */
function minPassableCost(terrain: TerrainTable): number {
  let min = Infinity;
  for (let code = 0; code < terrain.cost.length; code++) {
    if (!terrain.impassable[code] && terrain.cost[code] < min) min = terrain.cost[code];
  }
  return Number.isFinite(min) ? min : 1;
}

/**
 * A zero-filled layer of the given size over fresh shared arrays, with the table's minCost. Under a terrain
 * table without a road code no tile can be road (edits keep the table), so `road` is a one-element zero array
 * instead of a byte a tile: every reader asks `road[t] === 1`, false for both.
 */
function emptyLayer(width: number, height: number, terrain: TerrainTable): PassLayer {
  const size = width * height;
  return {
    width,
    height,
    tileCost: sharedArray(Float32Array, size),
    clearanceCode: sharedArray(Uint8Array, size),
    minCost: minPassableCost(terrain),
    road: sharedArray(Uint8Array, terrain.road.includes(1) ? size : 1),
  };
}

/** Writes tileCost and road for tiles in the rectangle. */
function fillCosts(layer: PassLayer, grid: TileGrid, terrain: TerrainTable, rect: TileRect): void {
  const { width, tiles } = grid;
  const { tileCost, road } = layer;
  const roads = road.length === tileCost.length;
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let t = y * width + rect.x0, end = y * width + rect.x1; t < end; t++) {
      const code = tiles[t];
      tileCost[t] = terrain.impassable[code] ? 0 : terrain.cost[code];
      if (roads) road[t] = terrain.road[code];
    }
  }
}

/** FSQ4 capped at CAP_SQ4, by column distance 0..FAR: a row's starting value needs no clamp. */
const GCAP = (() => {
  const table = new Int32Array(FAR + 1);
  for (let k = 0; k <= FAR; k++) table[k] = Math.min(FSQ4[k], CAP_SQ4);
  return table;
})();

/**
 * Computes clearance for the tiles in `out` (a rectangle), reading blockedness (tileCost == 0) from rows
 * and columns up to FAR around it (a blocked tile farther away never beats the cap, so the window is exact).
 * Squared distances are kept times 4, so each is the integer h(dx) + h(dy) with h(k) = max(0, 2|k| - 1)^2
 * (centre to the nearest point of a blocked tile), minimised over blocked tiles and the blocked ring around the
 * map, capped at CAP_SQ4. Two separable passes in memory order: column distances k (rows to the nearest blocked
 * tile in the column, clamped to FAR) top-down, then bottom-up; each row, once final, is used at once (still in
 * cache) by the row pass: b(x) = min over columns s of h(k(s)) + h(x - s), scanned outwards from x while h(dx)
 * alone is below the best so far (2.5 steps a tile on a city map; the first two steps are taken without a
 * branch). Rows are padded by FAR columns (blocked at the map's borders) so the scan has no bounds checks. The
 * same integers as the lower envelope of parabolas this replaced (Felzenszwalb & Huttenlocher; a division per
 * parabola), 1.3x faster at 8192^2.
 */
function fillClearance(layer: PassLayer, out: TileRect): void {
  const { width, height, tileCost, clearanceCode } = layer;
  if (out.x0 >= out.x1 || out.y0 >= out.y1) return;
  const ex0 = Math.max(0, out.x0 - FAR);
  const ex1 = Math.min(width, out.x1 + FAR);
  const ey0 = Math.max(0, out.y0 - FAR);
  const ey1 = Math.min(height, out.y1 + FAR);
  const ew = ex1 - ex0;
  const stride = ew + 2 * FAR;
  // cd[(y - ey0) * stride + FAR + (x - ex0)]: column distance; the pads stand for the map's left and right
  // borders (0: blocked) or, at a window edge inside the map, for columns the scan never reaches (FAR).
  const cd = new Uint8Array(stride * (ey1 - ey0));
  const leftPad = ex0 === 0 ? 0 : FAR;
  const rightPad = ex1 === width ? 0 : FAR;
  // Top-down: rows to the nearest blocked tile at or above; the map's top border (row -1) is blocked.
  const top = ey0 === 0 ? 1 : FAR;
  for (let y = ey0; y < ey1; y++) {
    const base = (y - ey0) * stride + FAR;
    const tileBase = y * width + ex0;
    if (leftPad !== 0) cd.fill(leftPad, base - FAR, base);
    if (rightPad !== 0) cd.fill(rightPad, base + ew, base + ew + FAR);
    if (y === ey0) {
      for (let x = 0; x < ew; x++) cd[base + x] = tileCost[tileBase + x] === 0 ? 0 : top;
      continue;
    }
    const up = base - stride;
    for (let x = 0; x < ew; x++) {
      const u = cd[up + x] + 1;
      cd[base + x] = tileCost[tileBase + x] === 0 ? 0 : u < FAR ? u : FAR;
    }
  }
  // Bottom-up (the map's bottom border, row `height`, is blocked), then the row pass on each finished row.
  const bottom = ey1 === height ? 1 : FAR;
  for (let y = ey1 - 1; y >= ey0; y--) {
    const base = (y - ey0) * stride + FAR;
    if (y === ey1 - 1) {
      for (let x = 0; x < ew; x++) if (cd[base + x] > bottom) cd[base + x] = bottom;
    } else {
      const down = base + stride;
      for (let x = 0; x < ew; x++) {
        const d = cd[down + x] + 1;
        if (d < cd[base + x]) cd[base + x] = d;
      }
    }
    if (y < out.y0 || y >= out.y1) continue;
    const rowBase = y * width;
    for (let x = out.x0, i = base + out.x0 - ex0; x < out.x1; x++, i++) {
      let b = GCAP[cd[i]];
      // Steps 1 and 2 (h = 1, 9) branch-free: min(a, c) = a + ((c - a) & ((c - a) >> 31)) on small integers.
      let l = cd[i - 1], r = cd[i + 1];
      let m = GCAP[l + ((r - l) & ((r - l) >> 31))] + 1;
      b = m + ((b - m) & ((b - m) >> 31));
      l = cd[i - 2];
      r = cd[i + 2];
      m = GCAP[l + ((r - l) & ((r - l) >> 31))] + 9;
      b = m + ((b - m) & ((b - m) >> 31));
      // h(FAR) > CAP_SQ4 >= b ends the scan within the pads.
      for (let dx = 3, f = 25; f < b; f = FSQ4[++dx]) {
        l = cd[i - dx];
        r = cd[i + dx];
        m = GCAP[l < r ? l : r] + f;
        if (m < b) b = m;
      }
      clearanceCode[rowBase + x] = CODE_OF[b];
    }
  }
}

/**
 * Builds the layer a terrain table gives a map: tileCost (0 = blocked), clearance codes (see module doc; capped
 * at MAX_CLEARANCE, 0 for blocked tiles, 0.5 for an open tile on the border), road flags and minCost.
 */
export function buildPassLayer(map: TileGrid, terrain: TerrainTable): PassLayer {
  const { width, height } = map;
  const layer = emptyLayer(width, height, terrain);
  const all = { x0: 0, y0: 0, x1: width, y1: height };
  fillCosts(layer, map, terrain, all);
  fillClearance(layer, all);
  return layer;
}

/**
 * A layer of `map`'s size with nothing filled yet (shared arrays), for a build split by rows between threads:
 * {@link fillLayerCosts} over every row first, then {@link fillLayerClearance} (which reads the costs of rows
 * up to CAP_REACH around its own). Together they give what {@link buildPassLayer} gives.
 */
export function allocPassLayer(map: TileGrid, terrain: TerrainTable): PassLayer {
  return emptyLayer(map.width, map.height, terrain);
}

/** Fills tileCost and road for rows [y0, y1) of a layer from {@link allocPassLayer}. */
export function fillLayerCosts(
  layer: PassLayer,
  map: TileGrid,
  terrain: TerrainTable,
  y0: number,
  y1: number,
): void {
  fillCosts(layer, map, terrain, { x0: 0, y0, x1: map.width, y1 });
}

/** Fills clearance for rows [y0, y1) (the costs of every row within CAP_REACH of them must be filled). */
export function fillLayerClearance(layer: PassLayer, y0: number, y1: number): void {
  fillClearance(layer, { x0: 0, y0, x1: layer.width, y1 });
}

/**
 * Returns a copy of `layer` updated for an edit of the tiles in the half-open rectangle [x0, x1) x [y0, y1)
 * of `map` (which already holds the new tiles). Only tileCost/road inside the rectangle and clearance within
 * CAP_REACH of it are recomputed. The copy has new SharedArrayBuffers: running requests keep the old layer.
 * Also reports the bounding box of tiles whose cost or clearance actually changed.
 */
export function updatePassLayer(
  layer: PassLayer,
  map: TileGrid,
  terrain: TerrainTable,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): PassLayerUpdate {
  const { width, height } = layer;
  if (map.width !== width || map.height !== height) {
    throw new RangeError(`updatePassLayer: map is ${map.width}x${map.height}, layer is ${width}x${height}`);
  }
  const next = emptyLayer(width, height, terrain);
  if (next.road.length !== layer.road.length) {
    throw new RangeError("updatePassLayer: the terrain table is not the layer's (its road codes differ)");
  }
  next.tileCost.set(layer.tileCost);
  next.clearanceCode.set(layer.clearanceCode);
  next.road.set(layer.road);
  const edit = clipRect({ x0, y0, x1, y1 }, width, height);
  const changed = { x0: width, y0: height, x1: 0, y1: 0 };
  if (edit.x0 >= edit.x1 || edit.y0 >= edit.y1) return { layer: next, changed };
  fillCosts(next, map, terrain, edit);
  const reach = clipRect(
    { x0: edit.x0 - CAP_REACH, y0: edit.y0 - CAP_REACH, x1: edit.x1 + CAP_REACH, y1: edit.y1 + CAP_REACH },
    width,
    height,
  );
  fillClearance(next, reach);
  for (let y = reach.y0; y < reach.y1; y++) {
    for (let x = reach.x0; x < reach.x1; x++) {
      const t = y * width + x;
      if (next.clearanceCode[t] !== layer.clearanceCode[t] || next.tileCost[t] !== layer.tileCost[t]) {
        if (x < changed.x0) changed.x0 = x;
        if (x >= changed.x1) changed.x1 = x + 1;
        if (y < changed.y0) changed.y0 = y;
        if (y >= changed.y1) changed.y1 = y + 1;
      }
    }
  }
  return { layer: next, changed };
}

/** Clips a rectangle to the map. */
export function clipRect(rect: TileRect, width: number, height: number): TileRect {
  return {
    x0: Math.max(0, Math.min(width, Math.floor(rect.x0))),
    y0: Math.max(0, Math.min(height, Math.floor(rect.y0))),
    x1: Math.max(0, Math.min(width, Math.ceil(rect.x1))),
    y1: Math.max(0, Math.min(height, Math.ceil(rect.y1))),
  };
}

/**
 * The canonical clearance threshold for a disc of the given radius: the smallest value sqrt(a^2 + b^2) with
 * a, b in {0, 0.5, 1.5, 2.5, ...} that is >= radius, rounded to float32 like stored clearances.
 *
 * Clearances only take such values (distances from a tile center to tile squares), so "clearance >= class"
 * selects exactly the tiles with "clearance >= radius": units whose radii share a class see the same tiles
 * and can share one region table. radius <= 0.5 gives 0.5 (every open tile). Because clearance is capped,
 * a radius in (15.5.., MAX_CLEARANCE] gives MAX_CLEARANCE and a radius above MAX_CLEARANCE gives Infinity
 * (no tile qualifies).
 */
export function clearanceClass(radius: number): number {
  if (!(radius > 0.5)) return 0.5;
  if (radius > MAX_CLEARANCE) return Infinity;
  // Few candidates (a, b <= radius + 1): enumerate them all rather than be clever.
  const steps = Math.ceil(radius) + 1;
  let best = Infinity;
  for (let i = 0; i <= steps; i++) {
    const a = i === 0 ? 0 : i - 0.5;
    for (let j = 0; j <= steps; j++) {
      const b = j === 0 ? 0 : j - 0.5;
      const value = Math.sqrt(a * a + b * b);
      if (value >= radius && value < best) best = value;
    }
  }
  return Math.fround(Math.min(best, MAX_CLEARANCE));
}

/**
 * The over-approximating clearance class of a footprint whose inscribed disc (centered on the pose) has
 * radius `inscribed`: every tile that the center of a legal pose can lie in (the closed tile square) has
 * clearance >= this class, so a region table at this class never separates two poses a legal motion joins.
 *
 * Why. A legal pose at p keeps its inscribed disc off every blocked tile's interior, so p is at least
 * `inscribed` from every blocked tile square (and from the outside of the map, which counts as blocked).
 * Let p lie in the closed tile t and a blocked square sit at tile offset (i, j) from t. Along x, p is at most
 * max(0, |i|) from that square's column (p on t's far edge), while t's center is f(|i|) = max(0, |i| - 0.5)
 * from it; the same along y. So `inscribed` <= |p - square| <= sqrt(i^2 + j^2), and the square is
 * sqrt(f(|i|)^2 + f(|j|)^2) from t's center. The class is the least such center distance over all offsets
 * with sqrt(i^2 + j^2) >= inscribed: every blocked square is then at least the class from t's center, which
 * is t's clearance. Offset (0, 0) (t itself blocked) has distance 0 < inscribed, so t is open.
 *
 * A legal motion moves the center continuously; the tiles it passes through form a 4-connected chain (where it
 * crosses a tile corner the center lies in all four closed tiles, each open by the above), and region tables
 * are 4-connected: the two end tiles are in one component. The class is at most {@link clearanceClass} of the
 * footprint's bounding radius (fewer tiles pass that rule: the tile-center rule of the line planners).
 * Examples: inscribed <= 1 gives 0.5 (every open tile: the jeep, tank, truck); <= sqrt 2 gives 0.707.
 */
export function reachClearanceClass(inscribed: number): number {
  if (!(inscribed > 1)) return 0.5;
  // Stored clearances stop at the cap: past it (every candidate beyond the cap too) the cap is the class.
  if (inscribed > MAX_CLEARANCE + 1) return Math.fround(MAX_CLEARANCE);
  const steps = Math.ceil(inscribed) + 1;
  let best = Infinity;
  for (let i = 0; i <= steps; i++) {
    for (let j = 0; j <= steps; j++) {
      if (Math.sqrt(i * i + j * j) < inscribed) continue;
      const a = Math.max(0, i - 0.5), b = Math.max(0, j - 0.5);
      best = Math.min(best, Math.sqrt(a * a + b * b));
    }
  }
  return Math.fround(Math.min(best, MAX_CLEARANCE));
}
