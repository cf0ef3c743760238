/**
 * The planning pipeline that runs inside a worker: pure code over shared map data, no I/O, no policy.
 * Each planner composes the cores: grid search (search/), smoothing (smoothing/), curves (geometry/).
 *
 * @module
 */
import { type PassLayer, uniformCost } from "../maps/grid.ts";
import { sweptMaxCost } from "../smoothing/walkable.ts";
import { astar, newSearchResult, reconstructPath, SearchWorkspace } from "../search/astar.ts";
import { gridPathLength, GridSpace, type Neighborhood } from "../search/gridSpace.ts";
import { expandJumpPath, JumpPointSpace, useJumpPoints } from "../search/jumpPointSpace.ts";
import { smoothPath } from "../smoothing/simpleSmooth.ts";
import { lineSegment } from "../geometry/segment.ts";
import type { Segment } from "../geometry/types.ts";
import { applySpeedProfile } from "../motion/speedProfile.ts";
import { toFixedAngles } from "./fixedAngle.ts";
import { type PlanOutcome, planOutcome, type PlanTask } from "./task.ts";
import { planCurved } from "./curved.ts";
import { planHierarchical } from "./hierarchical.ts";
import { planDirectional } from "./directional.ts";
import { planHybrid } from "./hybrid.ts";

/** Reusable per-worker state: the search workspace and spaces (allocated once, reused by every task). */
export class PlanContext {
  /** Looks up shared data posted to this worker. */
  readonly lookup: (key: string) => unknown;
  /** A* bookkeeping reused across searches. */
  readonly workspace: SearchWorkspace = new SearchWorkspace();
  /** The grid space, reconfigured per search. */
  readonly grid: GridSpace = new GridSpace();
  /** The jump-point space, used instead of {@link grid} for 8-connected searches on uniform-cost layers. */
  readonly jumpPoint: JumpPointSpace = new JumpPointSpace();
  /** The search result object, reused. */
  readonly result = newSearchResult();

  /** Creates a context over a shared-data lookup. */
  constructor(lookup: (key: string) => unknown) {
    this.lookup = lookup;
  }

  /** The pass layer for a key (throws if the service did not share it). */
  layer(key: string): PassLayer {
    const layer = this.lookup(key) as PassLayer | undefined;
    if (!layer) throw new Error(`pass layer ${key} was not shared with this worker`);
    return layer;
  }
}

/** A grid search result: the tile path (or null) and figures. */
export interface GridSearch {
  /** Tile ids from start to target, or null. */
  path: Int32Array | null;
  /** "found", "budget" (partial path to the best state), "cancelled" or "unreachable". */
  status: "found" | "budget" | "cancelled" | "unreachable";
  /** Expansions. */
  expansions: number;
}

/**
 * Runs grid A* from the task's start tile to its goal tile: over jump points when the search is 8-connected on
 * a uniform-cost layer (same optimal costs, far fewer expansions), else tile by tile. Paths are full tile paths
 * either way; expansions are the A* core's.
 */
export function gridSearch(
  ctx: PlanContext,
  layer: PassLayer,
  task: PlanTask,
  neighborhood: Neighborhood,
  cancel: Int32Array | null,
): GridSearch {
  const jump = useJumpPoints(layer, neighborhood);
  const space = jump
    ? ctx.jumpPoint.configure(layer, task.clearance, task.goalTile)
    : ctx.grid.configure(layer, task.clearance, neighborhood, task.goalTile);
  const r = astar(space, ctx.workspace, [task.startTile], {
    maxExpansions: task.maxExpansions,
    deadline: performance.now() + task.maxMillis,
    cancel,
    trackNearest: true,
  }, ctx.result);
  const tilePath = (state: number) => {
    const path = reconstructPath(ctx.workspace, state);
    return jump ? expandJumpPath(layer, path) : path;
  };
  switch (r.status) {
    case "found":
      return { path: tilePath(r.goal), status: "found", expansions: r.expansions };
    case "budget":
    case "deadline":
      return {
        path: r.best >= 0 ? tilePath(r.best) : null,
        status: "budget",
        expansions: r.expansions,
      };
    case "cancelled":
      return { path: null, status: "cancelled", expansions: r.expansions };
    default:
      return { path: null, status: "unreachable", expansions: r.expansions };
  }
}

/** LINE segments through points (x, y pairs), forward; collinear runs are merged. */
export function polylineSegments(points: ArrayLike<number>): Segment[] {
  const segs: Segment[] = [];
  const n = points.length / 2;
  let i = 0;
  while (i < n - 1) {
    const x0 = points[2 * i], y0 = points[2 * i + 1];
    const dx = points[2 * i + 2] - x0, dy = points[2 * i + 3] - y0;
    let j = i + 1;
    // Extend while the next step keeps exactly the same direction (grid steps are exact small integers).
    while (j < n - 1) {
      const ex = points[2 * j + 2] - points[2 * j], ey = points[2 * j + 3] - points[2 * j + 1];
      if (Math.abs(ex * dy - ey * dx) > 1e-12 || ex * dx + ey * dy <= 0) break;
      j++;
    }
    const x1 = points[2 * j], y1 = points[2 * j + 1];
    const len = Math.hypot(x1 - x0, y1 - y0);
    if (len > 0) segs.push(lineSegment({ x: x0, y: y0, heading: Math.atan2(y1 - y0, x1 - x0) }, len, 1));
    i = j;
  }
  return segs;
}

/** Tile centers of a tile path as x, y pairs. */
export function tileCenters(path: Int32Array, width: number): Float64Array {
  const pts = new Float64Array(path.length * 2);
  for (let i = 0; i < path.length; i++) {
    pts[2 * i] = (path[i] % width) + 0.5;
    pts[2 * i + 1] = Math.floor(path[i] / width) + 0.5;
  }
  return pts;
}

/**
 * GRID and SMOOTH: grid A*, then (SMOOTH) the article's simple smoothing. SMOOTH on a uniform-cost layer first
 * checks the straight line from the start tile to the goal tile: when the unit's disc can sweep it, that line
 * is the answer (no path is shorter, and uniform terrain has no costlier tiles to avoid), with no search.
 */
function planGridOrSmooth(ctx: PlanContext, task: PlanTask, cancel: Int32Array | null): PlanOutcome {
  const layer = ctx.layer(task.layerKey);
  if (task.planner === "smooth") {
    const direct = directLine(layer, task);
    if (direct) return direct;
  }
  const search = gridSearch(ctx, layer, task, task.neighborhood as Neighborhood, cancel);
  if (search.status === "cancelled") {
    return planOutcome(task.planner, { status: "cancelled", expansions: search.expansions });
  }
  if (!search.path) {
    return planOutcome(task.planner, {
      status: search.status === "budget" ? "budget" : "unreachable",
      expansions: search.expansions,
      message: search.status === "budget" ? "search budget exhausted before any progress" : "no path",
    });
  }
  const path = search.path;
  const status = search.status === "budget" ? "budget" : task.nearest ? "nearest" : "found";
  let segments: Segment[];
  let length: number;
  if (task.planner === "grid") {
    segments = polylineSegments(tileCenters(path, layer.width));
    length = gridPathLength(layer, path, layer.width);
  } else {
    const pts = smoothPath(layer, task.unit.boundingRadius, path, layer.width);
    segments = polylineSegments(pts);
    if (task.unit.headings > 0) {
      // Fixed-angle art: every straight stretch at one of the unit's legal headings, still collision-free.
      const fixed = toFixedAngles(segments, task.unit.headings, {
        layer,
        footprint: task.unit.footprint,
        check: true,
      });
      if (!fixed) {
        return planOutcome(task.planner, {
          status: "no_legal_path",
          expansions: search.expansions,
          waypoints: task.wantWaypoints ? path : null,
          message: `no collision-free path along the ${task.unit.headings} legal headings of the unit's art`,
        });
      }
      segments = fixed;
    }
    length = segments.reduce((a, s) => a + s.length, 0);
  }
  return planOutcome(task.planner, {
    status,
    segments,
    length,
    waypoints: task.wantWaypoints ? path : null,
    expansions: search.expansions,
    message: status === "budget" ? "search budget exhausted; partial path toward the goal" : "",
  });
}

/** SMOOTH's straight line to the goal when it is walkable on a uniform-cost layer, else null. */
function directLine(layer: PassLayer, task: PlanTask): PlanOutcome | null {
  const uniform = uniformCost(layer);
  if (uniform <= 0 || task.startTile === task.goalTile) return null;
  const w = layer.width;
  const pts = Float64Array.of(
    (task.startTile % w) + 0.5,
    Math.floor(task.startTile / w) + 0.5,
    (task.goalTile % w) + 0.5,
    Math.floor(task.goalTile / w) + 0.5,
  );
  if (
    !(sweptMaxCost(layer, task.unit.boundingRadius, pts[0], pts[1], pts[2], pts[3], uniform, uniform) <=
      uniform)
  ) {
    return null;
  }
  let segments = polylineSegments(pts);
  if (task.unit.headings > 0) {
    const fixed = toFixedAngles(segments, task.unit.headings, {
      layer,
      footprint: task.unit.footprint,
      check: true,
    });
    if (!fixed) return null;
    segments = fixed;
  }
  return planOutcome(task.planner, {
    status: task.nearest ? "nearest" : "found",
    segments,
    length: segments.reduce((a, s) => a + s.length, 0),
    waypoints: task.wantWaypoints ? Int32Array.of(task.startTile, task.goalTile) : null,
    expansions: 0,
    message: "straight line to the goal",
  });
}

/** Runs one task; the cancel flag is polled by every search. */
export function runPlanTask(ctx: PlanContext, task: PlanTask, cancel: Int32Array | null): PlanOutcome {
  const t0 = performance.now();
  let out: PlanOutcome;
  switch (task.planner) {
    case "grid":
    case "smooth":
      out = planGridOrSmooth(ctx, task, cancel);
      break;
    case "curved":
      out = planCurved(ctx, task, cancel);
      break;
    case "hierarchical":
      out = planHierarchical(ctx, task, cancel);
      break;
    case "directional":
      out = planDirectional(ctx, task, cancel);
      break;
    case "hybrid":
      out = planHybrid(ctx, task, cancel);
      break;
    default:
      throw new Error(`planner ${task.planner} is not implemented in the worker`);
  }
  // Line planners asked for by name for a unit that cannot turn in place: say what the corners are.
  if (
    task.unit.turningRadius > 0 && out.segments.length > 0 &&
    (task.planner === "grid" || task.planner === "smooth" || task.planner === "hierarchical")
  ) {
    const note = `lines only, an approximation for this unit: corners are turns in place, tighter than its ` +
      `turning radius ${task.unit.turningRadius} (PLANNER_HYBRID or PLANNER_DIRECTIONAL plan drivable curves)`;
    out.message = out.message ? `${out.message}; ${note}` : note;
  }
  // Every planner's path gets a speed profile when the unit has speed limits (planners may set it themselves).
  if (out.duration === 0 && out.segments.length > 0 && task.unit.maxSpeed > 0) {
    out.duration = applySpeedProfile(out.segments, task.unit);
  }
  out.searchMicros = Math.round((performance.now() - t0) * 1000);
  return out;
}
