/**
 * Abstract graph construction under a stop condition: a build stopped many times keeps its place and ends
 * with the uninterrupted build's graph; the entrance placement equals a straightforward reference (the former
 * map-sized one); a planner query that runs out of budget while building answers "budget" and the next goes on.
 */
import { describe, expect, test } from "vitest";
import { regionIndex } from "../helpers/regionIndex.ts";
import { buildPassLayer, clearanceClass } from "../../src/maps/layer.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import { type PassLayer, sharedArray } from "../../src/maps/grid.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import type { RegionTable } from "../../src/maps/regions.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { AbstractGraphBuild } from "../../src/search/abstractGraphBuild.ts";
import { COST_SCALE } from "../../src/search/astar.ts";
import {
  EntranceBuild,
  type EntranceNodes,
  type EntranceSampling,
  placeEntranceNodes,
} from "../../src/search/entranceNodes.ts";
import { preparedGraph } from "../../src/planning/hierarchical.ts";

/** A random map: 12% walls, 10% swamp ('S' at cost 3, so costs are not uniform unless `uniform`). */
function layerOf(side: number, seed: number, uniform = false): PassLayer {
  const tiles = sharedArray(Uint8Array, side * side).fill(46);
  let s = seed;
  for (let i = 0; i < tiles.length; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const v = s % 100;
    if (v < 12) tiles[i] = 64;
    else if (!uniform && v < 22) tiles[i] = 83;
  }
  const terrain = withOverrides(movingAiTerrain(), [{ code: 83, cost: 3, impassable: false, road: false }]);
  return buildPassLayer({ width: side, height: side, tiles }, terrain);
}

/** The former placement (a map-sized tile index and a set of pair keys), as a reference. */
function referencePlacement(table: RegionTable, layer: PassLayer, sampling: EntranceSampling) {
  const { width, regionCount } = table;
  const regionOf = regionIndex(table);
  const pairA: number[] = [], pairB: number[] = [];
  for (let e = 0; e < table.entranceCount; e++) {
    const a = table.entranceTileA[e];
    const across = table.entranceTileB[e] - a;
    const along = across === 1 ? width : 1;
    const length = table.entranceLength[e];
    const mid = (length - 1) >> 1;
    const first = a - mid * along;
    const add = (i: number) => {
      pairA.push(first + i * along);
      pairB.push(first + i * along + across);
    };
    add(mid);
    if (length > sampling.longRun) {
      add(0);
      add(length - 1);
      for (let i = sampling.spacing; sampling.spacing > 0 && i < length - 1; i += sampling.spacing) {
        if (Math.abs(i - mid) >= sampling.spacing >> 1 && length - 1 - i >= sampling.spacing >> 1) add(i);
      }
    }
  }
  const tileNode = new Int32Array(width * table.height).fill(-1);
  const tiles: number[] = [];
  for (const t of [...pairA, ...pairB]) {
    if (tileNode[t] === -1) {
      tileNode[t] = 0;
      tiles.push(t);
    }
  }
  tiles.sort((x, y) => regionOf[x] - regionOf[y] || x - y);
  tiles.forEach((t, i) => tileNode[t] = i);
  const regionNodeStart = new Int32Array(regionCount + 1);
  for (const t of tiles) regionNodeStart[regionOf[t] + 1]++;
  for (let r = 0; r < regionCount; r++) regionNodeStart[r + 1] += regionNodeStart[r];
  const adjacency: { to: number; cost: number }[][] = tiles.map(() => []);
  const seen = new Set<number>();
  for (let p = 0; p < pairA.length; p++) {
    const u = tileNode[pairA[p]], v = tileNode[pairB[p]];
    if (seen.has(u * tiles.length + v)) continue;
    seen.add(u * tiles.length + v);
    adjacency[u].push({ to: v, cost: Math.round(layer.tileCost[tiles[v]] * COST_SCALE) });
    adjacency[v].push({ to: u, cost: Math.round(layer.tileCost[tiles[u]] * COST_SCALE) });
  }
  return { nodeTile: tiles, regionNodeStart: Array.from(regionNodeStart), adjacency };
}

function adjacencyOf(nodes: EntranceNodes) {
  const out: { to: number; cost: number }[][] = [];
  for (let i = 0; i < nodes.nodeCount; i++) {
    const edges = [];
    for (let e = nodes.crossStart[i]; e < nodes.crossStart[i + 1]; e++) {
      edges.push({ to: nodes.crossTarget[e], cost: nodes.crossCost[e] });
    }
    out.push(edges);
  }
  return out;
}

const SAMPLINGS: EntranceSampling[] = [
  { longRun: 6, spacing: 0 },
  { longRun: 3, spacing: 4 },
  // Runs of 2 get their middle pair twice (middle = first end): the duplicate counts once.
  { longRun: 1, spacing: 0 },
];

describe("resumable abstract graph construction", () => {
  test("entrance placement stopped at every poll equals the reference placement", () => {
    const layer = layerOf(160, 7);
    for (const radius of [0, 0.9]) {
      for (const sectorSize of [16, 10]) {
        const table = buildRegionTable(layer, clearanceClass(radius), sectorSize);
        for (const sampling of SAMPLINGS) {
          const build = new EntranceBuild(table, layer, sampling);
          let nodes: EntranceNodes | null = null;
          let stops = 0;
          while ((nodes = build.run(() => true)) === null) stops++;
          expect(stops).toBeGreaterThan(2);
          const ref = referencePlacement(table, layer, sampling);
          expect(Array.from(nodes.nodeTile)).toEqual(ref.nodeTile);
          expect(Array.from(nodes.regionNodeStart)).toEqual(ref.regionNodeStart);
          expect(adjacencyOf(nodes)).toEqual(ref.adjacency);
          const whole = placeEntranceNodes(table, layer, sampling);
          expect(whole.nodeRegion).toEqual(nodes.nodeRegion);
          expect(whole.maxCrossings).toBe(nodes.maxCrossings);
          expect(whole.maxRegionNodes).toBe(nodes.maxRegionNodes);
          expect(Math.max(...ref.adjacency.map((a) => a.length))).toBe(nodes.maxCrossings);
        }
      }
    }
  });

  test("a graph build stopped many times equals an uninterrupted one, distances included", () => {
    for (const uniform of [false, true]) {
      const layer = layerOf(300, 11, uniform);
      const table = buildRegionTable(layer, clearanceClass(0.9));
      const build = new AbstractGraphBuild(table, layer, 8);
      let graph: AbstractGraph | null = null;
      let stops = 0;
      while ((graph = build.run(() => true)) === null) stops++;
      expect(stops).toBeGreaterThan(2);
      const whole = new AbstractGraph(table, layer, 8);
      expect(graph.uniformCost).toBe(uniform);
      expect(whole.uniformCost).toBe(uniform);
      expect(graph.nodeTile).toEqual(whole.nodeTile);
      expect(graph.nodeRegion).toEqual(whole.nodeRegion);
      expect(graph.regionNodeStart).toEqual(whole.regionNodeStart);
      expect(graph.crossStart).toEqual(whole.crossStart);
      expect(graph.crossTarget).toEqual(whole.crossTarget);
      expect(graph.crossCost).toEqual(whole.crossCost);
      graph.prepareAll();
      whole.prepareAll();
      for (let i = 0; i < whole.nodeCount; i++) {
        const r = whole.nodeRegion[i];
        for (let j = whole.regionNodeStart[r]; j < whole.regionNodeStart[r + 1]; j++) {
          expect(graph.regionDistance(i, j)).toBe(whole.regionDistance(i, j));
        }
      }
    }
  });

  test("preparedGraph answers null while its build is stopped, keeps the build and then the same graph", () => {
    const layer = layerOf(300, 13);
    const table = buildRegionTable(layer, clearanceClass(0));
    let nulls = 0;
    let graph: AbstractGraph | null = null;
    while (graph === null) {
      expect(nulls).toBeLessThan(10_000);
      let polls = 0;
      graph = preparedGraph(table, layer, 8, () => ++polls > 3);
      if (graph === null) nulls++;
    }
    expect(nulls).toBeGreaterThan(5);
    expect(preparedGraph(table, layer, 8, () => true)).toBe(graph);
    const whole = new AbstractGraph(table, layer, 8);
    expect(graph.crossTarget).toEqual(whole.crossTarget);
    expect(graph.nodeTile).toEqual(whole.nodeTile);
    expect(graph.landmarkCount).toBeGreaterThan(0);
  });
});
