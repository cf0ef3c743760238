/**
 * The nodes and crossing edges of a region table's abstract graph (HPA*-style, see {@link AbstractGraph}).
 *
 * Nodes are entrance crossing tiles: for each entrance, one or more crossing pairs (the run's middle pair,
 * plus both ends and evenly spaced pairs for long runs); each tile of a pair is a node, shared when two
 * entrances meet at the same tile. Crossing edges join the two tiles of a pair, costed with the grid cost of
 * that one step. Node ids are grouped by region (the nodes of region r are `regionNodeStart[r] ..
 * regionNodeStart[r + 1]`), so a region's distance matrix is a dense k x k block.
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { COST_SCALE } from "./astar.ts";

/** How many crossing pairs an entrance gets. */
export interface EntranceSampling {
  /** Runs longer than this get both end pairs as well as the middle one. */
  longRun: number;
  /** In runs longer than {@link longRun}, also a pair every `spacing` tiles (0: ends and middle only). */
  spacing: number;
}

/** Default sampling: middle pair; both ends for runs over 6 tiles (Botea et al.'s HPA* rule, plus the middle). */
export const DEFAULT_SAMPLING: EntranceSampling = { longRun: 6, spacing: 0 };

/** The entrance nodes and crossing edges of one region table (fields as on {@link AbstractGraph}). */
export interface EntranceNodes {
  /** Number of entrance nodes. */
  nodeCount: number;
  /** Tile of each node. */
  nodeTile: Int32Array;
  /** Region of each node (non-decreasing in node id). */
  nodeRegion: Int32Array;
  /** Node of each tile, -1 for tiles that are not nodes. */
  tileNode: Int32Array;
  /** Nodes of region r are regionNodeStart[r] .. regionNodeStart[r + 1]; length regionCount + 1. */
  regionNodeStart: Int32Array;
  /** CSR offsets of crossing edges per node; length nodeCount + 1. */
  crossStart: Int32Array;
  /** The node across each crossing edge. */
  crossTarget: Int32Array;
  /** Fixed-point cost of each crossing step. */
  crossCost: Float64Array;
  /** Most nodes in one region. */
  maxRegionNodes: number;
  /** Most crossing edges of one node. */
  maxCrossings: number;
}

/** Places the entrance nodes of `table` (crossing pairs per `sampling`) and their crossing edges on `layer`. */
export function placeEntranceNodes(
  table: RegionTable,
  layer: PassLayer,
  sampling: EntranceSampling,
): EntranceNodes {
  const { width, regionOf, regionCount, entranceCount } = table;

  // 1. Crossing pairs per entrance.
  const pairA: number[] = [];
  const pairB: number[] = [];
  for (let e = 0; e < entranceCount; e++) {
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
      if (sampling.spacing > 0) {
        for (let i = sampling.spacing; i < length - 1; i += sampling.spacing) {
          if (Math.abs(i - mid) >= sampling.spacing >> 1 && length - 1 - i >= sampling.spacing >> 1) add(i);
        }
      }
    }
  }

  // 2. Unique tiles, numbered grouped by region (counting sort), ties by tile id.
  const tileNode = new Int32Array(width * table.height).fill(-1);
  const tiles: number[] = [];
  for (let p = 0; p < pairA.length; p++) {
    for (const t of [pairA[p], pairB[p]]) {
      if (tileNode[t] === -1) {
        tileNode[t] = 0;
        tiles.push(t);
      }
    }
  }
  tiles.sort((x, y) => regionOf[x] - regionOf[y] || x - y);
  const nodeCount = tiles.length;
  const nodeTile = Int32Array.from(tiles);
  const nodeRegion = new Int32Array(nodeCount);
  const regionNodeStart = new Int32Array(regionCount + 1);
  for (let i = 0; i < nodeCount; i++) {
    tileNode[nodeTile[i]] = i;
    nodeRegion[i] = regionOf[nodeTile[i]];
    regionNodeStart[nodeRegion[i] + 1]++;
  }
  let maxRegionNodes = 0;
  for (let r = 0; r < regionCount; r++) {
    maxRegionNodes = Math.max(maxRegionNodes, regionNodeStart[r + 1]);
    regionNodeStart[r + 1] += regionNodeStart[r];
  }

  // 3. Crossing edges (both directions), CSR; a pair sampled twice (short runs) is deduplicated.
  const crossStart = new Int32Array(nodeCount + 1);
  const seen = new Set<number>();
  const edgeFrom: number[] = [];
  const edgeTo: number[] = [];
  for (let p = 0; p < pairA.length; p++) {
    const u = tileNode[pairA[p]], v = tileNode[pairB[p]];
    const key = u * nodeCount + v;
    if (seen.has(key)) continue;
    seen.add(key);
    edgeFrom.push(u, v);
    edgeTo.push(v, u);
    crossStart[u + 1]++;
    crossStart[v + 1]++;
  }
  let maxCrossings = 0;
  for (let i = 0; i < nodeCount; i++) {
    maxCrossings = Math.max(maxCrossings, crossStart[i + 1]);
    crossStart[i + 1] += crossStart[i];
  }
  const crossTarget = new Int32Array(edgeFrom.length);
  const crossCost = new Float64Array(edgeFrom.length);
  const cursor = crossStart.slice(0, nodeCount);
  for (let k = 0; k < edgeFrom.length; k++) {
    const slot = cursor[edgeFrom[k]]++;
    const to = edgeTo[k];
    crossTarget[slot] = to;
    // A crossing pair is 4-adjacent: one straight step onto the target tile.
    crossCost[slot] = Math.round(layer.tileCost[nodeTile[to]] * COST_SCALE);
  }

  return {
    nodeCount,
    nodeTile,
    nodeRegion,
    tileNode,
    regionNodeStart,
    crossStart,
    crossTarget,
    crossCost,
    maxRegionNodes,
    maxCrossings,
  };
}
