/**
 * What a Fleet stream asks the plan service for, and what it does with the answers: each unit's path to its
 * goal (planned in parallel, the unit then waiting or unreachable), the legs of late units' detours
 * (fleetDetour.ts) and the two legs of a waiting unit's step aside to a refuge (fleetRefuge.ts). The session
 * (fleetSession.ts) handles the messages and the clock; the scheduler (fleetScheduler.ts) times the paths.
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { ServiceError } from "./errors.ts";
import { detourLate, type DetourLeg } from "./fleetDetour.ts";
import { refuges } from "./fleetRefuge.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import type { FleetErrorOut, FleetOptions } from "./fleetTypes.ts";
import type { MapStore, MapVersion } from "./mapStore.ts";
import type { PlanService } from "./planService.ts";
import { fittingHeading } from "./poseGate.ts";
import type { GoalSpec, PlannerChoice, PlanRequest } from "./requests.ts";

/** A fleet unit's path: the planner's defaults, the server's limits, no waypoints. */
const FLEET_PLAN_OPTIONS: PlanRequest["options"] = {
  ...{
    neighborhood: 0,
    maxExpansions: 0,
    maxMillis: 0,
    nearestFallback: false,
    ignoreObstaclesInCurves: false,
  },
  ...{ tighterTurns: false, allowBackingUp: false, keepToRoads: false, wantWaypoints: false },
};

/** Expansions allowed for the leg to a refuge. */
const REFUGE_EXPANSIONS = 4000;

/** Late units given detours per round of a batch (FleetOptions.detourUnits overrides it). */
export const DETOUR_UNITS = 64;

/** Waiting units given a refuge per batch of messages. */
const REFUGE_ROUNDS = 4;

/** A unit's goal and the planner it asked for. */
export interface FleetGoal {
  /** Where it drives to. */
  goal: GoalSpec;
  /** The planner of its paths. */
  planner: PlannerChoice;
}

/** One fleet's planning against the plan service (see the module doc). */
export class FleetPlanning {
  readonly #plans: PlanService;
  readonly #store: MapStore;
  readonly #map: () => MapVersion;
  readonly #closed: () => boolean;
  /** Each unit's goal and planner (set by its unit messages). */
  readonly goals = new Map<string, FleetGoal>();
  /** Units already given a chance to step aside since their last path. */
  readonly #refugeTried = new Set<string>();

  /** `map`: the version the fleet plans on now (patches move it); `closed`: the stream ended. */
  constructor(plans: PlanService, store: MapStore, map: () => MapVersion, closed: () => boolean) {
    this.#plans = plans;
    this.#store = store;
    this.#map = map;
    this.#closed = closed;
  }

  /** The unit's pass layer on the fleet's map version. */
  layer(u: FleetUnitState): PassLayer {
    return this.#store.layerFor(this.#map(), u.unit).layer;
  }

  /**
   * Plans the paths of the units in `toPlan` (id to start pose) in parallel and sets each unit's path and status
   * (waiting, or unreachable with a message; a plan error is also reported). False when the stream ended
   * meanwhile (nothing set).
   */
  async planPaths(
    sched: FleetScheduler,
    toPlan: Map<string, Pose>,
    report: (e: FleetErrorOut) => void,
  ): Promise<boolean> {
    const ids = [...toPlan.keys()].filter((id) => sched.units.has(id));
    const reqs: PlanRequest[] = ids.map((id) => {
      const g = this.goals.get(id)!;
      return this.#request(sched.units.get(id)!, toPlan.get(id)!, g.goal, g.planner);
    });
    for (const id of ids) {
      this.#refugeTried.delete(id);
      sched.units.get(id)!.legOne = undefined;
    }
    toPlan.clear();
    const results = reqs.length > 0 ? await this.#plans.planMany(reqs) : [];
    if (this.#closed()) return false;
    results.forEach((r, i) => {
      const u = sched.units.get(ids[i]);
      if (!u) return;
      if (r instanceof ServiceError) {
        report({
          unitId: u.id,
          code: r.code,
          message: `unit[${JSON.stringify(u.id)}].${r.message}`,
        });
        u.path = [];
        u.status = "unreachable";
        u.message = r.message;
        return;
      }
      const o = r.outcome;
      if (o.status === "found" && o.segments.length > 0) {
        u.path = o.segments;
        u.status = "waiting";
      } else if (o.status === "found") {
        u.path = [];
        u.status = "waiting";
      } else {
        u.path = [];
        u.status = "unreachable";
        u.message = `no path to the goal (${o.status}${o.message ? `: ${o.message}` : ""}); it stands`;
      }
    });
    return true;
  }

  /** The detour pass (fleetDetour.ts) on the fleet's planners; returns the ids it changed. */
  async detours(sched: FleetScheduler, clock: number, opts: FleetOptions): Promise<Set<string>> {
    const maxUnits = opts.detourUnits ?? DETOUR_UNITS;
    if (maxUnits <= 0) return new Set();
    const plan = async (legs: DetourLeg[]) => {
      const reqs = legs.map((l) => {
        const g = this.goals.get(l.unit.id)!;
        const goal = l.to === null ? g.goal : { ...g.goal, x: l.to.x, y: l.to.y, heading: undefined };
        return this.#request(l.unit, l.from, goal, g.planner);
      });
      const res = await this.#plans.planMany(reqs);
      return res.map((r) =>
        r instanceof ServiceError || r.outcome.status !== "found" ? null : r.outcome.segments
      );
    };
    const fits = (u: FleetUnitState, x: number, y: number) => {
      const { width, height } = this.#map().map;
      if (!(x > 0 && y > 0 && x < width && y < height)) return false;
      return fittingHeading(this.layer(u), x, y, undefined, u.unit.footprint) !== null;
    };
    // Unset: the pass sizes its budget to the work (fleetDetour.ts defaultBudgetMs).
    const budgetMs = opts.detourMs;
    const layer = (u: FleetUnitState) => this.layer(u);
    const { changed } = await detourLate(sched, clock, plan, { maxUnits, fits, budgetMs, layer });
    return changed;
  }

  /**
   * Units that wait with a path step aside (the article's yielding, as a plan): for the last-added waiting unit
   * not tried yet, a refuge near it off every other unit's path, reached by a first leg; it waits there while
   * the others pass, then drives a second leg to its goal (fleetScheduler.ts #scheduleVia). A few per batch.
   */
  async stepAside(sched: FleetScheduler, clock: number): Promise<Set<string>> {
    const changed = new Set<string>();
    for (let round = 0; round < REFUGE_ROUNDS; round++) {
      const waiting = [...sched.units.values()].filter((u) =>
        u.status === "waiting" && u.legOne === undefined && u.path.length > 0 &&
        u.traj.segments.length === 0 &&
        !this.#refugeTried.has(u.id)
      ).sort((a, b) => b.order - a.order);
      if (waiting.length === 0) break;
      const w = waiting[0];
      this.#refugeTried.add(w.id);
      const pose = w.traj.startPose;
      const goal = this.goals.get(w.id)!;
      const candidates = refuges(this.layer(w), sched, w, pose);
      if (candidates.length === 0) continue;
      const base = this.#request(w, pose, goal.goal, goal.planner);
      // The leg to a refuge is short by construction: a small budget keeps a refuge behind a wall from costing
      // a long search.
      const toRefuge = { ...base.options, maxExpansions: REFUGE_EXPANSIONS };
      const reqs = candidates.flatMap((c) => [
        { ...base, options: toRefuge, goal: { ...goal.goal, x: c.x, y: c.y, heading: undefined } },
        { ...base, start: c, goal: goal.goal },
      ]);
      const res = await this.#plans.planMany(reqs);
      if (this.#closed()) return changed;
      for (let i = 0; i < candidates.length; i++) {
        const a = res[2 * i], b = res[2 * i + 1];
        if (a instanceof ServiceError || b instanceof ServiceError) continue;
        if (a.outcome.status !== "found" || b.outcome.status !== "found") continue;
        if (a.outcome.segments.length === 0 || b.outcome.segments.length === 0) continue;
        const end = a.outcome.segments[a.outcome.segments.length - 1].end;
        // The second leg starts where the first ends (its heading too).
        const legTwo = b.outcome.segments;
        if (Math.hypot(end.x - legTwo[0].start.x, end.y - legTwo[0].start.y) > 1e-6) continue;
        w.path = [...a.outcome.segments, ...legTwo];
        w.legOne = a.outcome.segments.length;
        for (const id of sched.settle(clock, [w.id], false)) changed.add(id);
        break;
      }
    }
    // Units that stepped aside may let others start (and then go on themselves).
    if (changed.size > 0) { for (const id of sched.retryWaiting(clock)) changed.add(id); }
    return changed;
  }

  #request(u: FleetUnitState, start: Pose, goal: GoalSpec, planner: PlannerChoice): PlanRequest {
    const mv = this.#map();
    return {
      map: { id: mv.id, version: mv.version },
      unit: u.unit,
      start,
      goal,
      planner,
      options: FLEET_PLAN_OPTIONS,
    };
  }
}
