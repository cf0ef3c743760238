/** Worker warm-up: it runs every planner the service dispatches to workers, and every run finds its path. */
import { describe, expect, test } from "vitest";
import { tableProfileOf } from "../../src/planning/directional.ts";
import { DirectionalTableStore } from "../../src/service/directionalTables.ts";
import { WARM_NEIGHBORHOODS, warmUpPlanners } from "../../src/service/warmUp.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";

describe("worker warm-up", () => {
  test("every planner run on the warm-up yard finds a path, without errors", () => {
    const out = warmUpPlanners();
    expect(out.error).toBe("");
    // 2 rounds x 5 planner/unit pairs x 3 routes, plus one directional search.
    expect(out.runs).toBe(31);
    expect(out.found).toBe(out.runs);
    expect(out.millis).toBeGreaterThan(0);
  });

  test("AUTO's Directional-24 and -48 tables of every built-in turning unit are loaded from tables/", () => {
    const store = new DirectionalTableStore();
    const out = warmUpPlanners(store);
    expect(out.error).toBe("");
    const turning = Object.values(BUILTIN_PROFILES).filter((u) => u.turningRadius > 0);
    expect(out.tables).toBe(turning.length * WARM_NEIGHBORHOODS.length);
    expect(WARM_NEIGHBORHOODS).toContain(48);
    for (const unit of turning) {
      for (const n of WARM_NEIGHBORHOODS) {
        // Cached by the warm-up: a query finds them without loading or building.
        expect(store.tablesFor(tableProfileOf(unit, n)).source).toBe("cache");
      }
      // Committed: a fresh store reads them from the file, it does not build them.
      expect(new DirectionalTableStore().tablesFor(tableProfileOf(unit, 48)).source).toBe("file");
    }
  });
});
