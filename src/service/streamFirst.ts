/**
 * A stream's first answer, and the rest after a partial one (issue 13 item 1): which plan goes out first for a
 * request, so that a unit with a turning radius gets a path it can drive from the first update on.
 *
 * - A turning unit asking PLANNER_AUTO, PLANNER_HYBRID or PLANNER_DIRECTIONAL ({@link wantsDrivableFirst}):
 *   the hybrid's first step (direct curves, the curve fits along the 8- and 4-connected grid routes: what the
 *   whole hybrid returns when it settles the query, in about a grid search's time); where that does not, a long one (start and goal {@link PREFIX_DISTANCE}+ tiles apart) sends the
 *   first {@link PREFIX_WINDOWS} windows of PLANNER_DIRECTIONAL's corridor refinement (a legal prefix,
 *   PLAN_STATUS_PARTIAL) and a short one the planner asked for, whole. A long PLANNER_DIRECTIONAL stream
 *   ({@link wantsPrefix}) starts with that prefix. Never a grid path the unit cannot drive.
 * - Everyone else (units that turn in place, line planners asked for, keep_to_roads): the fast answer, grid
 *   search or hierarchical for long queries (planService.ts resolves "fast"; for keep_to_roads it is the
 *   hybrid on roads).
 *
 * The rest after a partial first answer is planned from its end pose on its map version ({@link planRest}) and
 * joined to it ({@link appendRest}).
 *
 * @module
 */
import type { PlanResult, PlanService } from "./planService.ts";
import type { PlanRequest } from "./requests.ts";
import { ServiceError } from "./errors.ts";
import type { PassLayer } from "../maps/grid.ts";
import { pathCost } from "../motion/pathCost.ts";
import { startsAt } from "../motion/pathCorridor.ts";

/** Straight start-goal distance (tiles) from which a turning unit's stream sends its first drivable part early. */
export const PREFIX_DISTANCE = 192;
/** Corridor windows in that first part (each keeps about half of its 80-tile stretch: ~120 tiles in all). */
export const PREFIX_WINDOWS = 3;

/**
 * Where the first answer came from: the fast grid/hierarchical search, the hybrid's curve fit, a directional
 * prefix (partial, or whole when the query needed no corridor), or the planner asked for itself.
 */
export type FirstSource = "fast" | "fit" | "prefix" | "asked";

/** A stream's first answer and where it came from. */
export interface FirstAnswer {
  /** The plan to send as INITIAL. */
  result: PlanResult;
  /** Where it came from (the REFINED step depends on it). */
  source: FirstSource;
}

/** True when the unit turns with a radius (it cannot drive a grid path's corners). */
function turns(req: PlanRequest): boolean {
  return req.unit.turningRadius > 0 && !req.options.keepToRoads;
}

/** True when start and goal are at least {@link PREFIX_DISTANCE} tiles apart. */
function long(req: PlanRequest): boolean {
  return Math.hypot(req.goal.x - req.start.x, req.goal.y - req.start.y) >= PREFIX_DISTANCE;
}

/**
 * True when a stream's plan is long for a turning unit and its planner is PLANNER_DIRECTIONAL (asked for by
 * name, or AUTO's choice for a unit with a turn_penalty), whose long queries follow a grid corridor window by
 * window: the first windows then go out first. A unit that turns (turning radius > 0), no keep_to_roads (the
 * road search has no corridor), start and goal at least {@link PREFIX_DISTANCE} tiles apart. AUTO and HYBRID
 * otherwise start with the hybrid's curve fit, which answers a long query whole in about the time of a
 * prefix, and a directional prefix's 4-connected corridor can cost their path ~35% more (bench/stream.ts).
 */
export function wantsPrefix(req: PlanRequest): boolean {
  if (!turns(req)) return false;
  const directional = req.planner === "directional" || (req.planner === "auto" && req.unit.turnPenalty > 0);
  return directional && long(req);
}

/**
 * True when the stream's first answer must be drivable by a turning unit: a turning radius, no keep_to_roads
 * (whose fast answer is the road hybrid already), and a curve planner asked for (AUTO, HYBRID, DIRECTIONAL).
 * The line planners asked for by name send lines, as asked (their message says they approximate).
 */
export function wantsDrivableFirst(req: PlanRequest): boolean {
  return turns(req) && (req.planner === "auto" || req.planner === "hybrid" || req.planner === "directional");
}

/** True for an outcome with a path (found, or the nearest reachable goal). */
function hasPath(r: PlanResult | null): r is PlanResult {
  const st = r?.outcome.status;
  return r !== null && (st === "found" || st === "nearest") && r.outcome.segments.length > 0;
}

/** A plan whose failure is not the stream's end (cancel and shutdown are): null instead of an error. */
function planOrNull(plans: PlanService, req: PlanRequest, signal: AbortSignal): Promise<PlanResult | null> {
  return plans.plan(req, signal, true).catch((e) => {
    if (e instanceof ServiceError && (e.code === "CANCELLED" || e.code === "UNAVAILABLE")) throw e;
    return null;
  });
}

/**
 * The first {@link PREFIX_WINDOWS} corridor windows of PLANNER_DIRECTIONAL (a legal prefix, `partial`), or
 * its whole answer when the query needs no corridor; null when it found nothing.
 */
async function prefixPlan(
  plans: PlanService,
  req: PlanRequest,
  signal: AbortSignal,
): Promise<PlanResult | null> {
  const r = await planOrNull(
    plans,
    { ...req, planner: "directional", maxCorridorWindows: PREFIX_WINDOWS },
    signal,
  );
  return hasPath(r) ? r : null;
}

/**
 * The hybrid's direct curves and curve fits only (PlanTask.fitOnly): a drivable path, in about a grid search's
 * time, and the whole hybrid's answer; null when they do not settle the query.
 */
async function fitPlan(
  plans: PlanService,
  req: PlanRequest,
  signal: AbortSignal,
): Promise<PlanResult | null> {
  const r = await planOrNull(plans, { ...req, planner: "hybrid", fitOnly: true }, signal);
  return hasPath(r) ? r : null;
}

/** The stream's first answer for `req` (see the module doc). Errors of the last plan tried propagate. */
export async function firstAnswer(
  plans: PlanService,
  req: PlanRequest,
  signal: AbortSignal,
): Promise<FirstAnswer> {
  if (wantsPrefix(req)) {
    const prefix = await prefixPlan(plans, req, signal);
    if (prefix) return { result: prefix, source: "prefix" };
  }
  if (wantsDrivableFirst(req)) {
    const fit = await fitPlan(plans, req, signal);
    if (fit) return { result: fit, source: "fit" };
    // The fit did not settle it: the hybrid would search next (seconds on a long query), so a long one gets
    // its first drivable part from the corridor refinement, a short one the planner asked for, whole.
    if (!wantsPrefix(req) && long(req)) {
      const prefix = await prefixPlan(plans, req, signal);
      if (prefix) return { result: prefix, source: "prefix" };
    }
    return { result: await plans.plan(req, signal, true), source: "asked" };
  }
  const fast = await plans.plan({ ...req, planner: "fast" }, signal, true);
  const asked = req.planner === "grid" || req.planner === fast.outcome.planner;
  return { result: fast, source: asked ? "asked" : "fast" };
}

/**
 * The rest after a partial first answer, from the prefix's end pose on its map version: by the planner asked
 * for, except PLANNER_HYBRID, whose curve fit did not settle the query: the rest continues the directional
 * corridor (the hybrid's fit from that pose, where the prefix brakes to a stop, can back up a long way: 2x the
 * Plan's cost on the staircase of test/helpers/stairs.ts, against 1.0x). Null when nothing starting there was
 * found.
 */
export async function planRest(
  plans: PlanService,
  req: PlanRequest,
  prefix: PlanResult,
  signal: AbortSignal,
): Promise<PlanResult | null> {
  const segs = prefix.outcome.segments;
  const end = segs[segs.length - 1].end;
  const version = prefix.mapVersion.version;
  const planner = req.planner === "hybrid" ? "directional" : req.planner;
  const r = await planOrNull(
    plans,
    { ...req, planner, map: { id: req.map.id, version }, start: { ...end } },
    signal,
  );
  return hasPath(r) && startsAt(r.outcome.segments, end) ? r : null;
}

/**
 * The whole path of a prefix and its rest, as the stream keeps it: figures summed, the cost priced whole on
 * `layer` (the prefix's map version) for the request's unit, no waypoints.
 */
export function appendRest(
  req: PlanRequest,
  prefix: PlanResult,
  rest: PlanResult,
  layer: PassLayer,
): PlanResult {
  const whole = [...prefix.outcome.segments, ...rest.outcome.segments];
  return {
    ...rest,
    outcome: {
      ...rest.outcome,
      segments: whole,
      length: prefix.outcome.length + rest.outcome.length,
      duration: prefix.outcome.duration + rest.outcome.duration,
      expansions: prefix.outcome.expansions + rest.outcome.expansions,
      cost: pathCost(whole, req.unit, layer),
      waypoints: null,
    },
  };
}

/** The message of the update that appends a rest after `prefixSegments` segments. */
export function restMessage(prefixSegments: number, rest: PlanResult): string {
  return `appended after the first ${prefixSegments} segments (a ${PREFIX_WINDOWS}-window prefix)` +
    (rest.outcome.message ? `; ${rest.outcome.message}` : "");
}
