/**
 * The fleet warm-up (service/fleetWarmUp.ts) runs to its end without error: its private fleet is settled (some
 * units moving), every reported delay is repaired and changes trajectories, and a second run settles and
 * repairs the same (nothing is carried over from the first: its state was private and dropped).
 */
import { describe, expect, test } from "vitest";
import { emptyFleetWarmUp, fleetWarmUpSteps, warmUpFleet } from "../../src/service/fleetWarmUp.ts";

// Not `changed`: the standoff breaker's budget is wall-clock (fleetDeadlock.ts), so under load it may differ.
const counts = (w: { units: number; moving: number; repairs: number; error: string }) => ({
  units: w.units,
  moving: w.moving,
  repairs: w.repairs,
  error: w.error,
});

describe("fleet warm-up", () => {
  test("settles its fleet, repairs every delay, and ends", async () => {
    const w = await warmUpFleet(0);
    expect(w.error).toBe("");
    expect(w.units).toBe(20);
    expect(w.moving).toBeGreaterThan(0);
    expect(w.repairs).toBe(5);
    expect(w.changed).toBeGreaterThanOrEqual(w.repairs);
    expect(w.millis).toBeGreaterThan(0);
  }, 30_000);

  test("a second run does the same: no state is left behind", async () => {
    const a = await warmUpFleet(0);
    const b = emptyFleetWarmUp();
    for (const step of fleetWarmUpSteps(b)) step();
    expect(counts(b)).toEqual(counts(a));
  }, 30_000);
});
