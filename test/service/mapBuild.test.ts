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
    const version = await builder.hash(map);
    const built = await builder.layer(map);
    const tables = await Promise.all(classes.map((cls) => builder.regions(built!, cls)));
    clearInterval(ticker);
    builder.close();
    expect(ticks).toBeGreaterThan(0);
    expect(version).toBe(mapVersion(map.tiles, map.width, map.height, map.terrain));
    expect(built).not.toBeNull();
    const layer = buildPassLayer(map, map.terrain);
    expect(built!.clearanceCode).toEqual(layer.clearanceCode);
    expect(built!.tileCost).toEqual(layer.tileCost);
    expect(built!.minCost).toBe(layer.minCost);
    for (const [i, cls] of classes.entries()) {
      const table = buildRegionTable(layer, cls, SECTOR_SIZE);
      expect(tables[i].regionLocal).toEqual(table.regionLocal);
      expect(tables[i].regionCount).toBe(table.regionCount);
    }
  });

  test("small maps hash here and build their layer inline", async () => {
    const builder = new MapBuilder();
    const small = walledMap(64);
    expect(await builder.hash(small)).toBe(mapVersion(small.tiles, 64, 64, small.terrain));
    expect(await builder.layer(small)).toBeNull();
    builder.close();
  });

  test("a store upload of a big map holds the inline build's layer; its region tables follow in the background", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const map = walledMap(600);
    const mv = await store.put("big", map, []);
    const entry = [...mv.layers.values()][0];
    const layer = buildPassLayer(map, map.terrain);
    expect(entry.layer.clearanceCode).toEqual(layer.clearanceCode);
    const bytesBefore = mv.bytes;
    for (const cls of builtinClasses()) {
      const ready = await store.regionsReady(mv, entry, cls, Infinity);
      expect("table" in ready).toBe(true);
      const fresh = buildRegionTable(layer, cls, SECTOR_SIZE);
      expect(entry.regions.get(cls)!.regionLocal).toEqual(fresh.regionLocal);
    }
    expect(store.preparing(mv)).toBe(false);
    // The tables built in the background are counted in the budget.
    expect(mv.bytes).toBeGreaterThan(bytesBefore);
    await store.close();
    expect(mv.version).toBe(mapVersion(map.tiles, map.width, map.height, map.terrain));
  });

  test("a wait shorter than the build names the table still building; the build goes on and is found later", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const mv = await store.put("big", walledMap(700), []);
    const entry = [...mv.layers.values()][0];
    const cls = builtinClasses()[0];
    const early = await store.regionsReady(mv, entry, cls, 0);
    // A 700^2 table takes far longer than one timer turn.
    expect("building" in early ? early.building : "built").toMatch(
      /region table of clearance class .* for map "big" version .* still being built/,
    );
    expect(store.preparing(mv)).toBe(true);
    const later = await store.regionsReady(mv, entry, cls, Infinity);
    expect("table" in later).toBe(true);
    // Nothing was built twice: the table waited for is the one in the entry.
    expect((later as { table: unknown }).table).toBe(entry.regions.get(cls));
    await store.close();
  });
});
