/**
 * What the service asks a worker to plan, and what comes back. Plain data: it crosses the worker boundary by
 * structured clone; maps travel separately, once, as shared memory keyed by `layerKey`.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { UnitSpec } from "../units/unit.ts";
import { clearanceClass } from "../maps/layer.ts";
import type { PathCost } from "../motion/pathCost.ts";

/** Planners the worker runs (the service resolves AUTO before). */
export type PlannerName = "grid" | "smooth" | "curved" | "directional" | "hybrid" | "hierarchical";

/** A planning job. */
export interface PlanTask {
  /** Which planner. */
  planner: PlannerName;
  /** Key of the shared PassLayer in the worker. */
  layerKey: string;
  /** Key of the shared RegionTable for `clearance` (for hierarchical search), if any. */
  regionKey?: string;
  /** Start tile index (the start pose snapped). */
  startTile: number;
  /** Target tile index (the goal, or the nearest reachable tile when `nearest`). */
  goalTile: number;
  /** Exact start pose. */
  start: Pose;
  /** Exact goal position and optional heading. */
  goal: { x: number; y: number; heading?: number; tolerance: number; headingTolerance: number };
  /** Grid clearance class the unit needs (tiles open iff clearance >= this). */
  clearance: number;
  /**
   * For the curve planners' guiding grid searches, when set: the footprint's over-approximating class (every
   * tile a legal pose's center can lie in is open; the service sets it when tile centers at `clearance` do not
   * join start and goal). Guidance only: every segment is still checked with the exact swept footprint.
   */
  guideClearance?: number;
  /** The unit. */
  unit: UnitSpec;
  /** Grid neighbourhood 4 or 8, directional 8, 24 or 48. */
  neighborhood: number;
  /** Expansion budget. */
  maxExpansions: number;
  /** Time budget in milliseconds (measured in the worker). */
  maxMillis: number;
  /** The target is the nearest reachable tile, not the goal (status NEAREST when reached). */
  nearest: boolean;
  /** Include grid waypoints in the result. */
  wantWaypoints: boolean;
  /** Request options that change geometry (approximations, roads). */
  options: {
    ignoreObstaclesInCurves: boolean;
    tighterTurns: boolean;
    allowBackingUp: boolean;
    keepToRoads: boolean;
  };
  /**
   * Run only the planner's bounded fast lane (the service's inline lane, on the service's own thread): for
   * PLANNER_HYBRID its direct curves and the curve fit along the 8-connected route with at most
   * INLINE_FIT_CHECKS curve checks (src/planning/hybrid.ts). When those do not settle the query the outcome is
   * status "budget" and the service gives the task to the pool, where the same steps come first, so the answer
   * does not depend on which ran it.
   */
  fastLaneOnly?: boolean;
  /**
   * PLANNER_HYBRID runs only its direct curves and curve fits (step 0, as in the pool: both grid routes, the
   * full check bound) and answers status "budget" when they do not settle the query, before any directional
   * search. What it finds is what the whole hybrid returns. A stream's drivable first answer (service/streamFirst.ts).
   */
  fitOnly?: boolean;
  /**
   * PLANNER_DIRECTIONAL on a long query: stop the corridor refinement after this many windows and return the
   * legal prefix planned so far (`PlanOutcome.partial`). A stream's first drivable part (service/pathStream.ts).
   */
  maxCorridorWindows?: number;
  /**
   * PLANNER_HIERARCHICAL while the map builders prepare the table's abstract graph (service/mapGraphs.ts): unless
   * this worker already holds the prepared graph, the grid search answers, its message starting with this note.
   */
  graphPending?: string;
  /**
   * While the map builders build the layer's jump tables (service/mapJumps.ts): an 8-connected grid search here
   * that does not hold them yet runs plain A* over the tiles (same optimal length) instead of building them; GRID's
   * answer then carries this note.
   */
  jumpsPending?: string;
  /**
   * PLANNER_AUTO's portfolio (src/planning/auto.ts), with `planner` "hybrid": when the hybrid's answer is not
   * provably good enough, Directional-24 (then 48) also runs and the cheapest answer by pathCost is returned
   * (`PlanOutcome.planner` says whose). The service sets it when AUTO resolves to the hybrid for a turning unit;
   * PLANNER_HYBRID asked for by name runs alone.
   */
  portfolio?: boolean;
  /** Test hook: crash the worker. */
  debugCrash?: boolean;
}

/** Outcome statuses of a planning job. */
export type PlanStatusName =
  | "found"
  | "nearest"
  | "unreachable"
  | "budget"
  | "no_legal_path"
  | "cancelled"
  | "deadline";

/** What a worker returns. */
export interface PlanOutcome {
  /** Outcome. */
  status: PlanStatusName;
  /** The path. */
  segments: Segment[];
  /** Length (for grid: the exact A* cost). */
  length: number;
  /** Grid waypoints as tile indices, or null. */
  waypoints: Int32Array | null;
  /** Total seconds (0 without speed limits). */
  duration: number;
  /** Expansions of all searches. */
  expansions: number;
  /** Microseconds searching. */
  searchMicros: number;
  /** The planner actually used. */
  planner: PlannerName;
  /** A note for the client. */
  message: string;
  /**
   * The unit's cost of `segments` by the one cost model (motion/pathCost.ts, docs/cost.md), on the unit's own
   * terrain layer. Planners leave it unset: {@link runPlanTask} in plan.ts prices every outcome; an outcome
   * without it (no path) costs 0.
   */
  cost?: PathCost;
  /**
   * The path is a legal prefix that stops on the way to the goal (PlanTask.maxCorridorWindows was reached);
   * the wire status is PLAN_STATUS_PARTIAL.
   */
  partial?: boolean;
}

/** The cost of no path. */
export const NO_COST: Readonly<PathCost> = Object.freeze({
  total: 0,
  terrain: 0,
  reverseExtra: 0,
  reverseLength: 0,
  cusps: 0,
  turning: 0,
});

/** An outcome with defaults (found, empty path, zero figures) overridden by `partial`. */
export function planOutcome(planner: PlannerName, partial: Partial<PlanOutcome>): PlanOutcome {
  return {
    status: "found",
    segments: [],
    length: 0,
    waypoints: null,
    duration: 0,
    expansions: 0,
    searchMicros: 0,
    planner,
    message: "",
    ...partial,
  };
}

/** What {@link planTask} needs; everything else takes a default. */
export interface PlanTaskSpec {
  /** Which planner. */
  planner: PlannerName;
  /** Key of the shared PassLayer. */
  layerKey: string;
  /** Width of the map in tiles (to number the start and goal tiles). */
  width: number;
  /** The unit. */
  unit: UnitSpec;
  /** Exact start pose. */
  start: Pose;
  /** Goal position, optional heading and tolerances (defaults 0.5 tiles and 0.2 rad). */
  goal: { x: number; y: number; heading?: number; tolerance?: number; headingTolerance?: number };
}

/** The neighbourhood a planner uses unless the request sets one. */
export function defaultNeighborhood(planner: PlannerName): number {
  if (planner === "directional" || planner === "hybrid") return 24;
  return planner === "curved" ? 4 : 8;
}

/**
 * A task with defaults (the planner's default neighbourhood, the unit's clearance class, 200000 expansions,
 * 20 s, waypoints, no options) overridden by `extra`: the one way tests, bench, warm-up and the render tool
 * build tasks outside the service.
 */
export function planTask(spec: PlanTaskSpec, extra: Partial<PlanTask> = {}): PlanTask {
  const { start, goal, width, unit } = spec;
  return {
    planner: spec.planner,
    layerKey: spec.layerKey,
    startTile: Math.floor(start.y) * width + Math.floor(start.x),
    goalTile: Math.floor(goal.y) * width + Math.floor(goal.x),
    start,
    goal: {
      x: goal.x,
      y: goal.y,
      heading: goal.heading,
      tolerance: goal.tolerance ?? 0.5,
      headingTolerance: goal.headingTolerance ?? 0.2,
    },
    clearance: clearanceClass(unit.boundingRadius),
    unit,
    neighborhood: defaultNeighborhood(spec.planner),
    maxExpansions: 200000,
    maxMillis: 20000,
    nearest: false,
    wantWaypoints: true,
    options: {
      ignoreObstaclesInCurves: false,
      tighterTurns: false,
      allowBackingUp: false,
      keepToRoads: false,
    },
    ...extra,
  };
}
