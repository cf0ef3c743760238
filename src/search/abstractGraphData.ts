/**
 * The abstract graph's data forms (abstractGraph.ts holds the graph and its preparation): the payload a prepared
 * graph is shared as between workers, and the compact encodings of its per-node arrays (Uint32 distance
 * blocks, 3-bit shortest-path tree entries).
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { COST_SCALE } from "./astar.ts";
import type { EntranceNodes } from "./entranceNodes.ts";
import type { Neighborhood } from "./gridSpace.ts";

/** Fixed-point scale of a diagonal step at cost 1 (before rounding), as in GridSpace. */
export const DIAGONAL_STEP = Math.SQRT2 * COST_SCALE;

/**
 * A fully prepared graph as plain data over SharedArrayBuffers (see {@link AbstractGraph.toShared}): one worker
 * prepares a graph, the others adopt this instead of preparing their own (it crosses workers without a copy).
 */
export interface SharedGraphData {
  /** Marks the payload for the worker's share handler. */
  kind: "abstractGraph";
  /** Grid neighbourhood of the distances. */
  neighborhood: Neighborhood;
  /** Number of entrance nodes. */
  nodeCount: number;
  /** See {@link AbstractGraph.nodeTile}. */
  nodeTile: Int32Array;
  /** See {@link AbstractGraph.nodeRegion}. */
  nodeRegion: Int32Array;
  /** Tiles of the layer the graph was built over (adopters check theirs). */
  tileCount: number;
  /** See {@link AbstractGraph.regionNodeStart}. */
  regionNodeStart: Int32Array;
  /** See {@link AbstractGraph.crossStart}. */
  crossStart: Int32Array;
  /** See {@link AbstractGraph.crossTarget}. */
  crossTarget: Int32Array;
  /** See {@link AbstractGraph.crossCost}. */
  crossCost: Float64Array;
  /** Most nodes in one region. */
  maxRegionNodes: number;
  /** Most crossing edges of one node. */
  maxCrossings: number;
  /** Offsets of the distance blocks. */
  distanceOffset: Float64Array;
  /** The distance blocks (see {@link DistanceBlocks}). */
  distance: DistanceBlocks;
  /** The shortest-path trees (written per node on first use: see abstractGraphTrees.ts). */
  treeStep: Uint8Array;
  /** 1 per node whose tree is written. */
  treeReady: Uint8Array;
  /** Landmarks of the ALT heuristic. */
  landmarkCount: number;
  /** See {@link AbstractGraph.landmarkBase}. */
  landmarkBase: Float64Array;
  /** See {@link AbstractGraph.landmarkDistance}. */
  landmarkDistance: Uint32Array | Float64Array;
  /** Every open tile costs the same. */
  uniformCost: boolean;
  /** Grid expansions the preparation spent. */
  prepExpansions: number;
  /**
   * True for a skeleton (see AbstractGraph.skeleton): nodes and crossings placed, distance blocks and trees still
   * to fill, in place, by the builders that adopt it (each a share of the regions), landmarks not made.
   */
  partial?: boolean;
}

/** A copy of `a` over a SharedArrayBuffer (it stays where it is when already shared). */
export function shareArray<T extends Int32Array | Float64Array | Uint32Array | Uint8Array>(a: T): T {
  if (a.buffer instanceof SharedArrayBuffer) return a;
  const Ctor = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  out.set(a as never);
  return out;
}

/** Bytes of the arrays of a shared graph (what it adds to the map memory budget, once for all workers). */
export function sharedGraphBytes(d: SharedGraphData): number {
  return d.nodeTile.byteLength + d.nodeRegion.byteLength +
    d.regionNodeStart.byteLength +
    d.crossStart.byteLength + d.crossTarget.byteLength + d.crossCost.byteLength +
    d.distanceOffset.byteLength +
    d.distance.byteLength + d.treeStep.byteLength + d.landmarkBase.byteLength + d.landmarkDistance.byteLength;
}

/**
 * In-region distances: Uint32 when every one fits (half of Float64; they are integers, and a region's shortest
 * path has fewer steps than the region has tiles), Float64 beyond (very costly tiles).
 */
export type DistanceBlocks = Uint32Array | Float64Array;

/**
 * Zeroed distance blocks of `total` entries for `table`'s regions, Uint32 when its costliest path fits; over a
 * SharedArrayBuffer when `shared` (builders fill their regions' blocks in place).
 */
export function distanceBlocks(
  table: RegionTable,
  layer: PassLayer,
  total: number,
  shared = false,
): DistanceBlocks {
  let maxCost = 0;
  const tileCost = layer.tileCost;
  for (let t = 0; t < tileCost.length; t++) if (tileCost[t] > maxCost) maxCost = tileCost[t];
  // The grid's costliest step (a diagonal onto the costliest tile, rounded as GridSpace rounds) per tile.
  const bound = table.sectorSize * table.sectorSize * Math.round(maxCost * DIAGONAL_STEP);
  if (bound < 0xffffffff) {
    return shared ? new Uint32Array(new SharedArrayBuffer(total * 4)) : new Uint32Array(total);
  }
  return shared ? new Float64Array(new SharedArrayBuffer(total * 8)) : new Float64Array(total);
}

/** What the construction of an {@link AbstractGraph} needs beyond its table and layer (see AbstractGraphBuild). */
export interface PlacedNodes {
  /** The entrance nodes and crossing edges. */
  nodes: EntranceNodes;
  /** Every open tile of the table costs the same. */
  uniformCost: boolean;
}

/**
 * False when an open tile of the table in t0 .. t1 costs more than the layer's minimum (exported so
 * abstractGraphBuild.ts can scan in slices).
 */
export function uniformScan(table: RegionTable, layer: PassLayer, t0: number, t1: number): boolean {
  const { regionLocal, closedLocal } = table;
  const { tileCost, minCost } = layer;
  for (let t = t0; t < t1; t++) {
    if (regionLocal[t] !== closedLocal && tileCost[t] !== minCost) return false;
  }
  return true;
}

/** Tree entry e's direction code, 3 bits at bit 3e (little-endian across bytes; the array has a spare byte). */
export function readCode(tree: Uint8Array, e: number): number {
  const bit = e * 3;
  const byte = bit >> 3;
  return ((tree[byte] | (tree[byte + 1] << 8)) >> (bit & 7)) & 7;
}

/** Sets tree entry e's 3-bit direction code (see {@link readCode}). */
export function writeCode(tree: Uint8Array, e: number, code: number): void {
  const bit = e * 3;
  const byte = bit >> 3;
  const shift = bit & 7;
  const word = ((tree[byte] | (tree[byte + 1] << 8)) & ~(7 << shift)) | (code << shift);
  tree[byte] = word & 255;
  // Only when the code spans two bytes: a node's last entry must not rewrite the next node's first byte, which
  // another builder may be filling at the same time (parallel preparation, abstractGraphBuild.ts).
  if (shift > 5) tree[byte + 1] = word >> 8;
}

/** Bytes of 3-bit trees for `nodes` nodes of `stride` entries each (and the spare byte readCode reads). */
export function treeBytes(nodes: number, stride: number): number {
  return ((nodes * stride * 3 + 7) >> 3) + 1;
}
