/**
 * What one directional search is asked: the map, the profile's tables, the window, the unit's curves and
 * penalties, the start pose and the goal. Shared by the parts of the directional search space (window raster,
 * transition costs, heuristic, endpoints) so that none of them depends on the space itself.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { TileRect } from "../maps/layer.ts";
import type { Footprint } from "../units/footprint.ts";
import type { DirectionalNeighborhood } from "./directionTable.ts";
import type { LazyGridBound } from "./directionalBound.ts";
import type { HeuristicTable } from "./heuristicTable.ts";
import type { HitCheckTable } from "./hitCheckTable.ts";

/** The goal of a directional search. */
export interface DirectionalGoal {
  /** Goal point x (tiles). */
  x: number;
  /** Goal point y (tiles). */
  y: number;
  /** Required final heading, if any. */
  heading?: number;
  /** Accepted distance from the goal point for tile-center nodes. */
  tolerance: number;
  /** Accepted heading error (when a heading is given). */
  headingTolerance: number;
}

/** Everything a directional search needs. */
export interface DirectionalSetup {
  /** The map layer. */
  layer: PassLayer;
  /** Hit-check table of the unit's profile. */
  hit: HitCheckTable;
  /** Heuristic table of the unit's profile. */
  heur: HeuristicTable;
  /** The window the search may use (half-open, inside the map). */
  window: TileRect;
  /** Only road tiles are open. */
  roadsOnly: boolean;
  /** Footprint (for the on-the-fly start and analytic curves). */
  footprint: Footprint;
  /** Turning radius of the curves. */
  turningRadius: number;
  /** Reverse motion allowed (Reeds-Shepp curves). */
  reverse: boolean;
  /** Cost multiplier of reverse distance (>= 1). */
  reversePenalty: number;
  /** Cost per radian turned. */
  turnPenalty: number;
  /** Cost per change of direction. */
  cuspPenalty: number;
  /** The exact start pose. */
  start: Pose;
  /** The goal. */
  goal: DirectionalGoal;
  /**
   * Optional obstacle-aware lower bound per map tile (fixed point; Infinity = goal unreachable from there,
   * negative = unknown).
   */
  gridBound: Float64Array | null;
  /**
   * Optional lazy grid bound (src/search/directionalBound.ts), used instead of {@link gridBound}: computed
   * only for the tiles the search touches.
   */
  lazyBound?: LazyGridBound | null;
  /** Analytic expansion every this many expansions (0: never). */
  analyticInterval: number;
  /**
   * Optional per-map-tile mask: node states only on tiles marked 1 (the pre-smoothing pass keeps nodes on the
   * grid path; sweeps may still cross any open tile).
   */
  nodeMask?: Uint8Array | null;
  /**
   * Optional per-map-tile index on a grid path (-1 off the path), for the pre-smoothing pass: a node more than
   * {@link PRESMOOTH_BACKTRACK} points behind the farthest point reached is not expanded (the article's
   * "searches back six or more points: fail"), and the farthest node is recorded as the failure point.
   */
  pathIndex?: Int32Array | null;
  /**
   * When set, {@link nodeMask} and {@link pathIndex} cover only this rectangle (row-major over its width), not
   * the whole map: tiles outside it are off the mask (the pre-smoothing pass sizes them to its corridor, so a
   * worker's scratch follows the path, not the map).
   */
  maskWindow?: TileRect | null;
  /** See {@link DirectionalRequest.heuristicWeight}. */
  heuristicWeight?: number;
  /** See {@link DirectionalRequest.geodesic}. */
  geodesic?: boolean;
}

/** The pre-smoothing pass gives up on nodes this many path points behind the farthest one reached. */
export const PRESMOOTH_BACKTRACK = 6;

/** What src/planning/directional.ts's directionalSearch runs. */
export interface DirectionalRequest {
  /** Exact start pose. */
  start: Pose;
  /** Goal. */
  goal: DirectionalGoal;
  /** Neighbourhood. */
  neighborhood: DirectionalNeighborhood;
  /** Search window (default: around start and goal). */
  window?: TileRect;
  /**
   * Look only for paths cheaper than this cost (pathCost units; AUTO's portfolio passes its best answer's):
   * "no_legal_path" then means none cheaper exists (the window covers every tile such a path can reach, else
   * it grows as without a cap, and a search the window cut off answers "budget" saying so).
   */
  maxCost?: number;
  /** Only road tiles are open. */
  roadsOnly: boolean;
  /** Reverse allowed. */
  reverse: boolean;
  /** Expansions for this search (the task's budget gives the deadline and cancel flag). */
  maxExpansions: number;
  /** Analytic expansion interval (0: never). */
  analyticInterval?: number;
  /** Node states only on map tiles marked 1 (pre-smoothing along a grid path). */
  nodeMask?: Uint8Array | null;
  /** Pre-smoothing: path index per map tile (see DirectionalSetup.pathIndex); failure returns "partial". */
  pathIndex?: Int32Array | null;
  /** The rectangle {@link nodeMask} and {@link pathIndex} cover (see DirectionalSetup.maskWindow). */
  maskWindow?: TileRect | null;
  /**
   * Weight on the heuristic of node states (default 1: optimal within the window). Above 1 the search is
   * weighted A* (cost at most the weight times the window's optimum, usually far less): corridor refinement
   * uses it, whose answer is not optimal anyway, to expand a few states per tile instead of thousands.
   */
  heuristicWeight?: number;
  /**
   * Use the geodesic bound in windows small enough for it (default true). Its setup reads the whole window and
   * builds a visibility graph (milliseconds per window): a weighted search that expands a few states per tile
   * does not earn that back.
   */
  geodesic?: boolean;
}

/** What src/planning/directional.ts's directionalSearch returns. */
export interface DirectionalRun {
  /** "found", "budget" (partial path to the state nearest the goal), "cancelled", "unreachable" or "no_legal_path". */
  status: "found" | "budget" | "cancelled" | "unreachable" | "no_legal_path" | "partial";
  /** Chained segments. */
  segments: Segment[];
  /** Map tiles of the node states visited (start tile first). */
  tiles: number[];
  /** Expansions. */
  expansions: number;
  /** Tables' source and load/build milliseconds. */
  tables: { source: string; millis: number; key: string };
  /** A note. */
  message: string;
}
