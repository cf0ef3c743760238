/**
 * AUTO never answers with a path that backs up where CURVED's forward fit is cheaper (issue 11: "no reverse
 * where a forward path is cheaper"). The pair is the quality bench's (bench/quality.ts, arena with swamps,
 * truck, pair 13 of its 20): Directional-48 backs up at 59.22 while CURVED drives forward at 59.17.
 */
import { describe, expect, test } from "vitest";
import { layerOf, maps, type Pair, pairs, pairSeed, taskFor, VARIANTS } from "../../bench/quality.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf } from "../helpers/pathCheck.ts";

const arena = maps().find((m) => m.name === "arena+swamp");
if (!arena) throw new Error("../shared/data/movingai/arena.map is missing (the quality bench's arena)");
const layer = layerOf(arena.rows);
const ctx = contextOf(layer);
const truck = { ...BUILTIN_PROFILES.truck };
const variant = (label: string) => VARIANTS.find((v) => v.label === label)!;

/** The bench's pairs, from its seed (the first test checks the poses they had when it was written). */
const benchPairs = pairs(layer, truck, 20, pairSeed(arena.name, "truck"));
const reversing: Pair = benchPairs[13];
const forward: Pair = benchPairs[8];

function run(q: Pair, label: string) {
  const out = runPlanTask(ctx, { ...taskFor(layer, truck, q, variant(label)), maxMillis: 60000 }, null);
  return { out, cost: out.segments.length > 0 ? pathCost(out.segments, truck, layer) : null };
}

describe("AUTO: no reverse where a forward path is cheaper", () => {
  test("the bench's arena truck pair: AUTO drives forward at CURVED's cost, not Directional-48's reverse", () => {
    expect(reversing.start).toEqual({ x: 20.5, y: 7.5, heading: -Math.PI / 4 });
    expect(reversing.goal.x).toBe(41.5);
    expect(reversing.goal.y).toBe(36.5);
    // The control: CURVED's answer (forward curves tried before backing up) drives forward.
    const curved = run(reversing, "curved+backing");
    expect(curved.out.status).toBe("found");
    expect(curved.cost!.reverseLength).toBe(0);

    const auto = run(reversing, "auto");
    expect(auto.out.status).toBe("found");
    expect(auto.cost!.reverseLength).toBe(0);
    expect(auto.cost!.total).toBeLessThanOrEqual(curved.cost!.total + 1e-9);
    expect(auto.out.planner).toBe("curved");
    expect(auto.out.message).toMatch(/^AUTO: PLANNER_CURVED forward's answer, the cheapest of /);
    // Directional-48 ran, and its answer (backing up, 59.22 when this was written) costs more.
    const d48 = /Directional-48 (\d+\.\d+)/.exec(auto.out.message);
    expect(Number(d48![1])).toBeGreaterThan(auto.cost!.total);
    expect(checkPath(layer, truck, auto.out, reversing.start, reversing.goal)).toEqual([]);
  });

  test("a forward answer does not pay for the forward candidate", () => {
    const auto = run(forward, "auto");
    expect(auto.out.status).toBe("found");
    expect(auto.cost!.reverseLength).toBe(0);
    expect(auto.out.message).not.toMatch(/PLANNER_CURVED/);
  });
});
