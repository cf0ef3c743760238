/**
 * Big maps hash and build off the service's thread (mapBuild.ts): the builder's version, pass layer and region
 * tables equal the inline ones, the thread keeps running while it builds, and a store upload of a big map
 * holds what an inline build gives.
 */
import { describe, expect, test } from "vitest";
import { MapBuilder, OFF_THREAD_TILES } from "../../src/service/mapBuild.ts";
import { DEFAULT_LIMITS, MapStore } from "../../src/service/mapStore.ts";
import { type GridMap, sharedArray } from "../../src/maps/grid.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { mapVersion } from "../../src/maps/version.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { builtinClasses, SECTOR_SIZE } from "../../src/service/mapLayers.ts";

/** A side x side map with scattered walls (seeded). */
function walledMap(side: number): GridMap {
  const tiles = sharedArray(Uint8Array, side * side).fill(46);
  let s = 11;
  for (let i = 0; i < tiles.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    if (s % 100 < 8) tiles[i] = 64;
  }
  return { width: side, height: side, tiles, terrain: movingAiTerrain() };
}

describe("map builder", () => {
  test("a big map's version, layer and region tables equal the inline ones; the thread runs meanwhile", async () => {
    const map = walledMap(Math.ceil(Math.sqrt(OFF_THREAD_TILES)) + 88);
    const classes = builtinClasses();
    const builder = new MapBuilder();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    const { version, built } = await builder.prepare(map, classes, () => false);
    clearInterval(ticker);
    builder.close();
    expect(ticks).toBeGreaterThan(0);
    expect(version).toBe(mapVersion(map.tiles, map.width, map.height, map.terrain));
    expect(built).not.toBeNull();
    const layer = buildPassLayer(map, map.terrain);
    expect(built!.layer.clearance).toEqual(layer.clearance);
    expect(built!.layer.tileCost).toEqual(layer.tileCost);
    expect(built!.layer.minCost).toBe(layer.minCost);
    for (const [i, cls] of classes.entries()) {
      const table = buildRegionTable(layer, cls, SECTOR_SIZE);
      expect(built!.regions[i].regionLocal).toEqual(table.regionLocal);
      expect(built!.regions[i].regionCount).toBe(table.regionCount);
    }
  });

  test("a known version is not built again; small maps build inline", async () => {
    const builder = new MapBuilder();
    const big = walledMap(600);
    const again = await builder.prepare(big, [1], () => true);
    expect(again.built).toBeNull();
    const small = await builder.prepare(walledMap(64), [1], () => false);
    expect(small.built).toBeNull();
    builder.close();
  });

  test("a store upload of a big map holds the inline build's layer and tables", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const map = walledMap(600);
    const mv = await store.put("big", map, []);
    await store.close();
    const entry = [...mv.layers.values()][0];
    const layer = buildPassLayer(map, map.terrain);
    expect(entry.layer.clearance).toEqual(layer.clearance);
    for (const cls of builtinClasses()) {
      const fresh = buildRegionTable(layer, cls, SECTOR_SIZE);
      expect(entry.regions.get(cls)!.regionLocal).toEqual(fresh.regionLocal);
    }
    expect(mv.version).toBe(mapVersion(map.tiles, map.width, map.height, map.terrain));
  });
});
