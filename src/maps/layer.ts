/**
 * Pass layers: per-tile cost and clearance for one terrain table, built once per map version and terrain.
 *
 * Clearance of a tile is the Euclidean distance from its center to the nearest blocked tile square, where
 * the outside of the map counts as blocked. A blocked tile at offset (di, dj) is at distance
 * sqrt(f(|di|)^2 + f(|dj|)^2) with f(k) = max(0, k - 0.5), so the transform is separable: a row pass finds,
 * per tile, the column distance k to the nearest blocked tile in its row; a column pass then minimises
 * f(k)^2 + f(|dy|)^2 over the rows within the cap. All values are exact sums of squared half-integers, so
 * the result is exactly sqrt of that sum rounded to float32.
 *
 * @module
 */

import { MAX_CLEARANCE, type PassLayer, sharedArray, type TerrainTable, type TileGrid } from "./grid.ts";

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

/** Smallest cost among the table's passable codes (1 if none), for admissible heuristics. */
function minPassableCost(terrain: TerrainTable): number {
  let min = Infinity;
  for (let code = 0; code < terrain.cost.length; code++) {
    if (!terrain.impassable[code] && terrain.cost[code] < min) min = terrain.cost[code];
  }
  return Number.isFinite(min) ? min : 1;
}

/** A zero-filled layer of the given size over fresh shared arrays, with the table's minCost. */
function emptyLayer(width: number, height: number, terrain: TerrainTable): PassLayer {
  const size = width * height;
  return {
    width,
    height,
    tileCost: sharedArray(Float32Array, size),
    clearance: sharedArray(Float32Array, size),
    minCost: minPassableCost(terrain),
    road: sharedArray(Uint8Array, size),
  };
}

/** Writes tileCost and road for tiles in the rectangle. */
function fillCosts(layer: PassLayer, grid: TileGrid, terrain: TerrainTable, rect: TileRect): void {
  const { width, tiles } = grid;
  const { tileCost, road } = layer;
  for (let y = rect.y0; y < rect.y1; y++) {
    for (let t = y * width + rect.x0, end = y * width + rect.x1; t < end; t++) {
      const code = tiles[t];
      tileCost[t] = terrain.impassable[code] ? 0 : terrain.cost[code];
      road[t] = terrain.road[code];
    }
  }
}

/**
 * Computes clearance for the tiles in `out` (a rectangle), reading blockedness (tileCost == 0) from rows
 * and columns up to CAP_REACH around it. Row distances are computed over the extended rectangle only, which
 * is exact because a blocked tile more than CAP_REACH columns away never beats the cap.
 */
function fillClearance(layer: PassLayer, out: TileRect): void {
  const { width, height, tileCost, clearance } = layer;
  if (out.x0 >= out.x1 || out.y0 >= out.y1) return;
  const ex0 = Math.max(0, out.x0 - FAR);
  const ex1 = Math.min(width, out.x1 + FAR);
  const ey0 = Math.max(0, out.y0 - FAR);
  const ey1 = Math.min(height, out.y1 + FAR);
  const ew = ex1 - ex0;
  // rowDist[(y - ey0) * ew + (x - ex0)]: columns to the nearest blocked tile in row y, clamped to FAR.
  const rowDist = new Uint8Array(ew * (ey1 - ey0));
  for (let y = ey0; y < ey1; y++) {
    const base = (y - ey0) * ew;
    const tileBase = y * width;
    // Left sweep; the map's left border is blocked at x = -1, a window edge inside the map is "far".
    let dist = ex0 === 0 ? 1 : FAR;
    for (let x = ex0; x < ex1; x++) {
      if (tileCost[tileBase + x] === 0) dist = 0;
      rowDist[base + x - ex0] = dist;
      if (dist < FAR) dist++;
    }
    dist = ex1 === width ? 1 : FAR;
    for (let x = ex1 - 1; x >= ex0; x--) {
      if (tileCost[tileBase + x] === 0) dist = 0;
      const i = base + x - ex0;
      if (dist < rowDist[i]) rowDist[i] = dist;
      if (dist < FAR) dist++;
    }
  }
  const ow = out.x1 - out.x0;
  // Squared distances are kept times 4, so they are the integers (2k - 1)^2 + (2|dy| - 1)^2. Each tile scans
  // rows outward only while the row offset alone is nearer than its best so far (most tiles stop after a few
  // rows; a row-wide bound made every tile of a row with one open stretch scan all CAP_REACH rows).
  for (let y = out.y0; y < out.y1; y++) {
    // Rows outside the map are entirely blocked: offset y + 1 above, height - y below.
    const borderSq = Math.min(FSQ4[Math.min(y + 1, FAR)], FSQ4[Math.min(height - y, FAR)], CAP_SQ4);
    const maxUp = y - ey0, maxDown = ey1 - 1 - y;
    const rowBase = y * width + out.x0;
    const own = (y - ey0) * ew + (out.x0 - ex0);
    for (let i = 0; i < ow; i++) {
      let b = FSQ4[rowDist[own + i]];
      if (borderSq < b) b = borderSq;
      for (let dy = 1; dy <= CAP_REACH; dy++) {
        const dySq = FSQ4[dy];
        if (dySq >= b) break;
        if (dy <= maxUp) {
          const d = FSQ4[rowDist[own + i - dy * ew]] + dySq;
          if (d < b) b = d;
        }
        if (dy <= maxDown) {
          const d = FSQ4[rowDist[own + i + dy * ew]] + dySq;
          if (d < b) b = d;
        }
      }
      // sqrt(4 d) / 2 equals sqrt(d) exactly (scaling by a power of 4 commutes with rounded sqrt).
      clearance[rowBase + i] = Math.min(Math.sqrt(b) * 0.5, MAX_CLEARANCE);
    }
  }
}

/**
 * Builds the layer a terrain table gives a map: tileCost (0 = blocked), clearance (see module doc; capped at
 * MAX_CLEARANCE, 0 for blocked tiles, 0.5 for an open tile on the border), road flags and minCost.
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
  next.tileCost.set(layer.tileCost);
  next.clearance.set(layer.clearance);
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
      if (next.clearance[t] !== layer.clearance[t] || next.tileCost[t] !== layer.tileCost[t]) {
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
