/**
 * The construction of an {@link AbstractGraph} in slices, resumable across queries: at 8192^2 the entrance
 * placement and cost scan take longer than one query's budget, so a HIERARCHICAL query that runs out
 * answers budget and the next one continues where it stopped (see planning/hierarchical.ts).
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { AbstractGraph, type SharedGraphData, uniformScan } from "./abstractGraph.ts";
import { DEFAULT_SAMPLING, EntranceBuild, type EntranceSampling } from "./entranceNodes.ts";
import {
  fillColumn,
  foldColumns,
  LANDMARK_BATCH,
  type LandmarkTables,
  landmarkTables,
  NodeDijkstra,
  pickBatch,
  trimTables,
} from "./landmarks.ts";
import type { Neighborhood } from "./gridSpace.ts";
import {
  canReuse,
  keptFits,
  type KeptGraph,
  reuseKept,
  reuseRegion,
  SectorPrinter,
} from "./abstractGraphKept.ts";

/** Tiles of the uniform-cost scan between polls of a build's stop condition (about a millisecond). */
const TILES_PER_POLL = 1 << 20;

/**
 * The construction of an {@link AbstractGraph} as a resumable job: at 8192^2 placing the entrance nodes and
 * scanning the costs takes seconds, more than a query's budget. {@link run} polls `stop` (every
 * {@link TILES_PER_POLL} tiles of the scan, then every few thousand entrances, regions or pairs of the
 * placement, see {@link EntranceBuild}) and returns null when it says so, keeping its place; the graph it
 * finally returns equals one built uninterrupted.
 */
export class AbstractGraphBuild {
  /** The table the graph will abstract. */
  readonly table: RegionTable;
  /** The layer the graph will use. */
  readonly layer: PassLayer;
  private readonly neighborhood: Neighborhood;
  private readonly sampling: EntranceSampling;
  private readonly entrances: EntranceBuild;
  private readonly sharedBlocks: boolean;
  /** Next tile of the uniform-cost scan (the tile count once it is over). */
  private scanned = 0;
  private uniform = true;

  /**
   * A build of the graph of `table` over `layer`; nothing is done until {@link run}. `sharedBlocks`: the graph's
   * blocks go in shared memory (for {@link buildSkeleton}).
   */
  constructor(
    table: RegionTable,
    layer: PassLayer,
    neighborhood: Neighborhood = 8,
    sampling: EntranceSampling = DEFAULT_SAMPLING,
    sharedBlocks = false,
  ) {
    if (layer.width !== table.width || layer.height !== table.height) {
      throw new RangeError("AbstractGraph: layer and table sizes differ");
    }
    this.table = table;
    this.layer = layer;
    this.neighborhood = neighborhood;
    this.sampling = sampling;
    this.entrances = new EntranceBuild(table, layer, sampling);
    this.sharedBlocks = sharedBlocks;
  }

  /** Goes on with the build: the graph once complete, or null when `stop` said so first. */
  run(stop: (() => boolean) | null): AbstractGraph | null {
    const size = this.table.regionLocal.length;
    // Each call does at least one slice, so a build under a spent budget still advances.
    for (let slices = 0; this.scanned < size; slices++) {
      if (!this.uniform) {
        this.scanned = size;
        break;
      }
      if (slices > 0 && stop !== null && stop()) return null;
      const end = Math.min(size, this.scanned + TILES_PER_POLL);
      this.uniform = uniformScan(this.table, this.layer, this.scanned, end);
      this.scanned = end;
    }
    const nodes = this.entrances.run(stop);
    if (nodes === null) return null;
    return new AbstractGraph(this.table, this.layer, this.neighborhood, this.sampling, null, {
      nodes,
      uniformCost: this.uniform,
    }, this.sharedBlocks);
  }
}

/*
 * Parallel preparation (the map builders', service/mapBuild.ts): one builder places the nodes and shares the
 * graph's skeleton; every builder fills the distance blocks and trees of its share of the regions in place (each
 * region's block is one independent computation, and blocks and trees of different regions occupy different
 * bytes: see writeCode); the landmarks are made in rounds, a round's searches on different builders. The result is
 * the sequential preparation's, bit for bit (test/search/abstractGraphParallel.test.ts).
 */

/** Progress slots of a parallel preparation (shared Int32Array): nodes placed (0 or 1), regions, landmarks. */
export const PROGRESS_SLOTS = 3;
/**
 * Regions dealt out to the builders in chunks of this many (chunk c to builder c mod parts: balanced); a chunk's
 * blocks are also what a build interrupted by a restart keeps (service/graphPartial.ts).
 */
export const REGION_CHUNK = 256;

/** The number of region chunks of a table of `regions` regions ({@link REGION_CHUNK}). */
export function chunkCount(regions: number): number {
  return Math.ceil(regions / REGION_CHUNK);
}

/** A zeroed progress array over shared memory (see {@link PROGRESS_SLOTS}). */
export function graphProgress(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(PROGRESS_SLOTS * 4));
}

/**
 * How far a parallel preparation is, 0..100: node placement 5%, blocks 75% (by regions), landmarks 20% (by
 * landmark searches); measured shares of the work on the 1024^2 scale map (0.05 s, 0.9-1.2 s, 0.26-0.45 s).
 */
export function progressPercent(progress: Int32Array, regionCount: number, landmarks: number): number {
  const nodes = Atomics.load(progress, 0) > 0 ? 5 : 0;
  const blocks = regionCount > 0 ? 75 * Math.min(1, Atomics.load(progress, 1) / regionCount) : 75;
  const marks = landmarks > 0 ? 20 * Math.min(1, Atomics.load(progress, 2) / (landmarks + 1)) : 20;
  return Math.min(100, Math.floor(nodes + blocks + marks));
}

/** Step 1 of a parallel preparation: the nodes and crossings, blocks allocated in shared memory, none filled. */
export function buildSkeleton(
  table: RegionTable,
  layer: PassLayer,
  neighborhood: Neighborhood,
  sampling: EntranceSampling,
  progress: Int32Array,
): SharedGraphData {
  const graph = new AbstractGraphBuild(table, layer, neighborhood, sampling, true).run(null)!;
  const skeleton = graph.skeleton();
  Atomics.store(progress, 0, 1);
  return skeleton;
}

/**
 * A prepared graph of an earlier version of the same map (after a patch), whose blocks a new preparation takes
 * where nothing they depend on changed (abstractGraphKept.ts, reuseRegion): the patch's work, not the map's.
 */
export interface PreviousGraph {
  /** Its region table. */
  table: RegionTable;
  /** Its layer. */
  layer: PassLayer;
  /** Its data (fully prepared). */
  graph: SharedGraphData;
}

/**
 * Step 2, run by each of `parts` builders at once: fills the blocks and trees of builder `part`'s chunks of
 * regions into the skeleton's shared arrays, taking `previous`'s block where it can (an earlier version's graph
 * in memory, or kept in a file: abstractGraphKept.ts); with `prints`, writes the prints of those regions' sectors
 * there (a graph file keeps them for the next version). With `done` (a flag per chunk, shared): chunks flagged
 * already have their blocks in the skeleton (resumed from an interrupted build) and are skipped; each chunk this
 * call fills is flagged once its blocks are written (Atomics: a reader that sees the flag sees the blocks).
 * Returns the grid expansions spent and the regions whose block was taken or resumed.
 */
export function prepareShare(
  table: RegionTable,
  layer: PassLayer,
  skeleton: SharedGraphData,
  part: number,
  parts: number,
  progress: Int32Array,
  previous: PreviousGraph | KeptGraph | null = null,
  prints: Uint32Array | null = null,
  done: Uint8Array | null = null,
): { spent: number; reused: number } {
  const graph = new AbstractGraph(table, layer, skeleton.neighborhood, undefined, skeleton);
  let old = previous && "table" in previous
    ? new AbstractGraph(
      previous.table,
      previous.layer,
      previous.graph.neighborhood,
      undefined,
      previous.graph,
    )
    : null;
  if (old !== null && !canReuse(graph, old)) old = null;
  let kept = previous && "sectorPrint" in previous ? previous : null;
  if (kept !== null && (prints === null || !keptFits(graph, kept))) kept = null;
  const printer = prints === null ? null : new SectorPrinter(table, layer, prints);
  const regions = table.regionCount;
  let spent = 0, reused = 0, printed = -1;
  for (let c = part * REGION_CHUNK; c < regions; c += parts * REGION_CHUNK) {
    const end = Math.min(regions, c + REGION_CHUNK);
    const resumed = done !== null && Atomics.load(done, c / REGION_CHUNK) === 1;
    for (let r = c; r < end; r++) {
      if (printer !== null && table.regionSector[r] !== printed) {
        printer.print(printed = table.regionSector[r]);
      }
      if (resumed) {
        graph.markPrepared(r);
        reused++;
      } else if (
        (old !== null && reuseRegion(graph, r, old)) || (kept !== null && reuseKept(graph, r, kept, prints!))
      ) reused++;
      else spent += graph.prepareRegion(r);
    }
    if (done !== null) Atomics.store(done, c / REGION_CHUNK, 1);
    Atomics.add(progress, 1, end - c);
  }
  return { spent, reused };
}

/**
 * Step 3, once every share is filled: the landmarks (landmarks.ts), in rounds. Every builder runs
 * {@link landmarkPart} at once: each searches its columns of a round, waits at a shared counter for the others'
 * (Atomics, no message round trip), then folds the round into its own nearest-landmark distances and picks the
 * next round as every other builder does (the same picks: the same data, the same rule). The tables equal the
 * sequential job's bit for bit.
 */
export interface LandmarkWork {
  /** The landmark tables, over shared memory, one column per landmark. */
  tables: LandmarkTables;
  /** [0]: columns written so far; [1]: non-zero once a builder failed (the others stop waiting). */
  sync: Int32Array;
}

/** Shared landmark tables and counters for `count` landmarks of the filled skeleton `filled`. */
export function landmarkWork(filled: SharedGraphData, count: number): LandmarkWork {
  return {
    tables: landmarkTables(filled, count, filled.distance instanceof Float64Array, true),
    sync: new Int32Array(new SharedArrayBuffer(8)),
  };
}

/** Longest wait for the other builders' columns of a round before giving up (they would have failed). */
const ROUND_WAIT_MS = 10 * 60_000;

/**
 * Step 3 on builder `part` of `parts` (all at once; `parts` = 1 does it all on this thread): the seed search,
 * then per round the columns i with i mod parts = part. Returns the landmarks made (the same on every builder) and
 * the abstract expansions this builder spent.
 */
export function landmarkPart(
  table: RegionTable,
  layer: PassLayer,
  filled: SharedGraphData,
  work: LandmarkWork,
  part: number,
  parts: number,
  progress: Int32Array,
): { made: number; spent: number } {
  const { tables, sync } = work;
  try {
    const graph = new AbstractGraph(table, layer, filled.neighborhood, undefined, {
      ...filled,
      partial: false,
    });
    const count = tables.count;
    if (graph.nodeCount === 0 || count <= 0) return { made: 0, spent: 0 };
    const search = new NodeDijkstra(graph);
    const nearest = new Float64Array(graph.nodeCount).fill(Infinity);
    // Every builder runs the seed search (it needs its distances for the first picks): one search, in parallel.
    let spent = search.run(0);
    if (part === 0) Atomics.add(progress, 2, 1);
    let round = pickBatch(graph, search.dist, Math.min(LANDMARK_BATCH, count), true);
    let made = 0;
    while (round.length > 0) {
      let mine = 0;
      for (let i = part; i < round.length; i += parts) {
        spent += search.run(round[i]);
        fillColumn(graph, search.dist, tables, made + i);
        Atomics.add(progress, 2, 1);
        mine++;
      }
      const to = made + round.length;
      Atomics.add(sync, 0, mine);
      Atomics.notify(sync, 0);
      const giveUp = performance.now() + ROUND_WAIT_MS;
      for (;;) {
        const written = Atomics.load(sync, 0);
        if (written >= to) break;
        if (Atomics.load(sync, 1) !== 0) throw new Error("landmarks: another builder failed");
        if (performance.now() > giveUp) {
          throw new Error("landmarks: the other builders did not finish a round");
        }
        Atomics.wait(sync, 0, written, 1000);
      }
      foldColumns(graph, tables, made, to, nearest);
      made = to;
      round = pickBatch(graph, nearest, Math.min(LANDMARK_BATCH, count - made), false);
    }
    return { made, spent };
  } catch (e) {
    Atomics.store(sync, 1, 1);
    Atomics.notify(sync, 0);
    throw e;
  }
}

/**
 * Step 4: the prepared graph's shared data from the filled skeleton and the `made` landmarks of `work` (the
 * blocks stay where the builders wrote them).
 */
export function finishGraph(
  table: RegionTable,
  layer: PassLayer,
  filled: SharedGraphData,
  work: LandmarkWork,
  made: number,
  prepExpansions: number,
  progress: Int32Array,
): SharedGraphData {
  const graph = new AbstractGraph(table, layer, filled.neighborhood, undefined, {
    ...filled,
    partial: false,
    prepExpansions,
  });
  if (made > 0) graph.adoptLandmarks(trimTables(work.tables, made));
  Atomics.store(progress, 2, work.tables.count + 1);
  return graph.toShared();
}

/** Steps 3 and 4 on this thread (one part): what the builders do in parallel, for tests and single threads. */
export function landmarksInline(
  table: RegionTable,
  layer: PassLayer,
  filled: SharedGraphData,
  count: number,
  prepExpansions: number,
  progress: Int32Array,
): SharedGraphData {
  const work = landmarkWork(filled, count);
  const { made } = landmarkPart(table, layer, filled, work, 0, 1, progress);
  return finishGraph(table, layer, filled, work, made, prepExpansions, progress);
}
