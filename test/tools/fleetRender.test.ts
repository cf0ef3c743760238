/**
 * The fleet picture tool: the warehouse scenario it schedules in-process keeps every pair of robots apart and
 * gets every robot moving, and the SVGs it writes animate one disc per robot (and label every strip frame).
 */
import { describe, expect, test } from "vitest";
import { trajectoryPose } from "../../src/motion/trajectory.ts";
import { fleetAnimationSvg, fleetStripSvg, makespan, warehouseFleet } from "../../src/tools/fleetRender.ts";

describe("fleetRender", () => {
  test("8 robots in the small warehouse: all moving, apart at every 10 ms, one animated disc each", () => {
    const { rows, units, statuses } = warehouseFleet(4, 2, 8, 3);
    expect(statuses).toEqual(Array(8).fill("moving"));
    const T = makespan(units);
    expect(T).toBeGreaterThan(0);
    for (let t = 0; t <= T; t += 0.01) {
      const p = units.map((u) => trajectoryPose(u.traj, t));
      for (let i = 0; i < p.length; i++) {
        for (let j = i + 1; j < p.length; j++) {
          const gap = Math.hypot(p[i].x - p[j].x, p[i].y - p[j].y) - units[i].radius - units[j].radius;
          expect(gap, `${units[i].id}|${units[j].id} at ${t}`).toBeGreaterThanOrEqual(-1e-9);
        }
      }
    }
    const svg = fleetAnimationSvg(rows, units, "test");
    expect(svg.match(/<circle /g)).toHaveLength(8);
    expect(svg.match(/attributeName="cx"/g)).toHaveLength(8);
    const strip = fleetStripSvg(rows, units, 3);
    expect(strip.match(/t = [\d.]+ s/g)).toHaveLength(3);
    expect(strip.match(/<circle /g)).toHaveLength(24);
  });
});
