/**
 * Turning radii above about 46 tiles (the documented range goes to 64) give hit-check cells beyond +-127: the
 * table stores them 16-bit instead of failing ("hit-check cell beyond int8 range" was an INTERNAL for every
 * curved planner), and such a table packs and unpacks exactly.
 */
import { describe, expect, test } from "vitest";
import { buildHitCheckTable, packTables, unpackTables } from "../../src/search/hitCheckTable.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { tableProfileOf } from "../../src/planning/directional.ts";
import { buildHeuristicTable } from "../../src/search/heuristicTable.ts";

describe("wide hit-check tables", () => {
  test("the tank with turning radius 50 (Directional-8): 16-bit cells, every one within maxReach, round trip", () => {
    const profile = { ...tableProfileOf({ ...BUILTIN_PROFILES.tank, turningRadius: 50 }, 8, false) };
    const hit = buildHitCheckTable(profile);
    expect(hit.maxReach).toBeGreaterThan(127);
    expect(hit.cells).toBeInstanceOf(Int16Array);
    let far = 0;
    for (let c = 0; c < hit.cells.length; c++) {
      expect(Math.abs(hit.cells[c])).toBeLessThanOrEqual(hit.maxReach);
      if (Math.abs(hit.cells[c]) > 127) far++;
    }
    expect(far).toBeGreaterThan(0);
    const heur = buildHeuristicTable(50, 8, false, 4);
    const back = unpackTables(packTables(hit, heur)).hit;
    expect(back.cells).toBeInstanceOf(Int16Array);
    expect([...back.cells]).toEqual([...hit.cells]);
    expect([...back.cellStart]).toEqual([...hit.cellStart]);
    expect(back.maxReach).toBe(hit.maxReach);
  });

  test("the built-in tank's table stays 8-bit", () => {
    const hit = buildHitCheckTable(tableProfileOf(BUILTIN_PROFILES.tank, 8));
    expect(hit.cells).toBeInstanceOf(Int8Array);
  });
});
