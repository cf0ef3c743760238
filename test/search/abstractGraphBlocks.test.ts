/**
 * The distance blocks filled by abstractGraphBlocks.ts (pairs settled by an open path of the fewest, cheapest
 * steps; the rest by distance-only searches, greedily from the node with most pairs left) equal a whole in-region
 * search from every node, on every map kind the searches meet: uniform costs (symmetric), costly tiles (directed),
 * 4-neighbour moves, the wide class; and they take far fewer expansions than one search per node.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { BlockSearch } from "../../src/search/abstractGraphBlocks.ts";
import { SearchWorkspace } from "../../src/search/astar.ts";
import type { Neighborhood } from "../../src/search/gridSpace.ts";
import { SectorSpace } from "../../src/search/sectorSpace.ts";
import { mapText } from "../helpers/movingai.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

/**
 * Block entries that differ from a whole in-region search's distance, the pairs compared, and the expansions of
 * the blocks against those of one whole search per node.
 */
function check(layer: PassLayer, cls: number, neighborhood: Neighborhood) {
  const graph = new AbstractGraph(buildRegionTable(layer, cls, 16), layer, neighborhood);
  const spent = graph.prepareAll(null);
  const ws = new SearchWorkspace();
  const sector = new SectorSpace();
  let pairs = 0, wrong = 0, whole = 0;
  for (let r = 0; r < graph.table.regionCount; r++) {
    const i0 = graph.regionNodeStart[r], i1 = graph.regionNodeStart[r + 1];
    for (let i = i0; i < i1; i++) {
      whole += graph.searchRegionFrom(graph.nodeTile[i], ws, sector);
      for (let j = i0; j < i1; j++) {
        pairs++;
        if (graph.regionDistance(i, j) !== ws.g[sector.stateOf(graph.nodeTile[j])]) wrong++;
      }
    }
  }
  return { pairs, wrong, spent, whole, uniform: graph.uniformCost };
}

/** A side x side map of open ground, walls ('@') and, with `swamp`, tiles of cost 3 ('S'), from a fixed seed. */
function noisyMap(side: number, seed: number, swamp: boolean): PassLayer {
  const tiles = new Uint8Array(side * side).fill(46);
  let s = seed;
  for (let i = 0; i < tiles.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const v = s % 100;
    tiles[i] = v < 14 ? 64 : swamp && v < 34 ? 83 : 46;
  }
  const terrain = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
  return buildPassLayer({ width: side, height: side, tiles }, terrain);
}

describe("distance blocks by the distance-only searches", () => {
  test("a city map, both classes and both neighbourhoods, uniform costs: equal, a quarter of the expansions at most", () => {
    const layer = buildPassLayer(parseMovingAi(mapText("Berlin_0_256.map"), LIMITS), movingAiTerrain());
    for (const [cls, hood] of [[0.5, 8], [1.5, 8], [0.5, 4]] as const) {
      const r = check(layer, cls, hood);
      expect(r.uniform).toBe(true);
      expect(r.pairs, `class ${cls} ${hood}`).toBeGreaterThan(10_000);
      expect(r.wrong, `class ${cls} ${hood}`).toBe(0);
      // One search per node (the old way, stopped at its targets) took 0.69-0.73 of `whole`; the A* toward the
      // targets 0.03-0.05; the two-queue Dijkstra of uniform-cost regions (cheaper per state) 0.057-0.074.
      expect(r.spent, `class ${cls} ${hood}`).toBeLessThan(r.whole * 0.15);
    }
  });

  test("noisy walls and costly tiles (directed blocks), both neighbourhoods", () => {
    for (const hood of [8, 4] as const) {
      const costly = check(noisyMap(96, 11, true), 0.5, hood);
      expect(costly.uniform).toBe(false);
      expect(costly.pairs).toBeGreaterThan(2_000);
      expect(costly.wrong).toBe(0);
      const walls = check(noisyMap(96, 5, false), 0.5, hood);
      expect(walls.uniform).toBe(true);
      expect(walls.wrong).toBe(0);
    }
  });

  test("the straight shortcut answers only exact distances, and leaves a walled-off detour to the search", () => {
    // 16 x 16 box, one region: a wall across the middle with a gap at the right end.
    const side = 16;
    const rows: string[] = [];
    for (let y = 0; y < side; y++) rows.push(y === 8 ? "@".repeat(side - 2) + ".." : ".".repeat(side));
    const text = `type octile\nheight ${side}\nwidth ${side}\nmap\n${rows.join("\n")}\n`;
    const layer = buildPassLayer(parseMovingAi(text, LIMITS), movingAiTerrain());
    const graph = new AbstractGraph(buildRegionTable(layer, 0.5, 16), layer, 8);
    const sector = new SectorSpace();
    const ws = new SearchWorkspace();
    graph.searchRegionFrom(0, ws, sector);
    const search = new BlockSearch();
    expect(search.configure(sector)).toBe(true);
    let settled = 0, left = 0;
    for (let a = 0; a < side * side; a += 7) {
      if (!ws.reached(a)) continue;
      graph.searchRegionFrom(sector.tileOf(a), ws, sector);
      for (let b = 0; b < side * side; b += 5) {
        if (b === a || !ws.reached(b)) continue;
        const d = search.straight(a, b);
        if (d >= 0) {
          expect(d).toBe(ws.g[b]);
          settled++;
        } else left++;
      }
      graph.searchRegionFrom(0, ws, sector);
    }
    expect(settled).toBeGreaterThan(100);
    // Pairs across the wall need the detour through the gap.
    expect(left).toBeGreaterThan(100);
    // (0, 0) to (0, 15): straight down is walled; the search finds the way round.
    const from = 0, to = 15 * side;
    expect(search.straight(from, to)).toBe(-1);
    const targets = Int32Array.of(to);
    search.run(from, targets, 1);
    graph.searchRegionFrom(0, ws, sector);
    expect(search.dist[to]).toBe(ws.g[to]);
  });
});
