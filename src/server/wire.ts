/**
 * Wire encoding: domain values to the wire shapes (proto field names, as @grpc/proto-loader gives them with
 * keepCase), and the one table of wire planner names (decoding reads it backwards).
 *
 * @module
 */
import type { FleetUpdateOut } from "../service/fleetSession.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { CurvePath } from "../geometry/segment.ts";
import type { MapVersion } from "../service/mapStore.ts";
import { reportedTerrain } from "../service/mapStore.ts";
import { displayId } from "../service/mapKeys.ts";
import type { PlanResult } from "../service/planService.ts";
import type { StreamUpdate } from "../service/pathStream.ts";
import type { UnitSpec } from "../units/unit.ts";
import { NO_COST, type PlannerName, type PlanOutcome, type PlanStatusName } from "../planning/task.ts";
import { type PathCost, pathCost } from "../motion/pathCost.ts";

/** A Segment on the wire. */
export interface WireSegment {
  kind: "SEGMENT_KIND_LINE" | "SEGMENT_KIND_ARC";
  start: Pose;
  end: Pose;
  length: number;
  curvature: number;
  direction: number;
  start_speed: number;
  end_speed: number;
  duration: number;
  center_x: number;
  center_y: number;
  radius: number;
  sweep: number;
  touches_blocked: boolean;
  tightened: boolean;
}

/** Converts a segment to its wire shape (arc center, radius and sweep filled in). */
export function segmentToWire(s: Segment): WireSegment {
  const arc = s.curvature !== 0;
  const radius = arc ? 1 / Math.abs(s.curvature) : 0;
  // The center is on the left of the heading for positive curvature, whatever the direction of travel.
  const cx = arc ? s.start.x - Math.sin(s.start.heading) / s.curvature : 0;
  const cy = arc ? s.start.y + Math.cos(s.start.heading) / s.curvature : 0;
  return {
    kind: arc ? "SEGMENT_KIND_ARC" : "SEGMENT_KIND_LINE",
    start: { ...s.start },
    end: { ...s.end },
    length: s.length,
    curvature: s.curvature,
    direction: s.direction,
    start_speed: s.startSpeed ?? 0,
    end_speed: s.endSpeed ?? 0,
    duration: s.duration ?? 0,
    center_x: cx,
    center_y: cy,
    radius,
    sweep: arc ? s.direction * s.curvature * s.length : 0,
    touches_blocked: !!s.touchesBlocked,
    tightened: !!s.tightened,
  };
}

/** Wire names of the planners: the one table (PLANNER_AUTO is the request's "auto", never an answer's). */
export const PLANNER_WIRE: Record<PlannerName, string> = {
  grid: "PLANNER_GRID",
  smooth: "PLANNER_SMOOTH",
  curved: "PLANNER_CURVED",
  directional: "PLANNER_DIRECTIONAL",
  hybrid: "PLANNER_HYBRID",
  hierarchical: "PLANNER_HIERARCHICAL",
};

/** Wire names of plan statuses. */
export const STATUS_WIRE: Record<Exclude<PlanStatusName, "cancelled" | "deadline">, string> = {
  found: "PLAN_STATUS_FOUND",
  nearest: "PLAN_STATUS_NEAREST",
  unreachable: "PLAN_STATUS_UNREACHABLE",
  budget: "PLAN_STATUS_BUDGET_EXHAUSTED",
  no_legal_path: "PLAN_STATUS_NO_LEGAL_PATH",
};

/** A CostBreakdown on the wire. */
export interface WireCostBreakdown {
  terrain: number;
  reverse_extra: number;
  reverse_length: number;
  cusps: number;
  turning: number;
}

/** A path's cost parts in their wire shape (the total goes in the response's `cost`). */
export function costToWire(c: PathCost): WireCostBreakdown {
  return {
    terrain: c.terrain,
    reverse_extra: c.reverseExtra,
    reverse_length: c.reverseLength,
    cusps: c.cusps,
    turning: c.turning,
  };
}

/** A PlanResponse on the wire. */
export interface WirePlanResponse {
  status: string;
  segments: WireSegment[];
  length: number;
  waypoints: { x: number; y: number }[];
  duration: number;
  map_version: string;
  stats: {
    expansions: number;
    search_micros: number;
    planner: string;
    queue_micros: number;
    total_micros: number;
    from_region_table: boolean;
  };
  message: string;
  cost: number;
  cost_breakdown: WireCostBreakdown;
}

/** Builds the wire response of a plan outcome. */
export function planToWire(
  out: PlanOutcome,
  mapVersion: string,
  width: number,
  extra: { queueMicros: number; totalMicros: number; fromRegionTable: boolean },
): WirePlanResponse {
  const waypoints: { x: number; y: number }[] = [];
  if (out.waypoints) {
    for (const t of out.waypoints) waypoints.push({ x: t % width, y: Math.floor(t / width) });
  }
  return {
    // A stream's first drivable part (PlanOutcome.partial): the rest follows in a later update.
    status: out.partial ? "PLAN_STATUS_PARTIAL" : STATUS_WIRE[out.status as keyof typeof STATUS_WIRE],
    segments: out.segments.map(segmentToWire),
    length: out.length,
    waypoints,
    duration: out.duration,
    map_version: mapVersion,
    stats: {
      expansions: out.expansions,
      search_micros: out.searchMicros,
      planner: PLANNER_WIRE[out.planner],
      queue_micros: extra.queueMicros,
      total_micros: extra.totalMicros,
      from_region_table: extra.fromRegionTable,
    },
    message: out.message,
    cost: (out.cost ?? NO_COST).total,
    cost_breakdown: costToWire(out.cost ?? NO_COST),
  };
}

/** A resolved unit as a wire UnitProfile: every field set, explicit zeros and false included. */
export function unitToWire(u: UnitSpec): WireUnit {
  // Plans of one unit spec (the decoded default is one object) share its wire shape: it is only read.
  if (u === lastUnit) return lastUnitWire!;
  const wire = unitWire(u);
  lastUnit = u;
  lastUnitWire = wire;
  return wire;
}

/** A UnitProfile on the wire. */
export type WireUnit = ReturnType<typeof unitWire>;

let lastUnit: UnitSpec | null = null;
let lastUnitWire: WireUnit | null = null;

function unitWire(u: UnitSpec) {
  return {
    name: u.name,
    radius: u.footprint.radius,
    width: u.footprint.width,
    length: u.footprint.length,
    turning_radius: u.turningRadius,
    can_reverse: u.canReverse,
    reverse_penalty: u.reversePenalty,
    turn_penalty: u.turnPenalty,
    max_speed: u.maxSpeed,
    acceleration: u.acceleration,
    deceleration: u.deceleration,
    lateral_acceleration: u.lateralAcceleration,
    headings: u.headings,
    terrain: u.terrain.map((t) => ({ code: t.code, cost: t.cost, impassable: t.impassable, road: t.road })),
    fluid_turning: u.fluidTurning,
    cusp_penalty: u.cuspPenalty,
  };
}

/** Passable tiles per layer, counted once (a layer never changes; 67 M tiles take ~100 ms to count). */
const passableCounts = new WeakMap<PassLayer, number>();

function passableTiles(layer: PassLayer): number {
  let n = passableCounts.get(layer);
  if (n === undefined) {
    n = 0;
    for (let i = 0; i < layer.tileCost.length; i++) if (layer.tileCost[i] > 0) n++;
    passableCounts.set(layer, n);
  }
  return n;
}

/** MapInfo on the wire (`regions` null while the table is still being built: counts 0, `preparing`). */
export function mapInfoToWire(
  mv: MapVersion,
  regions: { regionCount: number; componentCount: number } | null,
  preparing = false,
) {
  const defaultLayer = [...mv.layers.values()][0]?.layer;
  const passable = defaultLayer ? passableTiles(defaultLayer) : 0;
  return {
    id: displayId(mv.id),
    version: mv.version,
    width: mv.map.width,
    height: mv.map.height,
    passable_tiles: passable,
    regions: regions?.regionCount ?? 0,
    components: regions?.componentCount ?? 0,
    sector_size: 16,
    terrain: reportedTerrain(mv),
    builtin: mv.builtin,
    build_micros: mv.buildMicros,
    preparing,
  };
}

/** The wire response of a finished plan; `totalMicros` is the RPC's time so far (0 for stream updates). */
export function planResultToWire(
  r: PlanResult,
  totalMicros: number,
): WirePlanResponse & { unit: ReturnType<typeof unitToWire> } {
  const wire = planToWire(r.outcome, r.mapVersion.version, r.mapVersion.map.width, {
    queueMicros: r.queueMicros,
    totalMicros,
    fromRegionTable: r.fromRegionTable,
  });
  return { ...wire, unit: unitToWire(r.unit) };
}

/** A stream update on the wire. */
export function updateToWire(u: StreamUpdate) {
  const r = u.result;
  return {
    sequence: u.sequence,
    kind: `UPDATE_KIND_${u.kind}`,
    map_version: r?.mapVersion.version ?? "",
    plan: r ? planResultToWire(r, 0) : null,
    replace_from_segment: u.replaceFromSegment,
    replace_from_distance: u.replaceFromDistance,
    status: u.status,
  };
}

/** Weights of a Curve's cost: a Curve names no unit, so no penalties (its cost is its length). */
const CURVE_WEIGHTS = { reversePenalty: 1, turnPenalty: 0, cuspPenalty: 0 };

/** A CurveResponse on the wire (priced with no map and no penalties: docs/cost.md). */
export function curveToWire(path: CurvePath) {
  const cost = pathCost(path.segments, CURVE_WEIGHTS, null);
  return {
    segments: path.segments.map(segmentToWire),
    length: path.length,
    word: path.word,
    cost: cost.total,
    cost_breakdown: costToWire(cost),
  };
}

/** A Fleet update on the wire (`mapVersion` on the update that answers open). */
export function fleetUpdateToWire(u: FleetUpdateOut, mapVersion = "") {
  return {
    trajectories: u.trajectories.map((t) => ({
      unit_id: t.unitId,
      start_time: t.startTime,
      segments: t.segments.map(segmentToWire),
      status: t.status,
      message: t.message,
      end_time: t.endTime,
    })),
    synced_time: u.syncedTime,
    synced: u.synced,
    errors: u.errors.map((e) => ({ unit_id: e.unitId, code: e.code, message: e.message })),
    time: u.time,
    map_version: mapVersion,
    micros: u.micros,
  };
}
