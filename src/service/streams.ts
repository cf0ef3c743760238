/**
 * Streams: a path kept up to date. The first answer comes fast (grid A*), the planner asked for refines it
 * (the article's timeslicing done as progressive answers), and a map patch that touches the part of the path
 * the unit has not travelled yet, or a new goal, triggers a replan. Replans for one stream coalesce: while one
 * runs, further triggers only mark the stream dirty, so work never piles up.
 *
 * A replan keeps the unit driving: it starts at a splice point a short lead ahead of the unit's reported
 * position on its current path ({@link spliceLead}; the path's start when it reported none), when that lead is
 * still legal on the map and the unit is on its path. The update then replaces the path from the unit's
 * position (replace_from_segment and replace_from_distance): the lead, unchanged, then the new part, with
 * speeds that continue the unit's. Otherwise (the unit off its path, the lead blocked, no plan from the splice
 * point) the replan starts at the unit's last reported pose and the update carries the whole path. A refined
 * answer that arrives after the unit moved along the first one is spliced the same way.
 *
 * Transport-free: the gRPC handler feeds decoded client messages in and writes the updates this class emits.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { poseAlong, poseAtDistance, segmentPiece } from "../geometry/segment.ts";
import { segmentHitsBlocked } from "../geometry/sweep.ts";
import { applySpeedProfile, speedAt } from "../motion/speedProfile.ts";
import type { PlanResult, PlanService } from "./planService.ts";
import type { MapStore, PatchEvent } from "./mapStore.ts";
import { ServiceError } from "./errors.ts";
import { checkedStart, type PlanRequest, type ProgressReport, type StreamMessage } from "./requests.ts";
import type { UnitSpec } from "../units/unit.ts";

/** Why an update is sent (wire UpdateKind without the prefix). */
export type UpdateKind = "INITIAL" | "REFINED" | "REPLANNED" | "GOAL_CHANGED" | "STATUS";

/** One update for the client. */
export interface StreamUpdate {
  /** 1, 2, 3, ... */
  sequence: number;
  /** Why. */
  kind: UpdateKind;
  /** The plan (absent for pure status updates). */
  result: PlanResult | null;
  /** For STATUS: "unreachable", "budget_exhausted", "map_deleted", "shutdown", "error". */
  status: string;
  /** Details for STATUS updates. */
  message: string;
  /** -1: `result` holds the whole path; else its segments replace the previous path from this segment index. */
  replaceFromSegment: number;
  /** With replaceFromSegment >= 0: the distance along that segment where the replacement starts. */
  replaceFromDistance: number;
}

/** Stream limits. */
export interface StreamOptions {
  /** Max concurrent streams on the server. */
  maxStreams: number;
}

type Emit = (u: StreamUpdate) => void;
type End = (error?: ServiceError) => void;

/** All streams of a server. */
export class StreamHub {
  readonly #plans: PlanService;
  readonly #store: MapStore;
  readonly #opts: StreamOptions;
  readonly #streams = new Set<PathStream>();
  readonly #unsub: (() => void)[] = [];

  /** Creates the hub and subscribes to map patches and deletions. */
  constructor(plans: PlanService, store: MapStore, opts: StreamOptions) {
    this.#plans = plans;
    this.#store = store;
    this.#opts = opts;
    this.#unsub.push(store.onPatch((e) => {
      for (const s of this.#streams) s.onPatch(e);
    }));
    this.#unsub.push(store.onDelete((id) => {
      for (const s of this.#streams) s.onMapDeleted(id);
    }));
  }

  /** Streams open now. */
  get size(): number {
    return this.#streams.size;
  }

  /** Opens a stream; `emit` sends an update, `end` closes it (with an error or cleanly). */
  open(emit: Emit, end: End): PathStream {
    if (this.#streams.size >= this.#opts.maxStreams) {
      throw new ServiceError(
        "RESOURCE_EXHAUSTED",
        `streams: ${this.#streams.size} open (limit ${this.#opts.maxStreams})`,
      );
    }
    const s = new PathStream(this.#plans, this.#store, emit, (err) => {
      this.#streams.delete(s);
      end(err);
    });
    this.#streams.add(s);
    return s;
  }

  /** Ends every stream with a final "shutdown" status. */
  shutdown(): void {
    for (const s of [...this.#streams]) s.finish("shutdown", "server is shutting down");
    for (const u of this.#unsub) u();
  }
}

/** Samples per tile when recording which tiles the remaining path covers. */
const SAMPLES_PER_TILE = 4;
/** Seconds of driving at the unit's top speed between its reported position and a replan's splice point. */
export const SPLICE_LEAD_SECONDS = 0.25;
/** The shortest splice lead, tiles. */
export const MIN_SPLICE_LEAD = 1;
/** A reported pose farther than this (tiles) from the current path means the unit is not following it. */
export const OFF_PATH = 1;

/**
 * How far ahead of the unit's reported position a replan's splice point lies: at least the distance the unit
 * covers at top speed in {@link SPLICE_LEAD_SECONDS} (the update reaches it while it keeps driving) and the
 * distance it needs to stop from top speed (so it can slow down for whatever the new part starts with), and at
 * least {@link MIN_SPLICE_LEAD}.
 */
export function spliceLead(unit: Pick<UnitSpec, "maxSpeed" | "deceleration">): number {
  const stopping = unit.deceleration > 0 ? (unit.maxSpeed * unit.maxSpeed) / (2 * unit.deceleration) : 0;
  return Math.max(MIN_SPLICE_LEAD, unit.maxSpeed * SPLICE_LEAD_SECONDS, stopping);
}

/** Planners whose paths start at the start tile's center (their splice points are joints of the path). */
const LINE_PLANNERS = new Set(["grid", "smooth", "hierarchical"]);

/** True when the plan's path starts exactly at the pose's position (a splice needs a path that continues there). */
function startsAt(r: PlanResult, pose: Pose): boolean {
  const first = r.outcome.segments[0];
  return first !== undefined && Math.hypot(first.start.x - pose.x, first.start.y - pose.y) <= 1e-9;
}

/** Where a replan starts on the current path, and what of that path the update keeps. */
interface Splice {
  /** Segment index and distance along it of the unit's reported position (where the replacement starts). */
  fromIndex: number;
  fromOffset: number;
  /** The unit's speed there on the current path's profile (0 at the path's start). */
  speed: number;
  /** The current path from the unit's position to the splice point, cut per segment (checked legal). */
  kept: Segment[];
  /** The splice point's pose: the replan starts here. */
  pose: Pose;
  /** The map version the kept stretch was checked on (the replan is pinned to it). */
  version: string;
}

/** One stream's state. */
export class PathStream {
  readonly #plans: PlanService;
  readonly #store: MapStore;
  readonly #emit: Emit;
  readonly #end: End;
  #seq = 0;
  #request: PlanRequest | null = null;
  /** A goal message that failed its checks: replans report it until a good goal comes. */
  #goalError: Error | null = null;
  #result: PlanResult | null = null;
  #pose: Pose | null = null;
  #distance = 0;
  #busy = false;
  #dirty: UpdateKind | null = null;
  #closed = false;
  readonly #abort = new AbortController();
  #margin = 1;
  #unit: UnitSpec | null = null;
  /** The last reported pose was more than {@link OFF_PATH} from the current path. */
  #offPath = false;
  /** The current path sampled every 1/SAMPLES_PER_TILE tile as (x, y, distance) triples, made once per path. */
  #samples: Float64Array = new Float64Array(0);
  /** Patches that arrived while a plan was running: the path it returns is checked against them. */
  #patchesDuringPlan: PatchEvent[] = [];

  /** Use {@link StreamHub.open}. */
  constructor(plans: PlanService, store: MapStore, emit: Emit, end: End) {
    this.#plans = plans;
    this.#store = store;
    this.#emit = emit;
    this.#end = end;
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
    this.#abort.abort(new ServiceError("CANCELLED", "stream closed"));
    this.#end();
  }

  /** Sends a final STATUS update and ends the stream cleanly. */
  finish(status: string, message: string): void {
    if (this.#closed) return;
    this.#send("STATUS", null, status, message);
    this.close();
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
    if (this.#request?.map.id === id) this.finish("map_deleted", `map ${JSON.stringify(id)} was deleted`);
  }

  #onProgress(p: ProgressReport): void {
    if (p.pose) this.#pose = p.pose;
    const segs = this.#result?.outcome.segments ?? [];
    if (p.distance > 0) {
      this.#distance = p.distance;
      if (!p.pose && segs.length > 0) this.#pose = poseAtDistance(segs, p.distance);
      // Both given: the unit follows the path if the pose is where the distance puts it.
      const there = p.pose && segs.length > 0 ? poseAtDistance(segs, p.distance) : null;
      this.#offPath = there !== null &&
        !(Math.hypot(there.x - this.#pose!.x, there.y - this.#pose!.y) <= OFF_PATH);
    } else if (p.pose && segs.length > 0) {
      const nearest = nearestAlong(this.#samples, this.#pose!);
      this.#distance = nearest.distance;
      this.#offPath = !(nearest.gap <= OFF_PATH);
    }
  }

  /** True if a patched rectangle comes within the footprint margin of the untravelled part of the path. */
  #touchesRemaining(e: PatchEvent): boolean {
    const pts = this.#samples;
    const m = this.#margin;
    for (let i = 0; i < pts.length; i += 3) {
      if (pts[i + 2] < this.#distance) continue;
      const x = pts[i], y = pts[i + 1];
      for (const r of e.rects) {
        if (x > r.x0 - m && x < r.x1 + m && y > r.y0 - m && y < r.y1 + m) return true;
      }
    }
    return false;
  }

  async #initial(): Promise<void> {
    const req = this.#request!;
    this.#busy = true;
    try {
      // A fast first answer (grid search, or hierarchical for long queries where jump points do not apply), then
      // the planner asked for, unless the first answer already came from it.
      const first = await this.#plans.plan({ ...req, planner: "fast" }, this.#abort.signal, true);
      this.#accept("INITIAL", first);
      const refine = req.planner !== first.outcome.planner && req.planner !== "grid";
      if (refine && !this.#closed && first.outcome.status !== "unreachable") {
        const refined = await this.#plans.plan(req, this.#abort.signal, true);
        // A unit that moved along the first answer meanwhile gets the refined planner's path from a splice point
        // on it (one more plan), like a replan; otherwise the refined path from the start replaces it.
        if (this.#distance > 0) await this.#replan("REFINED", refined);
        else this.#accept("REFINED", refined);
      }
    } catch (e) {
      this.#onError(e);
    } finally {
      this.#busy = false;
    }
    this.#drain();
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
          r && (r.outcome.status === "found" || r.outcome.status === "nearest") && startsAt(r, splice.pose)
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
    let total = 0;
    for (const seg of segs) total += seg.length;
    const from = Math.min(this.#distance, total);
    let to = from + spliceLead(unit);
    if (!(to < total - 1e-6)) return null;
    // Line planners start their paths at a tile center: their splice point is the next joint (a waypoint, so a
    // tile center). Units that turn in place splice at the next joint too: a corner, where they stop or slow
    // down anyway, so the new part does not add a stop of its own mid-segment.
    if (LINE_PLANNERS.has(current.planner) || unit.turningRadius === 0) {
      let end = 0;
      for (const seg of segs) {
        end += seg.length;
        if (end >= to) break;
      }
      if (!(end < total - 1e-6)) return null;
      to = end;
    }
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
    const kept: Segment[] = [];
    let fromIndex = -1, fromOffset = 0, index = 0, start = 0;
    for (; index < segs.length; index++) {
      const seg = segs[index];
      const end = start + seg.length;
      if (fromIndex < 0 && end > from) {
        fromIndex = index;
        fromOffset = from - start;
      }
      if (fromIndex >= 0) {
        const piece = segmentPiece(seg, Math.max(0, from - start), Math.min(seg.length, to - start));
        if (segmentHitsBlocked(layer, piece, unit.footprint)) return null;
        kept.push(piece);
      }
      if (end >= to) break;
      start = end;
    }
    const seg = segs[index];
    const offset = to - start;
    return {
      fromIndex,
      fromOffset,
      speed: from > 0 ? speedAt(segs[fromIndex], fromOffset, unit) : 0,
      kept,
      pose: poseAlong(seg, offset),
      version,
    };
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
    const unit = this.#unit!;
    const old = this.#result!.outcome.segments;
    const replacement = [...splice.kept, ...r.outcome.segments];
    const length = replacement.reduce((a, s) => a + s.length, 0);
    const before = splice.fromOffset > 0
      ? segmentPiece(old[splice.fromIndex], 0, splice.fromOffset)
      : old[splice.fromIndex - 1];
    let duration = before !== undefined && splice.speed > 0
      ? applySpeedProfile(replacement, unit, { previous: before, speed: splice.speed })
      : applySpeedProfile(replacement, unit);
    const whole = Number.isNaN(duration);
    if (whole) duration = applySpeedProfile(replacement, unit);
    const sent: PlanResult = { ...r, outcome: { ...r.outcome, segments: replacement, length, duration } };
    if (whole) {
      this.#result = sent;
      this.#samples = samplePath(replacement);
      this.#distance = 0;
      this.#send(kind, sent, "", r.outcome.message);
    } else {
      const path: Segment[] = old.slice(0, splice.fromIndex);
      if (splice.fromOffset > 0) path.push(before!);
      for (const seg of replacement) path.push(seg);
      this.#result = { ...sent, outcome: { ...sent.outcome, segments: path } };
      this.#samples = samplePath(path);
      // The unit's distance along the path is unchanged: the part before it was kept.
      this.#send(kind, sent, "", r.outcome.message, splice.fromIndex, splice.fromOffset);
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
      this.#send("STATUS", r, status === "unreachable" ? "unreachable" : "no_legal_path", r.outcome.message);
      return;
    }
    this.#result = r;
    this.#samples = samplePath(r.outcome.segments);
    this.#offPath = false;
    if (kind === "INITIAL" || kind === "REFINED") this.#distance = 0;
    this.#send(kind, r, status === "budget" ? "budget_exhausted" : "", r.outcome.message);
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
    this.#send("STATUS", null, "error", msg);
  }

  #send(
    kind: UpdateKind,
    result: PlanResult | null,
    status: string,
    message: string,
    replaceFromSegment = -1,
    replaceFromDistance = 0,
  ): void {
    this.#emit({
      sequence: ++this.#seq,
      kind,
      result,
      status,
      message,
      replaceFromSegment,
      replaceFromDistance,
    });
  }

  #fail(e: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#abort.abort(e);
    this.#end(e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e)));
  }
}

/** Samples a path every 1/SAMPLES_PER_TILE tile: (x, y, distance from the start) triples. */
function samplePath(segs: readonly Segment[]): Float64Array {
  let n = 0;
  for (const seg of segs) n += Math.max(1, Math.ceil(seg.length * SAMPLES_PER_TILE)) + 1;
  const out = new Float64Array(n * 3);
  let k = 0, travelled = 0;
  for (const seg of segs) {
    const m = Math.max(1, Math.ceil(seg.length * SAMPLES_PER_TILE));
    for (let i = 0; i <= m; i++) {
      const u = (seg.length * i) / m;
      const p = poseAlong(seg, u);
      out[k++] = p.x;
      out[k++] = p.y;
      out[k++] = travelled + u;
    }
    travelled += seg.length;
  }
  return out;
}

/** The distance along the path of the sample nearest to a pose, and how far the pose is from it. */
function nearestAlong(samples: Float64Array, pose: Pose): { distance: number; gap: number } {
  let best = 0, bestD = Infinity;
  for (let i = 0; i < samples.length; i += 3) {
    const d = Math.hypot(samples[i] - pose.x, samples[i + 1] - pose.y);
    if (d < bestD) {
      bestD = d;
      best = samples[i + 2];
    }
  }
  return { distance: best, gap: bestD };
}
