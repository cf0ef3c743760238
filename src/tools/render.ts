/**
 * The render tool: draws a map and a path as SVG (and PNG) with renderDraw.ts: blocked tiles, every segment,
 * the unit's footprint swept along the path, cusps, start and goal, tile coordinates and a legend. The map and
 * the path come from files (or an in-process plan), or from a live server's viewer API (`--server`).
 *
 * Usage (`deno task render -- <flags>`):
 *
 *     --map demo/maps/yard.map | yard      a Moving AI file or a demo map id (with --server: the map id)
 *     --server HOST:PORT                   a live server's --http address: its map tiles, and --from/--to
 *                                          planned by it (--token T with authentication)
 *     --path plan.json                     a PlanResponse (or {segments}, or a segment array) in JSON, or:
 *     --from x,y[,h] --to x,y[,h]          plan in-process (the worker's planning code), or on the --server
 *     --unit jeep                          built-in profile (default agent); --radius/--turning-radius/--width/
 *                                          --length/--headings/--can-reverse override it
 *     --planner curved                     grid | smooth | curved | any planner the worker runs
 *     --tighter --backing --ignore         the curved planner's options
 *     --crop x,y,w,h                       draw only this window of tiles (with --server, only it is fetched)
 *     --bare                               no coordinates and no legend
 *     --spacing 0.5                        footprint sample spacing (tiles)
 *     --scale 12                           pixels per tile
 *     --out docs/pictures/x.svg            SVG output (default render.svg)
 *     --png docs/pictures/x.png            PNG output too (no text: coordinates and legend are SVG only)
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { lineSegment } from "../geometry/segment.ts";
import { type Pose, type Segment } from "../geometry/types.ts";
import { buildPassLayer } from "../maps/layer.ts";
import { parseMovingAi } from "../maps/movingai.ts";
import { movingAiTerrain, withOverrides } from "../maps/terrain.ts";
import { runPlanTask } from "../planning/plan.ts";
import { PlanContext } from "../planning/context.ts";
import { tableStore } from "../service/directionalTables.ts";
import { type PlannerName, type PlanOutcome, type PlanTask, planTask } from "../planning/task.ts";
import { AGENT, BUILTIN_PROFILES } from "../units/profiles.ts";
import { applyOverrides } from "../units/unit.ts";
import { type UnitSpec } from "../units/unit.ts";
import { type PassLayer } from "../maps/grid.ts";
import { type CliHelp, parseCli } from "./cli.ts";
import { type Crop, cropLayer, type PlacedLayer, serverMap, serverPlan } from "./renderSource.ts";

export {
  cuspIndices,
  encodePng,
  footprintSamples,
  type RenderInput,
  renderPng,
  renderSvg,
  segmentPathData,
} from "./renderDraw.ts";
import { cuspIndices, type RenderInput, renderPng, renderSvg } from "./renderDraw.ts";

/** A wire segment (proto field names) to the internal type. */
// deno-lint-ignore no-explicit-any
export function segmentFromWire(w: any): Segment {
  const seg = lineSegment({ x: w.start.x, y: w.start.y, heading: w.start.heading ?? 0 }, 0);
  const direction = (w.direction ?? 1) < 0 ? -1 : 1;
  return {
    start: seg.start,
    end: { x: w.end?.x ?? w.start.x, y: w.end?.y ?? w.start.y, heading: w.end?.heading ?? 0 },
    length: w.length ?? 0,
    curvature: w.curvature ?? 0,
    direction,
    touchesBlocked: !!(w.touches_blocked ?? w.touchesBlocked),
    tightened: !!w.tightened,
  };
}

/** Plans in-process on a Moving AI map text with the worker's planning code (no server, no region tables). */
export function planInProcess(
  mapText: string,
  unit: UnitSpec,
  start: Pose,
  goal: { x: number; y: number; heading?: number },
  planner: PlannerName,
  options: Partial<PlanTask["options"]> = {},
): { outcome: PlanOutcome; layer: PassLayer } {
  const grid = parseMovingAi(mapText, { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
  const terrain = unit.terrain.length > 0
    ? withOverrides(movingAiTerrain(), unit.terrain)
    : movingAiTerrain();
  const layer = buildPassLayer(grid, terrain);
  const ctx = new PlanContext(() => layer, tableStore);
  const task = planTask(
    { planner, layerKey: "render", width: grid.width, unit, start, goal },
    {
      neighborhood: planner === "curved" ? 4 : 8,
      maxExpansions: 1e8,
      maxMillis: 60_000,
      wantWaypoints: false,
      options: {
        ignoreObstaclesInCurves: false,
        tighterTurns: false,
        allowBackingUp: false,
        keepToRoads: false,
        ...options,
      },
    },
  );
  return { outcome: runPlanTask(ctx, task, null), layer };
}

const STRING = { type: "string" } as const, BOOLEAN = { type: "boolean" } as const;

/** The flags render takes (see the module doc). */
const RENDER_OPTIONS = {
  map: STRING,
  path: STRING,
  from: STRING,
  to: STRING,
  unit: STRING,
  radius: STRING,
  "turning-radius": STRING,
  width: STRING,
  length: STRING,
  headings: STRING,
  "can-reverse": BOOLEAN,
  planner: STRING,
  tighter: BOOLEAN,
  backing: BOOLEAN,
  ignore: BOOLEAN,
  spacing: STRING,
  scale: STRING,
  server: STRING,
  token: STRING,
  crop: STRING,
  bare: BOOLEAN,
  out: STRING,
  png: STRING,
};

/** What `--help` prints. */
const RENDER_HELP: CliHelp = {
  usage: "deno task render -- [flags]",
  about:
    "Draws a map and a path (from a PlanResponse JSON file, or planned in-process) as SVG, and PNG with " +
    "--png: blocked tiles, segments, the swept footprint, cusps, start and goal.",
  flags: {
    map: "FILE|ID  a Moving AI .map file or a demo map id (default yard); with --server, a map id on it",
    server:
      "HOST:PORT  a live server's --http address: draw its map (GetMap tiles) and plan --from/--to on it",
    token: "T  bearer token for --server when it runs with authentication",
    crop: "X,Y,W,H  draw only this window of tiles (with --server only it is fetched)",
    bare: "no tile coordinates and no legend",
    path:
      "FILE  a PlanResponse (or {segments}, or a segment array) in JSON; else --from/--to plan in-process",
    from: "X,Y[,H]  start pose (tiles, radians) for the in-process plan",
    to: "X,Y[,H]  goal for the in-process plan",
    unit: "NAME  built-in profile (default agent): soldier, jeep, tank, truck, boat",
    radius: "R  footprint radius override",
    "turning-radius": "R  turning radius override",
    width: "W  rectangle footprint width override (with --length)",
    length: "L  rectangle footprint length override (with --width)",
    headings: "N  heading count override",
    "can-reverse": "let the unit back up",
    planner: "NAME  grid | smooth | curved | hybrid | directional | hierarchical (default curved)",
    tighter: "curved planner: tighter turns",
    backing: "curved planner: allow backing up",
    ignore: "curved planner: ignore obstacles in curves",
    spacing: "S  footprint sample spacing in tiles (default 0.5)",
    scale: "PX  pixels per tile (default 12)",
    out: "FILE  SVG output (default render.svg)",
    png: "FILE  PNG output too (coordinates and legend are drawn in the SVG only)",
  },
};

/** The command line as a map of flag to value ("true" for a boolean); --help and usage errors exit. */
function parseFlags(args: string[]): Map<string, string> {
  const { values } = parseCli(RENDER_HELP, { args, options: RENDER_OPTIONS });
  return new Map(
    Object.entries(values).filter(([, v]) => v !== undefined && v !== false).map(([k, v]) => [k, String(v)]),
  );
}

function numbers(v: string): number[] {
  return v.split(",").map((s) => {
    const x = Number(s);
    if (!Number.isFinite(x)) throw new Error(`not a number: ${s}`);
    return x;
  });
}

/** The command line (see the module doc). */
export async function main(args: string[]): Promise<void> {
  const flags = parseFlags(args);
  const mapArg = flags.get("map") ?? "yard";
  const server = flags.get("server");
  const name = flags.get("unit") ?? "";
  const base = name ? BUILTIN_PROFILES[name] : AGENT;
  if (!base) {
    throw new Error(`--unit: unknown unit ${name} (one of ${Object.keys(BUILTIN_PROFILES).join(", ")})`);
  }
  const num = (k: string) => (flags.has(k) ? Number(flags.get(k)) : undefined);
  const radius = num("radius"), width = num("width"), length = num("length");
  const unit = applyOverrides(base, {
    footprint: radius
      ? { radius, width: 0, length: 0 }
      : width && length
      ? { radius: 0, width, length }
      : undefined,
    turningRadius: num("turning-radius"),
    headings: num("headings"),
    canReverse: flags.has("can-reverse") || undefined,
  });
  let crop: Crop | null = null;
  if (flags.has("crop")) {
    const [x, y, w, h] = numbers(flags.get("crop")!);
    if (![x, y, w, h].every((v) => Number.isInteger(v) && v >= 0) || !(w > 0 && h > 0)) {
      throw new Error(`--crop: expected X,Y,W,H (integers, W and H > 0), got ${flags.get("crop")}`);
    }
    crop = { x, y, width: w, height: h };
  }
  let segments: Segment[] = [];
  let footprint = unit.footprint;
  let start: Pose | undefined;
  let goal: { x: number; y: number; heading?: number } | undefined;
  let placed: PlacedLayer;
  let caption = "";
  if (flags.has("from") || flags.has("to")) {
    const [sx, sy, sh] = numbers(flags.get("from") ?? "");
    const [gx, gy, gh] = numbers(flags.get("to") ?? "");
    start = { x: sx, y: sy, heading: sh ?? 0 };
    goal = { x: gx, y: gy, heading: gh };
  }
  const planner = (flags.get("planner") ?? "curved") as PlannerName;
  if (server !== undefined) {
    const token = flags.get("token");
    const m = await serverMap(server, mapArg, crop, token);
    placed = m;
    caption = `${mapArg}@${m.version} from ${server}`;
    if (start && goal) {
      const { response } = await serverPlan(server, {
        map: { id: mapArg, version: m.version },
        // Only what the command line set: an optional field sent as 0 would override the profile with 0.
        unit: Object.fromEntries(
          Object.entries({
            name: name || undefined,
            radius,
            width,
            length,
            turning_radius: num("turning-radius"),
            headings: num("headings"),
            can_reverse: flags.has("can-reverse") || undefined,
          }).filter(([, v]) => v !== undefined),
        ),
        start,
        goal,
        planner: `PLANNER_${planner.toUpperCase()}`,
        options: {
          tighter_turns: flags.has("tighter"),
          allow_backing_up: flags.has("backing"),
          ignore_obstacles_in_curves: flags.has("ignore"),
        },
      }, token);
      segments = response.segments.map(segmentFromWire);
      footprint = { radius: response.unit.radius, width: response.unit.width, length: response.unit.length };
      caption += `: ${planner} ${response.unit.name}: ${response.status} length ${
        response.length.toFixed(2)
      }`;
      console.log(caption);
    }
  } else {
    const mapPath = /[/.]/.test(mapArg) ? mapArg : `demo/maps/${mapArg}.map`;
    const mapText = readFileSync(mapPath, "utf8");
    let layer: PassLayer;
    if (start && goal) {
      const res = planInProcess(mapText, unit, start, goal, planner, {
        tighterTurns: flags.has("tighter"),
        allowBackingUp: flags.has("backing"),
        ignoreObstaclesInCurves: flags.has("ignore"),
      });
      layer = res.layer;
      segments = res.outcome.segments;
      caption = `${planner} ${unit.name}: ${res.outcome.status} length ${res.outcome.length.toFixed(2)} ` +
        `duration ${res.outcome.duration.toFixed(2)} s ${res.outcome.message}`;
      console.log(caption);
    } else {
      const grid = parseMovingAi(mapText, { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
      layer = buildPassLayer(grid, movingAiTerrain());
      caption = mapPath;
    }
    placed = crop ? cropLayer(layer, crop) : { layer, origin: { x: 0, y: 0 } };
  }
  if (flags.has("path")) {
    const json = JSON.parse(readFileSync(flags.get("path")!, "utf8"));
    const wire = Array.isArray(json) ? json : json.response?.segments ?? json.segments ?? [];
    segments = wire.map(segmentFromWire);
    caption += ` ${flags.get("path")}`;
  }
  const input: RenderInput = {
    layer: placed.layer,
    origin: placed.origin,
    segments,
    footprint,
    spacing: num("spacing") ?? 0.5,
    scale: num("scale") ?? 12,
    start,
    goal,
    title: caption,
    coordinates: !flags.has("bare"),
    legend: !flags.has("bare"),
  };
  const out = flags.get("out") ?? "render.svg";
  writeFileSync(out, renderSvg(input));
  console.log(`wrote ${out} (${segments.length} segments, ${cuspIndices(segments).length} cusps)`);
  if (flags.has("png")) {
    writeFileSync(flags.get("png")!, renderPng(input));
    console.log(`wrote ${flags.get("png")}`);
  }
}

if (import.meta.main) {
  // A bad value (unknown unit, unreadable file, not a number, a server error) is a message, not a stack trace.
  await main(Deno.args).catch((e) => {
    console.error(`render: ${(e as Error).message}`);
    Deno.exit(1);
  });
}
