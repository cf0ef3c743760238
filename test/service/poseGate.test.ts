/**
 * The pose gate (src/service/poseGate.ts): the exact footprint at the pose decides, a goal without heading fits
 * when any heading does, and the suggested pose is legal and the nearest of its candidates.
 */
import { describe, expect, test } from "vitest";
import { footprintHitsBlocked } from "../../src/geometry/sweep.ts";
import { fittingHeading, nearestLegalPose, poseError, requireFits } from "../../src/service/poseGate.ts";
import { ServiceError } from "../../src/service/errors.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { layerOf } from "../helpers/pathCheck.ts";
import { rng } from "../helpers/rng.ts";

// A 2-wide horizontal corridor (rows 2 and 3, centre line y = 3) and a 1-wide vertical one (column 20).
const rows = Array.from(
  { length: 14 },
  (_, y) =>
    Array.from(
      { length: 26 },
      (_, x) => ((y === 2 || y === 3) && x >= 1 && x <= 20) || (x === 20 && y >= 2 && y <= 12) ? "." : "@",
    ).join(""),
);
const layer = layerOf(rows);
const { tank, truck, jeep } = BUILTIN_PROFILES;

describe("pose gate", () => {
  test("the tank fits on the 2-wide corridor's centre line, not at its tile centres", () => {
    expect(fittingHeading(layer, 5, 3, 0, tank.footprint)).toBe(0);
    expect(fittingHeading(layer, 5.5, 3.5, 0, tank.footprint)).toBeNull();
    expect(() => requireFits(layer, "start", { x: 5.5, y: 3.5, heading: 0 }, tank.footprint)).toThrow(
      /^start: tile \(5, 3\) is blocked for this unit: .*nearest legal pose \(5\.5, 3, 0\)/,
    );
  });

  test("a rectangle's heading matters; without one any heading that fits will do", () => {
    // The truck (2.4 long) fits along the corridor, not across it.
    expect(fittingHeading(layer, 8, 3, 0, truck.footprint)).toBe(0);
    expect(fittingHeading(layer, 8, 3, Math.PI / 2, truck.footprint)).toBeNull();
    // In the 1-wide vertical corridor the jeep fits only heading along it: found among the sampled headings.
    const h = fittingHeading(layer, 20.5, 8.5, undefined, jeep.footprint);
    expect(h).not.toBeNull();
    // (0.1 to spare on either side: a few degrees off the corridor's axis fit too.)
    expect(Math.abs(Math.cos(h!))).toBeLessThan(0.1);
    const err = poseError(layer, "goal", { x: 20.5, y: 8.5, heading: 0 }, jeep.footprint);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe("INVALID_ARGUMENT");
    expect(err.message).toMatch(/^goal: .*at heading 0 .*nearest legal pose \(20\.5, 8\.5, 1\.571\)/);
  });

  test("a goal on a wall: 'at any heading' for a rectangle, 'there' for a disc", () => {
    expect(poseError(layer, "goal", { x: 10.5, y: 8.5 }, jeep.footprint).message).toMatch(/at any heading/);
    expect(poseError(layer, "goal", { x: 10.5, y: 8.5 }, tank.footprint).message).toMatch(
      /\) there overlaps/,
    );
  });

  test("the suggestion is legal and no candidate nearer is (random poses)", () => {
    const rand = rng(77);
    for (let i = 0; i < 60; i++) {
      const fp = [tank, truck, jeep][i % 3].footprint;
      const x = rand() * layer.width, y = rand() * layer.height;
      const heading = rand() < 0.5 ? undefined : rand() * 2 * Math.PI;
      const p = nearestLegalPose(layer, x, y, heading, fp);
      expect(p).not.toBeNull();
      expect(footprintHitsBlocked(layer, p!.x, p!.y, p!.heading, fp)).toBe(false);
      const d = Math.hypot(p!.x - x, p!.y - y);
      // Every half-tile lattice point strictly nearer fails at every heading tried.
      for (let j = 1; j < 2 * layer.height; j++) {
        for (let k = 1; k < 2 * layer.width; k++) {
          if (Math.hypot(k / 2 - x, j / 2 - y) >= d - 1e-9) continue;
          for (let a = 0; a < 16; a++) {
            expect(footprintHitsBlocked(layer, k / 2, j / 2, (a * Math.PI) / 8, fp)).toBe(true);
          }
        }
      }
    }
  });
});
