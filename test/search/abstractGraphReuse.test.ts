/**
 * A patched map's abstract graph prepared with its previous version's graph (PreviousGraph, the map builders'
 * incremental preparation after a PatchMap) takes the blocks of the regions the patch left alone and equals a
 * fresh preparation bit for bit (all but the expansion count); from a graph of other tiles it takes only blocks
 * that are the same, and the result still equals a fresh preparation.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import {
  AbstractGraphBuild,
  buildSkeleton,
  graphProgress,
  landmarksInline,
  prepareShare,
} from "../../src/search/abstractGraphBuild.ts";
import { DEFAULT_SAMPLING } from "../../src/search/entranceNodes.ts";
import type { TileGrid } from "../../src/maps/grid.ts";
import { mapText } from "../helpers/movingai.ts";
import { graphDigest } from "../helpers/graphDigest.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

function sequential(grid: TileGrid, cls: number) {
  const layer = buildPassLayer(grid, movingAiTerrain());
  const table = buildRegionTable(layer, cls);
  const graph = new AbstractGraphBuild(table, layer, 8).run(null)!;
  graph.prepare(16, null);
  return { layer, table, graph: graph.toShared() };
}

/** `grid` with a w x h block of walls at (x, y). */
function walled(grid: TileGrid, x: number, y: number, w: number, h: number): TileGrid {
  const tiles = grid.tiles.slice();
  for (let r = y; r < y + h; r++) tiles.fill(64, r * grid.width + x, r * grid.width + x + w);
  return { ...grid, tiles };
}

describe("abstract graph of a patched map from its previous graph", () => {
  for (const cls of [0.5, 1.5]) {
    test(`Berlin_0_256 class ${cls}: a 6 x 6 wall`, () => {
      const grid = parseMovingAi(mapText("Berlin_0_256.map"), LIMITS);
      const before = sequential(grid, cls);
      const patched = walled(grid, 100, 120, 6, 6);
      const fresh = sequential(patched, cls);

      const progress = graphProgress();
      const skeleton = buildSkeleton(fresh.table, fresh.layer, 8, DEFAULT_SAMPLING, progress);
      let spent = 0, reused = 0;
      for (let p = 1; p >= 0; p--) {
        const share = prepareShare(fresh.table, fresh.layer, skeleton, p, 2, progress, before);
        spent += share.spent;
        reused += share.reused;
      }
      const regions = fresh.table.regionCount;
      // The wall and its clearance reach touch a few sectors of 256: every other region's block is taken.
      expect(reused).toBeGreaterThan(regions * 0.9);
      expect(reused).toBeLessThan(regions);
      expect(spent).toBeLessThan(fresh.graph.prepExpansions * 0.1);
      const incremental = landmarksInline(
        fresh.table,
        fresh.layer,
        { ...skeleton, partial: false },
        16,
        spent,
        progress,
      );
      expect(graphDigest(incremental)).toEqual(graphDigest(fresh.graph));
    });
  }

  test("a graph of the tiles shifted one column lends only identical blocks", () => {
    const grid = parseMovingAi(mapText("Berlin_0_256.map"), LIMITS);
    const shifted = { ...grid, tiles: grid.tiles.slice() };
    for (let y = 0; y < grid.height; y++) {
      const row = grid.tiles.subarray(y * grid.width, (y + 1) * grid.width);
      shifted.tiles.set(row.subarray(1), y * grid.width);
      shifted.tiles[(y + 1) * grid.width - 1] = row[0];
    }
    const other = sequential(shifted, 0.5);
    const fresh = sequential(grid, 0.5);
    const progress = graphProgress();
    const skeleton = buildSkeleton(fresh.table, fresh.layer, 8, DEFAULT_SAMPLING, progress);
    const share = prepareShare(fresh.table, fresh.layer, skeleton, 0, 1, progress, other);
    // Only sectors that read the same after the shift (all open, all blocked, with the same nodes) qualify.
    expect(share.reused).toBeLessThan(fresh.table.regionCount * 0.5);
    const out = landmarksInline(
      fresh.table,
      fresh.layer,
      { ...skeleton, partial: false },
      16,
      share.spent,
      progress,
    );
    expect(graphDigest(out)).toEqual(graphDigest(fresh.graph));
  });
});
