/**
 * The requests the service takes, as domain values: the server decodes the wire into these (field checks that
 * need no map), the service checks what needs the map and runs them. No proto field names here.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import type { PlannerName } from "../planning/task.ts";
import type { UnitSpec } from "../units/unit.ts";
import { headingValue, invalid } from "./errors.ts";
import type { GridInput, TileEditSpec } from "./mapStore.ts";

/** A map and one of its versions ("" for the latest). */
export interface MapRef {
  /** The map's id (non-empty). */
  id: string;
  /** A version, or "" for the latest. */
  version: string;
}

/**
 * The planner a request asks for: a named one, the service's choice ("auto"), or a stream's fast first answer
 * ("fast": grid search, or hierarchical for long queries; never on the wire).
 */
export type PlannerChoice = PlannerName | "auto" | "fast";

/** Where a plan should end. */
export interface GoalSpec {
  /** Goal position, tiles. */
  x: number;
  y: number;
  /** Required heading, radians; undefined when any heading will do. */
  heading: number | undefined;
  /** Position tolerance, tiles (0 on the wire is the contract's default, already applied). */
  tolerance: number;
  /** Heading tolerance, radians (default applied). */
  headingTolerance: number;
}

/** How a plan is searched and what it returns. */
export interface PlanOptions {
  /** Neighbourhood size; 0 for the chosen planner's default (the allowed values depend on the planner). */
  neighborhood: number;
  /** Expansion budget; 0 for the service's limit (it is capped at that limit). */
  maxExpansions: number;
  /** Time budget, milliseconds; 0 for the service's limit (capped likewise). */
  maxMillis: number;
  /** An unreachable goal is answered with a path to the nearest reachable tile instead. */
  nearestFallback: boolean;
  /** Planner switches (see the proto's PlanOptions). */
  ignoreObstaclesInCurves: boolean;
  tighterTurns: boolean;
  allowBackingUp: boolean;
  keepToRoads: boolean;
  /** The answer lists the grid waypoints. */
  wantWaypoints: boolean;
}

/** A plan request: every field checked that can be checked without the map. */
export interface PlanRequest {
  /** The map (and version) to plan on. */
  map: MapRef;
  /** The unit. */
  unit: UnitSpec;
  /** Start pose (finite, heading within range). */
  start: Pose;
  /** The goal. */
  goal: GoalSpec;
  /** Which planner. */
  planner: PlannerChoice;
  /** Search options. */
  options: PlanOptions;
  /** Test hook: the worker crashes (honoured only by a service created with test hooks). */
  debugCrash?: boolean;
  /**
   * Internal (streams, never from the wire): PLANNER_DIRECTIONAL stops a long query's corridor refinement after
   * this many windows and answers the legal prefix (PlanTask.maxCorridorWindows).
   */
  maxCorridorWindows?: number;
  /**
   * Internal (streams, never from the wire): PLANNER_HYBRID runs only its direct curves and curve fits and
   * answers status "budget" when they do not settle the query (PlanTask.fitOnly). A turning unit's drivable
   * first answer.
   */
  fitOnly?: boolean;
}

/**
 * A start pose from reported numbers: finite x and y, a heading within range (absent is 0); else INVALID_ARGUMENT
 * naming `field` (e.g. "start.x"). Used for a plan's start and for a stream unit's reported pose when a replan
 * starts there.
 */
export function checkedStart(field: string, p: { x?: unknown; y?: unknown; heading?: unknown }): Pose {
  return {
    x: finiteValue(`${field}.x`, p.x),
    y: finiteValue(`${field}.y`, p.y),
    heading: headingValue(`${field}.heading`, p.heading ?? 0),
  };
}

/** A finite number, else INVALID_ARGUMENT naming `field`. */
export function finiteValue(field: string, v: unknown): number {
  const x = typeof v === "number" ? v : Number.NaN;
  if (!Number.isFinite(x)) throw invalid(field, v, "must be a finite number");
  return x;
}

/** A map upload. */
export interface PutMapRequest {
  /** The map's id (checked). */
  id: string;
  /** The grid, as text or raw tiles. */
  grid: GridInput;
  /** Terrain costs by tile code (the store checks them against the grid). */
  terrain: TerrainEntry[];
  /** Kept in memory only. */
  ephemeral: boolean;
  /** Build the search tables on every worker before answering. */
  prepare: boolean;
}

/** Tile edits on a map version. */
export interface PatchMapRequest {
  /** The map, and the version the edits apply to ("" for the latest). */
  map: MapRef;
  /** The edits (at least one, codes checked; rectangles are checked against the map by the store). */
  edits: TileEditSpec[];
}

/** A single curve between two poses. */
export interface CurveRequest {
  /** Start and goal poses (finite). */
  start: Pose;
  goal: Pose;
  /** Turning radius, > 0 and not too small for the poses' scale. */
  turningRadius: number;
  /** Reeds-Shepp (reverse allowed) instead of Dubins. */
  allowReverse: boolean;
  /** The article's arc-then-line to the goal position, any final heading. */
  ignoreGoalHeading: boolean;
}

/** What a stream unit reports about its progress along its path. */
export interface ProgressReport {
  /** Its pose (numbers as reported, not yet checked), or null. */
  pose: Pose | null;
  /** Its distance along the current path; only values > 0 count. */
  distance: number;
}

/**
 * A stream's client message. Messages that fail their field checks are kept as errors: what a bad message does
 * depends on where in the stream it comes (a bad first plan ends the stream; a bad goal later is reported).
 */
export type StreamMessage =
  | { kind: "plan"; request: PlanRequest }
  | { kind: "badPlan"; error: Error }
  | { kind: "progress"; progress: ProgressReport }
  | { kind: "goal"; goal: GoalSpec }
  | { kind: "badGoal"; error: Error }
  | { kind: "empty" };
