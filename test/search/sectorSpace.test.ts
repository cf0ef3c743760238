/**
 * SectorSpace: an in-region search over sector-local ids reaches the same tiles at the same costs, with the
 * same tree, as the search over tile ids it wraps (the abstract graph's block preparation relies on it).
 */
import { describe, expect, test } from "vitest";
import { regionIndex } from "../helpers/regionIndex.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { astar, SearchWorkspace, unlimited } from "../../src/search/astar.ts";
import { RegionSpace } from "../../src/search/restrictedGrid.ts";
import { SectorSpace } from "../../src/search/sectorSpace.ts";
import { mapText } from "../helpers/movingai.ts";

describe("SectorSpace", () => {
  test("exhaustive in-region searches equal the tile-id ones (costs, reach, parents, expansions)", () => {
    const text = mapText("Berlin_0_256.map");
    const layer = buildPassLayer(
      parseMovingAi(text, { maxWidth: 512, maxHeight: 512, maxTiles: 1 << 20 }),
      movingAiTerrain(),
    );
    const table = buildRegionTable(layer, 1, 16);
    const { width, height, sectorSize, sectorsX } = table;
    const regionOf = regionIndex(table);
    const wide = new SearchWorkspace();
    const local = new SearchWorkspace();
    const regions = new RegionSpace().configure(layer, table, 1, 8);
    const sector = new SectorSpace();
    let compared = 0;
    for (let region = 0; region < table.regionCount; region += 7) {
      const s = table.regionSector[region];
      const x0 = (s % sectorsX) * sectorSize, y0 = Math.floor(s / sectorsX) * sectorSize;
      const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
      let start = -1;
      for (let y = y1 - 1; y >= y0 && start < 0; y--) {
        for (let x = x0; x < x1; x++) if (regionOf[y * width + x] === region) start = y * width + x;
      }
      const a = astar(regions.restrict(region), wide, [start], unlimited());
      const space = sector.configure(regions.restrict(region), width, x0, y0, x1, y1);
      expect(space.stateCount).toBeLessThanOrEqual(sectorSize * sectorSize);
      const b = astar(space, local, [space.stateOf(start)], unlimited());
      expect(b.expansions).toBe(a.expansions);
      for (let y = y0; y < y1; y++) {
        for (let x = x0; x < x1; x++) {
          const t = y * width + x;
          const l = space.stateOf(t);
          expect(space.tileOf(l)).toBe(t);
          expect(local.reached(l)).toBe(wide.reached(t));
          if (!wide.reached(t)) continue;
          expect(local.g[l]).toBe(wide.g[t]);
          const p = local.parent[l];
          expect(p < 0 ? p : space.tileOf(p)).toBe(wide.parent[t]);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});

describe("SectorSpace.configure", () => {
  /** A side x side map of open ground, walls ('@') and tiles of cost 3 ('S'), from a fixed seed. */
  function noisyLayer(side: number, seed: number) {
    const tiles = new Uint8Array(side * side).fill(46);
    let s = seed;
    for (let i = 0; i < tiles.length; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const v = s % 100;
      tiles[i] = v < 14 ? 64 : v < 34 ? 83 : 46;
    }
    const terrain = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
    return buildPassLayer({ width: side, height: side, tiles }, terrain);
  }

  test("the moves made directly equal the grid space's, probed tile by tile through RegionSpace.expand", () => {
    const berlin = buildPassLayer(
      parseMovingAi(mapText("Berlin_0_256.map"), { maxWidth: 512, maxHeight: 512, maxTiles: 1 << 20 }),
      movingAiTerrain(),
    );
    // An odd side: the last column and row of sectors are narrower.
    const noisy = noisyLayer(90, 7);
    const sector = new SectorSpace();
    const costs = new Float64Array(8);
    let cells = 0, moves = 0;
    for (
      const [layer, cls, hood] of [[berlin, 0.5, 8], [berlin, 1.5, 8], [berlin, 0.5, 4], [noisy, 0.5, 8], [
        noisy,
        1,
        4,
      ]] as const
    ) {
      const table = buildRegionTable(layer, cls, 16);
      const { width, height, sectorSize, sectorsX } = table;
      const regions = new RegionSpace().configure(layer, table, cls, hood);
      for (let region = 0; region < table.regionCount; region++) {
        const s = table.regionSector[region];
        const x0 = (s % sectorsX) * sectorSize, y0 = Math.floor(s / sectorsX) * sectorSize;
        const x1 = Math.min(width, x0 + sectorSize), y1 = Math.min(height, y0 + sectorSize);
        const space = sector.configure(regions.restrict(region), width, x0, y0, x1, y1);
        const tables = space.moveTables();
        for (let l = 0; l < space.stateCount; l++) {
          const mask = space.probeMoves(l, costs);
          cells++;
          if (tables.moves[l] !== mask) {
            expect(`${cls}/${hood} region ${region} cell ${l}: ${tables.moves[l]}`).toBe(mask);
          }
          for (let d = 0; d < 8; d++) {
            if ((mask & (1 << d)) === 0) continue;
            moves++;
            if (tables.stepCost[l * 8 + d] !== costs[d]) expect(tables.stepCost[l * 8 + d]).toBe(costs[d]);
          }
        }
      }
    }
    expect(cells).toBeGreaterThan(100_000);
    expect(moves).toBeGreaterThan(100_000);
  });
});
