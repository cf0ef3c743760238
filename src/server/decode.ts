/**
 * Wire decoding: proto-shaped input (field names as @grpc/proto-loader gives them with keepCase) checked field
 * by field and turned into domain values. Every error names the field and the value.
 *
 * @module
 */
import { decodeUnit, type WireTerrainCost, type WireUnitProfile } from "./decodeUnit.ts";
import { headingValue, invalid, ServiceError } from "../service/errors.ts";
import { checkMapId, type GridInput, type TileEditSpec } from "../service/mapStore.ts";
import { AVAILABLE_PLANNERS } from "../service/planService.ts";
import {
  checkedStart,
  type CurveRequest,
  finiteValue,
  type GoalSpec,
  type MapRef,
  type PatchMapRequest,
  type PlanRequest,
  type PutMapRequest,
  type StreamMessage,
} from "../service/requests.ts";
import type { Pose } from "../geometry/types.ts";
import type { FleetMessage } from "../service/fleetSession.ts";
import type { ChunkHeader, TileChunkSpec } from "../service/mapChunks.ts";
import type { PlannerName } from "../planning/task.ts";
import { PLANNER_WIRE } from "./wire.ts";

/** A MapRef on the wire. */
export interface WireMapRef {
  id?: string;
  version?: string;
}

/** A Goal on the wire. */
export interface WireGoal {
  x?: number;
  y?: number;
  heading?: number | null;
  tolerance?: number;
  heading_tolerance?: number;
}

/** A PlanRequest on the wire. */
export interface WirePlanRequest {
  map?: WireMapRef | null;
  unit?: WireUnitProfile | null;
  start?: Partial<Pose> | null;
  goal?: WireGoal | null;
  planner?: string;
  options?: {
    neighborhood?: number;
    max_expansions?: number;
    max_millis?: number;
    nearest_fallback?: boolean;
    ignore_obstacles_in_curves?: boolean;
    tighter_turns?: boolean;
    allow_backing_up?: boolean;
    keep_to_roads?: boolean;
    omit_waypoints?: boolean;
  } | null;
}

/** Wire planner names to planner choices: the one table in wire.ts, read backwards, and PLANNER_AUTO. */
const PLANNER_CHOICE = new Map<string, PlannerName | "auto">([
  ["PLANNER_AUTO", "auto"],
  ...(Object.entries(PLANNER_WIRE) as [PlannerName, string][]).map(([name, wire]) => [wire, name] as const),
]);

/** Decodes a MapRef; `field` names it in errors ("map"). The id must be set. */
function decodeMapRef(ref: WireMapRef | null | undefined, field: string): MapRef {
  const id = ref?.id ?? "";
  if (!id) throw invalid(`${field}.id`, id, "is required");
  return { id, version: ref?.version ?? "" };
}

/** Decodes a goal's fields (x, y, heading, tolerances; contract defaults applied). */
export function decodeGoal(goal: WireGoal): GoalSpec {
  const x = finiteValue("goal.x", goal.x);
  const y = finiteValue("goal.y", goal.y);
  const heading = goal.heading ?? undefined;
  if (heading !== undefined) headingValue("goal.heading", heading);
  const tolerance = goal.tolerance ?? 0;
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw invalid("goal.tolerance", tolerance, "must be >= 0");
  }
  const headingTolerance = goal.heading_tolerance ?? 0;
  if (!Number.isFinite(headingTolerance) || headingTolerance < 0) {
    throw invalid("goal.heading_tolerance", headingTolerance, "must be >= 0");
  }
  return { x, y, heading, tolerance: tolerance || 0.5, headingTolerance: headingTolerance || 0.2 };
}

/**
 * Decodes a Plan request: every check that needs no map, in the order the errors have always come. With
 * `testHooks` (server flag --test-hooks only), a unit named "__crash__" is the default unit and makes the worker
 * crash.
 */
export function decodePlanRequest(req: WirePlanRequest, testHooks = false): PlanRequest {
  const map = decodeMapRef(req.map, "map");
  const debugCrash = testHooks && req.unit?.name === "__crash__";
  const unit = decodeUnit(debugCrash ? { ...req.unit, name: "" } : req.unit);
  const planner = PLANNER_CHOICE.get(req.planner ?? "PLANNER_AUTO");
  if (!planner) throw invalid("planner", req.planner, "unknown planner");
  if (!req.start) throw invalid("start", "unset", "is required");
  if (!req.goal) throw invalid("goal", "unset", "is required");
  const start = checkedStart("start", req.start);
  const goal = decodeGoal(req.goal);
  const opts = req.options ?? {};
  const maxExpansions = opts.max_expansions ?? 0;
  if (!Number.isFinite(maxExpansions) || maxExpansions < 0) {
    throw invalid("options.max_expansions", maxExpansions, "must be >= 0");
  }
  if (planner !== "auto" && !AVAILABLE_PLANNERS.has(planner)) {
    throw new ServiceError("UNIMPLEMENTED", `planner: ${PLANNER_WIRE[planner]} is not available yet`);
  }
  return {
    map,
    unit,
    start,
    goal,
    planner,
    options: {
      neighborhood: opts.neighborhood ?? 0,
      maxExpansions,
      maxMillis: opts.max_millis ?? 0,
      nearestFallback: !!opts.nearest_fallback,
      ignoreObstaclesInCurves: !!opts.ignore_obstacles_in_curves,
      tighterTurns: !!opts.tighter_turns,
      allowBackingUp: !!opts.allow_backing_up,
      keepToRoads: !!opts.keep_to_roads,
      wantWaypoints: !opts.omit_waypoints,
    },
    debugCrash,
  };
}

/** A PlanManyRequest on the wire. */
export interface WirePlanManyRequest {
  requests?: WirePlanRequest[];
  map?: WireMapRef | null;
}

/** Re-labels a request's error so its field reads `requests[i].field` (messages start with the field). */
function inBatch(e: unknown, i: number): ServiceError {
  const err = e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e));
  return new ServiceError(err.code, `requests[${i}].${err.message}`);
}

/**
 * Decodes a PlanMany batch once: at most `maxCount` requests (else RESOURCE_EXHAUSTED for the whole call); a
 * request with no map takes the batch's `map`; a bad request becomes its own error naming `requests[i].field`.
 */
export function decodePlanManyRequest(
  req: WirePlanManyRequest,
  maxCount: number,
  testHooks = false,
): (PlanRequest | ServiceError)[] {
  const list = req.requests ?? [];
  if (list.length > maxCount) {
    throw new ServiceError(
      "RESOURCE_EXHAUSTED",
      `requests: at most ${maxCount} plans per PlanMany (--max-plan-many), got ${list.length}`,
    );
  }
  const batchMap = req.map?.id ? req.map : null;
  return list.map((r, i) => {
    try {
      const withMap = !r.map?.id && batchMap ? { ...r, map: batchMap } : r;
      return decodePlanRequest(withMap, testHooks);
    } catch (e) {
      return inBatch(e, i);
    }
  });
}

/** A PutMapRequest on the wire. */
export interface WirePutMapRequest {
  id?: string;
  grid?: "movingai" | "raw";
  movingai?: string;
  raw?: { width?: number; height?: number; tiles?: Uint8Array } | null;
  terrain?: WireTerrainCost[];
  ephemeral?: boolean;
  prepare?: boolean;
}

/** Decodes a PutMap request (the grid and terrain themselves are parsed and checked by the store). */
export function decodePutMap(req: WirePutMapRequest): PutMapRequest {
  checkMapId(req.id ?? "", "id");
  let grid: GridInput;
  if (req.grid === "movingai") {
    grid = { kind: "movingai", text: req.movingai ?? "" };
  } else if (req.grid === "raw" && req.raw) {
    grid = {
      kind: "raw",
      width: req.raw.width ?? 0,
      height: req.raw.height ?? 0,
      tiles: req.raw.tiles ?? new Uint8Array(0),
    };
  } else {
    throw invalid("grid", "unset", "one of movingai or raw is required");
  }
  return {
    id: req.id!,
    grid,
    terrain: req.terrain ?? [],
    ephemeral: !!req.ephemeral,
    prepare: !!req.prepare,
  };
}

/** A PutMapChunk on the wire (one message of PutMapChunks). */
export interface WirePutMapChunk {
  msg?: "header" | "chunk";
  header?: {
    id?: string;
    width?: number;
    height?: number;
    format?: string;
    terrain?: WireTerrainCost[];
    ephemeral?: boolean;
    prepare?: boolean;
  } | null;
  chunk?: { x?: number; y?: number; width?: number; height?: number; tiles?: Uint8Array } | null;
}

/** Decodes the first message of PutMapChunks: it must be the header. */
export function decodeChunkHeader(msg: WirePutMapChunk): ChunkHeader {
  const h = msg.msg === "header" ? msg.header : null;
  if (!h) throw invalid("header", msg.msg ?? "unset", "the first message of PutMapChunks must be the header");
  checkMapId(h.id ?? "", "header.id");
  const format = h.format ?? "TILE_FORMAT_RAW";
  if (format !== "TILE_FORMAT_RAW" && format !== "TILE_FORMAT_MOVINGAI") {
    throw invalid("header.format", format, "must be TILE_FORMAT_RAW or TILE_FORMAT_MOVINGAI");
  }
  return {
    id: h.id!,
    width: h.width ?? 0,
    height: h.height ?? 0,
    format: format === "TILE_FORMAT_MOVINGAI" ? "movingai" : "raw",
    terrain: h.terrain ?? [],
    ephemeral: !!h.ephemeral,
    prepare: !!h.prepare,
  };
}

/** Decodes a later message of PutMapChunks: it must be a chunk (`index` counts chunks, for the message). */
export function decodeTileChunk(msg: WirePutMapChunk, index: number): TileChunkSpec {
  const c = msg.msg === "chunk" ? msg.chunk : null;
  if (!c) {
    throw invalid(`chunk[${index}]`, msg.msg ?? "unset", "after the header every message must be a chunk");
  }
  return {
    x: c.x ?? 0,
    y: c.y ?? 0,
    width: c.width ?? 0,
    height: c.height ?? 0,
    tiles: c.tiles ?? new Uint8Array(0),
  };
}

/** A PatchMapRequest on the wire. */
export interface WirePatchMapRequest {
  map?: WireMapRef | null;
  edits?: {
    x?: number;
    y?: number;
    width?: number;
    height?: number;
    value?: "tile" | "code";
    tile?: string;
    code?: number;
  }[];
}

/** Decodes a PatchMap request: the map id, the edit count and each edit's value. */
export function decodePatchMap(req: WirePatchMapRequest): PatchMapRequest {
  const id = req.map?.id ?? "";
  checkMapId(id, "map.id");
  const edits = req.edits ?? [];
  if (edits.length === 0) throw invalid("edits", "[]", "at least one edit is required");
  if (edits.length > 100_000) throw invalid("edits", edits.length, "at most 100000 edits per patch");
  const specs: TileEditSpec[] = edits.map((e, i) => {
    let code: number;
    if (e.value === "tile") {
      const t = e.tile ?? "";
      if (t.length !== 1 || t.charCodeAt(0) > 127) {
        throw invalid(`edits[${i}].tile`, t, 'must be one ASCII character such as "@" or "."');
      }
      code = t.charCodeAt(0);
    } else if (e.value === "code") {
      code = e.code ?? 0;
      if (!Number.isInteger(code) || code < 0 || code > 255) {
        throw invalid(`edits[${i}].code`, code, "must be an integer in [0, 255]");
      }
    } else {
      throw invalid(`edits[${i}]`, "no value", "one of tile or code is required");
    }
    return {
      x: e.x ?? 0,
      y: e.y ?? 0,
      width: Math.max(1, e.width ?? 0),
      height: Math.max(1, e.height ?? 0),
      code,
    };
  });
  return { map: { id, version: req.map?.version ?? "" }, edits: specs };
}

/** A CurveRequest on the wire. */
export interface WireCurveRequest {
  start?: Partial<Pose> | null;
  goal?: Partial<Pose> | null;
  turning_radius?: number;
  allow_reverse?: boolean;
  ignore_goal_heading?: boolean;
}

/** A Curve pose: required; unset coordinates are 0 (proto3), set ones finite. */
function curvePose(field: string, p: Partial<Pose> | null | undefined): Pose {
  if (!p) throw invalid(field, "unset", "is required");
  for (const k of ["x", "y"] as const) {
    const v = p[k] ?? 0;
    if (!Number.isFinite(v)) throw invalid(`${field}.${k}`, v, "must be a finite number");
  }
  return { x: p.x ?? 0, y: p.y ?? 0, heading: headingValue(`${field}.heading`, p.heading ?? 0) };
}

/** Decodes a Curve request: finite poses, a turning radius > 0 that is not too small for the poses' scale. */
export function decodeCurve(req: WireCurveRequest): CurveRequest {
  const start = curvePose("start", req.start);
  const goal = curvePose("goal", req.goal);
  const r = req.turning_radius ?? 0;
  if (!Number.isFinite(r) || r <= 0) throw invalid("turning_radius", r, "must be a finite number > 0");
  const scale = Math.max(Math.abs(start.x), Math.abs(start.y), Math.abs(goal.x), Math.abs(goal.y));
  if (scale / r > 1e9) {
    throw invalid("turning_radius", r, "is too small for the poses' scale (ratio > 1e9)");
  }
  return {
    start,
    goal,
    turningRadius: r,
    allowReverse: !!req.allow_reverse,
    ignoreGoalHeading: !!req.ignore_goal_heading,
  };
}

/** A StreamRequest on the wire (`msg` names the oneof that is set). */
export interface WireStreamRequest {
  msg?: string;
  plan?: WirePlanRequest | null;
  progress?: { pose?: Partial<Pose> | null; distance?: number; sequence?: number } | null;
  goal?: WireGoal | null;
}

/**
 * Decodes a stream's client message. Field errors are returned, not thrown: the stream decides what they mean
 * where they come. A stream's plan checks its unit first (its errors come before the others') and has no test
 * hooks.
 */
export function decodeStreamMessage(m: WireStreamRequest): StreamMessage {
  if (m.msg === "plan") {
    if (!m.plan) {
      return {
        kind: "badPlan",
        error: new ServiceError("INVALID_ARGUMENT", "msg: the first message of a stream must be a plan"),
      };
    }
    try {
      decodeUnit(m.plan.unit);
      return { kind: "plan", request: decodePlanRequest(m.plan) };
    } catch (e) {
      return { kind: "badPlan", error: e as Error };
    }
  }
  if (m.msg === "progress" && m.progress) {
    const p = m.progress;
    // Reported numbers are kept as they come: a bad pose is reported when a replan would start there.
    const pose = p.pose ? { x: p.pose.x ?? 0, y: p.pose.y ?? 0, heading: p.pose.heading ?? 0 } : null;
    return {
      kind: "progress",
      progress: { pose, distance: typeof p.distance === "number" ? p.distance : 0 },
    };
  }
  if (m.msg === "goal" && m.goal) {
    try {
      return { kind: "goal", goal: decodeGoal(m.goal) };
    } catch (e) {
      return { kind: "badGoal", error: e as Error };
    }
  }
  return { kind: "empty" };
}

/** A FleetRequest on the wire. */
export interface WireFleetRequest {
  open?: { map?: WireMapRef | null; braking_envelopes?: boolean | null } | null;
  unit?: {
    id?: string;
    unit?: WireUnitProfile | null;
    pose?: Partial<Pose> | null;
    goal?: WireGoal | null;
    time?: number;
    planner?: string;
  } | null;
  remove?: { id?: string; time?: number } | null;
  progress?: { id?: string; pose?: Partial<Pose> | null; time?: number } | null;
  sync?: { time?: number } | null;
  msg?: string;
}

/** Longest fleet unit id. */
export const MAX_FLEET_ID = 128;

function fleetId(kind: string, id: string | undefined): string {
  const v = id ?? "";
  if (v === "" || v.length > MAX_FLEET_ID) {
    throw invalid(`${kind}.id`, v, `must be 1 to ${MAX_FLEET_ID} characters`);
  }
  return v;
}

function fleetTime(field: string, t: number | undefined): number {
  const v = t ?? 0;
  if (!Number.isFinite(v) || v < 0) throw invalid(field, v, "must be a finite number of seconds >= 0");
  return v;
}

/**
 * Decodes a Fleet stream message. `open` is returned as such (the handler opens the fleet with it); a bad later
 * message becomes `invalid`, its error naming the unit (`unit["a"].goal.x`) so the fleet answers it in turn and
 * keeps running.
 */
export function decodeFleetMessage(m: WireFleetRequest): FleetMessage {
  if (m.open) {
    return {
      kind: "open",
      map: decodeMapRef(m.open.map, "open.map"),
      brakingEnvelopes: m.open.braking_envelopes === true,
    };
  }
  let id = "";
  const label = (kind: string) => `${kind}[${JSON.stringify(id)}]`;
  let kind = "message";
  try {
    if (m.unit) {
      kind = "unit";
      const u = m.unit;
      id = fleetId("unit", u.id);
      const planner = PLANNER_CHOICE.get(u.planner ?? "PLANNER_AUTO");
      if (!planner) throw invalid("planner", u.planner, "unknown planner");
      if (planner !== "auto" && !AVAILABLE_PLANNERS.has(planner)) {
        throw new ServiceError("UNIMPLEMENTED", `planner: ${PLANNER_WIRE[planner]} is not available yet`);
      }
      if (!u.pose) throw invalid("pose", "unset", "is required");
      if (!u.goal) throw invalid("goal", "unset", "is required");
      return {
        kind: "unit",
        id,
        unit: decodeUnit(u.unit),
        pose: checkedStart("pose", u.pose),
        goal: decodeGoal(u.goal),
        planner,
        time: fleetTime("time", u.time),
      };
    }
    if (m.remove) {
      kind = "remove";
      id = fleetId("remove", m.remove.id);
      return { kind: "remove", id, time: fleetTime("time", m.remove.time) };
    }
    if (m.progress) {
      kind = "progress";
      id = fleetId("progress", m.progress.id);
      if (!m.progress.pose) throw invalid("pose", "unset", "is required");
      return {
        kind: "progress",
        id,
        pose: checkedStart("pose", m.progress.pose),
        time: fleetTime("time", m.progress.time),
      };
    }
    if (m.sync) {
      kind = "sync";
      return { kind: "sync", time: fleetTime("sync.time", m.sync.time) };
    }
    throw invalid("msg", m.msg ?? "unset", "one of open, unit, remove, progress, sync is required");
  } catch (e) {
    const err = e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e));
    // Errors raised before the id was read already name their field in full (e.g. "unit.id").
    const prefix = id === "" || err.message.startsWith(`${kind}.id`) ? "" : `${label(kind)}.`;
    return { kind: "invalid", id, error: new ServiceError(err.code, prefix + err.message) };
  }
}
