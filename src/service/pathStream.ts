/**
 * One stream's session: a path kept up to date. The first answer comes fast (streamFirst.ts: for a unit with a
 * turning radius a path it can drive, else grid or hierarchical search), the planner asked for refines it (the
 * article's timeslicing done as progressive answers), and a map patch that touches the part of the
 * path the unit has not travelled yet, or a new goal, triggers a replan. Replans for one stream coalesce: while one
 * runs, further triggers only mark the stream dirty, so work never piles up.
 *
 * A replan keeps the unit driving: it starts at a splice point a short lead ahead of the unit's reported
 * position on its current path (the path corridor's spliceLead; the path's start when it reported none), when
 * that lead is still legal on the map and the unit is on its path. The update then replaces the path from the
 * unit's position (replaceFromSegment and replaceFromDistance): the lead, unchanged, then the new part, with
 * speeds that continue the unit's. Otherwise (the unit off its path, the lead blocked, no plan from the splice
 * point) the replan starts at the unit's last reported pose and the update carries the whole path. A refined
 * answer that arrives after the unit moved along the first one is spliced the same way. The path geometry (where
 * the unit is, the splice, the joined speeds) is the pure path corridor in motion/pathCorridor.ts.
 *
 * A long plan for a turning unit may send its first drivable part early (issue 13 item 1; streamFirst.ts says
 * when): the INITIAL update is a legal prefix, the first windows of PLANNER_DIRECTIONAL's corridor refinement
 * (PLAN_STATUS_PARTIAL; it brakes to a stop at its end), and a REFINED update appends the rest, planned by the
 * planner asked for from the prefix's end pose on the same map version, with replaceFromSegment = the prefix's
 * segment count. When the rest cannot be planned from there, the REFINED update carries a whole path from the
 * start instead.
 *
 * Transport-free: the gRPC handler feeds decoded client messages in and writes the updates this class emits
 * (through streamOutbox.ts, which holds and coalesces them for a slow reader).
 *
 * @module
 */
import type { Pose } from "../geometry/types.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import {
  type CorridorSplice,
  cutSplice,
  joinSplice,
  remainingTouches,
  samplePath,
  spliceLead,
  spliceTarget,
  startsAt,
  trackProgress,
} from "../motion/pathCorridor.ts";
import type { PlanResult, PlanService } from "./planService.ts";
import { appendRest, firstAnswer, planRest, restMessage } from "./streamFirst.ts";
import type { MapStore, PatchEvent } from "./mapStore.ts";
import { ServiceError } from "./errors.ts";
import { checkedStart, type PlanRequest, type ProgressReport, type StreamMessage } from "./requests.ts";
import type { UnitSpec } from "../units/unit.ts";
import type { PassLayer } from "../maps/grid.ts";
import { pathCost } from "../motion/pathCost.ts";
import { displayId } from "./mapKeys.ts";
import { DEFAULT_STALL_MS, type Emit, type UpdateKind, UpdateOutbox } from "./streamOutbox.ts";

// The update types and the outbox live in streamOutbox.ts; callers import them from here too.
export { DEFAULT_STALL_MS, type Emit, type StreamUpdate, type UpdateKind } from "./streamOutbox.ts";

/** Ends the stream, with an error or cleanly. */
export type End = (error?: ServiceError) => void;

/** Planners whose paths start at the start tile's center (their splice points are joints of the path). */
const LINE_PLANNERS = new Set(["grid", "smooth", "hierarchical"]);

/** A splice on the current path, with the map version its kept stretch was checked on (the replan is pinned to it). */
interface Splice extends CorridorSplice {
  version: string;
  /** The unit's pass layer on that version (the replacement is priced on it). */
  layer: PassLayer;
}

/** One stream's state. */
export class PathStream {
  readonly #plans: PlanService;
  readonly #store: MapStore;
  readonly #end: End;
  /** Sends the updates; holds and coalesces them for a slow reader. */
  readonly #outbox: UpdateOutbox;
  #request: PlanRequest | null = null;
  /** A goal message that failed its checks: replans report it until a good goal comes. */
  #goalError: Error | null = null;
  #result: PlanResult | null = null;
  /** The unit's last reported pose (the request's start until it reports). */
  #pose: Pose | null = null;
  /** Its distance along the current path. */
  #distance = 0;
  #busy = false;
  #dirty: UpdateKind | null = null;
  #closed = false;
  readonly #abort = new AbortController();
  #margin = 1;
  #unit: UnitSpec | null = null;
  /** The last reported pose was more than OFF_PATH (path corridor) from the current path. */
  #offPath = false;
  /** The current path sampled every 1/SAMPLES_PER_TILE tile as (x, y, distance) triples, made once per path. */
  #samples: Float64Array = new Float64Array(0);
  /** Patches that arrived while a plan was running: the path it returns is checked against them. */
  #patchesDuringPlan: PatchEvent[] = [];

  /** Use StreamHub.open. */
  constructor(plans: PlanService, store: MapStore, emit: Emit, end: End, stallMs = DEFAULT_STALL_MS) {
    this.#plans = plans;
    this.#store = store;
    this.#end = end;
    this.#outbox = new UpdateOutbox(emit, stallMs, () => this.#result, (e) => this.#fail(e));
  }

  /** The transport's buffer emptied (the client read): sends what was held, the latest path whole. */
  onDrain(): void {
    if (!this.#closed) this.#outbox.drain();
  }

  /** Handles a decoded client message. */
  onMessage(msg: StreamMessage): void {
    if (this.#closed) return;
    if (this.#request === null) {
      if (msg.kind === "badPlan") {
        this.#fail(msg.error);
        return;
      }
      if (msg.kind !== "plan") {
        this.#fail(new ServiceError("INVALID_ARGUMENT", "msg: the first message of a stream must be a plan"));
        return;
      }
      const req = msg.request;
      this.#request = req;
      this.#unit = req.unit;
      this.#margin = req.unit.boundingRadius + 1;
      this.#pose = { ...req.start };
      void this.#initial();
    } else if (msg.kind === "plan" || msg.kind === "badPlan") {
      this.#fail(new ServiceError("INVALID_ARGUMENT", "msg: plan may only be the first message of a stream"));
    } else if (msg.kind === "progress") {
      this.#onProgress(msg.progress);
    } else if (msg.kind === "goal") {
      this.#request = { ...this.#request, goal: msg.goal };
      this.#goalError = null;
      this.#trigger("GOAL_CHANGED");
    } else if (msg.kind === "badGoal") {
      this.#goalError = msg.error;
      this.#trigger("GOAL_CHANGED");
    }
  }

  /** The client closed its side. */
  onClientEnd(): void {
    this.close();
  }

  /** Ends the stream without a final update (client gone, deadline). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#outbox.stop();
    this.#abort.abort(new ServiceError("CANCELLED", "stream closed"));
    this.#end();
  }

  /** Sends a final STATUS update and ends the stream: cleanly, or with `error` (a drain's UNAVAILABLE). */
  finish(status: string, message: string, error?: ServiceError): void {
    if (this.#closed) return;
    // The final status goes out even to a blocked client (one message more), so it learns why the stream ended.
    this.#outbox.unblock();
    this.#outbox.send("STATUS", null, status, message);
    if (error) this.#fail(error);
    else this.close();
  }

  /** A map was patched: replan if the edit touches the remaining path. */
  onPatch(e: PatchEvent): void {
    if (this.#closed || !this.#request || this.#request.map.id !== e.id) return;
    // A stream pinned to an explicit version keeps it.
    if (this.#request.map.version) return;
    // A plan running now started on an older version: check what it returns against this patch too.
    if (this.#busy) this.#patchesDuringPlan.push(e);
    if (!this.#result || this.#result.outcome.segments.length === 0) {
      // No current path (unreachable before): the patch may have opened one.
      this.#trigger("REPLANNED");
      return;
    }
    if (this.#touchesRemaining(e)) this.#trigger("REPLANNED");
  }

  /** A map was deleted. */
  onMapDeleted(id: string): void {
    if (this.#request?.map.id === id) {
      this.finish("map_deleted", `map ${JSON.stringify(displayId(id))} was deleted`);
    }
  }

  #onProgress(p: ProgressReport): void {
    const segs = this.#result?.outcome.segments ?? [];
    const before = { pose: this.#pose!, distance: this.#distance, offPath: this.#offPath };
    const at = trackProgress(segs, this.#samples, before, p);
    this.#pose = at.pose;
    this.#distance = at.distance;
    this.#offPath = at.offPath;
  }

  /** True if a patched rectangle comes within the footprint margin of the untravelled part of the path. */
  #touchesRemaining(e: PatchEvent): boolean {
    return remainingTouches(this.#samples, this.#distance, this.#margin, e.rects);
  }

  async #initial(): Promise<void> {
    const req = this.#request!;
    this.#busy = true;
    try {
      const { result: first, source } = await firstAnswer(this.#plans, req, this.#abort.signal);
      this.#accept("INITIAL", first);
      // A partial first answer (a long plan's drivable prefix): the rest goes out appended.
      if (first.outcome.partial) {
        if (!this.#closed) await this.#rest(req, first);
        return;
      }
      if (source === "asked" || this.#closed || first.outcome.status === "unreachable") return;
      // A whole directional answer where DIRECTIONAL was asked for needs no refining.
      if (source === "prefix" && req.planner === first.outcome.planner) return;
      if (source === "fit" && req.planner === "hybrid") {
        // The hybrid's curve fit settled the query: the whole hybrid makes the same steps first and returns
        // this path (PlanTask.fitOnly), so it is the refined answer too, sent without a second search.
        const message = `the initial path again: PLANNER_HYBRID's curve fit settled the query` +
          (first.outcome.message ? `; ${first.outcome.message}` : "");
        this.#accept("REFINED", { ...first, outcome: { ...first.outcome, message } });
        return;
      }
      const refined = await this.#plans.plan(req, this.#abort.signal, true);
      // A unit that moved along the first answer meanwhile gets the refined planner's path from a splice point
      // on it (one more plan), like a replan; otherwise the refined path from the start replaces it.
      if (this.#distance > 0) await this.#replan("REFINED", refined);
      else this.#accept("REFINED", refined);
    } catch (e) {
      this.#onError(e);
    } finally {
      this.#busy = false;
    }
    this.#drain();
  }

  /**
   * The rest after a partial first answer (streamFirst.ts planRest), appended: the update's figures (length,
   * duration, cost) are the appended part's; the stream keeps the whole path, priced whole. When the rest is
   * not found from there, a plan from the start replaces the path (spliced at the unit if it moved).
   */
  async #rest(req: PlanRequest, prefix: PlanResult): Promise<void> {
    const r = await planRest(this.#plans, req, prefix, this.#abort.signal);
    if (this.#closed) return;
    if (r && this.#result === prefix) {
      const version = prefix.mapVersion.version;
      const missed = this.#patchesDuringPlan.filter((e) => e.to.version !== version);
      this.#patchesDuringPlan = [];
      const layer = this.#store.layerFor(await this.#store.get(req.map.id, version), req.unit).layer;
      if (this.#closed) return;
      const segs = prefix.outcome.segments;
      this.#result = appendRest(req, prefix, r, layer);
      this.#samples = samplePath(this.#result.outcome.segments);
      this.#outbox.send("REFINED", r, "", restMessage(segs.length, r), segs.length, 0);
      if (missed.some((e) => this.#touchesRemaining(e))) this.#trigger("REPLANNED");
      return;
    }
    // No rest from the prefix's end (or the path changed meanwhile): the planner asked for, from the start.
    const whole = await this.#plans.plan(req, this.#abort.signal, true);
    if (this.#distance > 0) await this.#replan("REFINED", whole);
    else this.#accept("REFINED", whole);
  }

  #trigger(kind: UpdateKind): void {
    if (this.#closed) return;
    // Coalesce: a goal change outranks a map change (it replans too, from the same pose).
    this.#dirty = this.#dirty === "GOAL_CHANGED" ? "GOAL_CHANGED" : kind;
    this.#drain();
  }

  #drain(): void {
    if (this.#busy || this.#closed || this.#dirty === null) return;
    const kind = this.#dirty;
    this.#dirty = null;
    this.#busy = true;
    this.#replan(kind).finally(() => {
      this.#busy = false;
      this.#drain();
    });
  }

  /**
   * One replan: from the splice point when there is one and a plan from it is found; else `fallback` when given
   * (a refined answer from the start), else a plan from the unit's last reported pose.
   */
  async #replan(kind: UpdateKind, fallback: PlanResult | null = null): Promise<void> {
    const req = this.#request!;
    const goalError = this.#goalError;
    try {
      // A bad goal fails any plan, so no splice is tried (the refined answer, if any, still goes out).
      const splice = goalError ? null : await this.#splicePoint();
      if (splice && !this.#closed) {
        const r = await this.#plans.plan(
          { ...req, map: { id: req.map.id, version: splice.version }, start: { ...splice.pose } },
          this.#abort.signal,
          true,
        ).catch((e) => {
          if (e instanceof ServiceError && (e.code === "CANCELLED" || e.code === "UNAVAILABLE")) throw e;
          return null; // e.g. a planner that cannot start off a tile center: replan from the pose instead
        });
        if (
          r && (r.outcome.status === "found" || r.outcome.status === "nearest") &&
          startsAt(r.outcome.segments, splice.pose)
        ) {
          this.#acceptSplice(kind, r, splice);
          return;
        }
      }
      if (this.#closed) return;
      const r = fallback ?? await this.#plans.plan(this.#fromPose(req, goalError), this.#abort.signal, true);
      this.#distance = 0;
      this.#accept(kind, r);
    } catch (e) {
      this.#onError(e);
    }
  }

  /**
   * The request replanned from the unit's last reported pose: the pose is checked as a plan's start is (the
   * unit reports it unchecked), then a bad goal is reported.
   */
  #fromPose(req: PlanRequest, goalError: Error | null): PlanRequest {
    const start = checkedStart("start", this.#pose!);
    if (goalError) throw goalError;
    return { ...req, start };
  }

  /**
   * The splice point {@link spliceLead} ahead of the unit's reported distance along the current path, when the
   * unit is on that path, the point is before its end and the path from the unit to it is legal on the map version
   * the replan will use; else null.
   */
  async #splicePoint(): Promise<Splice | null> {
    const current = this.#result?.outcome;
    const unit = this.#unit;
    if (!current || !unit || this.#offPath) return null;
    if (current.status !== "found" && current.status !== "nearest") return null;
    const segs = current.segments;
    // Line planners start their paths at a tile center: their splice point is the next joint (a waypoint, so a
    // tile center). Units that turn in place splice at the next joint too: a corner, where they stop or slow
    // down anyway, so the new part does not add a stop of its own mid-segment.
    const atJoint = LINE_PLANNERS.has(current.planner) || unit.turningRadius === 0;
    const target = spliceTarget(segs, this.#distance, spliceLead(unit), atJoint);
    if (!target) return null;
    const ref = this.#request!.map;
    let layer;
    let version: string;
    try {
      const mv = await this.#store.get(ref.id, ref.version);
      layer = this.#store.layerFor(mv, unit).layer;
      version = mv.version;
    } catch {
      return null; // the map is gone or the version unknown: the plain replan reports it
    }
    // The kept stretch [from, to] must sweep only open tiles on this version; it is cut into pieces per segment.
    const cut = cutSplice(
      segs,
      target.from,
      target.to,
      unit,
      (piece) => segmentHitsBlocked(layer, piece, unit.footprint),
    );
    return cut && { ...cut, version, layer };
  }

  /**
   * A plan from the splice point: the update replaces the path from the unit's reported position, with the kept
   * stretch up to the splice point (same geometry: the unit may be anywhere on it when the update arrives) and
   * the new part after it, timed from the unit's speed there. When the unit cannot keep to that (a cusp, say),
   * the update carries the whole path from the unit's position, profiled from rest as replans from a pose are.
   */
  #acceptSplice(kind: UpdateKind, r: PlanResult, splice: Splice): void {
    if (this.#closed) return;
    const missed = this.#patchesDuringPlan.filter((e) => e.to.version !== r.mapVersion.version);
    this.#patchesDuringPlan = [];
    const joined = joinSplice(this.#result!.outcome.segments, splice, r.outcome.segments, this.#unit!);
    const { replacement, length, duration } = joined;
    // The update carries the replacement (kept lead + new part): its figures, cost included, are the replacement's.
    const cost = pathCost(replacement, this.#unit!, splice.layer);
    const sent: PlanResult = {
      ...r,
      outcome: { ...r.outcome, segments: replacement, length, duration, cost },
    };
    if (joined.path === null) {
      this.#result = sent;
      this.#samples = samplePath(replacement);
      this.#distance = 0;
      this.#outbox.send(kind, sent, "", r.outcome.message);
    } else {
      this.#result = { ...sent, outcome: { ...sent.outcome, segments: joined.path } };
      this.#samples = samplePath(joined.path);
      // The unit's distance along the path is unchanged: the part before it was kept.
      this.#outbox.send(kind, sent, "", r.outcome.message, splice.fromIndex, splice.fromOffset);
    }
    if (missed.some((e) => this.#touchesRemaining(e))) this.#trigger("REPLANNED");
  }

  #accept(kind: UpdateKind, r: PlanResult): void {
    if (this.#closed) return;
    const missed = this.#patchesDuringPlan.filter((e) => e.to.version !== r.mapVersion.version);
    this.#patchesDuringPlan = [];
    const status = r.outcome.status;
    if (status === "unreachable" || status === "no_legal_path") {
      this.#result = r;
      this.#outbox.send(
        "STATUS",
        r,
        status === "unreachable" ? "unreachable" : "no_legal_path",
        r.outcome.message,
      );
      return;
    }
    this.#result = r;
    this.#samples = samplePath(r.outcome.segments);
    this.#offPath = false;
    if (kind === "INITIAL" || kind === "REFINED") this.#distance = 0;
    this.#outbox.send(kind, r, status === "budget" ? "budget_exhausted" : "", r.outcome.message);
    // The map changed while this plan ran: if a change touches the new path, plan again (coalesced).
    if (missed.some((e) => this.#touchesRemaining(e))) this.#trigger("REPLANNED");
  }

  #onError(e: unknown): void {
    if (this.#closed) return;
    if (e instanceof ServiceError && (e.code === "CANCELLED" || e.code === "UNAVAILABLE")) return;
    if (e instanceof ServiceError && this.#result === null) {
      // The first request failed (bad input, an unknown map or version, a full queue, ...): there is no path
      // to keep up to date, so the stream ends with that error, as a Plan would.
      this.#fail(e);
      return;
    }
    // A replan failed (e.g. the unit's pose is now on a blocked tile): report it, keep the stream.
    const msg = e instanceof Error ? e.message : String(e);
    this.#outbox.send("STATUS", null, "error", msg);
  }

  #fail(e: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#outbox.stop();
    this.#abort.abort(e);
    this.#end(e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e)));
  }
}
