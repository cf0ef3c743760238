/**
 * Content versions of maps.
 *
 * @module
 */

import type { TerrainTable } from "./grid.ts";
import { fnv64Bytes, fnv64Hex, fnv64Start, fnv64Uint32 } from "./hash.ts";
import { hashTerrainInto } from "./terrain.ts";

/**
 * The version of a map's content: 16 hex characters of a 64-bit FNV-1a hash over width, height, the tiles and
 * the terrain table (see terrainKey for what of the table counts). Equal content gives an equal version.
 */
export function mapVersion(tiles: Uint8Array, width: number, height: number, terrain: TerrainTable): string {
  const state = fnv64Start();
  fnv64Uint32(state, width);
  fnv64Uint32(state, height);
  // Hash a view of exactly the tiles (a shared array may be longer when width * height is 0).
  fnv64Bytes(state, tiles.subarray(0, width * height));
  hashTerrainInto(state, terrain);
  return fnv64Hex(state);
}
