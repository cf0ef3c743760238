/**
 * The distance blocks' exhaustive in-region search (SectorSpace.exhaustiveFrom) leaves exactly what the generic A*
 * core leaves for the same search: every reached state, its distance and its tree parent, from every entrance
 * node of the shared Moving AI maps (both built-in classes) and of a map with non-uniform costs.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer, clearanceClass } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { astar, SearchWorkspace, unlimited } from "../../src/search/astar.ts";
import { SectorSpace } from "../../src/search/sectorSpace.ts";
import { mapNames, mapText } from "../helpers/movingai.ts";

/** States (over all node searches) where the two searches differ in reach, distance or parent. */
function differences(layer: PassLayer, cls: number, every: number): { searches: number; wrong: number } {
  const table = buildRegionTable(layer, cls, 16);
  const graph = new AbstractGraph(table, layer, 8);
  const mine = new SearchWorkspace(), ref = new SearchWorkspace();
  const sector = new SectorSpace();
  let searches = 0, wrong = 0;
  for (let i = 0; i < graph.nodeCount; i += every) {
    const tile = graph.nodeTile[i];
    graph.searchRegionFrom(tile, mine, sector); // configures `sector` for the tile's region
    astar(sector, ref, [sector.stateOf(tile)], unlimited());
    searches++;
    for (let l = 0; l < sector.stateCount; l++) {
      const a = mine.reached(l), b = ref.reached(l);
      if (a !== b || (a && (mine.g[l] !== ref.g[l] || mine.parent[l] !== ref.parent[l]))) wrong++;
    }
  }
  return { searches, wrong };
}

describe("exhaustive sector search against the A* core", () => {
  test("shared Moving AI maps, both built-in classes", () => {
    const terrain = movingAiTerrain();
    let total = 0;
    for (const name of mapNames()) {
      const grid = parseMovingAi(mapText(name), { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
      const layer = buildPassLayer(grid, terrain);
      for (const cls of [0.5, clearanceClass(1.5)]) {
        const { searches, wrong } = differences(layer, cls, 7);
        total += searches;
        expect(wrong, `${name} ${cls}`).toBe(0);
      }
    }
    expect(total).toBeGreaterThan(1000);
  });

  test("non-uniform costs (swamp at 3)", () => {
    const side = 96;
    const tiles = new Uint8Array(side * side).fill(46);
    let s = 7;
    for (let i = 0; i < tiles.length; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const v = s % 100;
      tiles[i] = v < 12 ? 64 : v < 30 ? 83 : 46;
    }
    const terrain = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
    const { searches, wrong } = differences(
      buildPassLayer({ width: side, height: side, tiles }, terrain),
      0.5,
      1,
    );
    expect(searches).toBeGreaterThan(100);
    expect(wrong).toBe(0);
  });
});

describe("distance blocks from searches stopped at their targets", () => {
  /** Block entries that differ from a whole in-region search's distance (every node pair of every region). */
  function blockErrors(layer: PassLayer, cls: number): { pairs: number; wrong: number; uniform: boolean } {
    const graph = new AbstractGraph(buildRegionTable(layer, cls, 16), layer, 8);
    graph.prepareAll(null);
    const ws = new SearchWorkspace();
    const sector = new SectorSpace();
    let pairs = 0, wrong = 0;
    for (let r = 0; r < graph.table.regionCount; r++) {
      const i0 = graph.regionNodeStart[r], i1 = graph.regionNodeStart[r + 1];
      for (let i = i0; i < i1; i++) {
        graph.searchRegionFrom(graph.nodeTile[i], ws, sector);
        for (let j = i0; j < i1; j++) {
          pairs++;
          if (graph.regionDistance(i, j) !== ws.g[sector.stateOf(graph.nodeTile[j])]) wrong++;
        }
      }
    }
    return { pairs, wrong, uniform: graph.uniformCost };
  }

  test("uniform costs (symmetric: half the searches) and a swamp at 3 (every node's search)", () => {
    const grid = parseMovingAi(mapText("Berlin_0_256.map"), {
      maxWidth: 4096,
      maxHeight: 4096,
      maxTiles: 1 << 24,
    });
    const uniform = blockErrors(buildPassLayer(grid, movingAiTerrain()), 0.5);
    expect(uniform.uniform).toBe(true);
    expect(uniform.pairs).toBeGreaterThan(10_000);
    expect(uniform.wrong).toBe(0);
    const side = 96;
    const tiles = new Uint8Array(side * side).fill(46);
    let s = 11;
    for (let i = 0; i < tiles.length; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const v = s % 100;
      tiles[i] = v < 12 ? 64 : v < 30 ? 83 : 46;
    }
    const terrain = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
    const swamp = blockErrors(buildPassLayer({ width: side, height: side, tiles }, terrain), 0.5);
    expect(swamp.uniform).toBe(false);
    expect(swamp.pairs).toBeGreaterThan(1000);
    expect(swamp.wrong).toBe(0);
  });
});
