/**
 * The planning pipeline's policy: resolve the map version and the unit, check the request against the map,
 * answer unreachable goals from the region tables without searching, choose the planner, and run the search
 * on the worker pool.
 *
 * @module
 */
import { clearanceClass, reachClearanceClass } from "../maps/layer.ts";
import { componentOfTile, nearestOpenTileInComponent, type RegionTable } from "../maps/regions.ts";
import { type PlannerName, type PlanOutcome, planOutcome, type PlanTask } from "../planning/task.ts";
import { runPlanTask } from "../planning/plan.ts";
import { PlanContext } from "../planning/context.ts";
import { tableStore } from "./directionalTables.ts";
import { useJumpPoints } from "../search/jumpPointSpace.ts";
import { invalid, ServiceError } from "./errors.ts";
import { fittingHeading, footprintReachLabels, poseError, requireFits } from "./poseGate.ts";
import { inscribedRadius } from "../units/footprint.ts";
import { type LayerEntry, type MapStore, type MapVersion } from "./mapStore.ts";
import { type WorkerPool } from "./pool.ts";
import { graphInBackground, graphPendingNote, graphsInBackground } from "./mapGraphs.ts";
import { jumpTablesForQuery, octileDistance } from "./mapJumps.ts";
import { type UnitSpec } from "../units/unit.ts";
import type { PlannerChoice, PlanOptions, PlanRequest } from "./requests.ts";
import { checkSettings, plannerForSettings } from "./settings.ts";

/** Limits the service applies when a request sets none. */
export interface PlanLimits {
  /** Default and maximum expansions per plan. */
  maxExpansions: number;
  /** Default and maximum milliseconds per plan. */
  maxMillis: number;
}

/** A finished plan with what the wire response needs. */
export interface PlanResult {
  /** The worker's outcome (or the region table's). */
  outcome: PlanOutcome;
  /** The version used. */
  mapVersion: MapVersion;
  /** Microseconds in the queue. */
  queueMicros: number;
  /** Answered from the region tables. */
  fromRegionTable: boolean;
  /** The resolved unit the plan was for (shown in the response). */
  unit: UnitSpec;
}

/** Queries whose start and goal tiles are at most this far apart (Chebyshev) may use the inline fast lane. */
export const FAST_LANE_DISTANCE = 24;

/** PLANNER_AUTO (and a stream's first answer) use hierarchical search from this straight-line distance on. */
export const HIERARCHICAL_DISTANCE = 96;

/** Requests of one PlanMany batch in flight at once (enough to keep every worker and the fast lane busy). */
export const PLAN_MANY_IN_FLIGHT = 32;

/** Planners the workers can run today (the server answers UNIMPLEMENTED for the others). */
export const AVAILABLE_PLANNERS: ReadonlySet<PlannerName> = new Set<PlannerName>([
  "grid",
  "smooth",
  "curved",
  "hierarchical",
  "directional",
  "hybrid",
]);
const AVAILABLE = AVAILABLE_PLANNERS;

/** Runs Plan requests. */
export class PlanService {
  readonly #store: MapStore;
  readonly #pool: WorkerPool;
  readonly #limits: PlanLimits;
  readonly #testHooks: boolean;
  readonly #fastLaneExpansions: number;
  readonly #inlineShared = new Map<string, unknown>();
  readonly #inlineContext = Object.assign(
    new PlanContext((key) => this.#inlineShared.get(key), tableStore),
    // Jump tables of big maps come from the workers (pool.ts adopts them on this thread), never built here.
    { maxBuildTiles: 512 * 512 },
  );

  /** Creates the service over a store and a pool. */
  constructor(
    store: MapStore,
    pool: WorkerPool,
    limits: PlanLimits,
    testHooks = false,
    fastLaneExpansions = 2048,
  ) {
    this.#fastLaneExpansions = fastLaneExpansions;
    this.#store = store;
    this.#pool = pool;
    this.#limits = limits;
    this.#testHooks = testHooks;
  }

  /** The worker pool (an upload's `prepare` option posts to every worker). */
  get pool(): WorkerPool {
    return this.#pool;
  }

  /** True when the server was started with test hooks (a request may then ask for a worker crash). */
  get testHooks(): boolean {
    return this.#testHooks;
  }

  /**
   * Plans one path for a decoded request; checks what needs the map (tiles in bounds, a start the unit fits on,
   * the neighbourhood for the chosen planner). The signal aborts on client cancel or deadline. Stream plans wait
   * in the queue.
   */
  async plan(req: PlanRequest, signal?: AbortSignal, fromStream = false): Promise<PlanResult> {
    const first = await this.#plan(req, signal, fromStream, false);
    const out = first.outcome;
    // AUTO took DIRECTIONAL for the unit's turn_penalty; where its search finds nothing, the usual planner answers
    // and says it approximated (its note: priced, not minimised) rather than no path at all.
    if (
      req.planner === "auto" && out.planner === "directional" && !req.options.keepToRoads &&
      req.unit.turnPenalty > 0 && (out.status === "no_legal_path" || out.status === "budget")
    ) {
      const second = await this.#plan(req, signal, fromStream, true);
      if (second.outcome.status === "found" || second.outcome.status === "nearest") {
        const why = `unit.turn_penalty ${req.unit.turnPenalty}: PLANNER_DIRECTIONAL, which minimises it, ` +
          `found no path (${out.message || out.status})`;
        const message = [why, second.outcome.message].filter((m) => m !== "").join("; ");
        return { ...second, outcome: { ...second.outcome, message }, unit: req.unit };
      }
    }
    return { ...first, unit: req.unit };
  }

  /**
   * Plans many independent requests (PlanMany): at most `inFlight` at once (each on the inline fast lane or the
   * pool), so a batch of thousands neither floods the queue nor waits behind its own tail; results come back in
   * request order, each a result or the ServiceError that request alone would have raised. Batch jobs are exempt
   * from the queue limit because the batch bounds itself.
   */
  async planMany(
    reqs: readonly PlanRequest[],
    signal?: AbortSignal,
    inFlight = PLAN_MANY_IN_FLIGHT,
  ): Promise<(PlanResult | ServiceError)[]> {
    const out = new Array<PlanResult | ServiceError>(reqs.length);
    let next = 0;
    const lane = async () => {
      while (next < reqs.length) {
        const i = next++;
        if (signal?.aborted) {
          out[i] = new ServiceError("CANCELLED", "batch cancelled before this request started");
          continue;
        }
        try {
          out[i] = await this.plan(reqs[i], signal, true);
        } catch (e) {
          out[i] = e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(inFlight, reqs.length) }, lane));
    return out;
  }

  async #plan(
    req: PlanRequest,
    signal: AbortSignal | undefined,
    fromStream: boolean,
    withoutTurnRule: boolean,
  ): Promise<Omit<PlanResult, "unit">> {
    const { map: ref, unit, start, goal, options: opts } = req;
    const debugCrash = this.#testHooks && req.debugCrash === true;
    const mv = await this.#store.get(ref.id, ref.version);
    const unpin = this.#store.pin(mv);
    try {
      const { width, height } = mv.map;
      const startTile = this.#tileOf("start", start.x, start.y, width, height);
      const goalTile = this.#tileOf("goal", goal.x, goal.y, width, height);
      const entry = this.#store.layerFor(mv, unit);
      const distance = Math.hypot(goal.x - start.x, goal.y - start.y);
      const planner = this.#choosePlanner(req.planner, unit, opts, distance, entry, withoutTurnRule);
      checkSettings(planner, unit, opts, entry.layer, startTile, goalTile);
      const neighborhood = this.#neighborhood(planner, opts.neighborhood);
      // Region tables of a big map may still be building (mapTables.ts): the gate waits within the budget.
      const budgetMs = Math.min(opts.maxMillis || this.#limits.maxMillis, this.#limits.maxMillis);
      const gateStart = performance.now();
      const gate = await this.#gate(req, mv, entry, startTile, goalTile, planner, budgetMs);
      if ("outcome" in gate) {
        // Answered from the region tables (a BUDGET while one is still building was not).
        const fromRegionTable = gate.outcome.status !== "budget";
        return { outcome: gate.outcome, mapVersion: mv, queueMicros: 0, fromRegionTable };
      }
      const { cls, regions, target, nearest, guideClearance } = gate;
      // A big map's jump tables come from the map builders (mapJumps.ts): plain A* or a wait within the budget.
      const jumpsPending = await jumpTablesForQuery(
        this.#store.builder,
        this.#pool,
        entry,
        guideClearance ?? cls,
        planner,
        octileDistance(start.x, start.y, goal.x, goal.y),
        budgetMs - (performance.now() - gateStart),
        this.#store.log,
      );
      const graphPending = planner === "hierarchical" && graphsInBackground(mv.map)
        ? await this.#graphReady(
          mv,
          entry,
          cls,
          regions,
          neighborhood === 4 ? 4 : 8,
          budgetMs - (performance.now() - gateStart),
        )
        : undefined;
      const task: PlanTask = {
        planner,
        layerKey: entry.key,
        regionKey: `${entry.key}/${cls}`,
        startTile,
        goalTile: target,
        start,
        goal: {
          x: nearest ? (target % width) + 0.5 : goal.x,
          y: nearest ? Math.floor(target / width) + 0.5 : goal.y,
          heading: nearest ? undefined : goal.heading,
          tolerance: goal.tolerance,
          headingTolerance: goal.headingTolerance,
        },
        clearance: cls,
        ...(guideClearance === undefined ? {} : { guideClearance }),
        unit,
        neighborhood,
        maxExpansions: Math.min(opts.maxExpansions || this.#limits.maxExpansions, this.#limits.maxExpansions),
        maxMillis: Math.max(1, Math.round(budgetMs - (performance.now() - gateStart))),
        nearest,
        wantWaypoints: opts.wantWaypoints,
        options: {
          ignoreObstaclesInCurves: opts.ignoreObstaclesInCurves,
          tighterTurns: opts.tighterTurns,
          allowBackingUp: opts.allowBackingUp,
          keepToRoads: opts.keepToRoads,
        },
        debugCrash,
        ...(req.maxCorridorWindows === undefined ? {} : { maxCorridorWindows: req.maxCorridorWindows }),
        ...(req.fitOnly ? { fitOnly: true } : {}),
        // AUTO's portfolio for turning units (src/planning/auto.ts): PLANNER_HYBRID by name runs alone.
        portfolio: req.planner === "auto" && planner === "hybrid",
        ...(jumpsPending === undefined ? {} : { jumpsPending }),
      };
      if (graphPending !== undefined) task.graphPending = graphPending;
      if (this.#fastLaneFits(task, width)) {
        const inline = this.#runInline(task, entry, regions);
        if (inline) return { outcome: inline, mapVersion: mv, queueMicros: 0, fromRegionTable: false };
      }
      const { value, queueMicros } = await this.#pool.run(
        task,
        this.#sharedFor(entry, cls, regions),
        signal,
        { exemptFromQueueLimit: fromStream },
      );
      if (value.status === "cancelled" || value.status === "deadline") {
        throw new ServiceError(
          value.status === "deadline" ? "DEADLINE_EXCEEDED" : "CANCELLED",
          "search stopped before it finished",
        );
      }
      return { outcome: value, mapVersion: mv, queueMicros, fromRegionTable: false };
    } finally {
      unpin();
    }
  }

  /**
   * A big map's graph is prepared by the map builders, once; the grid search answers until it is published
   * (the note it answers with is returned, undefined once ready). A graph kept in the data directory from an
   * earlier run is read in moments: that read is waited for, within half the budget left.
   */
  async #graphReady(
    mv: MapVersion,
    entry: LayerEntry,
    cls: number,
    regions: RegionTable,
    nh: 4 | 8,
    leftMs: number,
  ): Promise<string | undefined> {
    const store = this.#store;
    // Maps that are not persisted (ephemeral, built-in) keep no graph files either.
    const files = mv.ephemeral || mv.builtin ? null : store.graphFiles;
    const persist = { files, version: mv.version, mapId: mv.id };
    const ask = () =>
      graphInBackground(
        store.builder,
        this.#pool,
        entry,
        cls,
        regions,
        nh,
        store.log,
        // Registered with the pool on publishing (a graph read from disk may be published before any query ran).
        this.#sharedFor(entry, cls, regions),
        persist,
      );
    let { state, done } = ask();
    if (!state.ready && state.loading) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([done, new Promise((r) => timer = setTimeout(r, Math.max(0, leftMs / 2)))]);
      clearTimeout(timer);
      ({ state } = ask());
    }
    return state.ready ? undefined : graphPendingNote(cls, state);
  }

  /**
   * The map-dependent gate: the unit's actual footprint must fit at the start pose (and at the goal, unless
   * the request falls back to the nearest reachable tile), else INVALID_ARGUMENT with the nearest legal pose.
   * Then the region tables: at the footprint's over-approximating class (reachClearanceClass: every tile a
   * legal pose's center can lie in is open) a goal in another component is unreachable for certain, answered
   * without searching. The line planners keep the bounding disc on tile centers (the class of the bounding
   * radius); where that rule alone separates the pair they say so (NO_LEGAL_PATH) instead of claiming it is
   * unreachable. The curve planners then guide their grid searches at the over-approximating class, and their
   * segments are still checked with the exact swept footprint.
   */
  async #gate(
    req: PlanRequest,
    mv: MapVersion,
    entry: LayerEntry,
    startTile: number,
    goalTile: number,
    planner: PlannerName,
    budgetMs: number,
  ): Promise<
    | { outcome: PlanOutcome }
    | { cls: number; regions: RegionTable; target: number; nearest: boolean; guideClearance?: number }
  > {
    const { unit, start, goal, options: opts } = req;
    const layer = entry.layer;
    requireFits(layer, "start", start, unit.footprint);
    const goalFits = fittingHeading(layer, goal.x, goal.y, goal.heading, unit.footprint) !== null;
    if (!goalFits && !opts.nearestFallback) throw poseError(layer, "goal", goal, unit.footprint);
    const cls = clearanceClass(unit.boundingRadius);
    const reachCls = reachClearanceClass(inscribedRadius(unit.footprint));
    // A table still building in the background past the budget: BUDGET naming it (a later query finds it).
    const t0 = performance.now();
    const got = await this.#store.regionsReady(mv, entry, cls, budgetMs);
    const gotReach = reachCls === cls || !("table" in got)
      ? got
      : await this.#store.regionsReady(mv, entry, reachCls, budgetMs - (performance.now() - t0));
    if (!("table" in got) || !("table" in gotReach)) {
      const message = "building" in got ? got.building : "building" in gotReach ? gotReach.building : "";
      return { outcome: planOutcome(planner, { status: "budget", message }) };
    }
    const regions = got.table;
    const reach = gotReach.table;
    const reachStart = componentOfTile(reach, startTile);
    const centerStart = componentOfTile(regions, startTile);
    const lineRule = planner === "grid" || planner === "smooth" || planner === "hierarchical";
    const centersJoin = centerStart >= 0 && componentOfTile(regions, goalTile) === centerStart;
    // A legal start's tile is open at the over-approximating class (see reachClearanceClass); -1 would only
    // mean rounding at a boundary, and then the search decides.
    let joined = goalFits && (reachStart < 0 || componentOfTile(reach, goalTile) === reachStart);
    if (joined && !centersJoin) {
      // The class is coarse (0.5, every open tile, up to an inscribed radius of 1): before a search that the
      // tile-center rule cannot settle, the sharper per-tile test of src/geometry/footprintReach.ts.
      const inscribed = inscribedRadius(unit.footprint);
      const labels = footprintReachLabels(layer, inscribed, reachCls);
      if (labels !== null && labels[startTile] >= 0 && labels[goalTile] !== labels[startTile]) joined = false;
    }
    if (joined && (centersJoin || !lineRule)) {
      const guide = centersJoin ? {} : { guideClearance: reachCls };
      return { cls, regions, target: goalTile, nearest: false, ...guide };
    }
    if (!opts.nearestFallback) {
      const outcome = joined
        ? planOutcome(planner, {
          status: "no_legal_path",
          message: `${planner} keeps the unit's bounding disc (radius ${unit.boundingRadius}) on tile ` +
            `centers, and under that rule the start and goal tiles are not connected; the footprint may still ` +
            `join them off tile centers (PLANNER_HYBRID or PLANNER_DIRECTIONAL search that)`,
        })
        : planOutcome(planner, {
          status: "unreachable",
          message: "the goal is not connected to the start for this unit",
        });
      return { outcome };
    }
    // Nearest fallback: the nearest tile whose center the unit's bounding disc fits on (a legal goal for every
    // planner) in the start's component; off tile centers, the over-approximation's component.
    const target = centerStart >= 0
      ? nearestOpenTileInComponent(regions, layer, centerStart, goal.x, goal.y)
      : nearestOpenTileInComponent(reach, layer, reachStart, goal.x, goal.y);
    const guide = centerStart >= 0 || lineRule ? {} : { guideClearance: reachCls };
    return { cls, regions, target, nearest: true, ...guide };
  }

  /** Short grid, smooth and hybrid queries qualify for the inline fast lane. */
  #fastLaneFits(task: PlanTask, width: number): boolean {
    if (task.planner !== "grid" && task.planner !== "smooth" && task.planner !== "hybrid") return false;
    if (task.debugCrash || this.#fastLaneExpansions <= 0) return false;
    const dx = Math.abs((task.startTile % width) - (task.goalTile % width));
    const dy = Math.abs(Math.floor(task.startTile / width) - Math.floor(task.goalTile / width));
    return Math.max(dx, dy) <= FAST_LANE_DISTANCE;
  }

  /**
   * The article's second matrix for interspersed fast searches: a short query runs right here on a small
   * expansion budget, saving two thread hops. Returns null when the budget was too small (the pool takes over).
   * PLANNER_HYBRID runs only its fast lane here (PlanTask.fastLaneOnly: direct curves, a bounded curve fit);
   * queries that need its searches go to the pool.
   */
  #runInline(task: PlanTask, entry: LayerEntry, regions: RegionTable): PlanOutcome | null {
    const budget = Math.min(task.maxExpansions, this.#fastLaneExpansions);
    const fastLaneOnly = task.planner === "hybrid";
    this.#inlineShared.set(entry.key, entry.layer);
    this.#inlineShared.set(task.regionKey!, regions);
    try {
      const out = runPlanTask(this.#inlineContext, { ...task, maxExpansions: budget, fastLaneOnly }, null);
      if (out.status === "budget" && (budget < task.maxExpansions || fastLaneOnly)) return null;
      return out;
    } finally {
      this.#inlineShared.clear();
    }
  }

  #sharedFor(entry: LayerEntry, cls: number, regions: RegionTable) {
    return [
      { key: entry.key, data: entry.layer },
      { key: `${entry.key}/${cls}`, data: regions },
    ];
  }

  #tileOf(field: string, x: number, y: number, width: number, height: number): number {
    if (x < 0 || x >= width) throw invalid(`${field}.x`, x, `must be in [0, ${width}) (map width ${width})`);
    if (y < 0 || y >= height) {
      throw invalid(`${field}.y`, y, `must be in [0, ${height}) (map height ${height})`);
    }
    return Math.floor(y) * width + Math.floor(x);
  }

  /**
   * AUTO: hybrid for units with a turning radius; otherwise smooth, or hierarchical for long queries on maps where
   * grid search cannot use jump points (mixed terrain costs) — with jump points, grid search beats it outright.
   * FAST (a stream's first answer): grid, or hierarchical under the same long-query rule. Before both, the
   * unit's settings (service/settings.ts plannerForSettings): keep_to_roads picks a road planner, and for AUTO
   * a turn_penalty > 0 picks DIRECTIONAL (unless `withoutTurnRule`: the fallback when it found no path).
   */
  #choosePlanner(
    p: PlannerChoice,
    unit: UnitSpec,
    opts: PlanOptions,
    distance: number,
    entry: LayerEntry,
    withoutTurnRule = false,
  ): PlannerName {
    const longWithoutJumpPoints = distance >= HIERARCHICAL_DISTANCE && AVAILABLE.has("hierarchical") &&
      !useJumpPoints(entry.layer, 8);
    if (p === "fast") {
      return plannerForSettings(unit, opts, true) ?? (longWithoutJumpPoints ? "hierarchical" : "grid");
    }
    if (p === "auto") {
      const forSettings = plannerForSettings(unit, opts, withoutTurnRule);
      if (forSettings) return forSettings;
      if (unit.turningRadius > 0 && AVAILABLE.has("hybrid")) return "hybrid";
      return longWithoutJumpPoints ? "hierarchical" : "smooth";
    }
    return p;
  }

  #neighborhood(p: PlannerName, n: number): number {
    if (p === "directional" || p === "hybrid") {
      if (n === 0) return 24;
      if (![8, 24, 48].includes(n)) {
        throw invalid("options.neighborhood", n, "must be 8, 24 or 48 for directional");
      }
      return n;
    }
    if (p === "curved") return 4;
    if (n === 0) return 8;
    if (n !== 4 && n !== 8) throw invalid("options.neighborhood", n, "must be 4 or 8 for grid planners");
    return n;
  }
}
