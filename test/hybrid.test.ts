/** PLANNER_HYBRID: pre-smoothing along the grid path, fallback to a full directional search; legal paths. */
import { describe, expect, test } from "vitest";
import { planHybrid } from "../src/planning/hybrid.ts";
import { BUILTIN_PROFILES } from "../src/service/profiles.ts";
import { checkPath, contextOf, layerOf, layerOfMap, taskOf } from "./helpers/pathCheck.ts";
import { mapText } from "./helpers/movingai.ts";

describe("hybrid", () => {
  test("open room: pre-smoothing succeeds and the path is legal", () => {
    const layer = layerOf(Array.from({ length: 24 }, () => ".".repeat(24)));
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 3.5, y: 3.5, heading: 0 };
    const goal = { x: 20.5, y: 18.5 };
    const out = planHybrid(contextOf(layer), taskOf(layer, tank, start, goal, { planner: "hybrid" }));
    expect(out.status).toBe("found");
    // The fast lane (curves fitted to the smoothed grid path) or the pre-smoothing pass answers in the open.
    expect(out.message).toMatch(/curves fitted|pre-smoothing/);
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
  });

  test("dead end facing the wall: the grid corridor has no legal curve, the fallback finds the turn", () => {
    const rows = ["@".repeat(20)];
    for (let y = 1; y < 9; y++) {
      rows.push("@" + ".".repeat(10) + (y >= 4 && y <= 6 ? "........@" : "@@@@@@@@@"));
    }
    rows.push("@".repeat(20));
    const layer = layerOf(rows);
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 17.5, y: 5.5, heading: 0 };
    const goal = { x: 5.5, y: 5.5, heading: Math.PI };
    const out = planHybrid(contextOf(layer), taskOf(layer, tank, start, goal, { planner: "hybrid" }));
    expect(out.status).toBe("found");
    expect(checkPath(layer, tank, out, start, goal)).toEqual([]);
  });

  test("random arena queries: every found hybrid path is legal", () => {
    const layer = layerOfMap(mapText("arena.map"));
    const ctx = contextOf(layer);
    const tank = { ...BUILTIN_PROFILES.tank };
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = () => {
      for (;;) {
        const x = Math.floor(next() * layer.width), y = Math.floor(next() * layer.height);
        if (layer.clearance[y * layer.width + x] >= 1.5) return { x: x + 0.5, y: y + 0.5 };
      }
    };
    let found = 0;
    for (let i = 0; i < 6; i++) {
      const a = pick(), b = pick();
      const start = { ...a, heading: next() * 6 - 3 };
      const out = planHybrid(ctx, taskOf(layer, tank, start, b, { planner: "hybrid", maxExpansions: 30000 }));
      if (out.status !== "found") continue;
      found++;
      expect(checkPath(layer, tank, out, start, b)).toEqual([]);
    }
    expect(found).toBeGreaterThan(0);
  });
});
