/**
 * Patching a map: tile edits applied to a version's tiles give new tiles, and the old version's pass layers
 * and region tables are updated only where the edits reach (instead of rebuilt).
 *
 * @module
 */
import type { GridMap } from "../maps/grid.ts";
import { type TileRect, updatePassLayer } from "../maps/layer.ts";
import { updateRegionTable } from "../maps/regionUpdate.ts";
import { invalid, ServiceError } from "./errors.ts";
import type { LayerEntry, MapVersion } from "./mapCache.ts";
import { layerBytes, layerKey, regionBytes } from "./mapLayers.ts";

/** One tile edit after validation: a rectangle set to a terrain code. */
export interface TileEditSpec {
  /** First column. */
  x: number;
  /** First row. */
  y: number;
  /** Width (>= 1). */
  width: number;
  /** Height (>= 1). */
  height: number;
  /** The new terrain code. */
  code: number;
}

/** What a patch did, for streams and logs. */
export interface PatchEvent {
  /** Map id. */
  id: string;
  /** The version patched. */
  from: MapVersion;
  /** The new latest version. */
  to: MapVersion;
  /** The edited rectangles (half-open). */
  rects: TileRect[];
  /** Microseconds spent updating layers and region tables incrementally. */
  updateMicros: number;
}

/** Clipped edit area (in map areas) past which edits are painted last-first, each tile once. */
const PAINT_LAST_FIRST_AREAS = 2;
/**
 * Most row visits painting last-first may spend (about half a second); a patch of many narrow, tall,
 * overlapping edits past it is refused (RESOURCE_EXHAUSTED) rather than freezing the service.
 */
export const MAX_ROW_VISITS = 1 << 24;
/** Edited rectangles reported past this many collapse to their bounding box (streams test each one). */
export const MAX_REPORTED_RECTS = 256;

/** An edit clipped to the map (half-open). */
interface ClippedEdit extends TileRect {
  code: number;
}

/**
 * Applies edits to a copy of `from`'s tiles (same terrain table), clipping each to the map; later edits win.
 * Returns the new map and the edited rectangles (their bounding box when there are more than
 * {@link MAX_REPORTED_RECTS}); INVALID_ARGUMENT naming the edit if one starts off the map. The work is bounded
 * by the map, not by the edits' total area: when that exceeds {@link PAINT_LAST_FIRST_AREAS} map areas the
 * edits are painted last-first, each tile once, skipping covered tiles and rows (100,000 full-map edits on a
 * 512x512 map take milliseconds, not seconds).
 */
export function applyEdits(from: GridMap, edits: TileEditSpec[]): { map: GridMap; rects: TileRect[] } {
  const { width, height } = from;
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
  tiles.set(from.tiles);
  const clipped: ClippedEdit[] = [];
  let area = 0;
  edits.forEach((e, i) => {
    if (e.x >= width) throw invalid(`edits[${i}].x`, e.x, `must be < map width ${width}`);
    if (e.y >= height) throw invalid(`edits[${i}].y`, e.y, `must be < map height ${height}`);
    const x1 = Math.min(width, e.x + e.width), y1 = Math.min(height, e.y + e.height);
    clipped.push({ x0: e.x, y0: e.y, x1, y1, code: e.code });
    area += (x1 - e.x) * (y1 - e.y);
  });
  let rects: TileRect[];
  if (area <= PAINT_LAST_FIRST_AREAS * width * height) {
    for (const e of clipped) {
      for (let y = e.y0; y < e.y1; y++) tiles.fill(e.code, y * width + e.x0, y * width + e.x1);
    }
    rects = clipped.map(({ x0, y0, x1, y1 }) => ({ x0, y0, x1, y1 }));
  } else {
    rects = paintLastFirst(tiles, width, height, clipped);
  }
  if (rects.length > MAX_REPORTED_RECTS) rects = [boundingBox(rects)];
  return { map: { width, height, tiles, terrain: from.terrain }, rects };
}

/**
 * Paints edits from the last to the first, each tile at most once (the last edit covering a tile wins, as in
 * order). Per row a union-find points from a column to the next unpainted one, and another skips full rows, so
 * the work is the tiles painted plus one visit per (edit, unfinished row). Returns the edits that changed a
 * tile. RESOURCE_EXHAUSTED past {@link MAX_ROW_VISITS} visits.
 */
function paintLastFirst(tiles: Uint8Array, width: number, height: number, edits: ClippedEdit[]): TileRect[] {
  const stride = width + 1; // column `width` is each row's sentinel: "no unpainted column left"
  const next = new Int32Array(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x <= width; x++) next[y * stride + x] = x;
  }
  const nextRow = new Int32Array(height + 1);
  for (let y = 0; y <= height; y++) nextRow[y] = y;
  const left = new Int32Array(height).fill(width);
  const find = (base: number, x: number): number => {
    while (next[base + x] !== x) {
      next[base + x] = next[base + next[base + x]]; // path halving
      x = next[base + x];
    }
    return x;
  };
  const findRow = (y: number): number => {
    while (nextRow[y] !== y) {
      nextRow[y] = nextRow[nextRow[y]];
      y = nextRow[y];
    }
    return y;
  };
  const out: TileRect[] = [];
  let visits = 0;
  for (let i = edits.length - 1; i >= 0; i--) {
    const e = edits[i];
    let changed = false;
    for (let y = findRow(e.y0); y < e.y1; y = findRow(y + 1)) {
      if (++visits > MAX_ROW_VISITS) {
        throw new ServiceError(
          "RESOURCE_EXHAUSTED",
          `edits: the ${edits.length} edits overlap too much to apply in one patch (over ${MAX_ROW_VISITS} ` +
            "row visits); send fewer, larger or less overlapping edits",
        );
      }
      const base = y * stride;
      for (let x = find(base, e.x0); x < e.x1; x = find(base, x + 1)) {
        tiles[y * width + x] = e.code;
        next[base + x] = x + 1;
        left[y]--;
        changed = true;
      }
      if (left[y] === 0) nextRow[y] = y + 1;
    }
    if (changed) out.push({ x0: e.x0, y0: e.y0, x1: e.x1, y1: e.y1 });
  }
  return out.reverse();
}

/** The smallest rectangle holding all of `rects` (non-empty). */
function boundingBox(rects: TileRect[]): TileRect {
  return rects.reduce((a, r) => ({
    x0: Math.min(a.x0, r.x0),
    y0: Math.min(a.y0, r.y0),
    x1: Math.max(a.x1, r.x1),
    y1: Math.max(a.y1, r.y1),
  }));
}

/**
 * Gives `to` (a new version of `from`'s map, edited inside `rects`) every layer and region table `from` has,
 * updated incrementally, and counts their bytes into `to.bytes`.
 */
export function patchLayers(from: MapVersion, to: MapVersion, rects: TileRect[]): void {
  // One bounding rectangle for the incremental update: edits in one patch are usually close together.
  const box = boundingBox(rects);
  for (const [tkey, old] of from.layers) {
    const up = updatePassLayer(old.layer, to.map, old.terrain, box.x0, box.y0, box.x1, box.y1);
    const entry: LayerEntry = {
      key: layerKey(to, tkey),
      layer: up.layer,
      regions: new Map(),
      terrain: old.terrain,
    };
    to.bytes += layerBytes(up.layer);
    for (const [cls, table] of old.regions) {
      const next = updateRegionTable(table, up.layer, box.x0, box.y0, box.x1, box.y1);
      entry.regions.set(cls, next);
      to.bytes += regionBytes(next);
    }
    to.layers.set(tkey, entry);
  }
}
