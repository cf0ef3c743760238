/**
 * The densest fleet the warm-up's map holds (21 units: two of its 42 bays each) settles and is repaired to its
 * end with no overlap, and a bigger one is refused at once with a message. Before, 21 or more units drew a free
 * bay for ever (the generator reaches 39 bays): the "24-unit fleet ran over 30 s" of issue 12 was that loop, not
 * settle/repair. On the old code the first test runs into vitest's timeout. Its trajectories also keep the wire's
 * contract (length = mean speed x duration per segment): its paths were not split at their speed phases, so units
 * jumped ahead at segment ends, and a 30-unit fleet so timed showed a 2 cm overlap after a repair.
 */
import { describe, expect, test } from "vitest";
import type { FleetScheduler } from "../../src/service/fleetScheduler.ts";
import { trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { emptyFleetWarmUp, fleetWarmUpSteps, warmUpRows } from "../../src/service/fleetWarmUp.ts";
import { trajectoryEndPose } from "../../src/motion/trajectory.ts";
import { checkFleet, type CUnit, wireSegments } from "../helpers/fleetCheck.ts";

/** Every unit's trajectory from `time` on, as the checker takes it (units without segments stand: no check). */
function fleetFrom(sched: FleetScheduler, time: number): CUnit[] {
  return [...sched.units.values()].map((u) => {
    const t = trajectoryFrom(u.traj, time);
    return {
      id: u.id,
      radius: u.unit.footprint.radius,
      width: 0,
      length: 0,
      start: u.traj.startPose,
      goal: trajectoryEndPose(u.traj),
      trajectories: [{ start_time: t.startTime, segments: wireSegments(t.segments) }],
    };
  });
}

describe("fleet warm-up, densest fleet", () => {
  test("21 units settle and 5 delays are repaired to the end, 0 overlaps before and after", () => {
    const out = emptyFleetWarmUp();
    let sched: FleetScheduler | undefined;
    const steps = fleetWarmUpSteps(out, 21, (s) => sched = s);
    steps[0]();
    expect(out.units).toBe(21);
    expect(out.moving).toBeGreaterThan(0);
    const rows = warmUpRows();
    const settled = checkFleet(rows, fleetFrom(sched!, 0), { step: 0.02, until: 120 });
    expect(settled.overlaps).toEqual([]);
    expect(settled.wallContacts).toEqual([]);
    expect(settled.contractErrors).toEqual([]);
    for (const step of steps.slice(1)) step();
    expect(out.repairs).toBe(5);
    expect(out.error).toBe("");
    // Every repair is at BEHIND + 2 = 4 s: from then on the repaired schedule must keep units apart.
    // (Before 4 s a unit's trajectory here is what it had before the repairs; the settle check covers that.)
    const repaired = checkFleet(rows, fleetFrom(sched!, 4), { step: 0.02, until: 120 });
    expect(repaired.overlaps.filter((o) => o.time >= 4)).toEqual([]);
    expect(repaired.wallContacts.filter((o) => o.time >= 4)).toEqual([]);
    expect(repaired.contractErrors).toEqual([]);
  }, 60_000);

  test("24 units (more than the bays hold) are refused with a message naming the count", () => {
    const out = emptyFleetWarmUp();
    const steps = fleetWarmUpSteps(out, 24);
    expect(() => steps[0]()).toThrow(/units must be an integer from 1 to 21 .* got 24/);
  }, 60_000);
});
