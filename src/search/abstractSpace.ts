/**
 * The abstract graph of a region table as an A* space for one query ({@link AbstractSpace}): entrance nodes
 * plus the query's start and goal, with an octile heuristic raised by the graph's ALT landmark bounds.
 *
 * All costs are the A* core's fixed-point integers, so abstract and grid costs compare exactly.
 *
 * @module
 */

import { regionAt } from "../maps/regions.ts";
import { COST_SCALE, type SearchSpace, type SearchWorkspace, type Successors } from "./astar.ts";
import type { AbstractGraph } from "./abstractGraph.ts";
import { SectorSpace } from "./sectorSpace.ts";

/**
 * The abstract graph as an A* space for one query: states 0..nodeCount-1 are entrance nodes, nodeCount is
 * the start and nodeCount + 1 the goal, linked to the nodes of their regions by in-region distances (and to
 * each other when they share a region). Expanding a node whose region block is missing computes it, unless
 * the cancel flag is set or the preparation budget is spent: then the expansion yields nothing and
 * {@link aborted} is set, which drains the search quickly; callers must check it.
 */
export class AbstractSpace implements SearchSpace {
  /** nodeCount + 2. */
  stateCount = 0;
  /** Region nodes + crossings + the goal. */
  maxSuccessors = 1;
  /** Set when a missing region block could not be computed (cancel or budget); the search result is void. */
  aborted: "" | "cancelled" | "budget" = "";
  /** Grid expansions spent preparing region blocks during this query. */
  prepExpansions = 0;
  private graph: AbstractGraph | null = null;
  private startState = 0;
  private goalState = 0;
  private startTile = 0;
  private goalTile = 0;
  private startRegion = -1;
  private goalRegion = -1;
  /** Distance from the start to each node of its region (local ids), and to the goal if they share it. */
  private startDistance = new Float64Array(0);
  private startToGoal = NaN;
  /** Distance from each node of the goal's region (local ids) to the goal. */
  private goalDistance = new Float64Array(0);
  private goalX = 0;
  private goalY = 0;
  private hStraight = 0;
  private hDiagonal = 0;
  private width = 0;
  private cancel: Int32Array | null = null;
  private prepBudget = Infinity;
  /** Landmarks usable this query (the goal reachable from them), and their distances to the goal. */
  private activeLandmarks = new Int32Array(0);
  private activeCount = 0;
  private landmarkToGoal = new Float64Array(0);
  /**
   * landmarkToGoal less the landmarks' base distances of region {@link baseRegion} (the graph stores each
   * landmark distance as region base + node delta): the heuristic of that region's nodes then reads only the
   * deltas. Successive calls are mostly for one region (a node's successors are its region mates).
   */
  private toGoalLessBase = new Float64Array(0);
  private baseRegion = -1;
  /** Also use the reverse landmark bound (symmetric costs only). */
  private symmetric = false;
  /**
   * True when this query's start and goal links came from the nodes' stored trees (see configure); the
   * refinement then walks those trees instead of the start and goal searches' parents.
   */
  linksFromTrees = false;
  /** Local ids of the in-region search from the start (its workspace is indexed by them). */
  readonly startSector: SectorSpace = new SectorSpace();
  /** Local ids of the in-region search from the goal. */
  readonly goalSector: SectorSpace = new SectorSpace();

  /**
   * Sets up a query from startTile to goalTile (both open, any regions) using `ws` for the in-region search
   * from the start and `goalWs` for the one from the goal (not the workspace the abstract search itself will
   * use; with distinct workspaces both trees stay readable for refinement). Goal links use the distance from
   * the goal, which equals the distance to it on uniform-cost terrain. Returns the grid expansions spent.
   */
  configure(
    graph: AbstractGraph,
    startTile: number,
    goalTile: number,
    ws: SearchWorkspace,
    cancel: Int32Array | null,
    prepBudget: number,
    goalWs: SearchWorkspace = ws,
  ): number {
    this.graph = graph;
    const { table, layer } = graph;
    const n = graph.nodeCount;
    this.stateCount = n + 2;
    this.maxSuccessors = graph.maxRegionNodes + graph.maxCrossings + 1;
    this.startState = n;
    this.goalState = n + 1;
    this.startTile = startTile;
    this.goalTile = goalTile;
    this.startRegion = regionAt(table, startTile);
    this.goalRegion = regionAt(table, goalTile);
    this.width = table.width;
    this.goalX = goalTile % table.width;
    this.goalY = (goalTile - this.goalX) / table.width;
    this.hStraight = Math.floor(layer.minCost * COST_SCALE);
    this.hDiagonal = Math.floor(layer.minCost * Math.SQRT2 * COST_SCALE);
    this.cancel = cancel;
    this.prepBudget = prepBudget;
    this.aborted = "";
    this.prepExpansions = 0;
    if (this.startDistance.length < graph.maxRegionNodes) {
      this.startDistance = new Float64Array(graph.maxRegionNodes);
      this.goalDistance = new Float64Array(graph.maxRegionNodes);
    }
    // On uniform-cost terrain, with both regions prepared and apart, the nodes' stored trees give the start
    // and goal links (distances are symmetric there) without two in-region searches per query.
    this.linksFromTrees = graph.uniformCost && this.startRegion !== this.goalRegion &&
      graph.isPrepared(this.startRegion) && graph.isPrepared(this.goalRegion);
    let spent = 0;
    let i0 = graph.regionNodeStart[this.goalRegion];
    let i1 = graph.regionNodeStart[this.goalRegion + 1];
    if (this.linksFromTrees) {
      for (let i = i0; i < i1; i++) this.goalDistance[i - i0] = graph.treeDistance(i, goalTile);
    } else {
      const sector = this.goalSector;
      spent += graph.searchRegionFrom(goalTile, goalWs, sector);
      for (let i = i0; i < i1; i++) this.goalDistance[i - i0] = goalWs.g[sector.stateOf(graph.nodeTile[i])];
    }
    this.configureLandmarks(i0, i1);
    i0 = graph.regionNodeStart[this.startRegion];
    i1 = graph.regionNodeStart[this.startRegion + 1];
    if (this.linksFromTrees) {
      for (let i = i0; i < i1; i++) this.startDistance[i - i0] = graph.treeDistance(i, startTile);
    } else {
      const sector = this.startSector;
      spent += graph.searchRegionFrom(startTile, ws, sector);
      for (let i = i0; i < i1; i++) this.startDistance[i - i0] = ws.g[sector.stateOf(graph.nodeTile[i])];
    }
    // Same region: the start search ran (no stored-tree links) and its box holds the goal.
    this.startToGoal = this.startRegion === this.goalRegion ? ws.g[this.startSector.stateOf(goalTile)] : NaN;
    return spent;
  }

  /** Landmark distances to the goal through the goal region's nodes i0..i1; drops landmarks that miss it. */
  private configureLandmarks(i0: number, i1: number): void {
    const graph = this.graph!;
    const count = graph.landmarkCount;
    this.activeCount = 0;
    this.symmetric = graph.uniformCost;
    if (count === 0) return;
    this.baseRegion = -1;
    if (this.activeLandmarks.length < count) {
      this.activeLandmarks = new Int32Array(count);
      this.landmarkToGoal = new Float64Array(count);
      this.toGoalLessBase = new Float64Array(count);
    }
    const d = graph.landmarkDistance;
    const base = graph.landmarkBase;
    const regionRow = this.goalRegion * count;
    for (let l = 0; l < count; l++) {
      let best = Infinity;
      for (let i = i0; i < i1; i++) {
        const v = base[regionRow + l] + d[i * count + l] + this.goalDistance[i - i0];
        if (v < best) best = v;
      }
      if (best === Infinity) continue;
      this.activeLandmarks[this.activeCount] = l;
      this.landmarkToGoal[this.activeCount] = best;
      this.activeCount++;
    }
  }

  /** The abstract state of the start. */
  get start(): number {
    return this.startState;
  }

  /** The abstract state of the goal. */
  get goal(): number {
    return this.goalState;
  }

  /** The tile of an abstract state. */
  tileOf(state: number): number {
    if (state === this.startState) return this.startTile;
    if (state === this.goalState) return this.goalTile;
    return this.graph!.nodeTile[state];
  }

  /** Successors: region neighbours, crossings and the goal (see the class doc). */
  expand(state: number, out: Successors, _parent: number): number {
    const graph = this.graph!;
    const ids = out.ids;
    const costs = out.costs;
    let count = 0;
    if (state === this.goalState) return 0;
    if (state === this.startState) {
      const i0 = graph.regionNodeStart[this.startRegion];
      const i1 = graph.regionNodeStart[this.startRegion + 1];
      for (let i = i0; i < i1; i++) {
        ids[count] = i;
        costs[count] = this.startDistance[i - i0];
        count++;
      }
      if (this.startRegion === this.goalRegion) {
        ids[count] = this.goalState;
        costs[count] = this.startToGoal;
        count++;
      }
      return count;
    }
    if (this.aborted !== "") return 0;
    const region = graph.nodeRegion[state];
    if (!graph.isPrepared(region)) {
      if (this.cancel !== null && Atomics.load(this.cancel, 0) !== 0) {
        this.aborted = "cancelled";
        return 0;
      }
      if (this.prepExpansions >= this.prepBudget) {
        this.aborted = "budget";
        return 0;
      }
      this.prepExpansions += graph.prepareRegion(region);
    }
    const i0 = graph.regionNodeStart[region];
    count = graph.writeNeighbours(state, out, count);
    if (region === this.goalRegion) {
      ids[count] = this.goalState;
      costs[count] = this.goalDistance[state - i0];
      count++;
    }
    return count;
  }

  /**
   * Octile distance to the goal tile times the layer's minimum cost, fixed point, rounded down (as GridSpace),
   * raised to the best landmark bound when the graph has landmarks: |d(L, goal) - d(L, node)| (the reverse
   * form only on symmetric costs). A maximum of admissible, consistent bounds is both.
   */
  heuristic(state: number): number {
    const t = this.tileOf(state);
    const w = this.width;
    const y = (t / w) | 0;
    let dx = t - y * w - this.goalX;
    let dy = y - this.goalY;
    if (dx < 0) dx = -dx;
    if (dy < 0) dy = -dy;
    let h = dx < dy
      ? dx * this.hDiagonal + (dy - dx) * this.hStraight
      : dy * this.hDiagonal + (dx - dy) * this.hStraight;
    const active = this.activeCount;
    if (active === 0 || state >= this.startState) return h;
    const graph = this.graph!;
    const count = graph.landmarkCount;
    const d = graph.landmarkDistance;
    const row = state * count;
    const landmarks = this.activeLandmarks;
    const lessBase = this.toGoalLessBase;
    const region = graph.nodeRegion[state];
    if (region !== this.baseRegion) {
      // Integers below 2^53 (or -Infinity for a region a landmark misses): (toGoal - base) - delta is exactly
      // toGoal - (base + delta).
      const base = graph.landmarkBase;
      const toGoal = this.landmarkToGoal;
      const regionRow = region * count;
      for (let a = 0; a < active; a++) lessBase[a] = toGoal[a] - base[regionRow + landmarks[a]];
      this.baseRegion = region;
    }
    for (let a = 0; a < active; a++) {
      const diff = lessBase[a] - d[row + landmarks[a]];
      if (diff > h) h = diff;
      else if (this.symmetric && -diff > h) h = -diff;
    }
    return h;
  }

  /** True for the goal state. */
  isGoal(state: number): boolean {
    return state === this.goalState;
  }
}
