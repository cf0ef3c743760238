/**
 * AUTO finds a path where one of its own candidate planners does (issue 11: "AUTO must find what the planners
 * find"). The pair is the quality bench's (bench/quality.ts, random512 96x96 with swamps, tank, pair 12 of its
 * 20): the hybrid and Directional-24 answer NO_LEGAL_PATH, Directional-48 finds a legal path. On pair 6 the
 * hybrid's failing Directional-24 spent 179457 of the 200000 expansions, Directional-48 needs about 57000.
 */
import { describe, expect, test } from "vitest";
import { layerOf, maps, type Pair, pairs, pairSeed, taskFor, VARIANTS } from "../../bench/quality.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkPath, contextOf } from "../helpers/pathCheck.ts";

const r512 = maps().find((m) => m.name.startsWith("random512"));
if (!r512) throw new Error("../shared/data/movingai/random512-10-0.map is missing (the quality bench's map)");
const layer = layerOf(r512.rows);
const ctx = contextOf(layer);
const tank = { ...BUILTIN_PROFILES.tank };
const variant = (label: string) => VARIANTS.find((v) => v.label === label)!;
const benchPairs = pairs(layer, tank, 20, pairSeed(r512.name, "tank"));
const pair: Pair = benchPairs[12];

const run = (label: string, q = pair) =>
  runPlanTask(ctx, { ...taskFor(layer, tank, q, variant(label)), maxMillis: 60000 }, null);

describe("AUTO finds what its candidate planners find", () => {
  test("the bench's random512 tank pair: the hybrid finds nothing, Directional-48 does, so does AUTO", () => {
    expect(pair.start).toEqual({ x: 1.5, y: 30.5, heading: -Math.PI });
    expect(pair.goal).toEqual({ x: 39.5, y: 1.5, heading: 3 * Math.PI / 4 });
    // The controls: the hybrid (whose last resort is Directional-24) fails, Directional-48 finds a path.
    expect(run("hybrid").status).toBe("no_legal_path");
    const d48 = run("directional48");
    expect(d48.status).toBe("found");

    const auto = run("auto");
    expect(auto.status, auto.message).toBe("found");
    expect(auto.segments.length).toBeGreaterThan(0);
    expect(auto.planner).toBe("directional");
    expect(auto.message).toMatch(
      /^AUTO: Directional-48's answer, the cheapest of PLANNER_HYBRID no_legal_path/,
    );
    expect(checkPath(layer, tank, auto, pair.start, pair.goal)).toEqual([]);
  }, 60000);

  test("the bench's random512 tank pair 6: the hybrid's failure leaves Directional-48 enough budget", () => {
    const q = benchPairs[6];
    expect(q.start).toEqual({ x: 57.5, y: 16.5, heading: 13 * (Math.PI / 8) - Math.PI });
    expect(q.goal).toEqual({ x: 3.5, y: 33.5, heading: 6 * (Math.PI / 8) - Math.PI });
    const auto = run("auto", q);
    expect(auto.status, auto.message).toBe("found");
    expect(auto.expansions).toBeLessThanOrEqual(200000);
    expect(auto.message).toMatch(/^AUTO: Directional-48's answer/);
    expect(checkPath(layer, tank, auto, q.start, q.goal)).toEqual([]);
  }, 60000);
});
