/**
 * HIERARCHICAL: HPA*-style search over the region table, refined to a tile path, then the article's simple
 * smoothing. Long paths cost an abstract search over entrance nodes plus short grid searches, instead of one
 * grid search over the whole map.
 *
 * Abstract graphs are cached per region table object (WeakMap: a new map version brings a new table and the
 * old graph is collected with it). The first query on a table prepares it in full, once per map version and
 * worker: every region's distance block and shortest-path trees (refinement then walks stored trees instead
 * of searching) and the ALT landmark distances of the abstract heuristic. Measured prep on the 512x512 Moving
 * AI maps: about 0.1 s (maze) to 1.5 s (random512-10-0) on a noisy 2-core machine (bench/hierarchical.ts).
 * The preparation polls the request's cancel flag and at most half of its time budget; a request whose graph is
 * not ready then is answered by the exact grid search (its message says so) and the next one continues the
 * preparation where it stopped. Big maps' graphs are prepared by the map builders instead, in parallel, once for
 * all workers (service/mapGraphs.ts): until they are published the task carries `graphPending` and the grid
 * search answers at once.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { AbstractGraph, type SharedGraphData } from "../search/abstractGraph.ts";
import { AbstractGraphBuild } from "../search/abstractGraphBuild.ts";
import { DEFAULT_SAMPLING, type EntranceSampling } from "../search/entranceNodes.ts";
import { gridPathLength, type Neighborhood } from "../search/gridSpace.ts";
import {
  corridorSearch,
  type HierarchicalLimits,
  HierarchicalScratch,
  hierarchicalSearch,
} from "../search/hierarchical.ts";
import { smoothPath } from "../smoothing/simpleSmooth.ts";
import type { Segment } from "../geometry/types.ts";
import { type PlanBudget, planBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { onReleaseScratch } from "./scratch.ts";
import { polylineSegments } from "./gridRoute.ts";
import { exactEnds, joinExactEnds } from "./exactEnds.ts";
import { type PlanOutcome, planOutcome, type PlanTask } from "./task.ts";
import { planGridOrSmooth } from "./gridPlanner.ts";

/** Tuning of the hierarchical planner. */
export interface HierarchicalOptions {
  /** Crossing pairs per entrance. */
  sampling: EntranceSampling;
  /** Half-width in tiles of the corridor re-searched around the refined path (0: no re-search). */
  corridorRadius: number;
  /** Refine with unrestricted grid A* between waypoints instead of in-region A* (see hierarchicalSearch). */
  freeWindows: boolean;
  /**
   * Smooth only the tile path's run corners (see {@link runCorners}) instead of every tile: measured 1.5-2x
   * faster smoothing but up to 3% longer paths (8room median 0.981 of optimal against 0.957), so off.
   */
  smoothCorners: boolean;
}

/** Defaults measured on the shared Moving AI maps (see bench/hierarchical.ts). */
export const DEFAULT_HIERARCHICAL: HierarchicalOptions = {
  sampling: DEFAULT_SAMPLING,
  corridorRadius: 0,
  freeWindows: false,
  smoothCorners: false,
};

/**
 * The tiles of a tile path where its step direction changes, plus both ends. A straight run of grid steps is
 * the straight segment between its ends, so smoothing the corners only checks the same lines without
 * re-sweeping each run tile by tile (smoothing's cost grows with the square of a run's length).
 */
export function runCorners(tiles: Int32Array): Int32Array {
  const n = tiles.length;
  if (n <= 2) return tiles;
  const kept = new Int32Array(n);
  let count = 0;
  kept[count++] = tiles[0];
  for (let i = 1; i + 1 < n; i++) {
    if (tiles[i] - tiles[i - 1] !== tiles[i + 1] - tiles[i]) kept[count++] = tiles[i];
  }
  kept[count++] = tiles[n - 1];
  return kept.slice(0, count);
}

const graphs = new WeakMap<RegionTable, Map<string, AbstractGraph>>();
/** Graph constructions stopped half way, by table and cache key (see {@link preparedGraph}). */
const pendingBuilds = new WeakMap<RegionTable, Map<string, AbstractGraphBuild>>();

/** Told of every graph this thread finished preparing itself (the worker publishes it to the others). */
let onPrepared: ((graph: AbstractGraph, key: string) => void) | null = null;

/**
 * Registers the listener told of each graph this thread prepares in full (with its cache key within the table:
 * neighbourhood, sampling, landmarks), so a worker can share it; null removes it.
 */
export function onGraphPrepared(cb: ((graph: AbstractGraph, key: string) => void) | null): void {
  onPrepared = cb;
}

/**
 * Adopts another thread's prepared graph of `table` over `layer` under its cache `key` (as given to the
 * {@link onGraphPrepared} listener): later queries use it instead of preparing their own. A graph this thread
 * already has in full is kept (the same answers either way) unless `replace` (the thread that made `data` from
 * its own graph answers from the shared copy too, so the graph is held once). Returns the graph now cached.
 */
export function adoptGraph(
  table: RegionTable,
  layer: PassLayer,
  key: string,
  data: SharedGraphData,
  replace = false,
): AbstractGraph {
  let byKey = graphs.get(table);
  if (byKey === undefined) {
    byKey = new Map();
    graphs.set(table, byKey);
  }
  const have = byKey.get(key);
  if (
    !replace && have !== undefined && have.layer === layer && have.allPrepared &&
    have.landmarkCount === data.landmarkCount
  ) {
    return have;
  }
  const graph = new AbstractGraph(table, layer, data.neighborhood, undefined, data);
  byKey.set(key, graph);
  return graph;
}

/**
 * The cache key of a table's graph (neighbourhood, sampling, landmarks): the key it is shared under between
 * workers, and the one the service's background build publishes (service/mapGraphs.ts).
 */
export function graphCacheKey(
  neighborhood: Neighborhood,
  sampling: EntranceSampling = DEFAULT_SAMPLING,
  landmarks: number = DEFAULT_LANDMARKS,
): string {
  return `${neighborhood}/${sampling.longRun}/${sampling.spacing}/${landmarks}`;
}

/** This thread's fully prepared graph of `table` over `layer` under `key` (its own or adopted), or null. */
function readyGraph(table: RegionTable, layer: PassLayer, key: string): AbstractGraph | null {
  const graph = graphs.get(table)?.get(key);
  return graph !== undefined && graph.layer === layer && graph.allPrepared && graph.landmarkCount > 0
    ? graph
    : null;
}

/**
 * How far this thread's own preparation of `table`'s graph under `key` got, 0..100 (weights as the builders'
 * progressPercent: nodes 5%, blocks 75%, landmarks 20%).
 */
function ownProgress(table: RegionTable, key: string): number {
  const graph = graphs.get(table)?.get(key);
  if (graph === undefined) return 0;
  return Math.floor(5 + 75 * graph.preparedRegions / Math.max(1, table.regionCount));
}

/** Landmarks of the abstract ALT heuristic (16: measured against 4 and 8; most gain on random512 and the maze). */
export const DEFAULT_LANDMARKS = 16;

/**
 * The cached abstract graph of a table over its layer, built and fully prepared on first use (distance
 * blocks, trees and `landmarks` ALT landmarks; 0 landmarks leaves the blocks to fill lazily per region).
 * Keyed by table identity, neighbourhood and sampling.
 */
export function abstractGraphFor(
  table: RegionTable,
  layer: PassLayer,
  neighborhood: Neighborhood,
  sampling: EntranceSampling = DEFAULT_SAMPLING,
  landmarks: number = DEFAULT_LANDMARKS,
): AbstractGraph {
  return preparedGraph(table, layer, neighborhood, null, sampling, landmarks)!;
}

/**
 * {@link abstractGraphFor} under a `stop` condition: the preparation goes on from wherever an earlier call
 * stopped and returns null if `stop` says so before it is complete (the work done is kept for the next call).
 */
export function preparedGraph(
  table: RegionTable,
  layer: PassLayer,
  neighborhood: Neighborhood,
  stop: (() => boolean) | null,
  sampling: EntranceSampling = DEFAULT_SAMPLING,
  landmarks: number = DEFAULT_LANDMARKS,
): AbstractGraph | null {
  let byKey = graphs.get(table);
  if (byKey === undefined) {
    byKey = new Map();
    graphs.set(table, byKey);
  }
  const key = graphCacheKey(neighborhood, sampling, landmarks);
  let graph = byKey.get(key);
  if (graph === undefined || graph.layer !== layer) {
    // The construction itself is resumable too (seconds at 8192^2): a stopped one is kept for the next call.
    let builds = pendingBuilds.get(table);
    if (builds === undefined) {
      builds = new Map();
      pendingBuilds.set(table, builds);
    }
    let build = builds.get(key);
    if (build === undefined || build.layer !== layer) {
      build = new AbstractGraphBuild(table, layer, neighborhood, sampling);
      builds.set(key, build);
    }
    const built = build.run(stop);
    if (built === null) return null;
    builds.delete(key);
    graph = built;
    byKey.set(key, graph);
  }
  if (graph.allPrepared && (landmarks === 0 || graph.landmarkCount > 0 || graph.nodeCount === 0)) {
    return graph;
  }
  if (landmarks > 0 && !graph.prepare(landmarks, stop).done) return null;
  // Prepared in full just now: the worker may share it, so others adopt it instead of preparing their own.
  if (landmarks > 0 && onPrepared !== null) onPrepared(graph, key);
  return graph;
}

/** A hierarchical path: the tile path, its smoothed points and figures. */
export interface HierarchicalPath {
  /** "found" or why not. */
  status: "found" | "unreachable" | "budget" | "cancelled";
  /** Refined (and possibly corridor re-searched) tile path, start to goal. */
  tiles: Int32Array | null;
  /** Smoothed points (x, y pairs at tile centers). */
  points: Float64Array | null;
  /** Length of the smoothed polyline. */
  length: number;
  /** Grid length of the tile path. */
  tileLength: number;
  /** Expansions of all searches (abstract, in-region, refinement, corridor). */
  expansions: number;
}

/**
 * Hierarchical search, refinement, optional corridor re-search and simple smoothing for a disc of `radius`.
 * Pure apart from the graph's lazily filled distance blocks.
 */
export function hierarchicalPath(
  graph: AbstractGraph,
  scratch: HierarchicalScratch,
  startTile: number,
  goalTile: number,
  radius: number,
  limits: HierarchicalLimits,
  options: HierarchicalOptions = DEFAULT_HIERARCHICAL,
): HierarchicalPath {
  const layer = graph.layer;
  const r = hierarchicalSearch(graph, startTile, goalTile, scratch, limits, options.freeWindows);
  let expansions = r.abstractExpansions + r.regionExpansions + r.refineExpansions;
  if (r.path === null) {
    return { status: r.status, tiles: null, points: null, length: 0, tileLength: 0, expansions };
  }
  let tiles = r.path;
  if (options.corridorRadius > 0) {
    const c = corridorSearch(
      layer,
      graph.table.clearanceClass,
      graph.neighborhood,
      tiles,
      options.corridorRadius,
      scratch,
      { ...limits, maxExpansions: limits.maxExpansions - expansions },
    );
    expansions += c.expansions;
    if (c.status === "cancelled") {
      return { status: "cancelled", tiles: null, points: null, length: 0, tileLength: 0, expansions };
    }
    // Out of budget: keep the refined path (it is complete and valid).
    if (c.path !== null) tiles = c.path;
  }
  const points = smoothPath(layer, radius, options.smoothCorners ? runCorners(tiles) : tiles, layer.width);
  let length = 0;
  for (let i = 2; i < points.length; i += 2) {
    length += Math.hypot(points[i] - points[i - 2], points[i + 1] - points[i - 1]);
  }
  return {
    status: "found",
    tiles,
    points,
    length,
    tileLength: gridPathLength(layer, tiles, layer.width),
    expansions,
  };
}

/**
 * The answer while the abstract graph is not ready: the grid search (jump points: an optimal grid path, at least as
 * short as the hierarchy's refined one) smoothed as this planner smooths, i.e. PLANNER_SMOOTH's answer (measured on
 * the 2048^2 scale map's longest tank pair: SMOOTH 3070.3, HIERARCHICAL 3033.0, the unsmoothed grid path 3186.6;
 * on the ~1,000-step pair 873.4 / 874.1 / 902.4), its message led by `why`; BUDGET naming `why` when the grid search
 * runs out as well.
 */
function gridInstead(ctx: PlanContext, task: PlanTask, budget: PlanBudget, why: string): PlanOutcome {
  const out = planGridOrSmooth(ctx, { ...task, planner: "smooth" }, budget);
  if (out.status === "budget") {
    out.message = `${why}; the grid search ran out of budget too${out.message ? ` (${out.message})` : ""}`;
  } else out.message = out.message ? `${why}; ${out.message}` : why;
  return out;
}

const scratches = new WeakMap<PlanContext, HierarchicalScratch>();

/** The context's hierarchical scratch, made on first use (released with the context's other scratch). */
function scratchFor(ctx: PlanContext): HierarchicalScratch {
  let scratch = scratches.get(ctx);
  if (scratch === undefined) {
    scratch = new HierarchicalScratch(ctx.workspace, ctx.grid);
    scratches.set(ctx, scratch);
    const sc = scratch;
    onReleaseScratch(
      ctx,
      (keep) =>
        sc.abstractWorkspace.release(keep) + sc.regionWorkspace.release(keep) +
        sc.goalWorkspace.release(keep),
    );
  }
  return scratch;
}

/**
 * The refined tile route (start tile to goal tile, 8-connected) of the task's region table when this thread
 * holds its prepared abstract graph (never prepares one), else null; for long curve-planner corridors
 * (planning/corridorRoute.ts). Budget-cut or unreachable: null too (the caller searches the grid instead).
 */
export function readyHierarchicalRoute(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget,
): { tiles: Int32Array; expansions: number } | null {
  if (task.regionKey === undefined) return null;
  const table = ctx.lookup(task.regionKey) as RegionTable | undefined;
  if (table === undefined) return null;
  const layer = ctx.layer(task.layerKey);
  const graph = readyGraph(table, layer, graphCacheKey(8));
  if (graph === null) return null;
  const found = hierarchicalSearch(
    graph,
    task.startTile,
    task.goalTile,
    scratchFor(ctx),
    budget.limits(),
    false,
  );
  if (found.path === null) return null;
  return {
    tiles: found.path,
    expansions: found.abstractExpansions + found.regionExpansions + found.refineExpansions,
  };
}

/** HIERARCHICAL planner entry (see the module doc). */
export function planHierarchical(
  ctx: PlanContext,
  task: PlanTask,
  budget: PlanBudget = planBudget(task),
): PlanOutcome {
  const base = planOutcome(task.planner, {});
  const layer = ctx.layer(task.layerKey);
  const table = task.regionKey === undefined
    ? undefined
    : ctx.lookup(task.regionKey) as RegionTable | undefined;
  if (table === undefined) throw new Error(`region table ${task.regionKey} was not shared with this worker`);
  const scratch = scratchFor(ctx);
  const neighborhood: Neighborhood = task.neighborhood === 4 ? 4 : 8;
  const key = graphCacheKey(neighborhood);
  let graph = readyGraph(table, layer, key);
  if (graph === null && task.graphPending !== undefined) {
    // The map builders prepare it (service/mapGraphs.ts): the exact grid search answers meanwhile.
    return gridInstead(ctx, task, budget, task.graphPending);
  }
  if (graph === null) {
    // Prepared here (small maps), resumably, with at most half the budget: the grid search gets the rest.
    const start = performance.now();
    const half = start + (budget.deadline - start) / 2;
    graph = preparedGraph(table, layer, neighborhood, () => budget.stopped() || performance.now() > half);
  }
  if (graph === null) {
    if (budget.cancelled()) {
      base.status = "cancelled";
      return base;
    }
    const why = `abstract graph of class ${table.clearanceClass} is being prepared ` +
      `(${ownProgress(table, key)}% ready); answered by the grid search ` +
      "(PLANNER_SMOOTH: the optimal grid path, smoothed; the next request goes on with the preparation)";
    return gridInstead(ctx, task, budget, why);
  }
  const found = hierarchicalPath(
    graph,
    scratch,
    task.startTile,
    task.goalTile,
    task.unit.boundingRadius,
    budget.limits(),
  );
  base.expansions = found.expansions;
  if (found.status !== "found" || found.points === null || found.tiles === null) {
    base.status = found.status;
    base.message = found.status === "unreachable"
      ? "no path"
      : found.status === "budget"
      ? "search budget exhausted before a path was found"
      : "";
    return base;
  }
  // The path starts at the start pose and (FOUND) ends at the goal point; the smoothing's first and last steps
  // may skip the end tile centres (exactEnds.ts).
  const joined = joinExactEnds(layer, task.unit, found.points, exactEnds(task, !task.nearest), true);
  if (typeof joined === "string") {
    base.status = "no_legal_path";
    base.message = joined;
    base.waypoints = task.wantWaypoints ? found.tiles : null;
    return base;
  }
  const segments: Segment[] = polylineSegments(joined.points);
  base.status = task.nearest ? "nearest" : "found";
  base.segments = segments;
  base.length = segments.reduce((a, s) => a + s.length, 0);
  base.waypoints = task.wantWaypoints ? found.tiles : null;
  return base;
}
