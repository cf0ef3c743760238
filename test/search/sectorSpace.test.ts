/**
 * SectorSpace: an in-region search over sector-local ids reaches the same tiles at the same costs, with the
 * same tree, as the search over tile ids it wraps (the abstract graph's block preparation relies on it).
 */
import { describe, expect, test } from "vitest";
import { regionIndex } from "../helpers/regionIndex.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
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
