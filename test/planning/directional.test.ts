/**
 * Directional A*: the article's figures on hand-made maps, random queries on shared maps, budgets, all checked by
 * an independent dense sampler (footprint vs blocked tiles, curvature, joins, goal).
 */
import { describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { planDirectional } from "../../src/planning/directional.ts";
import { mapText } from "../helpers/movingai.ts";
import { checkPath, contextOf, layerOf, layerOfMap, taskOf } from "../helpers/pathCheck.ts";
import { tileClearance } from "../../src/maps/grid.ts";

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
    const { dubinsShortest } = await import("../../src/geometry/dubins.ts");
    const { pathHitsBlocked } = await import("../../src/geometry/sweep.ts");
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
          if (tileClearance(layer, y * layer.width + x) >= 1.5) return { x: x + 0.5, y: y + 0.5 };
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
