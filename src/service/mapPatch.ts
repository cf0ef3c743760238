/**
 * Patching a map: tile edits applied to a version's tiles give new tiles, and the old version's pass layers
 * and region tables are updated only where the edits reach (instead of rebuilt).
 *
 * @module
 */
import type { GridMap } from "../maps/grid.ts";
import { type TileRect, updatePassLayer } from "../maps/layer.ts";
import { updateRegionTable } from "../maps/regionUpdate.ts";
import { invalid } from "./errors.ts";
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

/**
 * Applies edits to a copy of `from`'s tiles (same terrain table), clipping each to the map. Returns the new
 * map and the edited rectangles; INVALID_ARGUMENT naming the edit if one starts off the map.
 */
export function applyEdits(from: GridMap, edits: TileEditSpec[]): { map: GridMap; rects: TileRect[] } {
  const { width, height } = from;
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
  tiles.set(from.tiles);
  const rects: TileRect[] = [];
  edits.forEach((e, i) => {
    if (e.x >= width) throw invalid(`edits[${i}].x`, e.x, `must be < map width ${width}`);
    if (e.y >= height) throw invalid(`edits[${i}].y`, e.y, `must be < map height ${height}`);
    const x1 = Math.min(width, e.x + e.width), y1 = Math.min(height, e.y + e.height);
    for (let y = e.y; y < y1; y++) tiles.fill(e.code, y * width + e.x, y * width + x1);
    rects.push({ x0: e.x, y0: e.y, x1, y1 });
  });
  return { map: { width, height, tiles, terrain: from.terrain }, rects };
}

/**
 * Gives `to` (a new version of `from`'s map, edited inside `rects`) every layer and region table `from` has,
 * updated incrementally, and counts their bytes into `to.bytes`.
 */
export function patchLayers(from: MapVersion, to: MapVersion, rects: TileRect[]): void {
  // One bounding rectangle for the incremental update: edits in one patch are usually close together.
  const box = rects.reduce((a, r) => ({
    x0: Math.min(a.x0, r.x0),
    y0: Math.min(a.y0, r.y0),
    x1: Math.max(a.x1, r.x1),
    y1: Math.max(a.y1, r.y1),
  }));
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
