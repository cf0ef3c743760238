/**
 * The two extra states of the directional search: the exact start pose (off-center, any heading; its
 * successors are curves computed on the fly, as the article prescribes for the first node) and the exact goal
 * pose, reached by analytic expansion (as in Hybrid A*: every few expansions, and at every expansion near the
 * goal, the direct shortest curve to the goal pose is tried and taken when its sweep is open).
 *
 * @module
 */
import { angleDistance } from "../geometry/angle.ts";
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { Successors } from "./astar.ts";
import { directionTable, headingAngle, nearestHeading } from "./directionTable.ts";
import { curveCost } from "./directionalCost.ts";
import type { WindowRaster } from "./directionalRaster.ts";
import type { DirectionalSetup } from "./directionalSetup.ts";
import { measureCurve, transitionCurve, VARIANT_DUBINS, VARIANT_REEDS_SHEPP } from "./hitCheckTable.ts";

/** Start and goal of one query (configure per query, after the raster). */
export class DirectionalEndpoints {
  /** The exact-start state id. */
  startState = -1;
  /** The exact-goal state id. */
  goalState = -1;
  /** The node state the start pose snaps to (a tile center with a table heading), or -1. */
  snappedStart = -1;
  /** Successor states of the exact start (when it does not snap). */
  startIds = new Int32Array(0);
  /** Their fixed-point costs. */
  startCosts = new Float64Array(0);
  /** The start pose already meets the goal. */
  startIsGoal = false;
  /** Analytic expansions tried (for statistics). */
  analyticTries = 0;
  /** Curve variant of each start successor. */
  private startVariant = new Map<number, number>();
  private setup!: DirectionalSetup;
  /** The layer whose terrain the curves integrate when the window's tile costs differ, else null. */
  private terrain: PassLayer | null = null;
  private raster!: WindowRaster;
  private expansions = 0;
  private goalTileX = 0;
  private goalTileY = 0;
  /** Analytic expansion is tried at every expansion this near the goal point. */
  private nearDistance = 0;

  /** Prepares a query: the special state ids, the goal's tile and the start's successors. */
  configure(
    setup: DirectionalSetup,
    raster: WindowRaster,
    startState: number,
    goalState: number,
    terrainVaries = false,
  ): this {
    this.setup = setup;
    this.terrain = terrainVaries ? setup.layer : null;
    this.raster = raster;
    this.startState = startState;
    this.goalState = goalState;
    this.expansions = 0;
    this.analyticTries = 0;
    const g = setup.goal;
    this.goalTileX = Math.floor(g.x);
    this.goalTileY = Math.floor(g.y);
    this.nearDistance = Math.max(4, 2 * setup.turningRadius + 1);
    this.startIsGoal = Math.hypot(setup.start.x - g.x, setup.start.y - g.y) <= g.tolerance &&
      (g.heading === undefined || angleDistance(setup.start.heading, g.heading) <= g.headingTolerance);
    this.snappedStart = this.snapStart();
    if (this.snappedStart >= 0) {
      this.startIds = new Int32Array(0);
      this.startCosts = new Float64Array(0);
    } else this.prepareStart();
    return this;
  }

  /** The pose of a state (exact start/goal poses for the two special states; the goal's as seen from `from`). */
  poseOf(state: number, from = -1): Pose {
    if (state === this.startState) return { ...this.setup.start };
    if (state === this.goalState) return this.analyticTarget(from);
    return this.raster.nodePose(state);
  }

  /** The curve variant the start took to a start successor. */
  startVariantOf(state: number): number {
    return this.startVariant.get(state) ?? VARIANT_DUBINS;
  }

  /**
   * The node state of the start when it is exactly a tile center with a table heading (then the table's
   * transitions apply to it and no exact start curves are needed), else -1.
   */
  private snapStart(): number {
    const s = this.setup;
    const r = this.raster;
    const p = s.start;
    const x = Math.floor(p.x), y = Math.floor(p.y);
    if (Math.abs(p.x - (x + 0.5)) > 1e-9 || Math.abs(p.y - (y + 0.5)) > 1e-9) return -1;
    const w = s.window;
    if (x < w.x0 || y < w.y0 || x >= w.x1 || y >= w.y1) return -1;
    const h = nearestHeading(p.heading, r.headings);
    if (angleDistance(headingAngle(h, r.headings), p.heading) > 1e-9) return -1;
    const lt = r.local(x, y);
    r.ensureAround(lt);
    if (r.open[lt] === 0) return -1;
    return r.stateOf(x, y, h, false);
  }

  /** The exact curves from the start pose to the open tile centers around it, cheapest per state. */
  private prepareStart(): void {
    const s = this.setup;
    const raster = this.raster;
    const H = raster.headings;
    const w = s.window;
    const sx = Math.floor(s.start.x), sy = Math.floor(s.start.y);
    // The first curves are computed exactly, so they may reach a little further than the table: at least the
    // 5x5 square, which an off-center start with a tight turning radius needs to line up with the grid.
    const offsets = directionTable(s.hit.profile.neighborhood === 8 ? 24 : s.hit.profile.neighborhood);
    const best = new Map<number, number>();
    this.startVariant.clear();
    this.startIds = new Int32Array(0);
    this.startCosts = new Float64Array(0);
    // A start pose that overlaps a blocked tile: every curve from it would fail the sweep (~800 of them).
    if (raster.poseIsBlocked(s.start, s.footprint)) return;
    const r = s.turningRadius;
    for (let o = -1; o < offsets.length / 2; o++) {
      const x = sx + (o < 0 ? 0 : offsets[2 * o]);
      const y = sy + (o < 0 ? 0 : offsets[2 * o + 1]);
      if (x < w.x0 || y < w.y0 || x >= w.x1 || y >= w.y1) continue;
      const lt = raster.local(x, y);
      raster.ensureAround(lt);
      if (raster.nodeOk[lt] === 0 || raster.boundAt(lt) === Infinity) continue;
      for (let h = 0; h < H; h++) {
        const target = { x: x + 0.5, y: y + 0.5, heading: headingAngle(h, H) };
        for (let v = 0; v < (s.reverse ? 2 : 1); v++) {
          const segs = transitionCurve(s.start, target, r, v);
          if (v === VARIANT_REEDS_SHEPP && !segs.some((q) => q.direction < 0)) continue;
          if (!raster.curveIsOpen(segs, s.footprint)) continue;
          const m = measureCurve(segs);
          const id = raster.stateOf(x, y, h, m.last < 0);
          const c = curveCost(segs, raster.cost[lt], 0, s, this.terrain);
          const prev = best.get(id);
          if (prev === undefined || c < prev) {
            best.set(id, c);
            this.startVariant.set(id, v);
          }
        }
      }
    }
    this.startIds = new Int32Array(best.size);
    this.startCosts = new Float64Array(best.size);
    let i = 0;
    for (const [id, c] of best) {
      this.startIds[i] = id;
      this.startCosts[i] = c;
      i++;
    }
  }

  /** The analytic target pose seen from state `from` (the goal heading, or the bearing to the goal). */
  private analyticTarget(from: number): Pose {
    const g = this.setup.goal;
    if (g.heading !== undefined) return { x: g.x, y: g.y, heading: g.heading };
    const p = from >= 0 ? this.poseOf(from) : this.setup.start;
    return { x: g.x, y: g.y, heading: Math.atan2(g.y - p.y, g.x - p.x) };
  }

  /** The analytic curve from a state to the goal pose. */
  analyticCurve(from: number): Segment[] {
    const v = this.setup.reverse ? VARIANT_REEDS_SHEPP : VARIANT_DUBINS;
    return transitionCurve(this.poseOf(from), this.analyticTarget(from), this.setup.turningRadius, v);
  }

  /**
   * Analytic expansion after state's successors (n of them in `out`): on schedule, or near the goal, appends
   * the goal state when the direct curve is open. `lastDir` is the state's last motion (1, -1; 0 for the start).
   */
  tryAnalytic(state: number, out: Successors, n: number, lastDir: number): number {
    const interval = this.setup.analyticInterval;
    if (interval <= 0) return n;
    this.expansions++;
    const p = this.poseOf(state);
    const g = this.setup.goal;
    const near = Math.hypot(p.x - g.x, p.y - g.y) <= this.nearDistance;
    // Always from the exact start: an off-center start (a tile border, the centre line of a 2-wide corridor)
    // may have no legal tile-center successor at all, and then this is the search's only way on.
    if (!near && this.expansions % interval !== 0 && state !== this.startState) return n;
    this.analyticTries++;
    const segs = this.analyticCurve(state);
    if (!this.raster.curveIsOpen(segs, this.setup.footprint)) return n;
    out.ids[n] = this.goalState;
    const goalLocal = this.raster.local(this.goalTileX, this.goalTileY);
    this.raster.ensureAround(goalLocal);
    const tileCost = this.raster.cost[goalLocal];
    out.costs[n] = curveCost(segs, tileCost, lastDir, this.setup, this.terrain);
    return n + 1;
  }
}
