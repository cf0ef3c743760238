/**
 * A patched map's abstract graph prepared from its previous version's graph file alone (KeptGraph: no previous
 * table or layer in memory, as after a restart or an eviction) takes the blocks of the regions the patch left
 * alone, by sector prints, and equals a fresh preparation bit for bit; from a file of other tiles it takes only
 * blocks that are the same; a cost change inside a sector (same walls) is noticed.
 */
import { afterAll, describe, expect, test } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import {
  AbstractGraphBuild,
  buildSkeleton,
  graphProgress,
  landmarksInline,
  prepareShare,
} from "../../src/search/abstractGraphBuild.ts";
import { printArray } from "../../src/search/abstractGraphKept.ts";
import { DEFAULT_SAMPLING } from "../../src/search/entranceNodes.ts";
import type { TileGrid } from "../../src/maps/grid.ts";
import { GraphFiles } from "../../src/service/graphFiles.ts";
import { mapText } from "../helpers/movingai.ts";
import { graphDigest } from "../helpers/graphDigest.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const TERRAIN = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
const dir = mkdtempSync(join(tmpdir(), "arcpath-kept-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * The graph of `grid` for class `cls` prepared in two shares (as the builders do) from `previous` (a kept file's
 * name, or none), written to a graph file with its prints; with the fresh sequential graph to compare.
 */
async function prepared(grid: TileGrid, cls: number, name: string, previous: string | null) {
  const layer = buildPassLayer(grid, TERRAIN);
  const table = buildRegionTable(layer, cls);
  const files = new GraphFiles(dir);
  const kept = previous === null ? null : await files.readKept(previous, table.regionLocal.length);
  if (previous !== null) expect(kept).not.toBeNull();
  const progress = graphProgress();
  const skeleton = buildSkeleton(table, layer, 8, DEFAULT_SAMPLING, progress);
  const prints = printArray(table);
  let spent = 0, reused = 0;
  for (let p = 1; p >= 0; p--) {
    const share = prepareShare(table, layer, skeleton, p, 2, progress, kept, prints);
    spent += share.spent;
    reused += share.reused;
  }
  const graph = landmarksInline(table, layer, { ...skeleton, partial: false }, 16, spent, progress);
  await files.write(name, graph, {
    sectorRegionStart: table.sectorRegionStart,
    sectorPrint: prints,
    minCost: layer.minCost,
    width: table.width,
  });
  const fresh = new AbstractGraphBuild(table, layer, 8).run(null)!;
  fresh.prepare(16, null);
  return { graph, fresh: fresh.toShared(), reused, spent, regions: table.regionCount };
}

/** `grid` with a w x h block of tile `code` at (x, y). */
function painted(grid: TileGrid, x: number, y: number, w: number, h: number, code: number): TileGrid {
  const tiles = grid.tiles.slice();
  for (let r = y; r < y + h; r++) tiles.fill(code, r * grid.width + x, r * grid.width + x + w);
  return { ...grid, tiles };
}

describe("abstract graph of a patched map from its previous graph file", () => {
  for (const cls of [0.5, 1.5]) {
    test(`Berlin_0_256 class ${cls}: a 6 x 6 wall, then a swamp patch`, async () => {
      const grid = parseMovingAi(mapText("Berlin_0_256.map"), LIMITS);
      const v1 = await prepared(grid, cls, `v1-${cls}.graph`, null);
      expect(v1.reused).toBe(0);
      expect(graphDigest(v1.graph)).toEqual(graphDigest(v1.fresh));

      const walled = painted(grid, 100, 120, 6, 6, 64);
      const v2 = await prepared(walled, cls, `v2-${cls}.graph`, `v1-${cls}.graph`);
      // The wall and its clearance reach touch a few sectors of 256: every other region's block is taken.
      expect(v2.reused).toBeGreaterThan(v2.regions * 0.9);
      expect(v2.reused).toBeLessThan(v2.regions);
      expect(v2.spent).toBeLessThan(v2.fresh.prepExpansions * 0.1);
      expect(graphDigest(v2.graph)).toEqual(graphDigest(v2.fresh));

      // Costs change, walls do not: the same regions, but the swamp's sectors must be searched again.
      const swamp = painted(walled, 20, 20, 30, 3, 83);
      const v3 = await prepared(swamp, cls, `v3-${cls}.graph`, `v2-${cls}.graph`);
      expect(v3.reused).toBeGreaterThan(v3.regions * 0.8);
      expect(v3.reused).toBeLessThan(v3.regions);
      expect(graphDigest(v3.graph)).toEqual(graphDigest(v3.fresh));
    });
  }

  test("a file of the tiles shifted one column lends only identical blocks", async () => {
    const grid = parseMovingAi(mapText("Berlin_0_256.map"), LIMITS);
    const shifted = { ...grid, tiles: grid.tiles.slice() };
    for (let y = 0; y < grid.height; y++) {
      const row = grid.tiles.subarray(y * grid.width, (y + 1) * grid.width);
      shifted.tiles.set(row.subarray(1), y * grid.width);
      shifted.tiles[(y + 1) * grid.width - 1] = row[0];
    }
    await prepared(shifted, 0.5, "shifted.graph", null);
    const out = await prepared(grid, 0.5, "unshifted.graph", "shifted.graph");
    expect(out.reused).toBeLessThan(out.regions * 0.5);
    expect(graphDigest(out.graph)).toEqual(graphDigest(out.fresh));
  });
});
