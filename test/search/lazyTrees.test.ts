/**
 * The abstract graph's shortest-path trees are written per node when a walk first needs them, not at
 * preparation (issue 13: they were 6.3 bytes a tile of every map at 1024^2; now only the nodes paths go
 * through hold pages): a prepared graph has none written; a walk writes its node's tree once, in the shared
 * memory other workers adopt, so a graph adopted from the same data reads them without writing; and the walks
 * are the fresh in-region search's paths, as the stored trees were (compactGraph.test.ts checks every tile).
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
});
