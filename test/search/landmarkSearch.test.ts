/**
 * The landmark searches (search/landmarks.ts: a distance-only Dijkstra with lazy deletion) pick the same
 * landmarks and keep the same distances as the former searches on the A* core, reproduced here as the
 * reference: two shared Moving AI maps (both built-in classes) and a map with non-uniform costs.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer, clearanceClass } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { astar, SearchWorkspace, type Successors, unlimited } from "../../src/search/astar.ts";
import { LandmarkJob } from "../../src/search/landmarks.ts";
import { mapNames, mapText } from "../helpers/movingai.ts";

/** The former job: farthest-point selection over exhaustive A* searches (zero heuristic) of the node graph. */
function referenceLandmarks(graph: AbstractGraph, count: number): { made: number; packed: Float64Array } {
  const n = graph.nodeCount;
  const space = {
    stateCount: n,
    maxSuccessors: graph.maxRegionNodes + graph.maxCrossings,
    expand: (s: number, out: Successors) => graph.writeNeighbours(s, out, 0),
    heuristic: () => 0,
    isGoal: () => false,
  };
  const ws = new SearchWorkspace();
  const nearest = new Float64Array(n).fill(Infinity);
  const farthest = (useNearest: boolean) => {
    let best = -1, bestD = 0;
    for (let v = 0; v < n; v++) {
      if (!ws.reached(v)) continue;
      const d = useNearest ? nearest[v] : ws.gOf(v);
      if (d > bestD && d < Infinity) [best, bestD] = [v, d];
    }
    return best;
  };
  astar(space, ws, [0], unlimited());
  let next = farthest(false);
  const rows: Float64Array[] = [];
  while (rows.length < count && next >= 0) {
    astar(space, ws, [next], unlimited());
    const row = new Float64Array(n);
    for (let v = 0; v < n; v++) {
      row[v] = ws.gOf(v);
      if (row[v] < nearest[v]) nearest[v] = row[v];
    }
    rows.push(row);
    next = farthest(true);
  }
  const packed = new Float64Array(n * rows.length);
  for (let v = 0; v < n; v++) for (let l = 0; l < rows.length; l++) packed[v * rows.length + l] = rows[l][v];
  return { made: rows.length, packed };
}

function check(layer: PassLayer, cls: number, label: string): number {
  const graph = new AbstractGraph(buildRegionTable(layer, cls, 16), layer, 8);
  if (graph.nodeCount === 0) return 0;
  graph.prepareAll(null);
  const job = new LandmarkJob(graph, 6);
  job.run(null);
  const ref = referenceLandmarks(graph, 6);
  expect(job.madeCount, label).toBe(ref.made);
  expect(job.packedDistances(), label).toEqual(ref.packed);
  return graph.nodeCount;
}

describe("landmark searches against the A* core", () => {
  test("two shared Moving AI maps, both built-in classes", () => {
    const terrain = movingAiTerrain();
    let nodes = 0;
    for (const name of mapNames().slice(0, 2)) {
      const grid = parseMovingAi(mapText(name), { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
      const layer = buildPassLayer(grid, terrain);
      for (const cls of [0.5, clearanceClass(1.5)]) nodes += check(layer, cls, `${name} ${cls}`);
    }
    expect(nodes).toBeGreaterThan(1000);
  });

  test("non-uniform costs (swamp at 3)", () => {
    const side = 128;
    const tiles = new Uint8Array(side * side).fill(46);
    let s = 3;
    for (let i = 0; i < tiles.length; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      const v = s % 100;
      tiles[i] = v < 12 ? 64 : v < 30 ? 83 : 46;
    }
    const terrain = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
    expect(check(buildPassLayer({ width: side, height: side, tiles }, terrain), 0.5, "swamp"))
      .toBeGreaterThan(50);
  });
});
