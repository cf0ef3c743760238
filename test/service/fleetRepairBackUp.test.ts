/**
 * A late unit met head-on by one already past the place they were to pass in order (issue 12: bench/fleetDelay.ts
 * at 300 robots, late unit r45 ending at 89-91% arrived). In the timing-only warehouse-300 replay
 * (bench/fleetRepairReplay.ts), r45 reports at t = 6 the pose of t = 4, in the two-tile cross aisle; r285,
 * driving east along it, is 1.3 tiles away and past the corner r45 was to turn at first. No delay keeps r285
 * behind r45, and r45 standing there halts 18 units and cascades (198 waiting, 102/300 arrived). The repair now
 * backs r45 up over the ground it drove (fleetRepair.ts backUpLate) and lets r285 pass.
 */
import { describe, expect, test } from "vitest";
import { buildFleet, quality, repairOnce, restoreFleet } from "../../bench/fleetRepairReplay.ts";

describe("repairLate: the late unit backs up for one coming head-on", () => {
  test("warehouse 300, late unit r45: only r45 changes, nobody waits, all arrive, no overlap", async () => {
    const f = await buildFleet(300, false);
    const sched = restoreFleet(f);
    const out = repairOnce(sched, "r45", true);
    const q = quality(f, sched, out.changed);
    expect([...out.changed]).toEqual(["r45"]);
    expect(sched.units.get("r45")!.message).toMatch(/backs up/);
    expect(q.waiting).toBe(0);
    expect(q.arrived).toBe(300);
    expect(q.overlaps + q.walls).toBe(0);
  }, 120_000);
});
