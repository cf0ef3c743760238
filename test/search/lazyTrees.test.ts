/**
 * The abstract graph's shortest-path trees are written per node when a walk first needs them, not at
 * preparation (issue 13: they were 6.3 bytes a tile of every map at 1024^2; now only the nodes paths go
 * through hold pages): a prepared graph has none written; a walk writes its node's tree once, in the shared
 * memory other workers adopt, so a graph adopted from the same data reads them without writing; and the walks
 * are the fresh in-region search's paths, as the stored trees were (compactGraph.test.ts checks every tile).
 * Workers write trees concurrently (abstractGraphTrees.ts): a tree whose ready flag is not set (another thread
 * half-way through it) is never read but written again, and a node's write leaves the next node's bytes alone.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { regionAt } from "../../src/maps/regions.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { SearchWorkspace } from "../../src/search/astar.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { SectorSpace } from "../../src/search/sectorSpace.ts";
import { mapText } from "../helpers/movingai.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

describe("shortest-path trees written on first use", () => {
  test("none at preparation; a walk writes its node's tree once, shared with a graph adopted from the same data", () => {
    const layer = buildPassLayer(parseMovingAi(mapText("Berlin_0_256.map"), LIMITS), movingAiTerrain());
    const table = buildRegionTable(layer, 0.5);
    const graph = new AbstractGraph(table, layer, 8);
    graph.prepare(4, null);
    const data = graph.toShared();
    expect(data.treeStep.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(data.treeReady.every((v) => v === 0)).toBe(true);
    expect(data.treeStep.every((v) => v === 0)).toBe(true);

    // The region with the most nodes: a walk from each of its tiles to each node, against a fresh search.
    let r = 0;
    for (let k = 0; k < table.regionCount; k++) {
      const n = graph.regionNodeStart[k + 1] - graph.regionNodeStart[k];
      if (n > graph.regionNodeStart[r + 1] - graph.regionNodeStart[r]) r = k;
    }
    const i0 = graph.regionNodeStart[r], i1 = graph.regionNodeStart[r + 1];
    expect(i1 - i0).toBeGreaterThan(2);
    const adopted = new AbstractGraph(table, layer, 8, undefined, data);
    const ws = new SearchWorkspace();
    const sector = new SectorSpace();
    const out = new Int32Array(300);
    let walks = 0;
    for (let i = i0; i < i1; i++) {
      graph.searchRegionFrom(graph.nodeTile[i], ws, sector);
      for (let l = 0; l < sector.stateCount; l++) {
        const t = sector.tileOf(l);
        if (regionAt(table, t) !== r) continue;
        expect(graph.treeDistance(i, t)).toBe(ws.g[l]);
        // The walk is the search's parent chain.
        const end = graph.writeTreeWalk(i, t, out, 0);
        let s = l;
        for (let n = 0; n < end; n++) {
          expect(out[n]).toBe(sector.tileOf(s));
          s = ws.parent[s];
        }
        expect(sector.tileOf(s)).toBe(graph.nodeTile[i]);
        walks++;
      }
      // Written by the first graph: the adopted one reads the same trees (no write of its own needed).
      expect(data.treeReady[i]).toBe(1);
      for (let l = 0; l < sector.stateCount; l++) {
        const t = sector.tileOf(l);
        if (regionAt(table, t) === r) expect(adopted.treeDistance(i, t)).toBe(ws.g[l]);
      }
    }
    expect(walks).toBeGreaterThan(50);
    // Only that region's nodes' trees were written.
    let written = 0;
    for (let k = 0; k < graph.nodeCount; k++) written += data.treeReady[k];
    expect(written).toBe(i1 - i0);
  });

  test("a tree half written by another thread is written again, not read; a write keeps to its node's bytes", () => {
    const layer = buildPassLayer(parseMovingAi(mapText("AR0011SR.map"), LIMITS), movingAiTerrain());
    const table = buildRegionTable(layer, 0.5);
    const graph = new AbstractGraph(table, layer, 8);
    graph.prepare(4, null);
    const data = graph.toShared();
    const nodeBytes = (data.treeStep.length - 1) / graph.nodeCount;
    expect(Number.isInteger(nodeBytes)).toBe(true);
    const bytesOf = (n: number) => data.treeStep.slice(n * nodeBytes, (n + 1) * nodeBytes);
    const ws = new SearchWorkspace();
    const sector = new SectorSpace();
    /** Tiles of node n's region (no tree read). */
    const regionTiles = (n: number): number => {
      graph.searchRegionFrom(graph.nodeTile[n], ws, sector);
      let tiles = 0;
      for (let l = 0; l < sector.stateCount; l++) {
        tiles += regionAt(table, sector.tileOf(l)) === graph.nodeRegion[n] ? 1 : 0;
      }
      return tiles;
    };
    /** Every region tile's tree distance from node n by `g`, against a fresh in-region search; the tiles. */
    const check = (g: AbstractGraph, n: number): number => {
      graph.searchRegionFrom(graph.nodeTile[n], ws, sector);
      let tiles = 0;
      for (let l = 0; l < sector.stateCount; l++) {
        const t = sector.tileOf(l);
        if (regionAt(table, t) !== graph.nodeRegion[n]) continue;
        expect(g.treeDistance(n, t)).toBe(ws.g[l]);
        tiles++;
      }
      return tiles;
    };
    // Two nodes of one region, next to each other in the tree array, node i+1's tree written first and its first
    // byte not 0 (so a write of node i past its own bytes would show).
    const first = new AbstractGraph(table, layer, 8, undefined, data);
    let i = -1;
    for (let n = 0; n + 1 < graph.nodeCount && i < 0; n++) {
      if (graph.nodeRegion[n] !== graph.nodeRegion[n + 1] || regionTiles(n) <= 20) continue;
      check(first, n + 1);
      if (data.treeStep[(n + 1) * nodeBytes] !== 0 && data.treeReady[n] === 0) i = n;
    }
    expect(i).toBeGreaterThanOrEqual(0);
    const next = bytesOf(i + 1);
    // Node i's bytes hold garbage, its flag unset (a writer half-way through).
    data.treeStep.fill(0xff, i * nodeBytes, (i + 1) * nodeBytes);
    expect(data.treeReady[i]).toBe(0);
    // Another graph over the same data (another worker) walks node i: it writes the tree again and reads that.
    const second = new AbstractGraph(table, layer, 8, undefined, data);
    expect(check(second, i)).toBeGreaterThan(20);
    expect(data.treeReady[i]).toBe(1);
    expect(bytesOf(i).every((b) => b === 0xff)).toBe(false);
    // Node i's write did not touch node i+1's tree (its first byte follows node i's last).
    expect(bytesOf(i + 1)).toEqual(next);
    check(first, i + 1);
    // And once set, the flag means the bytes are read as they are: the same tree again from either graph.
    const written = bytesOf(i);
    check(first, i);
    expect(bytesOf(i)).toEqual(written);
  });
});
