/**
 * Draws a map and a path as SVG (and PNG): blocked tiles, every segment (arcs as SVG elliptical-arc `A`
 * commands, reverse driving in another color, approximations marked), the unit's footprint swept along the path
 * (semi-transparent outlines at regular samples), cusps, start and goal.
 *
 * Usage (`deno task render -- <flags>`):
 *
 *     --map demo/maps/yard.map | yard      a Moving AI file or a demo map id
 *     --path plan.json                     a PlanResponse (or {segments}, or a segment array) in JSON, or:
 *     --from x,y[,h] --to x,y[,h]          plan in-process (the worker's planning code, no server)
 *     --unit jeep                          built-in profile (default agent); --radius/--turning-radius/--width/
 *                                          --length/--headings/--can-reverse override it
 *     --planner curved                     grid | smooth | curved | any planner the worker runs
 *     --tighter --backing --ignore         the curved planner's options
 *     --spacing 0.5                        footprint sample spacing (tiles)
 *     --scale 12                           pixels per tile
 *     --out docs/pictures/x.svg            SVG output (default render.svg)
 *     --png docs/pictures/x.png            PNG output too (own rasterizer and encoder, node:zlib deflate)
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";
import { arcCenter, lineSegment, poseAtDistance } from "../geometry/segment.ts";
import { type Pose, type Segment } from "../geometry/types.ts";
import { type Footprint } from "../units/footprint.ts";
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
import { cuspIndices, footprintCorners, footprintSamples, segmentStyle } from "../motion/pathDrawing.ts";

/** What to draw. */
export interface RenderInput {
  /** Map size and blocked tiles (tileCost 0). */
  layer: Pick<PassLayer, "width" | "height" | "tileCost">;
  /** The path. */
  segments: readonly Segment[];
  /** The unit's footprint, drawn along the path. */
  footprint: Footprint;
  /** Distance between footprint samples, tiles (default 0.5). */
  spacing?: number;
  /** Pixels per tile (default 12). */
  scale?: number;
  /** Start pose marker. */
  start?: Pose;
  /** Goal marker. */
  goal?: { x: number; y: number; heading?: number };
  /** A caption. */
  title?: string;
}

export { cuspIndices, footprintSamples };

/** The footprint's outline at a pose (the viewer draws the same, from motion/pathDrawing.ts). */
const rectCorners = footprintCorners;

const n4 = (v: number) => +v.toFixed(4);

/** The SVG path data of one segment: M then L (line) or A (arc; split in two beyond a half turn). */
export function segmentPathData(seg: Segment): string {
  const { start, end } = seg;
  let d = `M${n4(start.x)} ${n4(start.y)}`;
  if (seg.curvature === 0) return d + ` L${n4(end.x)} ${n4(end.y)}`;
  const r = n4(1 / Math.abs(seg.curvature));
  const sweep = seg.direction * seg.curvature * seg.length;
  // The point runs around the center by the heading change: increasing angle is SVG's sweep-flag 1 (y down).
  const flag = sweep > 0 ? 1 : 0;
  if (Math.abs(sweep) > Math.PI) {
    const c = arcCenter(seg);
    const a0 = Math.atan2(start.y - c.y, start.x - c.x) + sweep / 2;
    const mx = c.x + Math.cos(a0) / Math.abs(seg.curvature),
      my = c.y + Math.sin(a0) / Math.abs(seg.curvature);
    d += ` A${r} ${r} 0 0 ${flag} ${n4(mx)} ${n4(my)}`;
  }
  return d + ` A${r} ${r} 0 0 ${flag} ${n4(end.x)} ${n4(end.y)}`;
}

/** Renders the map and the path as an SVG document (one tile = one user unit). */
export function renderSvg(input: RenderInput): string {
  const { layer, segments, footprint } = input;
  const scale = input.scale ?? 12;
  const { width, height } = layer;
  const stroke = 0.08;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width * scale}" height="${height * scale}" ` +
      `viewBox="0 0 ${width} ${height}">`,
  );
  if (input.title) parts.push(`<title>${input.title.replace(/[<&>]/g, "")}</title>`);
  parts.push(`<rect x="0" y="0" width="${width}" height="${height}" fill="#f7f5ef"/>`);
  // Blocked tiles as horizontal runs: one rect per run keeps big maps small.
  parts.push(`<g class="blocked" fill="#3b3b3b">`);
  for (let y = 0; y < height; y++) {
    let x = 0;
    while (x < width) {
      if (layer.tileCost[y * width + x] !== 0) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < width && layer.tileCost[y * width + x] === 0) x++;
      parts.push(`<rect x="${x0}" y="${y}" width="${x - x0}" height="1"/>`);
    }
  }
  parts.push(`</g>`);
  parts.push(
    `<g class="footprints" fill="#2a7ab0" fill-opacity="0.08" stroke="#2a7ab0" stroke-opacity="0.5" ` +
      `stroke-width="${stroke / 2}">`,
  );
  for (const p of footprintSamples(segments, input.spacing ?? 0.5)) {
    const corners = rectCorners(p, footprint);
    if (corners) {
      parts.push(
        `<polygon class="footprint" points="${corners.map(([x, y]) => `${n4(x)},${n4(y)}`).join(" ")}"/>`,
      );
    } else {
      parts.push(
        `<circle class="footprint" cx="${n4(p.x)}" cy="${n4(p.y)}" r="${
          n4(Math.max(footprint.radius, 0.05))
        }"/>`,
      );
    }
  }
  parts.push(`</g>`);
  parts.push(`<g class="segments" fill="none" stroke-width="${stroke}" stroke-linecap="round">`);
  for (const seg of segments) {
    const kind = seg.direction < 0 ? "reverse" : "forward";
    const { color, dashed } = segmentStyle(seg);
    const dash = dashed ? ` stroke-dasharray="0.2 0.15"` : "";
    parts.push(`<path class="segment ${kind}" stroke="${color}"${dash} d="${segmentPathData(seg)}"/>`);
  }
  parts.push(`</g>`);
  for (const i of cuspIndices(segments)) {
    const p = segments[i].start;
    parts.push(
      `<circle class="cusp" cx="${n4(p.x)}" cy="${n4(p.y)}" r="0.3" fill="none" stroke="#c0392b" ` +
        `stroke-width="${stroke}"/>`,
    );
  }
  const marker = (cls: string, x: number, y: number, h: number | undefined, color: string) => {
    parts.push(`<circle class="${cls}" cx="${n4(x)}" cy="${n4(y)}" r="0.25" fill="${color}"/>`);
    if (h !== undefined) {
      parts.push(
        `<line class="${cls}-heading" x1="${n4(x)}" y1="${n4(y)}" x2="${n4(x + 0.8 * Math.cos(h))}" ` +
          `y2="${n4(y + 0.8 * Math.sin(h))}" stroke="${color}" stroke-width="${stroke}"/>`,
      );
    }
  };
  if (input.start) marker("start", input.start.x, input.start.y, input.start.heading, "#27ae60");
  if (input.goal) marker("goal", input.goal.x, input.goal.y, input.goal.heading, "#c0392b");
  parts.push(`</svg>`);
  return parts.join("\n") + "\n";
}

/** An RGB raster. */
class Raster {
  readonly pixels: Uint8Array;
  constructor(readonly width: number, readonly height: number) {
    this.pixels = new Uint8Array(width * height * 3);
  }
  /** Blends a color into a pixel with opacity alpha. */
  plot(x: number, y: number, rgb: number, alpha = 1): void {
    const ix = Math.floor(x), iy = Math.floor(y);
    if (ix < 0 || iy < 0 || ix >= this.width || iy >= this.height) return;
    const o = (iy * this.width + ix) * 3;
    const c = [(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255];
    for (let k = 0; k < 3; k++) {
      this.pixels[o + k] = Math.round(this.pixels[o + k] * (1 - alpha) + c[k] * alpha);
    }
  }
  /** A filled disc of pixel radius r. */
  dot(x: number, y: number, r: number, rgb: number, alpha = 1): void {
    for (let dy = -Math.ceil(r); dy <= Math.ceil(r); dy++) {
      for (let dx = -Math.ceil(r); dx <= Math.ceil(r); dx++) {
        if (dx * dx + dy * dy <= r * r) this.plot(x + dx, y + dy, rgb, alpha);
      }
    }
  }
  /** A line from a to b drawn as dots every half pixel. */
  line(ax: number, ay: number, bx: number, by: number, r: number, rgb: number, alpha = 1): void {
    const n = Math.max(1, Math.ceil(2 * Math.hypot(bx - ax, by - ay)));
    for (let i = 0; i <= n; i++) this.dot(ax + ((bx - ax) * i) / n, ay + ((by - ay) * i) / n, r, rgb, alpha);
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Encodes 8-bit RGB pixels as a PNG file (filter 0 per row, zlib deflate). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Uint8Array {
  const raw = new Uint8Array(height * (width * 3 + 1));
  for (let y = 0; y < height; y++) {
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  }
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const hv = new DataView(ihdr.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), o += p.length;
  return out;
}

/** Rasterizes the same picture as {@link renderSvg} (simpler strokes) and encodes it as PNG. */
export function renderPng(input: RenderInput): Uint8Array {
  const scale = input.scale ?? 12;
  const { layer, segments, footprint } = input;
  const img = new Raster(layer.width * scale, layer.height * scale);
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const blocked = layer.tileCost[Math.floor(y / scale) * layer.width + Math.floor(x / scale)] === 0;
      img.plot(x, y, blocked ? 0x3b3b3b : 0xf7f5ef);
    }
  }
  for (const p of footprintSamples(segments, input.spacing ?? 0.5)) {
    const corners = rectCorners(p, footprint);
    if (corners) {
      for (let i = 0; i < 4; i++) {
        const [ax, ay] = corners[i], [bx, by] = corners[(i + 1) % 4];
        img.line(ax * scale, ay * scale, bx * scale, by * scale, 0.5, 0x2a7ab0, 0.35);
      }
    } else {
      const r = Math.max(footprint.radius, 0.05) * scale;
      const n = Math.max(12, Math.ceil(2 * Math.PI * r));
      for (let i = 0; i < n; i++) {
        const a = (2 * Math.PI * i) / n;
        img.plot(p.x * scale + r * Math.cos(a), p.y * scale + r * Math.sin(a), 0x2a7ab0, 0.5);
      }
    }
  }
  for (const seg of segments) {
    const color = parseInt(segmentStyle(seg).color.slice(1), 16);
    const n = Math.max(1, Math.ceil((seg.length * scale) / 2));
    let prev = seg.start;
    for (let i = 1; i <= n; i++) {
      const p = poseAtDistance([seg], (seg.length * i) / n);
      img.line(prev.x * scale, prev.y * scale, p.x * scale, p.y * scale, 1, color);
      prev = p;
    }
  }
  for (const i of cuspIndices(segments)) {
    const p = segments[i].start;
    img.dot(p.x * scale, p.y * scale, 0.3 * scale, 0xc0392b, 0.8);
  }
  if (input.start) img.dot(input.start.x * scale, input.start.y * scale, 0.25 * scale, 0x27ae60);
  if (input.goal) img.dot(input.goal.x * scale, input.goal.y * scale, 0.25 * scale, 0xc0392b);
  return encodePng(img.width, img.height, img.pixels);
}

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
    map: "FILE|ID  a Moving AI .map file or a demo map id (default yard)",
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
    png: "FILE  PNG output too",
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
export function main(args: string[]): void {
  const flags = parseFlags(args);
  const mapArg = flags.get("map") ?? "yard";
  const mapPath = /[/.]/.test(mapArg) ? mapArg : `demo/maps/${mapArg}.map`;
  const mapText = readFileSync(mapPath, "utf8");
  const name = flags.get("unit") ?? "";
  const base = name ? BUILTIN_PROFILES[name] : AGENT;
  if (!base) throw new Error(`unknown unit ${name}`);
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
  let segments: Segment[];
  let start: Pose | undefined;
  let goal: { x: number; y: number; heading?: number } | undefined;
  let layer: PassLayer;
  let caption = "";
  if (flags.has("path")) {
    const json = JSON.parse(readFileSync(flags.get("path")!, "utf8"));
    const wire = Array.isArray(json) ? json : json.segments ?? [];
    segments = wire.map(segmentFromWire);
    const grid = parseMovingAi(mapText, { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
    layer = buildPassLayer(grid, movingAiTerrain());
    caption = `${flags.get("path")}`;
  } else {
    const [sx, sy, sh] = numbers(flags.get("from") ?? "");
    const [gx, gy, gh] = numbers(flags.get("to") ?? "");
    start = { x: sx, y: sy, heading: sh ?? 0 };
    goal = { x: gx, y: gy, heading: gh };
    const planner = (flags.get("planner") ?? "curved") as PlannerName;
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
  }
  const input: RenderInput = {
    layer,
    segments,
    footprint: unit.footprint,
    spacing: num("spacing") ?? 0.5,
    scale: num("scale") ?? 12,
    start,
    goal,
    title: caption,
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
  try {
    main(Deno.args);
  } catch (e) {
    // A bad value (unknown unit, unreadable file, not a number) is a message, not a stack trace.
    console.error(`render: ${(e as Error).message}`);
    Deno.exit(1);
  }
}
