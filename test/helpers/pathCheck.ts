/**
 * Shared helpers of the directional and hybrid tests: layers from rows or Moving AI text, a one-layer context,
 * a task builder, and an independent dense path checker (footprint vs blocked tiles by numeric integration,
 * curvature, exact joins, start and goal).
 */
import { buildPassLayer } from "../../src/maps/layer.ts";
import { movingAiTerrain, withOverrides } from "../../src/maps/terrain.ts";
import { type PassLayer } from "../../src/maps/grid.ts";
import { type Segment } from "../../src/geometry/types.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { tableStore } from "../../src/service/directionalTables.ts";
import { type PlanOutcome, type PlanTask, planTask } from "../../src/planning/task.ts";
import { type UnitSpec } from "../../src/units/unit.ts";

/** A layer from rows of Moving AI characters ('R' = road, passable). */
export function layerOf(rows: string[]): PassLayer {
  const height = rows.length;
  const width = rows[0].length;
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) tiles[y * width + x] = rows[y].charCodeAt(x);
  }
  const terrain = withOverrides(movingAiTerrain(), [{ code: 82, cost: 1, impassable: false, road: true }]);
  return buildPassLayer({ width, height, tiles }, terrain);
}

/** A layer from a Moving AI map file's text. */
export function layerOfMap(text: string): PassLayer {
  const lines = text.split(/\r?\n/);
  const h = Number(lines.find((l) => l.startsWith("height"))!.split(/\s+/)[1]);
  const start = lines.indexOf("map") + 1;
  return layerOf(lines.slice(start, start + h));
}

/** Rooms split by two walls with 3-wide doors (as in bench/directional.ts, smaller): 40 x 40, walls at x = 13 and 26. */
export function doorRows(): string[] {
  const W = 40, H = 40;
  const rows: string[] = [];
  for (let y = 0; y < H; y++) {
    let r = "";
    for (let x = 0; x < W; x++) {
      const border = x === 0 || y === 0 || x === W - 1 || y === H - 1;
      const wall = (x === 13 || x === 26) && !(y % 13 >= 5 && y % 13 <= 7);
      r += border || wall ? "@" : ".";
    }
    rows.push(r);
  }
  return rows;
}

/** A context whose only layer is `layer` under key "L", with this thread's directional table store. */
export function contextOf(layer: PassLayer): PlanContext {
  return new PlanContext((k) => (k === "L" ? layer : undefined), tableStore);
}

/** A task for `unit` on layer "L". */
export function taskOf(
  layer: PassLayer,
  unit: UnitSpec,
  start: { x: number; y: number; heading: number },
  goal: { x: number; y: number; heading?: number; tolerance?: number; headingTolerance?: number },
  extra: Partial<PlanTask> = {},
): PlanTask {
  return planTask({ planner: "directional", layerKey: "L", width: layer.width, unit, start, goal }, extra);
}

function blocked(layer: PassLayer, x: number, y: number): boolean {
  return x < 0 || y < 0 || x >= layer.width || y >= layer.height || layer.tileCost[y * layer.width + x] === 0;
}

/** Poses along a segment every `step` or less, in closed form from its start (independent of the library). */
function sampleSegment(seg: Segment, step: number): { x: number; y: number; h: number }[] {
  const out: { x: number; y: number; h: number }[] = [];
  const n = Math.max(1, Math.ceil(seg.length / step));
  let x = seg.start.x, y = seg.start.y, h = seg.start.heading;
  out.push({ x, y, h });
  const du = seg.length / n;
  const k = seg.curvature, d = seg.direction, h0 = h;
  for (let i = 1; i <= n; i++) {
    // Closed form from the segment's start (no step error, even for very tight arcs): the heading turns by
    // d k s, and on an arc x and y follow the circle, dx/dh = cos h / k, dy/dh = sin h / k.
    const s = i * du;
    h = h0 + d * k * s;
    if (k === 0) {
      x = seg.start.x + d * s * Math.cos(h0);
      y = seg.start.y + d * s * Math.sin(h0);
    } else {
      x = seg.start.x + (Math.sin(h) - Math.sin(h0)) / k;
      y = seg.start.y - (Math.cos(h) - Math.cos(h0)) / k;
    }
    out.push({ x, y, h });
  }
  return out;
}

/** True if the footprint at (x, y, h) overlaps a blocked tile's interior (by a margin `eps`). */
function footprintOverlaps(
  layer: PassLayer,
  unit: UnitSpec,
  x: number,
  y: number,
  h: number,
  eps: number,
): boolean {
  const fp = unit.footprint;
  if (!(fp.width > 0)) {
    const r = Math.max(fp.radius, 1e-6) - eps;
    if (r <= 0) return blocked(layer, Math.floor(x), Math.floor(y));
    for (let ty = Math.floor(y - r); ty <= Math.floor(y + r); ty++) {
      for (let tx = Math.floor(x - r); tx <= Math.floor(x + r); tx++) {
        if (!blocked(layer, tx, ty)) continue;
        const dx = Math.max(tx - x, 0, x - tx - 1), dy = Math.max(ty - y, 0, y - ty - 1);
        if (dx * dx + dy * dy < r * r) return true;
      }
    }
    return false;
  }
  // Rectangle: sample its area on a fine lattice (shrunk by eps) and test the containing tiles.
  const hl = fp.length / 2 - eps, hw = fp.width / 2 - eps;
  const c = Math.cos(h), s = Math.sin(h);
  for (let i = 0; i <= 12; i++) {
    for (let j = 0; j <= 8; j++) {
      const a = -hl + (2 * hl * i) / 12, b = -hw + (2 * hw * j) / 8;
      const px = x + a * c - b * s, py = y + a * s + b * c;
      if (blocked(layer, Math.floor(px), Math.floor(py))) return true;
    }
  }
  return false;
}

/** Independent check of a found path; returns a list of problems (empty when legal). */
export function checkPath(
  layer: PassLayer,
  unit: UnitSpec,
  out: PlanOutcome,
  start: { x: number; y: number; heading: number },
  goal: { x: number; y: number; heading?: number; tolerance?: number; headingTolerance?: number },
  onSample?: (x: number, y: number) => void,
): string[] {
  const problems: string[] = [];
  const segs = out.segments;
  const r = unit.turningRadius;
  if (segs.length === 0) {
    problems.push("no segments");
    return problems;
  }
  const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
  if (Math.hypot(segs[0].start.x - start.x, segs[0].start.y - start.y) > 1e-9) {
    problems.push("does not start at start");
  }
  if (Math.abs(wrap(segs[0].start.heading - start.heading)) > 1e-9) problems.push("start heading differs");
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    if (r > 0 && Math.abs(seg.curvature) > 1 / r + 1e-9) problems.push(`segment ${i} too tight`);
    const pts = sampleSegment(seg, 0.01);
    for (const p of pts) {
      onSample?.(p.x, p.y);
      if (footprintOverlaps(layer, unit, p.x, p.y, p.h, 1e-6)) {
        problems.push(`segment ${i} hits a blocked tile near (${p.x.toFixed(3)}, ${p.y.toFixed(3)})`);
        break;
      }
    }
    const last = pts[pts.length - 1];
    if (i + 1 < segs.length) {
      const nx = segs[i + 1].start;
      if (Math.hypot(last.x - nx.x, last.y - nx.y) > 1e-4) problems.push(`join ${i} position`);
      if (Math.abs(wrap(last.h - nx.heading)) > 1e-4) problems.push(`join ${i} heading`);
      if (Math.hypot(seg.end.x - nx.x, seg.end.y - nx.y) > 1e-9) problems.push(`join ${i} exact position`);
      if (Math.abs(wrap(seg.end.heading - nx.heading)) > 1e-9) problems.push(`join ${i} exact heading`);
    } else {
      const tol = goal.tolerance ?? 0.5;
      if (Math.hypot(last.x - goal.x, last.y - goal.y) > tol + 1e-4) {
        problems.push("does not end at the goal");
      }
      if (
        goal.heading !== undefined &&
        Math.abs(wrap(last.h - goal.heading)) > (goal.headingTolerance ?? 0.2) + 1e-6
      ) {
        problems.push("wrong final heading");
      }
    }
  }
  return problems;
}

/** A segment as the wire or the domain gives it: only the fields the contract of docs/segments.md names. */
export interface CostSegment {
  start: { x?: number; y?: number; heading?: number };
  length?: number;
  curvature?: number;
  direction?: number;
}

/** The weights {@link sampledPathCost} charges (a unit's penalties). */
export interface CostPenalties {
  reversePenalty: number;
  cuspPenalty: number;
  turnPenalty: number;
}

/**
 * An independent path cost for the tests (docs/cost.md), not the planners' code: every segment is sampled every
 * `step` tiles with the closed-form formulas of docs/segments.md and each sample interval is charged the cost of
 * the tile its midpoint lies in (`tileCost(tx, ty)`, blocked or off-map tiles 1); reverse intervals are weighted
 * by the reverse penalty; a change of direction between consecutive segments is a cusp; |curvature| * length
 * plus the heading jump at every joint (the shorter way round) is the turning. Exact up to `step` times the cost
 * change at each tile border the path crosses.
 */
export function sampledPathCost(
  segments: readonly CostSegment[],
  penalties: CostPenalties,
  tileCost: (tx: number, ty: number) => number,
  step = 1e-3,
): {
  total: number;
  terrain: number;
  reverseExtra: number;
  reverseLength: number;
  cusps: number;
  turning: number;
} {
  let terrain = 0, reverseExtra = 0, reverseLength = 0, cusps = 0, turning = 0;
  let lastDirection = 0;
  let lastEndHeading: number | null = null;
  for (const seg of segments) {
    const L = seg.length ?? 0;
    if (!(L > 0)) continue;
    const x0 = seg.start.x ?? 0, y0 = seg.start.y ?? 0, h0 = seg.start.heading ?? 0;
    const k = seg.curvature ?? 0, d = seg.direction ?? 1;
    const at = (u: number) => {
      if (k === 0) return [x0 + d * u * Math.cos(h0), y0 + d * u * Math.sin(h0)];
      const h = h0 + d * k * u;
      return [x0 + (Math.sin(h) - Math.sin(h0)) / k, y0 - (Math.cos(h) - Math.cos(h0)) / k];
    };
    const n = Math.max(1, Math.ceil(L / step));
    let t = 0;
    for (let i = 0; i < n; i++) {
      const [px, py] = at(((i + 0.5) * L) / n);
      const c = tileCost(Math.floor(px), Math.floor(py));
      t += (L / n) * (c > 0 && Number.isFinite(c) ? c : 1);
    }
    terrain += t;
    if (d < 0) {
      reverseExtra += (Math.max(1, penalties.reversePenalty) - 1) * t;
      reverseLength += L;
    }
    if (lastDirection !== 0 && d !== lastDirection) cusps++;
    lastDirection = d;
    turning += Math.abs(k) * L;
    if (lastEndHeading !== null) {
      const jump = h0 - lastEndHeading;
      turning += Math.abs(Math.atan2(Math.sin(jump), Math.cos(jump)));
    }
    lastEndHeading = h0 + d * k * L;
  }
  const total = terrain + reverseExtra + cusps * penalties.cuspPenalty + turning * penalties.turnPenalty;
  return { total, terrain, reverseExtra, reverseLength, cusps, turning };
}

/** Rows with '.' open, '@' blocked and 's' swamp of cost `swamp`. */
export function costedLayer(rows: string[], swamp: number): PassLayer {
  const height = rows.length, width = rows[0].length;
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) tiles[y * width + x] = rows[y].charCodeAt(x);
  }
  const terrain = withOverrides(movingAiTerrain(), [{
    code: 115,
    cost: swamp,
    impassable: false,
    road: false,
  }]);
  return buildPassLayer({ width, height, tiles }, terrain);
}
