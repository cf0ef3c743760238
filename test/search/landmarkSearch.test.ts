/**
 * The landmark searches (search/landmarks.ts: a distance-only Dijkstra with lazy deletion, landmarks picked in
 * rounds of two) keep the distances of searches on the A* core, with the rounds' picks reproduced here as the
 * reference: two shared Moving AI maps (both built-in classes) and a map with non-uniform costs.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer, clearanceClass } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { astar, COST_SCALE, SearchWorkspace, type Successors, unlimited } from "../../src/search/astar.ts";
import { LandmarkJob } from "../../src/search/landmarks.ts";
import { mapNames, mapText } from "../helpers/movingai.ts";

/**
 * The reference job: exhaustive A* searches (zero heuristic) of the node graph; rounds of two picks, the node
 * farthest from the landmarks so far (from node 0 at first) and the node farthest from it by octile distance
 * (at most its distance to the landmarks so far, after the first round).
 */
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
  const w = graph.table.width;
  const octile = (a: number, b: number) => {
    const dx = Math.abs((a % w) - (b % w)), dy = Math.abs(Math.floor(a / w) - Math.floor(b / w));
    return (Math.max(dx, dy) + (Math.SQRT2 - 1) * Math.min(dx, dy)) * COST_SCALE;
  };
  const nearest = new Float64Array(n).fill(Infinity);
  const pick = (score: (v: number) => number, first: boolean, max: number): number[] => {
    let a = -1, bestA = 0;
    for (let v = 0; v < n; v++) if (score(v) > bestA && score(v) < Infinity) [a, bestA] = [v, score(v)];
    if (a < 0) return [];
    if (max === 1) return [a];
    let b = -1, bestB = 0;
    for (let v = 0; v < n; v++) {
      if (v === a || score(v) === Infinity) continue;
      const d = first
        ? octile(graph.nodeTile[a], graph.nodeTile[v])
        : Math.min(score(v), octile(graph.nodeTile[a], graph.nodeTile[v]));
      if (d > bestB) [b, bestB] = [v, d];
    }
    return b < 0 ? [a] : [a, b];
  };
  astar(space, ws, [0], unlimited());
  let round = pick((v) => (ws.reached(v) ? ws.gOf(v) : Infinity), true, Math.min(2, count));
  const rows: Float64Array[] = [];
  while (rows.length < count && round.length > 0) {
    for (const s of round) {
      astar(space, ws, [s], unlimited());
      const row = new Float64Array(n);
      for (let v = 0; v < n; v++) row[v] = ws.reached(v) ? ws.gOf(v) : Infinity;
      rows.push(row);
    }
    for (const row of rows.slice(-round.length)) {
      for (let v = 0; v < n; v++) nearest[v] = Math.min(nearest[v], row[v]);
    }
    round = pick((v) => nearest[v], false, Math.min(2, count - rows.length));
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
