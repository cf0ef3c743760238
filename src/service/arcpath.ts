/**
 * The service facade the gRPC handlers call: map RPCs over the store, Plan over the plan service, Curve over the
 * geometry core. Requests and responses use the wire shapes (proto field names); everything below works on
 * internal types.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type { Logger } from "pino";
import { headingValue, invalid, ServiceError } from "./errors.ts";
import { checkMapId, type GridInput, type MapStore, type MapVersion, type TileEditSpec } from "./mapStore.ts";
import type { PlanInput, PlanService } from "./planService.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import { type PathStream, StreamHub, type StreamOptions, type StreamUpdate } from "./streams.ts";
import { mapInfoToWire, planToWire, segmentToWire } from "../server/wire.ts";
import { dubinsShortest } from "../geometry/dubins.ts";
import { reedsSheppShortest } from "../geometry/reedsShepp.ts";
import { arcThenLine } from "../geometry/arcThenLine.ts";
import { clearanceClass } from "../maps/layer.ts";
import type { Pose } from "../geometry/types.ts";

/** Wire PatchMapRequest. */
export interface PatchMapInput {
  map?: { id?: string; version?: string } | null;
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

/** Wire PutMapRequest. */
export interface PutMapInput {
  id?: string;
  grid?: "movingai" | "raw";
  movingai?: string;
  raw?: { width?: number; height?: number; tiles?: Uint8Array } | null;
  terrain?: TerrainEntry[];
  ephemeral?: boolean;
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** A stream update on the wire. */
function updateToWire(u: StreamUpdate) {
  const r = u.result;
  return {
    sequence: u.sequence,
    kind: `UPDATE_KIND_${u.kind}`,
    map_version: r?.mapVersion.version ?? "",
    plan: r
      ? planToWire(r.outcome, r.mapVersion.version, r.mapVersion.map.width, {
        queueMicros: r.queueMicros,
        totalMicros: 0,
        fromRegionTable: r.fromRegionTable,
      })
      : null,
    replace_from_segment: u.replaceFromSegment,
    replace_from_distance: u.replaceFromDistance,
    status: u.status,
  };
}

function finitePose(field: string, p: Partial<Pose> | null | undefined): Pose {
  if (!p) throw invalid(field, "unset", "is required");
  for (const k of ["x", "y"] as const) {
    const v = p[k] ?? 0;
    if (!Number.isFinite(v)) throw invalid(`${field}.${k}`, v, "must be a finite number");
  }
  return { x: p.x ?? 0, y: p.y ?? 0, heading: headingValue(`${field}.heading`, p.heading ?? 0) };
}

/** The application: what each RPC does. */
export class Arcpath {
  readonly store: MapStore;
  readonly planner: PlanService;
  readonly streams: StreamHub;

  /** Creates the facade. */
  constructor(store: MapStore, planner: PlanService, streamOptions: StreamOptions = { maxStreams: 2000 }) {
    this.store = store;
    this.planner = planner;
    this.streams = new StreamHub(planner, store, streamOptions);
  }

  /** MapInfo for a version. */
  info(mv: MapVersion) {
    const entry = [...mv.layers.values()][0];
    const regions = this.store.regionsFor(mv, entry, clearanceClass(0));
    return mapInfoToWire(mv, regions);
  }

  /** PutMap. */
  async putMap(req: PutMapInput, fields: Record<string, unknown>) {
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
    const map = this.store.parse(grid, req.terrain ?? []);
    const mv = await this.store.put(req.id!, map, req.terrain ?? [], { ephemeral: !!req.ephemeral });
    fields.version = mv.version;
    return this.info(mv);
  }

  /** PatchMap: tile edits make a new version; layers and region tables are updated incrementally. */
  async patchMap(req: PatchMapInput, fields: Record<string, unknown>) {
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
    const ev = await this.store.patch(id, req.map?.version ?? "", specs);
    fields.version = ev.to.version;
    fields.update_micros = ev.updateMicros;
    return this.info(ev.to);
  }

  /** GetMap. */
  async getMap(req: { map?: { id?: string; version?: string } | null }) {
    const mv = await this.store.get(req.map?.id ?? "", req.map?.version ?? "");
    return this.info(mv);
  }

  /** ListMaps. */
  async listMaps() {
    const maps = [];
    for (const id of this.store.ids()) maps.push(this.info(await this.store.get(id, "")));
    return { maps };
  }

  /** DeleteMap. */
  async deleteMap(req: { map?: { id?: string } | null }) {
    return { deleted: await this.store.delete(req.map?.id ?? "") };
  }

  /** Plan. */
  async plan(req: PlanInput, signal: AbortSignal, fields: Record<string, unknown>) {
    const t0 = performance.now();
    const r = await this.planner.plan(req, signal);
    fields.planner = r.outcome.planner;
    fields.plan_status = r.outcome.status;
    fields.expansions = r.outcome.expansions;
    fields.search_micros = r.outcome.searchMicros;
    // Planner notes (e.g. which directional tables were loaded or built, and how long that took) go in the log too.
    if (r.outcome.message) fields.note = r.outcome.message;
    return planToWire(r.outcome, r.mapVersion.version, r.mapVersion.map.width, {
      queueMicros: r.queueMicros,
      totalMicros: Math.round((performance.now() - t0) * 1000),
      fromRegionTable: r.fromRegionTable,
    });
  }

  /** Curve: Dubins, Reeds-Shepp, or the article's arc-then-line. */
  curve(req: {
    start?: Partial<Pose> | null;
    goal?: Partial<Pose> | null;
    turning_radius?: number;
    allow_reverse?: boolean;
    ignore_goal_heading?: boolean;
  }) {
    const start = finitePose("start", req.start);
    const goal = finitePose("goal", req.goal);
    const r = req.turning_radius ?? 0;
    if (!Number.isFinite(r) || r <= 0) throw invalid("turning_radius", r, "must be a finite number > 0");
    const scale = Math.max(Math.abs(start.x), Math.abs(start.y), Math.abs(goal.x), Math.abs(goal.y));
    if (scale / r > 1e9) {
      throw invalid("turning_radius", r, "is too small for the poses' scale (ratio > 1e9)");
    }
    const path = req.ignore_goal_heading
      ? arcThenLine(start, goal.x, goal.y, r)
      : req.allow_reverse
      ? reedsSheppShortest(start, goal, r)
      : dubinsShortest(start, goal, r);
    return Promise.resolve({
      segments: path.segments.map(segmentToWire),
      length: path.length,
      word: path.word,
    });
  }

  /** Stream: feeds client messages to a PathStream and writes its updates; one log line when it ends. */
  stream(
    call: grpc.ServerDuplexStream<Any, Any>,
    log: Logger,
    toGrpcError: (e: unknown) => grpc.ServiceError,
  ): void {
    const t0 = performance.now();
    let updates = 0;
    let ended = false;
    const finish = (err?: ServiceError) => {
      if (ended) return;
      ended = true;
      const micros = Math.round((performance.now() - t0) * 1000);
      if (err) {
        log.info({ method: "Stream", status: err.code, error: err.message, updates, micros });
        call.emit("error", toGrpcError(err));
      } else {
        log.info({ method: "Stream", status: "OK", updates, micros });
        call.end();
      }
    };
    let stream: PathStream;
    try {
      stream = this.streams.open((u) => {
        if (ended) return;
        updates++;
        call.write(updateToWire(u));
      }, finish);
    } catch (e) {
      finish(e instanceof ServiceError ? e : new ServiceError("INTERNAL", String(e)));
      return;
    }
    call.on("data", (m) => stream.onMessage(m));
    call.on("end", () => stream.onClientEnd());
    call.on("cancelled", () => stream.close());
    call.on("error", () => stream.close());
  }
}
