/** Worker warm-up: it runs every planner the service dispatches to workers, and every run finds its path. */
import { describe, expect, test } from "vitest";
import { warmUpPlanners } from "../../src/service/warmUp.ts";

describe("worker warm-up", () => {
  test("every planner run on the warm-up yard finds a path, without errors", () => {
    const out = warmUpPlanners();
    expect(out.error).toBe("");
    // 2 rounds x 5 planner/unit pairs x 3 routes, plus one directional search.
    expect(out.runs).toBe(31);
    expect(out.found).toBe(out.runs);
    expect(out.millis).toBeGreaterThan(0);
  });
});
