/**
 * The service facade the gRPC handlers call: map RPCs over the store, Plan over the plan service, Curve over the
 * geometry core. Requests and responses use the wire shapes (proto field names); everything below works on
 * internal types.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import type { Logger } from "pino";
import { invalid, ServiceError } from "./errors.ts";
import { checkMapId, type GridInput, type MapStore, type MapVersion } from "./mapStore.ts";
import type { PlanInput, PlanService } from "./planService.ts";
import type { TerrainCostInput } from "./profiles.ts";
import { mapInfoToWire, planToWire, segmentToWire } from "../server/wire.ts";
import { dubinsShortest } from "../geometry/dubins.ts";
import { reedsSheppShortest } from "../geometry/reedsShepp.ts";
import { arcThenLine } from "../geometry/arcThenLine.ts";
import { clearanceClass } from "../maps/layer.ts";
import type { Pose } from "../geometry/types.ts";

/** Wire PutMapRequest. */
export interface PutMapInput {
  id?: string;
  grid?: "movingai" | "raw";
  movingai?: string;
  raw?: { width?: number; height?: number; tiles?: Uint8Array } | null;
  terrain?: TerrainCostInput[];
  ephemeral?: boolean;
}

function finitePose(field: string, p: Partial<Pose> | null | undefined): Pose {
  if (!p) throw invalid(field, "unset", "is required");
  for (const k of ["x", "y", "heading"] as const) {
    const v = p[k] ?? 0;
    if (!Number.isFinite(v)) throw invalid(`${field}.${k}`, v, "must be a finite number");
  }
  return { x: p.x ?? 0, y: p.y ?? 0, heading: p.heading ?? 0 };
}

/** The application: what each RPC does. */
export class Arcpath {
  readonly store: MapStore;
  readonly planner: PlanService;

  /** Creates the facade. */
  constructor(store: MapStore, planner: PlanService) {
    this.store = store;
    this.planner = planner;
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

  /** PatchMap (the incremental path lands with the Stream issue). */
  patchMap(_req: unknown, _fields: Record<string, unknown>): Promise<never> {
    return Promise.reject(new ServiceError("UNIMPLEMENTED", "PatchMap is not implemented yet"));
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

  /** Stream (lands with its issue). */
  stream(call: grpc.ServerDuplexStream<unknown, unknown>, log: Logger): void {
    log.info({ method: "Stream", status: "UNIMPLEMENTED" });
    call.emit("error", { code: 12, details: "Stream is not implemented yet" });
  }
}
