/**
 * Patching on its own: edits are clipped to the map and leave the source tiles alone, an edit starting off the
 * map is refused naming it, and incrementally updated layers equal freshly built ones.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { DEFAULT_LIMITS, MapStore, type MapVersion } from "../../src/service/mapStore.ts";
import { applyEdits, patchLayers } from "../../src/service/mapPatch.ts";
import { layerBytes, regionBytes } from "../../src/service/mapLayers.ts";

/** A 32x24 map with a wall, as a store version (so it has its layer and built-in region tables). */
async function walled(): Promise<MapVersion> {
  const rows: string[] = [];
  for (let y = 0; y < 24; y++) {
    rows.push(Array.from({ length: 32 }, (_, x) => (x === 10 && y < 20 ? "@" : ".")).join(""));
  }
  const text = `type octile\nheight 24\nwidth 32\nmap\n${rows.join("\n")}\n`;
  const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
  return await store.put("w", store.parse({ kind: "movingai", text }, []), []);
}

describe("map patches", () => {
  test("edits are clipped to the map, applied in order, and leave the source tiles alone", async () => {
    const from = await walled();
    const before = [...from.map.tiles];
    const at = "@".charCodeAt(0), dot = ".".charCodeAt(0);
    const { map, rects } = applyEdits(from.map, [
      { x: 30, y: 22, width: 5, height: 5, code: at },
      { x: 31, y: 23, width: 1, height: 1, code: dot },
    ]);
    expect(rects).toEqual([{ x0: 30, y0: 22, x1: 32, y1: 24 }, { x0: 31, y0: 23, x1: 32, y1: 24 }]);
    expect(map.terrain).toBe(from.map.terrain);
    expect(map.tiles.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect([map.tiles[22 * 32 + 30], map.tiles[23 * 32 + 31], map.tiles[21 * 32 + 30]]).toEqual([
      at,
      dot,
      dot,
    ]);
    expect([...from.map.tiles]).toEqual(before);
  });

  test("an edit starting off the map is refused, naming it", async () => {
    const from = await walled();
    const edit = { x: 0, y: 0, width: 1, height: 1, code: 0 };
    expect(() => applyEdits(from.map, [edit, { ...edit, x: 32 }])).toThrow(
      "edits[1].x: must be < map width 32, got 32",
    );
    expect(() => applyEdits(from.map, [{ ...edit, y: 24 }])).toThrow(
      "edits[0].y: must be < map height 24, got 24",
    );
  });

  test("incrementally updated layers equal freshly built ones and are counted in the new version's bytes", async () => {
    const from = await walled();
    // Open a door in the wall and block a spot elsewhere.
    const { map, rects } = applyEdits(from.map, [
      { x: 10, y: 5, width: 1, height: 3, code: ".".charCodeAt(0) },
      { x: 20, y: 12, width: 2, height: 2, code: "@".charCodeAt(0) },
    ]);
    const to: MapVersion = {
      ...from,
      version: "patched",
      map,
      layers: new Map(),
      overrideLayers: new Map(),
      bytes: map.tiles.byteLength,
    };
    patchLayers(from, to, rects);
    expect([...to.layers.keys()]).toEqual([...from.layers.keys()]);
    let bytes = map.tiles.byteLength;
    for (const [tkey, entry] of to.layers) {
      expect(entry.key).toBe(`w@patched/${tkey}`);
      const fresh = buildPassLayer(map, entry.terrain);
      expect(entry.layer.tileCost).toEqual(fresh.tileCost);
      expect(entry.layer.clearanceCode).toEqual(fresh.clearanceCode);
      expect(entry.layer.road).toEqual(fresh.road);
      expect([...entry.regions.keys()]).toEqual([...from.layers.get(tkey)!.regions.keys()]);
      bytes += layerBytes(entry.layer);
      for (const table of entry.regions.values()) bytes += regionBytes(table);
    }
    expect(to.bytes).toBe(bytes);
  });
});
