/**
 * Directional tables built on first use: a build stops between start headings at a request's deadline and
 * the next request goes on from there (the same bytes as a build in one go); the per-worker cache is bounded.
 */
import { describe, expect, test } from "vitest";
import { buildTables, planDirectional, tableProfileOf } from "../../src/planning/directional.ts";
import { tableStore } from "../../src/service/directionalTables.ts";
import { packTables } from "../../src/search/hitCheckTable.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { contextOf, layerOf, taskOf } from "../helpers/pathCheck.ts";

/** A custom unit no committed table covers. */
function customUnit(turningRadius: number): UnitSpec {
  return {
    ...BUILTIN_PROFILES.tank,
    name: "custom",
    footprint: { radius: 0.7, width: 0, length: 0 },
    turningRadius,
  };
}

describe("directional tables of custom profiles", () => {
  test("a build stopped between headings resumes and gives the same bytes as one build", () => {
    tableStore.clear();
    const profile = tableProfileOf(customUnit(1.7), 8, false);
    let calls = 0;
    let tables = null;
    const seen: number[] = [];
    while (tables === null && calls < 100) {
      let polls = 0;
      tables = tableStore.tablesUntil(profile, () => ++polls > 2);
      calls++;
      if (tables === null) seen.push(tableStore.buildProgress(profile)!.done);
    }
    expect(tables).not.toBeNull();
    expect(tables!.source).toBe("built");
    // Two headings per call: progress 2, 4, 6, ... up to all headings.
    expect(seen.slice(0, 3)).toEqual([2, 4, 6]);
    expect(calls).toBe(Math.ceil(profile.headings / 2));
    expect(tableStore.buildProgress(profile)).toBeNull();
    const whole = buildTables(profile);
    expect(packTables(tables!.hit, tables!.heur)).toEqual(packTables(whole.hit, whole.heur));
    // Now cached.
    expect(tableStore.tablesUntil(profile, () => true)!.source).toBe("cache");
  });

  test("a directional request that runs out of time while building says so; a later one finds the path", () => {
    tableStore.clear();
    const layer = layerOf(Array.from({ length: 24 }, () => ".".repeat(24)));
    const unit = customUnit(2.3);
    const ctx = contextOf(layer);
    const start = { x: 3.5, y: 3.5, heading: 0 }, goal = { x: 19.5, y: 15.5 };
    const hurried = planDirectional(ctx, taskOf(layer, unit, start, goal, { maxMillis: 1 }));
    expect(hurried.status).toBe("budget");
    expect(hurried.message).toMatch(/building the unit's directional tables/);
    const done = planDirectional(ctx, taskOf(layer, unit, start, goal, { maxMillis: 60000 }));
    expect(done.status).toBe("found");
  });

  test("the cache keeps at most its byte bound, least recently used out first", () => {
    tableStore.clear();
    tableStore.tablesUntil(tableProfileOf(customUnit(1.1), 8, false), null);
    const perSet = tableStore.bytes;
    expect(perSet).toBeGreaterThan(0);
    const previous = tableStore.limit;
    tableStore.limit = Math.floor(2.5 * perSet);
    try {
      for (const r of [1.2, 1.3, 1.4]) tableStore.tablesUntil(tableProfileOf(customUnit(r), 8, false), null);
      expect(tableStore.bytes).toBeLessThanOrEqual(Math.floor(2.5 * perSet) + perSet);
      // The first set was the least recently used: it is built again.
      expect(tableStore.tablesUntil(tableProfileOf(customUnit(1.1), 8, false), null)!.source).toBe("built");
    } finally {
      tableStore.limit = previous;
      tableStore.clear();
    }
  });
});
