/**
 * Terrain tables: which terrain codes are passable, at what cost, and which are road.
 *
 * A code not mentioned by a table's builder is impassable with cost 1 and not road; that is the "default"
 * entry {@link terrainEntries} leaves out.
 *
 * @module
 */

import { sharedArray, TERRAIN_CODES, type TerrainTable } from "./grid.ts";
import { MapInputError } from "./errors.ts";
import { fnv64Bytes, fnv64Hex, fnv64Start } from "./hash.ts";

/** One terrain rule as given on the wire (TerrainCost) and listed in MapInfo. */
export interface TerrainEntry {
  /** Terrain code 0..255. */
  code: number;
  /** Cost multiplier (>= 1; ignored and reported as 1 when impassable). */
  cost: number;
  /** True if units may not enter tiles of this code. */
  impassable: boolean;
  /** True if tiles of this code are road. */
  road: boolean;
}

/** A table with every code impassable (cost 1, not road), SharedArrayBuffer-backed. */
function emptyTable(): TerrainTable {
  const table: TerrainTable = {
    cost: sharedArray(Float64Array, TERRAIN_CODES),
    impassable: sharedArray(Uint8Array, TERRAIN_CODES),
    road: sharedArray(Uint8Array, TERRAIN_CODES),
  };
  table.cost.fill(1);
  table.impassable.fill(1);
  return table;
}

/** Copies a table into fresh shared arrays. */
function copyTable(base: TerrainTable): TerrainTable {
  const table = emptyTable();
  table.cost.set(base.cost);
  table.impassable.set(base.impassable);
  table.road.set(base.road);
  return table;
}

/**
 * The Moving AI default table. Codes are the characters' byte values: '.', 'G' and 'S' are passable with
 * cost 1; '@', 'O', 'T', 'W' and every other code are impassable.
 */
export function movingAiTerrain(): TerrainTable {
  const table = emptyTable();
  for (const ch of ".GS") table.impassable[ch.charCodeAt(0)] = 0;
  return table;
}

/** The raw-grid default table: code 0 is passable with cost 1, every other code is impassable. */
export function rawTerrain(): TerrainTable {
  const table = emptyTable();
  table.impassable[0] = 0;
  return table;
}

/**
 * Returns a new table: `base` with `entries` applied in order (a later entry for the same code wins).
 * Throws {@link MapInputError} naming the entry and field, e.g. `terrain[2].cost: must be >= 1, got 0.5`,
 * when a code is not an integer in 0..255 or a passable entry's cost is not a finite number >= 1.
 */
export function withOverrides(base: TerrainTable, entries: readonly TerrainEntry[]): TerrainTable {
  const table = copyTable(base);
  for (let i = 0; i < entries.length; i++) {
    const { code, cost, impassable, road } = entries[i];
    if (!Number.isInteger(code) || code < 0 || code >= TERRAIN_CODES) {
      const field = `terrain[${i}].code`;
      throw new MapInputError(field, `${field}: must be an integer in 0..255, got ${code}`);
    }
    if (!impassable && !(Number.isFinite(cost) && cost >= 1)) {
      const field = `terrain[${i}].cost`;
      throw new MapInputError(field, `${field}: must be >= 1, got ${cost}`);
    }
    table.impassable[code] = impassable ? 1 : 0;
    // The cost of an impassable code is ignored; normalizing it keeps terrainKey/mapVersion content-based.
    table.cost[code] = impassable ? 1 : cost;
    table.road[code] = road ? 1 : 0;
  }
  return table;
}

/** The bytes hashed for a table: per code, impassable and road flags, then the cost (1 when impassable). */
function tableBytes(table: TerrainTable): Uint8Array {
  const bytes = new Uint8Array(TERRAIN_CODES * 10);
  const view = new DataView(bytes.buffer);
  for (let code = 0; code < TERRAIN_CODES; code++) {
    const offset = code * 10;
    const impassable = table.impassable[code] ? 1 : 0;
    bytes[offset] = impassable;
    bytes[offset + 1] = table.road[code] ? 1 : 0;
    view.setFloat64(offset + 2, impassable ? 1 : table.cost[code], true);
  }
  return bytes;
}

/** Feeds a table's content into a running hash (shared with mapVersion). */
export function hashTerrainInto(state: { hi: number; lo: number }, table: TerrainTable): void {
  fnv64Bytes(state, tableBytes(table));
}

/**
 * A short stable string identifying a table's passability, cost and road content (16 hex characters),
 * for caching layers per unit terrain. Equal content gives an equal key; the cost of an impassable code
 * does not count.
 */
export function terrainKey(table: TerrainTable): string {
  const state = fnv64Start();
  hashTerrainInto(state, table);
  return fnv64Hex(state);
}

/**
 * The table's non-default entries in code order: every code that is passable or road. Codes not listed are
 * impassable, cost 1, not road; so the list describes the whole table (as MapInfo.terrain).
 */
export function terrainEntries(table: TerrainTable): TerrainEntry[] {
  const entries: TerrainEntry[] = [];
  for (let code = 0; code < TERRAIN_CODES; code++) {
    const impassable = table.impassable[code] !== 0;
    const road = table.road[code] !== 0;
    if (impassable && !road) continue;
    entries.push({ code, cost: impassable ? 1 : table.cost[code], impassable, road });
  }
  return entries;
}
