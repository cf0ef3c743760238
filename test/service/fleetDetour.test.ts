/**
 * The detour pass's budget and guarantee in process (service/fleetDetour.ts): soldiers on a circle, each through
 * the centre (bench/fleetCircle.ts's scenario), paths from the smooth planner, scheduled by the fleet scheduler.
 * A budget that is spent before the first round (a fake clock) changes nothing; without a budget the pass
 * changes some late units and every trajectory it leaves is clear of every other in the reservation table.
 * Which units the pass may change is known before it runs (detourCandidates), and it changes no other.
 */
import { describe, expect, test } from "vitest";
import type { Segment } from "../../src/geometry/types.ts";
import { detourCandidates, detourLate, type DetourLeg } from "../../src/service/fleetDetour.ts";
import { FleetScheduler } from "../../src/service/fleetScheduler.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { circleScenario } from "../../bench/fleetCircle.ts";
import { movingAiText } from "../helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;
const { rows, specs } = circleScenario(16);
const text = movingAiText(rows);
const goals = new Map(specs.map((s) => [s.id, { x: s.gx, y: s.gy }]));

function planLeg(
  from: { x: number; y: number; heading?: number },
  to: { x: number; y: number },
): Segment[] | null {
  const { outcome } = planInProcess(
    text,
    unit,
    { x: from.x, y: from.y, heading: from.heading ?? 0 },
    to,
    "smooth",
  );
  return outcome.status === "found" ? outcome.segments : null;
}

const PATHS = specs.map((s) => planLeg(s, { x: s.gx, y: s.gy })!);

/** The circle's units added and settled at t = 0. */
function settled(): FleetScheduler {
  const sched = new FleetScheduler(rows[0].length, rows.length, 0.05);
  specs.forEach((s, order) => {
    const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 0);
    u.path = PATHS[order];
  });
  sched.settle(0, specs.map((s) => s.id));
  return sched;
}

const plan = (legs: DetourLeg[]) =>
  Promise.resolve(legs.map((l) => planLeg(l.from, l.to ?? goals.get(l.unit.id)!)));
const fits = () => true;

describe("detourLate", () => {
  test("a budget spent before the first round changes nothing", async () => {
    const sched = settled();
    const before = new Map([...sched.units.values()].map((u) => [u.id, u.traj]));
    expect(detourCandidates(sched, 0).size).toBeGreaterThan(0);
    let clock = 0;
    const { changed, stats } = await detourLate(sched, 0, plan, {
      maxUnits: 64,
      fits,
      budgetMs: 300,
      now: () => (clock += 1000),
    });
    expect(changed.size).toBe(0);
    expect(stats.rounds).toBe(0);
    expect(stats.outOfTime).toBe(true);
    for (const u of sched.units.values()) expect(u.traj).toBe(before.get(u.id));
  });

  test("without a budget it changes only candidates, and every trajectory stays clear", async () => {
    const sched = settled();
    const candidates = detourCandidates(sched, 0);
    const before = new Map([...sched.units.values()].map((u) => [u.id, u.traj]));
    const { changed, stats } = await detourLate(sched, 0, plan, { maxUnits: 64, fits, budgetMs: Infinity });
    expect(stats.rounds).toBeGreaterThan(0);
    expect(stats.outOfTime).toBe(false);
    expect(changed.size).toBeGreaterThan(0);
    for (const u of sched.units.values()) {
      if (!candidates.has(u.id)) expect(u.traj).toBe(before.get(u.id));
      if (u.traj !== before.get(u.id)) expect(changed.has(u.id)).toBe(true);
      const res = {
        id: u.id,
        traj: u.traj,
        radius: unit.boundingRadius,
        speed: unit.maxSpeed,
        deceleration: unit.deceleration,
      };
      expect(sched.table.firstConflict(res, 0)).toBeNull();
    }
  }, 60_000);
});
