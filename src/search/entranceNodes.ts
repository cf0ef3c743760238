/**
 * The nodes and crossing edges of a region table's abstract graph (HPA*-style, see {@link AbstractGraph}).
 *
 * Nodes are entrance crossing tiles: for each entrance, one or more crossing pairs (the run's middle pair,
 * plus both ends and evenly spaced pairs for long runs); each tile of a pair is a node, shared when two
 * entrances meet at the same tile. Crossing edges join the two tiles of a pair, costed with the grid cost of
 * that one step. Node ids are grouped by region (the nodes of region r are `regionNodeStart[r] ..
 * regionNodeStart[r + 1]`), so a region's distance matrix is a dense k x k block.
 *
 * The placement is a resumable job ({@link EntranceBuild}): at 8192^2 it takes seconds, so a query under a
 * budget does a slice and the next goes on. It works per entrance and per region, with arrays the size of the
 * entrance and region counts, never map-sized ones.
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import { regionAt, type RegionTable } from "../maps/regions.ts";
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

/** Items (entrances, regions, pairs) done between polls of the stop condition: well under a millisecond. */
const ITEMS_PER_POLL = 4096;

/** A growable Int32Array (pair lists run to millions of entries at 8192^2: typed, not boxed). */
class IntList {
  data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(Math.max(1024, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/**
 * The resumable placement of a table's entrance nodes and crossing edges (the result equals
 * {@link placeEntranceNodes}'s): {@link run} polls `stop` every {@link ITEMS_PER_POLL} items and returns null
 * when it says so, keeping its place, so the next call goes on from there.
 */
export class EntranceBuild {
  private readonly table: RegionTable;
  private readonly layer: PassLayer;
  private readonly sampling: EntranceSampling;
  /** 0: crossing pairs per entrance; 1: region buckets; 2: unique tiles per region; 3: pair nodes; 4: edges; 5: done. */
  private phase = 0;
  /** Next item (entrance, pair or region) of the phase. */
  private next = 0;
  private readonly pairA = new IntList();
  private readonly pairB = new IntList();
  /** Pair tiles bucketed by region (counting sort): bucket r is bucket[bucketStart[r] .. bucketStart[r + 1]]. */
  private bucketStart: Int32Array = new Int32Array(0);
  private bucket: Int32Array = new Int32Array(0);
  /** Unique tiles of bucket r, ascending, at bucket[bucketStart[r] .. + uniqueCount[r]]. */
  private uniqueCount: Int32Array = new Int32Array(0);
  private nodes: EntranceNodes | null = null;

  /** A placement job for `table` over `layer`; nothing is done until {@link run}. */
  constructor(table: RegionTable, layer: PassLayer, sampling: EntranceSampling) {
    this.table = table;
    this.layer = layer;
    this.sampling = sampling;
  }

  /** Goes on with the placement; the nodes once complete, or null when `stop` said so first. */
  run(stop: (() => boolean) | null): EntranceNodes | null {
    let budget = ITEMS_PER_POLL;
    const polled = (): boolean => {
      if (--budget > 0) return false;
      budget = ITEMS_PER_POLL;
      return stop !== null && stop();
    };
    const table = this.table;
    const { width, regionCount, entranceCount } = table;
    if (this.phase === 0) {
      // 1. Crossing pairs per entrance.
      const { longRun, spacing } = this.sampling;
      for (let e = this.next; e < entranceCount; e++) {
        if (polled()) {
          this.next = e;
          return null;
        }
        const a = table.entranceTileA[e];
        const across = table.entranceTileB[e] - a;
        const along = across === 1 ? width : 1;
        const length = table.entranceLength[e];
        const mid = (length - 1) >> 1;
        const first = a - mid * along;
        this.addPair(first + mid * along, across);
        if (length > longRun) {
          this.addPair(first, across);
          this.addPair(first + (length - 1) * along, across);
          if (spacing > 0) {
            for (let i = spacing; i < length - 1; i += spacing) {
              if (Math.abs(i - mid) >= spacing >> 1 && length - 1 - i >= spacing >> 1) {
                this.addPair(first + i * along, across);
              }
            }
          }
        }
      }
      this.phase = 1;
      this.next = 0;
    }
    if (this.phase === 1) {
      // 2a. Pair tiles bucketed by region (counting sort over regions, not tiles).
      const n = this.pairA.length;
      const start = new Int32Array(regionCount + 1);
      const pa = this.pairA.data, pb = this.pairB.data;
      for (let p = 0; p < n; p++) {
        start[regionAt(table, pa[p]) + 1]++;
        start[regionAt(table, pb[p]) + 1]++;
      }
      for (let r = 0; r < regionCount; r++) start[r + 1] += start[r];
      const cursor = start.slice(0, regionCount);
      const bucket = new Int32Array(2 * n);
      for (let p = 0; p < n; p++) {
        bucket[cursor[regionAt(table, pa[p])]++] = pa[p];
        bucket[cursor[regionAt(table, pb[p])]++] = pb[p];
      }
      this.bucketStart = start;
      this.bucket = bucket;
      this.uniqueCount = new Int32Array(regionCount);
      this.phase = 2;
      this.next = 0;
      if (stop !== null && stop()) return null;
    }
    if (this.phase === 2) {
      // 2b. Unique tiles per region, ascending (node ids: by region, ties by tile id).
      for (let r = this.next; r < regionCount; r++) {
        if (polled()) {
          this.next = r;
          return null;
        }
        const b = this.bucket.subarray(this.bucketStart[r], this.bucketStart[r + 1]).sort();
        let k = 0;
        for (let i = 0; i < b.length; i++) if (k === 0 || b[i] !== b[k - 1]) b[k++] = b[i];
        this.uniqueCount[r] = k;
      }
      this.phase = 3;
      this.next = 0;
      // The steps that are not sliced (tens of milliseconds each at 8192^2) each start a call of their own.
      if (stop !== null && stop()) return null;
    }
    if (this.nodes === null) {
      this.nodes = this.numberNodes();
      if (stop !== null && stop()) return null;
    }
    const nodes = this.nodes;
    if (this.phase === 3) {
      // 3. Each pair's two nodes, written over its tiles (the tiles are not needed after this).
      const pa = this.pairA.data, pb = this.pairB.data;
      for (let p = this.next; p < this.pairA.length; p++) {
        if (polled()) {
          this.next = p;
          return null;
        }
        pa[p] = this.nodeOf(pa[p]);
        pb[p] = this.nodeOf(pb[p]);
      }
      this.phase = 4;
      if (stop !== null && stop()) return null;
    }
    if (this.phase === 4) {
      this.finishEdges(nodes);
      this.phase = 5;
    }
    return nodes;
  }

  /** Records the crossing pair at `a` (its region's side) and `a + across`. */
  private addPair(a: number, across: number): void {
    this.pairA.push(a);
    this.pairB.push(a + across);
  }

  /** Node ids from the per-region unique tiles; edges still empty. */
  private numberNodes(): EntranceNodes {
    const { regionCount } = this.table;
    const regionNodeStart = new Int32Array(regionCount + 1);
    let maxRegionNodes = 0;
    for (let r = 0; r < regionCount; r++) {
      const k = this.uniqueCount[r];
      if (k > maxRegionNodes) maxRegionNodes = k;
      regionNodeStart[r + 1] = regionNodeStart[r] + k;
    }
    const nodeCount = regionNodeStart[regionCount];
    const nodeTile = new Int32Array(nodeCount);
    const nodeRegion = new Int32Array(nodeCount);
    for (let r = 0; r < regionCount; r++) {
      const i0 = regionNodeStart[r];
      nodeTile.set(this.bucket.subarray(this.bucketStart[r], this.bucketStart[r] + this.uniqueCount[r]), i0);
      nodeRegion.fill(r, i0, regionNodeStart[r + 1]);
    }
    return {
      nodeCount,
      nodeTile,
      nodeRegion,
      regionNodeStart,
      crossStart: new Int32Array(nodeCount + 1),
      crossTarget: new Int32Array(0),
      crossCost: new Float64Array(0),
      maxRegionNodes,
      maxCrossings: 0,
    };
  }

  /** The node on `tile` (a pair tile): a binary search of its region's few nodes. */
  private nodeOf(tile: number): number {
    const nodes = this.nodes!;
    const r = regionAt(this.table, tile);
    let lo = nodes.regionNodeStart[r], hi = nodes.regionNodeStart[r + 1] - 1;
    const nodeTile = nodes.nodeTile;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (nodeTile[mid] < tile) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Crossing edges (both directions, CSR) from the pairs' nodes, in pair order; a pair sampled twice (short
   * runs) counts once. Duplicates are found among the pairs of the same first node (a few each), not with a
   * set over all pairs (which cost most of the build at 8192^2). Drops the job's temporaries.
   */
  private finishEdges(nodes: EntranceNodes): void {
    const { nodeCount, crossStart, nodeTile } = nodes;
    const n = this.pairA.length;
    const pu = this.pairA.data, pv = this.pairB.data;
    // Pairs grouped by first node, in pair order within a group.
    const groupStart = new Int32Array(nodeCount + 1);
    for (let p = 0; p < n; p++) groupStart[pu[p] + 1]++;
    for (let i = 0; i < nodeCount; i++) groupStart[i + 1] += groupStart[i];
    const groupCursor = groupStart.slice(0, nodeCount);
    const group = new Int32Array(n);
    for (let p = 0; p < n; p++) group[groupCursor[pu[p]]++] = p;
    const duplicate = new Uint8Array(n);
    for (let i = 0; i < nodeCount; i++) {
      for (let a = groupStart[i] + 1; a < groupStart[i + 1]; a++) {
        const v = pv[group[a]];
        for (let b = groupStart[i]; b < a; b++) {
          if (pv[group[b]] === v) {
            duplicate[group[a]] = 1;
            break;
          }
        }
      }
    }
    for (let p = 0; p < n; p++) {
      if (duplicate[p] === 1) continue;
      crossStart[pu[p] + 1]++;
      crossStart[pv[p] + 1]++;
    }
    let maxCrossings = 0;
    for (let i = 0; i < nodeCount; i++) {
      maxCrossings = Math.max(maxCrossings, crossStart[i + 1]);
      crossStart[i + 1] += crossStart[i];
    }
    const m = crossStart[nodeCount];
    const crossTarget = new Int32Array(m);
    const crossCost = new Float64Array(m);
    const cursor = crossStart.slice(0, nodeCount);
    const tileCost = this.layer.tileCost;
    const put = (from: number, to: number) => {
      const slot = cursor[from]++;
      crossTarget[slot] = to;
      // A crossing pair is 4-adjacent: one straight step onto the target tile.
      crossCost[slot] = Math.round(tileCost[nodeTile[to]] * COST_SCALE);
    };
    for (let p = 0; p < n; p++) {
      if (duplicate[p] === 1) continue;
      put(pu[p], pv[p]);
      put(pv[p], pu[p]);
    }
    nodes.crossTarget = crossTarget;
    nodes.crossCost = crossCost;
    nodes.maxCrossings = maxCrossings;
    this.bucket = new Int32Array(0);
    this.bucketStart = new Int32Array(0);
    this.pairA.length = 0;
    this.pairB.length = 0;
    this.pairA.data = new Int32Array(0);
    this.pairB.data = new Int32Array(0);
  }
}

/** Places the entrance nodes of `table` (crossing pairs per `sampling`) and their crossing edges on `layer`. */
export function placeEntranceNodes(
  table: RegionTable,
  layer: PassLayer,
  sampling: EntranceSampling,
): EntranceNodes {
  return new EntranceBuild(table, layer, sampling).run(null)!;
}
