/**
 * A map version's pass layers and region tables: which are built when a version loads, how they are built
 * and keyed, and what they weigh against the cache's budget.
 *
 * @module
 */
import type { PassLayer, TerrainTable } from "../maps/grid.ts";
import { buildPassLayer, clearanceClass, reachClearanceClass } from "../maps/layer.ts";
import { buildRegionTable } from "../maps/regionBuild.ts";
import type { RegionTable } from "../maps/regions.ts";
import { terrainKey } from "../maps/terrain.ts";
import { inscribedRadius } from "../units/footprint.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";
import type { LayerEntry, MapVersion } from "./mapCache.ts";

/** Side of the region table's sectors. */
export const SECTOR_SIZE = 16;

const terrainKeys = new WeakMap<TerrainTable, string>();

/** terrainKey, computed once per table (tables never change after they are built). */
export function cachedTerrainKey(table: TerrainTable): string {
  let key = terrainKeys.get(table);
  if (key === undefined) {
    key = terrainKey(table);
    terrainKeys.set(table, key);
  }
  return key;
}

/** Bytes held by a pass layer's arrays. */
export function layerBytes(layer: PassLayer): number {
  return layer.tileCost.byteLength + layer.clearanceCode.byteLength + layer.road.byteLength;
}

/** Bytes held by a region table's arrays. */
export function regionBytes(t: RegionTable): number {
  let n = 0;
  for (const v of Object.values(t)) {
    if (ArrayBuffer.isView(v)) n += (v as ArrayBufferView).byteLength;
  }
  return n;
}

/**
 * Clearance classes that get region tables as soon as a version loads: those of the built-in profiles, both
 * the tile-center class of the bounding disc and the over-approximating class of the footprint
 * (reachClearanceClass; the planning gate uses both).
 */
export function builtinClasses(): number[] {
  const set = new Set<number>();
  for (const p of Object.values(BUILTIN_PROFILES)) {
    if (p.terrain.length > 0) continue;
    set.add(clearanceClass(p.boundingRadius));
    set.add(reachClearanceClass(inscribedRadius(p.footprint)));
  }
  return [...set].sort((a, b) => a - b);
}

/** The key of a version's layer for a terrain table (unique across versions; the workers' cache key). */
export function layerKey(mv: MapVersion, tkey: string): string {
  return `${mv.id}@${mv.version}/${tkey}`;
}

/**
 * Builds the pass layer a terrain table gives a version (or takes `built`, the same layer built elsewhere: the
 * map builder's worker) and adds it to the version's layers.
 */
export function addLayer(mv: MapVersion, terrain: TerrainTable, built?: PassLayer): LayerEntry {
  const layer = built ?? buildPassLayer(mv.map, terrain);
  const entry: LayerEntry = {
    key: layerKey(mv, cachedTerrainKey(terrain)),
    layer,
    regions: new Map(),
    terrain,
  };
  mv.layers.set(cachedTerrainKey(terrain), entry);
  return entry;
}

/** Builds a layer's region table for a clearance class (or takes `built`) and adds it to the layer's tables. */
export function addRegions(entry: LayerEntry, cls: number, built?: RegionTable): RegionTable {
  const table = built ?? buildRegionTable(entry.layer, cls, SECTOR_SIZE);
  entry.regions.set(cls, table);
  return table;
}
