/**
 * Hierarchical (HPA*-style) search: an A* over the region table's abstract graph ({@link AbstractSpace}),
 * then refinement by walking stored in-region shortest-path trees ({@link refineByTrees}; grid A* between
 * consecutive waypoints with `freeWindows`), and optionally a corridor re-search that lets the tile path
 * leave the entrance tiles it was pinned to.
 *
 * Every search runs on the one A* core; the three workspaces are distinct because the abstract search runs
 * in-region searches while it is open (lazy distance blocks).
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import { regionAt } from "../maps/regions.ts";
import {
  astar,
  COST_SCALE,
  newSearchResult,
  reconstructPath,
  type SearchLimits,
  type SearchResult,
  SearchWorkspace,
  Successors,
} from "./astar.ts";
import type { AbstractGraph } from "./abstractGraph.ts";
import { AbstractSpace } from "./abstractSpace.ts";
import { gridPathLength, GridSpace, type Neighborhood } from "./gridSpace.ts";
import { CorridorSpace } from "./restrictedGrid.ts";

/** Reusable state of hierarchical searches (allocate once per worker). */
export class HierarchicalScratch {
  /** Workspace of the abstract search. */
  readonly abstractWorkspace: SearchWorkspace = new SearchWorkspace();
  /** Workspace of the in-region search from the start (its tree links the start to its region's nodes). */
  readonly regionWorkspace: SearchWorkspace = new SearchWorkspace();
  /** Workspace of the in-region search from the goal (its tree links the goal region's nodes to the goal). */
  readonly goalWorkspace: SearchWorkspace = new SearchWorkspace();
  /** Growable tile buffer the tree refinement writes into. */
  pathBuffer: Int32Array = new Int32Array(1024);
  /** Workspace of the refinement searches (tile ids). */
  readonly gridWorkspace: SearchWorkspace;
  /** The grid space of the refinement. */
  readonly grid: GridSpace;
  /** The abstract space, reconfigured per query. */
  readonly abstract: AbstractSpace = new AbstractSpace();
  /** The corridor space of the re-search. */
  readonly corridor: CorridorSpace = new CorridorSpace();
  /** Reused search result. */
  readonly result: SearchResult = newSearchResult();
  /** The grid steps off a closed start tile (see hierarchicalSearch). */
  readonly exits: Successors = new Successors(8);

  /** Uses the given grid workspace and space (e.g. a planning context's), or fresh ones. */
  constructor(gridWorkspace: SearchWorkspace = new SearchWorkspace(), grid: GridSpace = new GridSpace()) {
    this.gridWorkspace = gridWorkspace;
    this.grid = grid;
  }
}

/** Limits of one hierarchical query: all searches share them. */
export interface HierarchicalLimits {
  /** Total grid + abstract expansions allowed (Infinity for none). */
  maxExpansions: number;
  /** performance.now() deadline (Infinity for none). */
  deadline: number;
  /** Cancel flag (element 0 non-zero = stop), or null. */
  cancel: Int32Array | null;
}

/** Outcome of {@link hierarchicalSearch}. */
export interface HierarchicalResult {
  /** How it ended ("budget" covers the deadline too). */
  status: "found" | "unreachable" | "budget" | "cancelled";
  /** Refined tile path from start to goal (found only). */
  path: Int32Array | null;
  /** The abstract path's tiles (start, entrance tiles, goal), found only. */
  abstractTiles: Int32Array | null;
  /** Expansions of the abstract search. */
  abstractExpansions: number;
  /** Grid expansions linking start and goal and preparing missing region blocks. */
  regionExpansions: number;
  /** Grid expansions of the refinement. */
  refineExpansions: number;
}

function fail(
  status: HierarchicalResult["status"],
  abstractExpansions: number,
  regionExpansions: number,
  refineExpansions: number,
): HierarchicalResult {
  return { status, path: null, abstractTiles: null, abstractExpansions, regionExpansions, refineExpansions };
}

/** A* limits for one search of a query that has already spent `spent` expansions of its shared budget. */
function searchLimits(limits: HierarchicalLimits, spent: number): SearchLimits {
  return {
    maxExpansions: Math.max(0, limits.maxExpansions - spent),
    deadline: limits.deadline,
    cancel: limits.cancel,
    trackNearest: false,
  };
}

/**
 * Finds a path from startTile to goalTile over `graph` (open tiles for the graph's clearance class), then
 * refines it between consecutive abstract waypoints: by default by walking the stored in-region trees (no
 * search; each leg's cost equals the abstract edge's, see {@link refineByTrees}), with `freeWindows`
 * by unrestricted grid A* (never longer per leg, but may wander on mazes). Tiles in different components
 * give "unreachable" at once.
 *
 * The start and goal tiles are handled as grid A* (GridSpace) handles them, so both line planners agree on
 * which pairs are joined: the goal must be open (a search only steps onto open tiles), the start need not be
 * (a unit already standing on a tile its class does not open, e.g. the tank by a wall, leaves it by one
 * grid step onto an open neighbour; see {@link searchFromClosedStart}), and start = goal is found at once.
 */
export function hierarchicalSearch(
  graph: AbstractGraph,
  startTile: number,
  goalTile: number,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
  freeWindows = false,
): HierarchicalResult {
  const { table } = graph;
  const tiles = table.width * table.height;
  for (const [field, tile] of [["startTile", startTile], ["goalTile", goalTile]] as const) {
    if (!Number.isInteger(tile) || tile < 0 || tile >= tiles) {
      throw new RangeError(`hierarchicalSearch: ${field} ${tile} is not a tile of the ${tiles}-tile map`);
    }
  }
  if (startTile === goalTile) {
    // As grid A*: the start is the goal, whatever the tile (no step is taken).
    return {
      status: "found",
      path: Int32Array.of(startTile),
      abstractTiles: Int32Array.of(startTile),
      abstractExpansions: 0,
      regionExpansions: 0,
      refineExpansions: 0,
    };
  }
  if (regionAt(table, startTile) < 0 && regionAt(table, goalTile) >= 0) {
    return searchFromClosedStart(graph, startTile, goalTile, scratch, limits, freeWindows);
  }
  return searchFromOpenStart(graph, startTile, goalTile, scratch, limits, freeWindows);
}

/**
 * A start tile closed for the graph's class: grid A* seeds its search there and steps onto the open
 * neighbours its neighbourhood allows (a diagonal needs both orthogonal neighbours open), so the pair is
 * joined iff one of those neighbours is in the goal's component. Each such neighbour is searched from in turn
 * (at most 8, only for closed starts) and the cheapest path, step included, is kept, with the start put
 * before it. Before this, a closed start answered "unreachable" where GRID found a path (issue 11, item 4).
 */
function searchFromClosedStart(
  graph: AbstractGraph,
  startTile: number,
  goalTile: number,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
  freeWindows: boolean,
): HierarchicalResult {
  const { table, layer } = graph;
  const goalComponent = table.regionComponent[regionAt(table, goalTile)];
  const exits = scratch.grid.configure(layer, table.clearanceClass, graph.neighborhood, goalTile);
  const count = exits.expand(startTile, scratch.exits, -1);
  const steps = scratch.exits.ids.slice(0, count);
  const stepCosts = scratch.exits.costs.slice(0, count);
  let best: HierarchicalResult | null = null;
  let bestCost = Infinity;
  let abstractExpansions = 0, regionExpansions = 0, refineExpansions = 0;
  for (let k = 0; k < count; k++) {
    const next = steps[k];
    if (table.regionComponent[regionAt(table, next)] !== goalComponent) continue;
    const spent = abstractExpansions + regionExpansions + refineExpansions;
    const r = searchFromOpenStart(graph, next, goalTile, scratch, {
      ...limits,
      maxExpansions: limits.maxExpansions - spent,
    }, freeWindows);
    abstractExpansions += r.abstractExpansions;
    regionExpansions += r.regionExpansions;
    refineExpansions += r.refineExpansions;
    if (r.status === "cancelled" || r.status === "budget") {
      return fail(r.status, abstractExpansions, regionExpansions, refineExpansions);
    }
    if (r.path === null) continue;
    const cost = stepCosts[k] / COST_SCALE + gridPathLength(layer, r.path, layer.width);
    if (cost < bestCost) {
      bestCost = cost;
      best = r;
    }
  }
  if (best === null) return fail("unreachable", abstractExpansions, regionExpansions, refineExpansions);
  const withStart = (tiles: Int32Array) => {
    const out = new Int32Array(tiles.length + 1);
    out[0] = startTile;
    out.set(tiles, 1);
    return out;
  };
  return {
    status: "found",
    path: withStart(best.path!),
    abstractTiles: withStart(best.abstractTiles!),
    abstractExpansions,
    regionExpansions,
    refineExpansions,
  };
}

/** {@link hierarchicalSearch} from an open start tile, or one that is not and then unreachable. */
function searchFromOpenStart(
  graph: AbstractGraph,
  startTile: number,
  goalTile: number,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
  freeWindows: boolean,
): HierarchicalResult {
  const { table, layer } = graph;
  const startRegion = regionAt(table, startTile);
  const goalRegion = regionAt(table, goalTile);
  if (
    startRegion < 0 || goalRegion < 0 ||
    table.regionComponent[startRegion] !== table.regionComponent[goalRegion]
  ) {
    return fail("unreachable", 0, 0, 0);
  }
  const { cancel, deadline } = limits;
  const space = scratch.abstract;
  let regionExpansions = space.configure(
    graph,
    startTile,
    goalTile,
    scratch.regionWorkspace,
    cancel,
    limits.maxExpansions,
    scratch.goalWorkspace,
  );
  const r = astar(
    space,
    scratch.abstractWorkspace,
    [space.start],
    searchLimits(limits, regionExpansions),
    scratch.result,
  );
  regionExpansions += space.prepExpansions;
  const abstractExpansions = r.expansions;
  if (r.status === "cancelled" || space.aborted === "cancelled") {
    return fail("cancelled", abstractExpansions, regionExpansions, 0);
  }
  if (r.status === "budget" || r.status === "deadline" || space.aborted === "budget") {
    return fail("budget", abstractExpansions, regionExpansions, 0);
  }
  if (r.status !== "found") return fail("unreachable", abstractExpansions, regionExpansions, 0);

  const states = reconstructPath(scratch.abstractWorkspace, r.goal);
  const abstractTiles = new Int32Array(states.length);
  for (let i = 0; i < states.length; i++) abstractTiles[i] = space.tileOf(states[i]);

  const refineLimits = {
    maxExpansions: limits.maxExpansions - regionExpansions - abstractExpansions,
    deadline,
    cancel,
  };
  const refined = freeWindows
    ? refineWaypoints(layer, table.clearanceClass, graph.neighborhood, abstractTiles, scratch, refineLimits)
    : refineByTrees(graph, states, scratch);
  if (refined.path === null) {
    return fail(refined.status, abstractExpansions, regionExpansions, refined.expansions);
  }
  return {
    status: "found",
    path: refined.path,
    abstractTiles,
    abstractExpansions,
    regionExpansions,
    refineExpansions: refined.expansions,
  };
}

/** A refinement outcome: the tile path (null unless found) and the expansions spent. */
export interface Refinement {
  /** "found", or why not. */
  status: "found" | "unreachable" | "budget" | "cancelled";
  /** Tile path through every waypoint, or null. */
  path: Int32Array | null;
  /** Grid expansions. */
  expansions: number;
}

/** Result kind of an A* status for refinement. */
function failure(status: SearchResult["status"]): Refinement["status"] {
  return status === "cancelled" ? "cancelled" : status === "exhausted" ? "unreachable" : "budget";
}

/**
 * Refines an abstract path (start, entrance tiles, goal): crossing steps are taken as they are; every other
 * leg joins two tiles of one region and is searched inside that region.
 */
export function refineInRegions(
  graph: AbstractGraph,
  waypoints: Int32Array,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
): Refinement {
  const ws = scratch.gridWorkspace;
  const table = graph.table;
  const width = table.width;
  return refineLegs(waypoints, scratch, limits, (a, b, legLimits) => {
    const d = a > b ? a - b : b - a;
    // An entrance crossing: one straight step.
    if (regionAt(table, a) !== regionAt(table, b) && (d === 1 || d === width)) return null;
    return graph.searchInRegion(a, b, ws, legLimits, scratch.result);
  });
}

/**
 * Refines waypoint by waypoint (repeats skipped): `searchLeg` searches the leg from a to b in
 * scratch.gridWorkspace under the given limits, or returns null for a leg taken as one step; the pieces are
 * joined into one tile path. Legs share the query's expansion budget.
 */
function refineLegs(
  waypoints: Int32Array,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
  searchLeg: (a: number, b: number, legLimits: SearchLimits) => SearchResult | null,
): Refinement {
  const ws = scratch.gridWorkspace;
  const pieces: Int32Array[] = [];
  let total = 1;
  let expansions = 0;
  for (let i = 0; i + 1 < waypoints.length; i++) {
    const a = waypoints[i], b = waypoints[i + 1];
    if (a === b) continue;
    const r = searchLeg(a, b, searchLimits(limits, expansions));
    if (r === null) {
      pieces.push(Int32Array.of(a, b));
      total++;
      continue;
    }
    expansions += r.expansions;
    if (r.status !== "found") return { status: failure(r.status), path: null, expansions };
    const piece = reconstructPath(ws, r.goal);
    pieces.push(piece);
    total += piece.length - 1;
  }
  return { status: "found", path: concatenate(waypoints[0], pieces, total), expansions };
}

/** Makes room for `extra` more tiles after index `at` in the scratch path buffer; returns the buffer. */
function reserve(scratch: HierarchicalScratch, at: number, extra: number): Int32Array {
  if (at + extra > scratch.pathBuffer.length) {
    const grown = new Int32Array(Math.max(at + extra, scratch.pathBuffer.length * 2));
    grown.set(scratch.pathBuffer.subarray(0, at));
    scratch.pathBuffer = grown;
  }
  return scratch.pathBuffer;
}

/**
 * Refines an abstract path (states of the latest {@link hierarchicalSearch}'s AbstractSpace: start, nodes,
 * goal) without searching: the first leg walks the start's in-region tree (scratch.regionWorkspace), each
 * in-region leg the graph's stored tree of its first node, the last leg the goal's tree (scratch.goalWorkspace,
 * walked from the node toward the goal), crossings are one step. Every leg is exactly as long as the
 * abstract edge it refines, so the tile path costs what the abstract search found.
 */
export function refineByTrees(
  graph: AbstractGraph,
  states: Int32Array,
  scratch: HierarchicalScratch,
): Refinement {
  const space = scratch.abstract;
  const nodeCount = graph.nodeCount;
  const maxLeg = graph.table.sectorSize * graph.table.sectorSize + 1;
  const first = space.tileOf(states[0]);
  let out = reserve(scratch, 0, 1);
  out[0] = first;
  let at = 1;
  for (let i = 0; i + 1 < states.length; i++) {
    const a = states[i], b = states[i + 1];
    out = reserve(scratch, at, maxLeg);
    if (a >= nodeCount && space.linksFromTrees) {
      // From the start to node b: node b's tree walked back from the start (symmetric terrain), start left out.
      const from = at;
      at = graph.writeTreeWalk(b, first, out, at);
      // The walk wrote the start first and ends next to node b: drop the start, add node b.
      out.copyWithin(from, from + 1, at);
      out[at - 1] = graph.nodeTile[b];
    } else if (b >= nodeCount && space.linksFromTrees) {
      // From node a to the goal: node a's tree walked back from the goal, reversed.
      const from = at;
      at = graph.writeTreeWalk(a, space.tileOf(b), out, at);
      out.subarray(from, at).reverse();
    } else if (a >= nodeCount) {
      // From the start: the start tree's parents lead back to the start; write them reversed.
      // The start search ran over the start region's local ids (AbstractSpace.startSector).
      const parent = scratch.regionWorkspace.parent;
      const sector = space.startSector;
      const from = at;
      for (let t = space.tileOf(b); t !== first;) {
        // Regions are connected, so every node of the start's region is on its tree; guard anyway.
        if (t < 0 || at - from >= maxLeg) throw new RangeError("refineByTrees: node off the start tree");
        out[at++] = t;
        const p = parent[sector.stateOf(t)];
        t = p < 0 ? -1 : sector.tileOf(p);
      }
      out.subarray(from, at).reverse();
    } else if (b >= nodeCount) {
      // To the goal: the goal tree's parents lead from the node to the goal in walking order.
      const parent = scratch.goalWorkspace.parent;
      const sector = space.goalSector;
      for (let l = sector.stateOf(graph.nodeTile[a]); parent[l] !== -1; l = parent[l]) {
        out[at++] = sector.tileOf(parent[l]);
      }
    } else if (graph.nodeRegion[a] === graph.nodeRegion[b]) {
      at = graph.writeRegionPath(a, b, out, at);
    } else {
      out[at++] = graph.nodeTile[b];
    }
  }
  return { status: "found", path: out.slice(0, at), expansions: 0 };
}

/** Joins path pieces that each start where the previous one ended. */
function concatenate(first: number, pieces: Int32Array[], total: number): Int32Array {
  const path = new Int32Array(total);
  path[0] = first;
  let at = 1;
  for (const piece of pieces) {
    path.set(piece.subarray(1), at);
    at += piece.length - 1;
  }
  return path;
}

/**
 * Grid A* between each pair of consecutive waypoints (tile ids), concatenated into one tile path. Adjacent
 * waypoints (entrance crossings) cost one expansion.
 */
export function refineWaypoints(
  layer: PassLayer,
  clearance: number,
  neighborhood: Neighborhood,
  waypoints: Int32Array,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
): Refinement {
  const ws = scratch.gridWorkspace;
  return refineLegs(waypoints, scratch, limits, (a, b, legLimits) => {
    const space = scratch.grid.configure(layer, clearance, neighborhood, b);
    return astar(space, ws, [a], legLimits, scratch.result);
  });
}

/**
 * Re-searches inside a corridor of `radius` tiles around `path` (a found tile path); returns the optimal
 * tile path inside the corridor (never longer than `path`), or null if a limit stopped it.
 */
export function corridorSearch(
  layer: PassLayer,
  clearance: number,
  neighborhood: Neighborhood,
  path: Int32Array,
  radius: number,
  scratch: HierarchicalScratch,
  limits: HierarchicalLimits,
): Refinement {
  const space = scratch.corridor.configure(layer, clearance, neighborhood, path, radius);
  // Nothing spent yet; clamping a negative budget to 0 stops A* at the same first check.
  const r = astar(space, scratch.gridWorkspace, [path[0]], searchLimits(limits, 0), scratch.result);
  if (r.status === "found") {
    return {
      status: "found",
      path: reconstructPath(scratch.gridWorkspace, r.goal),
      expansions: r.expansions,
    };
  }
  return { status: failure(r.status), path: null, expansions: r.expansions };
}
