/**
 * Directional A*: the article's figures on hand-made maps, random queries on shared maps, budgets, all checked by
 * an independent dense sampler (footprint vs blocked tiles, curvature, joins, goal).
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../src/maps/layer.ts";
import { movingAiTerrain, withOverrides } from "../src/maps/terrain.ts";
import type { PassLayer } from "../src/maps/grid.ts";
import type { Segment } from "../src/geometry/types.ts";
import { PlanContext } from "../src/planning/plan.ts";
import type { PlanOutcome, PlanTask } from "../src/planning/task.ts";
import { BUILTIN_PROFILES, type UnitSpec } from "../src/service/profiles.ts";
import { clearanceClass } from "../src/maps/layer.ts";
import { planDirectional } from "../src/planning/directional.ts";
import { mapText } from "./helpers/movingai.ts";

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

/** A context whose only layer is `layer` under key "L". */
export function contextOf(layer: PassLayer): PlanContext {
  return new PlanContext((k) => (k === "L" ? layer : undefined));
}

/** A task for `unit` on layer "L". */
export function taskOf(
  layer: PassLayer,
  unit: UnitSpec,
  start: { x: number; y: number; heading: number },
  goal: { x: number; y: number; heading?: number; tolerance?: number; headingTolerance?: number },
  extra: Partial<PlanTask> = {},
): PlanTask {
  return {
    planner: "directional",
    layerKey: "L",
    startTile: Math.floor(start.y) * layer.width + Math.floor(start.x),
    goalTile: Math.floor(goal.y) * layer.width + Math.floor(goal.x),
    start,
    goal: {
      x: goal.x,
      y: goal.y,
      heading: goal.heading,
      tolerance: goal.tolerance ?? 0.5,
      headingTolerance: goal.headingTolerance ?? 0.2,
    },
    clearance: clearanceClass(unit.boundingRadius),
    unit,
    neighborhood: 24,
    maxExpansions: 200000,
    maxMillis: 20000,
    nearest: false,
    wantWaypoints: true,
    options: {
      ignoreObstaclesInCurves: false,
      tighterTurns: false,
      allowBackingUp: false,
      keepToRoads: false,
    },
    ...extra,
  };
}

function blocked(layer: PassLayer, x: number, y: number): boolean {
  return x < 0 || y < 0 || x >= layer.width || y >= layer.height || layer.tileCost[y * layer.width + x] === 0;
}

/** Pose at distance u along a segment, by numerically integrating heading (independent of the library). */
function sampleSegment(seg: Segment, step: number): { x: number; y: number; h: number }[] {
  const out: { x: number; y: number; h: number }[] = [];
  const n = Math.max(1, Math.ceil(seg.length / step));
  let x = seg.start.x, y = seg.start.y, h = seg.start.heading;
  out.push({ x, y, h });
  const du = seg.length / n;
  for (let i = 0; i < n; i++) {
    // Midpoint rule on heading: exact for arcs up to O(du^3).
    const hm = h + seg.direction * seg.curvature * du / 2;
    x += seg.direction * du * Math.cos(hm);
    y += seg.direction * du * Math.sin(hm);
    h += seg.direction * seg.curvature * du;
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

const U = (name: string, over: Partial<UnitSpec> = {}): UnitSpec => ({ ...BUILTIN_PROFILES[name], ...over });

describe("directional A*", () => {
  test("open field: a boat reaches a goal heading, path checked densely", () => {
    const rows = Array.from({ length: 30 }, () => ".".repeat(30));
    const layer = layerOf(rows);
    const boat = U("boat");
    const start = { x: 5.5, y: 15.5, heading: 0 };
    const goal = { x: 24.5, y: 15.5, heading: Math.PI };
    const out = planDirectional(contextOf(layer), taskOf(layer, boat, start, goal));
    expect(out.status).toBe("found");
    expect(checkPath(layer, boat, out, start, goal)).toEqual([]);
    // A U-turn is needed: the path turns by about pi overall.
    expect(out.length).toBeGreaterThan(19);
  });
});

/** Rows of a map: '@' everywhere except the listed open rectangles [x0, y0, x1, y1] (inclusive). */
function carve(width: number, height: number, rects: number[][], ch = "."): string[] {
  const g = Array.from({ length: height }, () => Array.from({ length: width }, () => "@"));
  for (const [x0, y0, x1, y1] of rects) {
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) g[y][x] = ch;
  }
  return g.map((r) => r.join(""));
}

describe("the article's figures", () => {
  test("(a) corridor bend: the direct curve collides, the directional path turns where there is room", async () => {
    const { dubinsShortest } = await import("../src/geometry/dubins.ts");
    const { pathHitsBlocked } = await import("../src/geometry/sweep.ts");
    // A corridor east, then a bend south with a wider pocket at the corner (Figure 8's loop room).
    const rows = carve(30, 30, [[1, 2, 22, 6], [15, 2, 26, 13], [19, 2, 23, 28]]);
    const layer = layerOf(rows);
    const boat = U("boat");
    const start = { x: 3.5, y: 4.5, heading: 0 };
    const goal = { x: 21.5, y: 26.5, heading: Math.PI / 2 };
    const direct = dubinsShortest(start, goal, boat.turningRadius);
    expect(pathHitsBlocked(layer, direct.segments, boat.footprint)).toBe(true);
    const out = planDirectional(contextOf(layer), taskOf(layer, boat, start, goal));
    expect(out.status).toBe("found");
    expect(checkPath(layer, boat, out, start, goal)).toEqual([]);
  });

  test("(c) three-point turn out of a dead end: reverse segments and a cusp; forward-only units fail", () => {
    const rows = carve(20, 10, [[1, 1, 10, 8], [11, 4, 18, 6]]);
    const layer = layerOf(rows);
    const tank = U("tank");
    const start = { x: 17.5, y: 5.5, heading: 0 };
    const goal = { x: 5.5, y: 5.5, heading: Math.PI };
    const out = planDirectional(contextOf(layer), taskOf(layer, tank, start, goal));
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
    expect(out.segments.some((s) => s.direction === -1)).toBe(true);
    const cusps =
      out.segments.filter((s, i) => i > 0 && s.direction !== out.segments[i - 1].direction).length;
    expect(cusps).toBeGreaterThanOrEqual(1);
    const forwardOnly = planDirectional(
      contextOf(layer),
      taskOf(layer, { ...tank, canReverse: false }, start, goal),
    );
    expect(forwardOnly.status).not.toBe("found");
  });

  test("(d) road corner: keep_to_roads keeps every sampled point on road tiles; without it the path cuts across", () => {
    const rows = [
      "..............",
      "..............",
      "..RRRRRRRRRR..",
      "..RRRRRRRRRR..",
      "..RR..........",
      "..RR..........",
      "..RR..........",
      "..RR..........",
      "..RR..........",
      "..RR..........",
      "..............",
    ];
    const layer = layerOf(rows);
    const unit: UnitSpec = {
      ...BUILTIN_PROFILES.agent,
      footprint: { radius: 0.3, width: 0, length: 0 },
      boundingRadius: 0.3,
      turningRadius: 1,
    };
    const start = { x: 3, y: 9, heading: -Math.PI / 2 };
    const goal = { x: 11, y: 3, heading: 0 };
    const offRoad = (keep: boolean) => {
      const task = taskOf(layer, unit, start, goal);
      task.options.keepToRoads = keep;
      const out = planDirectional(contextOf(layer), task);
      expect(out.status).toBe("found");
      let off = 0;
      expect(checkPath(layer, unit, out, start, goal, (x, y) => {
        if (layer.road[Math.floor(y) * layer.width + Math.floor(x)] !== 1) off++;
      })).toEqual([]);
      return off;
    };
    expect(offRoad(true)).toBe(0);
    expect(offRoad(false)).toBeGreaterThan(0);
  });
});

/** A seeded generator (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("random queries on shared maps", () => {
  for (const name of ["arena.map", "Berlin_0_256.map"]) {
    test(`${name}: every found path passes the dense check; budgets return legal partial paths`, () => {
      const layer = layerOfMap(mapText(name));
      const ctx = contextOf(layer);
      const next = rng(name.length * 7919);
      const tank = U("tank");
      const pick = () => {
        for (;;) {
          const x = Math.floor(next() * layer.width), y = Math.floor(next() * layer.height);
          if (layer.clearance[y * layer.width + x] >= 1.5) return { x: x + 0.5, y: y + 0.5 };
        }
      };
      let found = 0;
      for (let i = 0; i < 8; i++) {
        const a = pick();
        let b = pick();
        while (Math.hypot(a.x - b.x, a.y - b.y) > 30) b = pick();
        const start = { ...a, heading: next() * 2 * Math.PI - Math.PI };
        const out = planDirectional(ctx, taskOf(layer, tank, start, b, { maxExpansions: 20000 }));
        if (out.status === "found") {
          found++;
          expect(checkPath(layer, tank, out, start, b)).toEqual([]);
        } else if (out.status === "budget" && out.segments.length > 0) {
          const end = out.segments[out.segments.length - 1].end;
          expect(checkPath(layer, tank, out, start, { x: end.x, y: end.y, tolerance: 1e-3 })).toEqual([]);
        }
      }
      expect(found).toBeGreaterThan(0);
      // A tiny budget stops with status budget.
      const s = { ...pick(), heading: 0 };
      let g = pick();
      while (Math.hypot(s.x - g.x, s.y - g.y) < 15) g = pick();
      const small = planDirectional(ctx, taskOf(layer, tank, s, g, { maxExpansions: 5 }));
      expect(["budget", "found"]).toContain(small.status);
      if (small.status === "budget") expect(small.expansions).toBeLessThanOrEqual(5);
    });
  }
});
