/**
 * One directional search with the unit's tables (src/search/directionalSpace.ts on the one A* core): in the
 * request's window, or in windows around start and goal that grow up to a state cap, each answer verified with
 * the exact sweep. PLANNER_DIRECTIONAL (directional.ts), the hybrid's passes and the corridor refinement's
 * windows all search through here.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { TileRect } from "../maps/layer.ts";
import { astar, COST_SCALE, reconstructPath } from "../search/astar.ts";
import type { DirectionalRequest, DirectionalRun } from "../search/directionalSetup.ts";
import { LazyGridBound } from "../search/directionalBound.ts";
import { DirectionalSpace } from "../search/directionalSpace.ts";
import { tableKey } from "../search/hitCheckTable.ts";
import type { UnitSpec } from "../units/unit.ts";
import type { PlanBudget } from "./budget.ts";
import type { PlanContext } from "./context.ts";
import { tableProfileOf } from "./directionalProfile.ts";
import { onReleaseScratch } from "./scratch.ts";

interface SearchState {
  space: DirectionalSpace;
  lazy: LazyGridBound;
}

const perContext = new WeakMap<PlanContext, SearchState>();

function stateFor(ctx: PlanContext): SearchState {
  let s = perContext.get(ctx);
  if (!s) {
    s = { space: new DirectionalSpace(), lazy: new LazyGridBound() };
    perContext.set(ctx, s);
    const st = s;
    onReleaseScratch(ctx, (keep) => st.space.release(keep) + st.lazy.release(keep));
  }
  return s;
}

/** Upper bound on window states, to keep the workspace small (about 32 bytes per state). */
export const MAX_WINDOW_STATES = 1 << 21;
/**
 * Windows whose start-goal box alone holds more states than this (about 1 GB of workspace) are not searched by
 * the growing-window search (see directionalSearch).
 */
const MAX_BOX_STATES = 1 << 25;

/**
 * A window around start and goal with a margin that grows with their distance (or the margin given), shrunk
 * until its states fit the cap ({@link MAX_WINDOW_STATES}).
 */
export function windowAround(
  layer: PassLayer,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  statesPerTile: number,
  initialMargin?: number,
): TileRect {
  const span = Math.max(Math.abs(ax - bx), Math.abs(ay - by));
  let margin = initialMargin ?? 16 + (span >> 1);
  for (;;) {
    const w: TileRect = {
      x0: Math.max(0, Math.min(ax, bx) - margin),
      y0: Math.max(0, Math.min(ay, by) - margin),
      x1: Math.min(layer.width, Math.max(ax, bx) + 1 + margin),
      y1: Math.min(layer.height, Math.max(ay, by) + 1 + margin),
    };
    if ((w.x1 - w.x0 + 8) * (w.y1 - w.y0 + 8) * statesPerTile <= MAX_WINDOW_STATES || margin <= 4) return w;
    margin = Math.floor(margin * 0.75);
  }
}

/** True when the window `w` contains the box of (ax, ay) and (bx, by) grown by `margin` (clipped to the map). */
export function holds(
  w: TileRect,
  ax: number,
  ay: number,
  bx: number,
  by: number,
  margin: number,
  layer: PassLayer,
) {
  return w.x0 <= Math.max(0, Math.min(ax, bx) - margin) && w.y0 <= Math.max(0, Math.min(ay, by) - margin) &&
    w.x1 >= Math.min(layer.width, Math.max(ax, bx) + 1 + margin) &&
    w.y1 >= Math.min(layer.height, Math.max(ay, by) + 1 + margin);
}

/** True when window a is larger than b and contains it. */
function grewFrom(a: TileRect, b: TileRect): boolean {
  const contains = a.x0 <= b.x0 && a.y0 <= b.y0 && a.x1 >= b.x1 && a.y1 >= b.y1;
  return contains && (a.x0 < b.x0 || a.y0 < b.y0 || a.x1 > b.x1 || a.y1 > b.y1);
}

/**
 * One directional search with the unit's tables; the path is verified with the exact sweep before returning.
 * Without a window in the request, the search runs in a window around start and goal, and when that window
 * is exhausted without a path it grows (margin doubled, up to the whole map or the state cap) within the
 * budget: "no_legal_path" then means the whole map was searched. When the cap kept the window smaller than
 * the map, the answer is "budget" with a message saying the window limited the search.
 */
export function directionalSearch(
  ctx: PlanContext,
  layer: PassLayer,
  unit: UnitSpec,
  req: DirectionalRequest,
  budget: PlanBudget,
): DirectionalRun {
  if (req.window) return searchOnce(ctx, layer, unit, req, budget);
  const profile = tableProfileOf(unit, req.neighborhood, req.reverse);
  const statesPerTile = profile.headings * (req.reverse ? 2 : 1);
  const sx = Math.floor(req.start.x), sy = Math.floor(req.start.y);
  const gx = Math.floor(req.goal.x), gy = Math.floor(req.goal.y);
  const span = Math.max(Math.abs(sx - gx), Math.abs(sy - gy));
  let margin = 16 + (span >> 1);
  // A path cheaper than maxCost is at most maxCost / minCost long, so it stays inside the ellipse with foci
  // start and goal of that length: the start-goal box grown by its semi-minor axis (plus a tile for the
  // tile-center nodes) holds it. A capped search in a window containing that box is complete; the lazy
  // window raster makes the larger window cost nothing until touched.
  let capMargin = Infinity;
  if (req.maxCost !== undefined && Number.isFinite(req.maxCost)) {
    const a = req.maxCost / layer.minCost / 2;
    const c = Math.hypot(req.start.x - req.goal.x, req.start.y - req.goal.y) / 2;
    capMargin = Math.ceil(Math.sqrt(Math.max(0, a * a - c * c))) + 2;
    margin = Math.max(margin, capMargin);
  }
  let window = windowAround(layer, sx, sy, gx, gy, statesPerTile, margin);
  const states = (window.x1 - window.x0 + 8) * (window.y1 - window.y0 + 8) * statesPerTile;
  if (states > MAX_BOX_STATES) {
    // The start-goal box alone is beyond the cap (the window never shrinks below it): its workspace would take
    // gigabytes. Long queries go along a corridor instead (planDirectional, the hybrid's fallback).
    return {
      status: "budget",
      segments: [],
      tiles: [],
      expansions: 0,
      tables: { source: "none", millis: 0, key: tableKey(profile) },
      message: `the directional search window around start and goal would hold ${states} states (more than ` +
        `${MAX_BOX_STATES}); not searched, so a path is not ruled out`,
    };
  }
  let spent = 0;
  for (;;) {
    const run = searchOnce(
      ctx,
      layer,
      unit,
      { ...req, window, maxExpansions: req.maxExpansions - spent },
      budget,
    );
    spent += run.expansions;
    run.expansions = spent;
    if (run.status !== "no_legal_path" || run.message.startsWith("internal")) return run;
    const whole = window.x0 === 0 && window.y0 === 0 && window.x1 === layer.width &&
      window.y1 === layer.height;
    if (req.maxCost !== undefined && (whole || holds(window, sx, sy, gx, gy, capMargin, layer))) {
      return {
        ...run,
        message: `no directional path cheaper than ${req.maxCost.toFixed(2)} (the search covered every ` +
          `tile such a path can reach)`,
      };
    }
    if (whole) return run;
    margin = 2 * margin + Math.max(layer.width, layer.height);
    const grown = windowAround(layer, sx, sy, gx, gy, statesPerTile, margin);
    if (!grewFrom(grown, window) || spent >= req.maxExpansions || budget.stopped()) {
      // The window (its state cap), or the budget, not the map, ended the search: say so.
      const why = spent >= req.maxExpansions || budget.stopped()
        ? "the budget ran out before a larger window was searched"
        : "the map is larger than the search window's state cap";
      const cheaper = req.maxCost !== undefined ? ` cheaper than ${req.maxCost.toFixed(2)}` : "";
      return {
        ...run,
        status: "budget",
        message:
          `no legal directional path${cheaper} within the search window [${window.x0}, ${window.x1}) x ` +
          `[${window.y0}, ${window.y1}); ${why}, so a path outside it is not ruled out`,
      };
    }
    window = grown;
  }
}

/** {@link directionalSearch} in one window (the request's, else the default window around start and goal). */
function searchOnce(
  ctx: PlanContext,
  layer: PassLayer,
  unit: UnitSpec,
  req: DirectionalRequest,
  budget: PlanBudget,
): DirectionalRun {
  const profile = tableProfileOf(unit, req.neighborhood, req.reverse);
  const tables = ctx.tables.tablesUntil(profile, budget.stopped);
  if (tables === null) {
    const progress = ctx.tables.buildProgress(profile);
    return {
      status: budget.cancelled() ? "cancelled" : "budget",
      segments: [],
      tiles: [],
      expansions: 0,
      tables: { source: "building", millis: 0, key: tableKey(profile) },
      message:
        `time budget exhausted while building the unit's directional tables (a one-off per worker and ` +
        `profile; ${progress?.done ?? 0} of ${profile.headings} headings done, the next request goes on)`,
    };
  }
  const tinfo = {
    source: tables.source,
    millis: Math.round(tables.millis * 1000) / 1000,
    key: tables.hit.key,
  };
  const sx = Math.floor(req.start.x), sy = Math.floor(req.start.y);
  const gx = Math.floor(req.goal.x), gy = Math.floor(req.goal.y);
  const statesPerTile = profile.headings * (req.reverse ? 2 : 1);
  const window = req.window ?? windowAround(layer, sx, sy, gx, gy, statesPerTile);
  const empty = (status: DirectionalRun["status"], message: string, expansions = 0): DirectionalRun => ({
    status,
    segments: [],
    tiles: [],
    expansions,
    tables: tinfo,
    message,
  });
  if (gx < window.x0 || gy < window.y0 || gx >= window.x1 || gy >= window.y1) {
    return empty("no_legal_path", "goal outside the search window");
  }
  const st = stateFor(ctx);
  // The grid bound lazily, for the tiles the search touches (the eager gridBound is O(window + map)).
  // Under a cost cap, pruning needs an admissible bound: the cheapest step cost on maps whose costs vary.
  const lazy = st.lazy.configure(layer, window, gx, gy, sx, sy, req.roadsOnly, req.maxCost !== undefined);
  const space = st.space.configure({
    layer,
    hit: tables.hit,
    heur: tables.heur,
    window,
    roadsOnly: req.roadsOnly,
    footprint: unit.footprint,
    turningRadius: profile.turningRadius,
    reverse: req.reverse,
    reversePenalty: Math.max(1, unit.reversePenalty),
    turnPenalty: unit.turnPenalty,
    cuspPenalty: unit.cuspPenalty,
    start: req.start,
    goal: req.goal,
    gridBound: null,
    lazyBound: lazy,
    analyticInterval: req.analyticInterval ?? 8,
    nodeMask: req.nodeMask ?? null,
    pathIndex: req.pathIndex ?? null,
    maskWindow: req.maskWindow ?? null,
    // A cost cap prunes by f = g + h: only an admissible (unweighted) heuristic keeps that exact.
    heuristicWeight: req.maxCost === undefined ? req.heuristicWeight ?? 1 : 1,
    geodesic: req.geodesic ?? true,
  });
  space.useWorkspace(ctx.workspace);
  const start = space.snappedStart >= 0 ? space.snappedStart : space.startState;
  const limits = budget.limits(req.maxExpansions);
  if (req.maxCost !== undefined) limits.maxCost = req.maxCost * COST_SCALE;
  const r = astar(space, ctx.workspace, [start], limits, ctx.result);
  if (r.status === "cancelled") return empty("cancelled", "cancelled", r.expansions);
  let end = -1;
  let status: DirectionalRun["status"] = "found";
  if (r.status === "found") end = r.goal;
  else if ((r.status === "budget" || r.status === "deadline") && !req.pathIndex) {
    // No state with a finite heuristic was settled (the budget ran out at once): nothing to return.
    if (r.best < 0) return empty("budget", "the search budget ran out before any progress", r.expansions);
    end = r.best;
    status = "budget";
  } else if (req.pathIndex && space.farthestState >= 0) {
    // Pre-smoothing failed: the legal path up to the farthest path point reached (the failure point).
    end = space.farthestState;
    status = "partial";
  } else return empty("no_legal_path", "no legal directional path in the search window", r.expansions);
  const states = reconstructPath(ctx.workspace, end);
  const segments: Segment[] = [];
  const tiles: number[] = [sy * layer.width + sx];
  let pose: Pose = { ...req.start };
  for (let i = 1; i < states.length; i++) {
    const segs = space.edgeSegments(states[i - 1], states[i], pose);
    for (const s of segs) segments.push(s);
    if (segs.length > 0) pose = segs[segs.length - 1].end;
    const t = space.tileOf(states[i]);
    if (t >= 0 && t !== tiles[tiles.length - 1]) tiles.push(t);
  }
  if (states[states.length - 1] === space.goalState) {
    const t = gy * layer.width + gx;
    if (t !== tiles[tiles.length - 1]) tiles.push(t);
  }
  // Legality is a promise: re-check every output segment with the exact sweep (and the road rule).
  for (const s of segments) {
    if (!space.curveIsOpen([s])) {
      return empty("no_legal_path", "internal: a chained segment failed the sweep check", r.expansions);
    }
  }
  return {
    status,
    segments,
    tiles,
    expansions: r.expansions,
    tables: tinfo,
    message: status === "budget" ? "search budget exhausted; partial path toward the goal" : "",
  };
}
