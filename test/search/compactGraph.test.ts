/**
 * The abstract graph's compact arrays give exactly the values they replace, on the shared Moving AI maps for
 * both built-in clearance classes: Uint32 distance blocks equal fresh in-region searches (no value wrapped or
 * rounded), and landmark distances stored as region base + Uint32 delta equal the landmark searches' Float64
 * distances; a delta too big for Uint32 falls back to Float64, still exact.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { regionAt } from "../../src/maps/regions.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { SearchWorkspace } from "../../src/search/astar.ts";
import { AbstractGraph } from "../../src/search/abstractGraph.ts";
import { fillColumn, LandmarkJob, landmarkTables } from "../../src/search/landmarks.ts";
import { SectorSpace } from "../../src/search/sectorSpace.ts";
import { mapText } from "../helpers/movingai.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

describe("compact abstract graph arrays", () => {
  for (const [name, classes] of [["Berlin_0_256.map", [0.5, 1.5]], ["AR0011SR.map", [0.5]]] as const) {
    test(`${name}: distance blocks, trees and packed landmarks read back exactly (classes ${classes})`, () => {
      const layer = buildPassLayer(parseMovingAi(mapText(name), LIMITS), movingAiTerrain());
      for (const cls of classes) {
        const graph = new AbstractGraph(buildRegionTable(layer, cls), layer, 8);
        graph.prepare(4, null);
        // Every 11th region: its block against a fresh exhaustive search from each node.
        const ws = new SearchWorkspace();
        const sector = new SectorSpace();
        let checked = 0;
        for (let r = 0; r < graph.table.regionCount; r += 11) {
          const i0 = graph.regionNodeStart[r], i1 = graph.regionNodeStart[r + 1];
          for (let i = i0; i < i1; i++) {
            graph.searchRegionFrom(graph.nodeTile[i], ws, sector);
            for (let j = i0; j < i1; j++) {
              expect(graph.regionDistance(i, j)).toBe(ws.g[sector.stateOf(graph.nodeTile[j])]);
              checked++;
            }
            // Every tile of the region: the tree's distance is the search's, and the walk ends next to node i.
            for (let l = 0; l < sector.stateCount; l++) {
              const t = sector.tileOf(l);
              if (regionAt(graph.table, t) !== r) continue;
              expect(graph.treeDistance(i, t)).toBe(ws.g[l]);
              const out = new Int32Array(300);
              const end = graph.writeTreeWalk(i, t, out, 0);
              const last = end > 0 ? out[end - 1] : graph.nodeTile[i];
              const d = Math.abs(last - graph.nodeTile[i]);
              const w = graph.table.width;
              expect(d === 0 || d === 1 || d === w || d === w - 1 || d === w + 1).toBe(true);
            }
          }
        }
        expect(checked).toBeGreaterThan(100);
        // Landmarks: a second job picks the same landmarks; its Float64 distances are what the packed form holds.
        const count = graph.landmarkCount;
        expect(count).toBe(4);
        const job = new LandmarkJob(graph, count);
        job.run(null);
        const full = job.packedDistances();
        expect(graph.landmarkDistance).toBeInstanceOf(Uint32Array);
        let wrong = 0;
        for (let n = 0; n < graph.nodeCount; n++) {
          const row = graph.nodeRegion[n] * count;
          for (let l = 0; l < count; l++) {
            const got = graph.landmarkBase[row + l] + graph.landmarkDistance[n * count + l];
            if (got !== full[n * count + l]) wrong++;
          }
        }
        expect(wrong).toBe(0);
      }
    });
  }

  test("landmark columns: unreached regions read Infinity; Float64 deltas for wide blocks", () => {
    // Three regions: nodes 0-1, 2-3, 4; the landmark reaches regions 0 and 2 only.
    const graph = {
      nodeCount: 5,
      maxRegionNodes: 2,
      maxCrossings: 0,
      writeNeighbours: () => 0,
      // Not read by the columns (LandmarkGraph's search fields).
      blockTables: () => ({ distance: new Uint32Array(0), distanceOffset: new Float64Array(0) }),
      crossStart: new Int32Array(6),
      crossTarget: new Int32Array(0),
      crossCost: new Float64Array(0),
      nodeTile: Int32Array.of(0, 1, 2, 3, 4),
      nodeRegion: Int32Array.of(0, 0, 1, 1, 2),
      regionNodeStart: Int32Array.of(0, 2, 4, 5),
      width: 8,
    };
    const dist = Float64Array.of(9, 5, Infinity, Infinity, 2 ** 40);
    for (const wide of [false, true]) {
      const tables = landmarkTables(graph, 2, wide, false);
      expect(tables.delta).toBeInstanceOf(wide ? Float64Array : Uint32Array);
      fillColumn(graph, dist, tables, 1);
      expect(Array.from(tables.base)).toEqual([Infinity, 5, Infinity, Infinity, Infinity, 2 ** 40]);
      for (let n = 0; n < 5; n++) {
        expect(tables.base[graph.nodeRegion[n] * 2 + 1] + tables.delta[n * 2 + 1]).toBe(dist[n]);
      }
    }
  });
});
