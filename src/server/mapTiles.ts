/**
 * GetMap's tiles: the window a GetMapRequest asks (`include_tiles`, `window`), checked and clipped, and the
 * tiles of it as a RawGrid (one terrain byte per tile, row-major).
 *
 * @module
 */
import { ServiceError } from "../service/errors.ts";
import type { TileGrid } from "../maps/grid.ts";

/** Most tiles one GetMap answer holds (4 MiB): bigger maps are asked window by window. */
export const MAX_TILES_PER_ANSWER = 4 * 1024 * 1024;

/** A GetMap window on the wire (proto field names). */
export interface WireTileWindow {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
}

/** The tiles part of a MapInfo. */
export interface WireMapTiles {
  tiles: { width: number; height: number; tiles: Uint8Array };
  tiles_x: number;
  tiles_y: number;
}

/**
 * The tiles of `window` (whole map when absent; width/height 0 run to the edge), or throws INVALID_ARGUMENT
 * (a window starting outside the map) or RESOURCE_EXHAUSTED (more than MAX_TILES_PER_ANSWER), naming the field.
 */
export function mapTilesToWire(map: TileGrid, window: WireTileWindow | null | undefined): WireMapTiles {
  const x = window?.x ?? 0, y = window?.y ?? 0;
  if (x >= map.width || y >= map.height) {
    throw new ServiceError(
      "INVALID_ARGUMENT",
      `window: starts at (${x}, ${y}), outside the ${map.width} x ${map.height} map`,
    );
  }
  const w = Math.min(window?.width || map.width - x, map.width - x);
  const h = Math.min(window?.height || map.height - y, map.height - y);
  if (w * h > MAX_TILES_PER_ANSWER) {
    throw new ServiceError(
      "RESOURCE_EXHAUSTED",
      `include_tiles: the window is ${w} x ${h} = ${w * h} tiles, more than ${MAX_TILES_PER_ANSWER} in one ` +
        `answer; ask it in smaller windows (GetMapRequest.window)`,
    );
  }
  const out = new Uint8Array(w * h);
  for (let r = 0; r < h; r++) {
    const from = (y + r) * map.width + x;
    out.set(map.tiles.subarray(from, from + w), r * w);
  }
  return { tiles: { width: w, height: h, tiles: out }, tiles_x: x, tiles_y: y };
}
