/** PLANNER_AUTO's portfolio for turning units (src/planning/auto.ts): the cheapest legal answer by pathCost. */
import { describe, expect, test } from "vitest";
import { footprintHitsBlocked } from "../../src/geometry/sweep.ts";
import { pathCost } from "../../src/motion/pathCost.ts";
import {
  costLowerBound,
  GOOD_ENOUGH,
  MIN_GAIN,
  PORTFOLIO_NEIGHBORHOODS,
  portfolioNeighborhoods,
  WIDE_TURN_RADIUS,
} from "../../src/planning/auto.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import type { PlanTask } from "../../src/planning/task.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { checkPath, contextOf, layerOf, layerOfMap, taskOf } from "../helpers/pathCheck.ts";

const yard = layerOfMap(Deno.readTextFileSync(new URL("../../demo/maps/yard.map", import.meta.url)));
const yardCtx = contextOf(yard);

type Start = { x: number; y: number; heading: number };
type Goal = { x: number; y: number; heading?: number };

/** Runs `extra.planner` (default: AUTO's portfolio) on the yard and prices the answer. */
function runOn(unit: UnitSpec, start: Start, goal: Goal, extra: Partial<PlanTask> = {}) {
  const task = taskOf(yard, unit, start, goal, {
    planner: "hybrid",
    portfolio: true,
    maxMillis: 20000,
    ...extra,
  });
  const out = runPlanTask(yardCtx, task, null);
  const cost = out.segments.length > 0 ? pathCost(out.segments, unit, yard) : null;
  return { out, cost };
}

describe("AUTO's portfolio", () => {
  test("open room: the hybrid's direct curve is provably good enough, no second search runs", () => {
    const layer = layerOf(Array.from({ length: 24 }, () => ".".repeat(24)));
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 3.5, y: 3.5, heading: 0 }, goal = { x: 20.5, y: 18.5 };
    const task = taskOf(layer, tank, start, goal, { planner: "hybrid", portfolio: true });
    const out = runPlanTask(contextOf(layer), task, null);
    expect(out.status).toBe("found");
    expect(out.planner).toBe("hybrid");
    expect(out.expansions).toBe(0);
    expect(out.message).toBe("shortest curve straight to the goal");
    expect(out.cost!.total).toBeLessThanOrEqual(costLowerBound(task, layer.minCost) * GOOD_ENOUGH);
  });

  test("the tank does not back up where Directional drives forward for less; the message says so", () => {
    const tank = { ...BUILTIN_PROFILES.tank };
    const start = { x: 20.5, y: 19.5, heading: -Math.PI / 2 },
      goal = { x: 24.5, y: 32.5, heading: Math.PI / 2 };
    // The control: PLANNER_HYBRID by name runs alone and backs up here (68.5 against a forward 51.7).
    const hybrid = runOn(tank, start, goal, { portfolio: false });
    expect(hybrid.out.planner).toBe("hybrid");
    expect(hybrid.cost!.reverseLength).toBeGreaterThan(0);
    const auto = runOn(tank, start, goal);
    expect(auto.out.status).toBe("found");
    expect(checkPath(yard, tank, auto.out, start, goal)).toEqual([]);
    expect(auto.cost!.reverseLength).toBe(0);
    expect(auto.cost!.total).toBeLessThan(hybrid.cost!.total * 0.9);
    expect(auto.out.planner).toBe("directional");
    expect(auto.out.message).toMatch(
      /^AUTO: Directional-(24|48)'s answer, the cheapest of PLANNER_HYBRID [\d.]+ \(it reverses/,
    );
    // The expansions of both searches are counted.
    expect(auto.out.expansions).toBeGreaterThan(hybrid.out.expansions);
  });

  test("jeep: a long reverse drive (33 tiles) is replaced by the cheaper forward path", () => {
    const jeep = { ...BUILTIN_PROFILES.jeep };
    const start = { x: 55.5, y: 27.5, heading: -Math.PI / 4 },
      goal = { x: 24.5, y: 57.5, heading: -Math.PI / 4 };
    const hybrid = runOn(jeep, start, goal, { portfolio: false });
    expect(hybrid.cost!.reverseLength).toBeGreaterThan(20);
    const auto = runOn(jeep, start, goal);
    expect(checkPath(yard, jeep, auto.out, start, goal)).toEqual([]);
    expect(auto.cost!.reverseLength).toBe(0);
    expect(auto.cost!.total).toBeLessThan(hybrid.cost!.total);
  });

  test("not for settings served another way: a turn penalty, fixed-angle art", () => {
    const start = { x: 20.5, y: 19.5, heading: -Math.PI / 2 },
      goal = { x: 24.5, y: 32.5, heading: Math.PI / 2 };
    const cases: [UnitSpec, Partial<PlanTask>][] = [
      [{ ...BUILTIN_PROFILES.tank, turnPenalty: 1 }, {}],
      [{ ...BUILTIN_PROFILES.tank, headings: 16 }, {}],
    ];
    for (const [unit, extra] of cases) {
      const alone = runOn(unit, start, goal, { ...extra, portfolio: false });
      const auto = runOn(unit, start, goal, extra);
      expect(auto.out.planner).toBe("hybrid");
      expect(auto.out.message).toBe(alone.out.message);
      expect(auto.out.expansions).toBe(alone.out.expansions);
    }
    // The control: the plain tank's portfolio does compare here.
    expect(runOn({ ...BUILTIN_PROFILES.tank }, start, goal).out.message).toMatch(/^AUTO:/);
  });

  test("the inline lane hands a hybrid answer that needs comparing to the pool", () => {
    const truck = { ...BUILTIN_PROFILES.truck };
    const start = { x: 25.5, y: 3.5, heading: 0 }, goal = { x: 50.5, y: 55.5, heading: Math.PI / 2 };
    const inline = runOn(truck, start, goal, { fastLaneOnly: true });
    expect(inline.out.status).toBe("budget");
    expect(inline.out.message).toMatch(/^AUTO compares planners/);
    const pool = runOn(truck, start, goal);
    expect(pool.out.status).toBe("found");
    expect(pool.out.message).toMatch(/^AUTO: .*'s answer, the cheapest of PLANNER_HYBRID/);
  });

  test(
    "random yard pairs: never dearer than the hybrid or Directional-24, never reverses where they drive forward for less",
    () => {
      let s = 7;
      const rnd = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
      let portfolioRan = 0;
      for (const name of ["tank", "jeep", "truck"]) {
        const unit = { ...BUILTIN_PROFILES[name] };
        const pose = (): Start => {
          for (;;) {
            const x = Math.floor(rnd() * yard.width) + 0.5, y = Math.floor(rnd() * yard.height) + 0.5;
            const heading = Math.round(rnd() * 8) * (Math.PI / 4) - Math.PI;
            if (yard.tileCost[Math.floor(y) * yard.width + Math.floor(x)] <= 0) continue;
            if (!footprintHitsBlocked(yard, x, y, heading, unit.footprint)) return { x, y, heading };
          }
        };
        for (let k = 0; k < 5; k++) {
          const start = pose(), goal = pose();
          const auto = runOn(unit, start, goal);
          const others = [
            runOn(unit, start, goal, { portfolio: false }),
            runOn(unit, start, goal, { planner: "directional", neighborhood: 24, portfolio: false }),
          ].filter((o) => o.out.status === "found");
          if (others.length === 0) continue;
          // (The hybrid's grid route may not exist where the directional search finds a path: AUTO then runs it.)
          expect(auto.out.status, name).toBe("found");
          expect(checkPath(yard, unit, auto.out, start, goal), name).toEqual([]);
          const a = auto.cost!;
          if (auto.out.message.startsWith("AUTO:")) portfolioRan++;
          for (const o of others) {
            // Compared answers are never dearer; an answer taken outright is within GOOD_ENOUGH of a lower bound.
            // (Against a forward answer the directional search looks only for one MIN_GAIN cheaper.)
            const slack = auto.out.message.startsWith("AUTO:") ? 1 / (1 - MIN_GAIN) + 1e-9 : GOOD_ENOUGH;
            expect(a.total, `${name} ${JSON.stringify([start, goal])}`).toBeLessThanOrEqual(
              o.cost!.total * slack,
            );
            if (a.reverseLength > 0 && o.cost!.reverseLength === 0) {
              expect(a.total).toBeLessThanOrEqual(o.cost!.total);
            }
          }
        }
      }
      // The property is not vacuous: the portfolio compared on some of these pairs.
      expect(portfolioRan).toBeGreaterThan(0);
    },
    120_000,
  );

  test("a wide turner (the truck, r 4) tries Directional-48 alone; the tank and the jeep 24 then 48", () => {
    expect(portfolioNeighborhoods(BUILTIN_PROFILES.truck.turningRadius)).toEqual([48]);
    expect(portfolioNeighborhoods(WIDE_TURN_RADIUS)).toEqual([48]);
    expect(portfolioNeighborhoods(BUILTIN_PROFILES.tank.turningRadius)).toBe(PORTFOLIO_NEIGHBORHOODS);
    expect(portfolioNeighborhoods(BUILTIN_PROFILES.jeep.turningRadius)).toBe(PORTFOLIO_NEIGHBORHOODS);
    // The README's demo query for the truck: the hybrid's fit is 1.08x the lower bound, so the portfolio runs.
    const truck = { ...BUILTIN_PROFILES.truck };
    const start = { x: 25.5, y: 3.5, heading: 0 }, goal = { x: 50.5, y: 55.5, heading: Math.PI / 2 };
    const auto = runOn(truck, start, goal);
    expect(auto.out.status).toBe("found");
    expect(checkPath(yard, truck, auto.out, start, goal)).toEqual([]);
    expect(auto.out.message).toMatch(/Directional-48/);
    expect(auto.out.message).not.toMatch(/Directional-24/);
  }, 60000);
});
