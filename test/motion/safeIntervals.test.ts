/**
 * Tile occupancy for SIPP (motion/safeIntervals.ts): a unit driving along a row takes each tile it passes near for
 * a while around the time it is there, not before nor after; a unit standing for good takes its tiles for good; a
 * new trajectory replaces the old one; the unit asking is never in its own way.
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import { TileOccupancy } from "../../src/motion/safeIntervals.ts";
import type { Trajectory } from "../../src/motion/trajectory.ts";

const W = 12, H = 5, DT = 0.05;
const tile = (x: number, y: number) => y * W + x;

/** Drives from (0.5, 2.5) along row 2 to (10.5, 2.5) at 2 tiles/s, setting out at `start` seconds. */
function drive(start: number): Trajectory {
  const seg = { ...lineSegment({ x: 0.5, y: 2.5, heading: 0 }, 10), startSpeed: 2, endSpeed: 2, duration: 5 };
  return { startTime: start, startPose: seg.start, segments: [seg] };
}

describe("TileOccupancy", () => {
  test("a driving unit takes the tiles near its way around the times it passes", () => {
    const occ = new TileOccupancy(W, H, DT, 0.3, 0.35);
    occ.set({ id: "a", traj: drive(1), radius: 0.3, speed: 2 });
    // It is at (5.5, 2.5) at 1 + 2.5 s: the tile there is taken about then (reach 0.3 + 0.35 + 0.3 + 2 * 0.025).
    const mid = occ.occupied(tile(5, 2), "me");
    expect(mid.length).toBe(2);
    expect(mid[0]).toBeGreaterThan(3.5 - 0.6);
    expect(mid[0]).toBeLessThan(3.5 - 0.4);
    expect(mid[1]).toBeGreaterThan(3.5 + 0.4);
    expect(mid[1]).toBeLessThan(3.5 + 0.6);
    // Before it sets out it stands at its start; after it arrives it stands at its end for good.
    expect(occ.occupied(tile(0, 2), "me")).toEqual([-Infinity, expect.any(Number)]);
    expect(occ.occupied(tile(10, 2), "me")[1]).toBe(Infinity);
    // Two rows away nothing is taken; the unit itself is not in its own way.
    expect(occ.occupied(tile(5, 0), "me")).toEqual([]);
    expect(occ.occupied(tile(5, 2), "a")).toEqual([]);
  });

  test("a standing unit takes its tiles for good; a new trajectory replaces the old", () => {
    const occ = new TileOccupancy(W, H, DT, 0.3, 0.35);
    const stand: Trajectory = { startTime: 0, startPose: { x: 5.5, y: 2.5, heading: 0 }, segments: [] };
    occ.set({ id: "b", traj: stand, radius: 0.3, speed: 2 });
    expect(occ.occupied(tile(5, 2), "me")).toEqual([-Infinity, Infinity]);
    expect(occ.occupied(tile(6, 2), "me")).toEqual([]);
    occ.set({ id: "b", traj: drive(10), radius: 0.3, speed: 2 });
    const now = occ.occupied(tile(5, 2), "me");
    expect(now.length).toBe(2);
    expect(now[0]).toBeGreaterThan(12);
    occ.remove("b");
    expect(occ.occupied(tile(5, 2), "me")).toEqual([]);
  });

  test("overlapping takings merge into one range", () => {
    const occ = new TileOccupancy(W, H, DT, 0.3, 0.35);
    occ.set({ id: "a", traj: drive(1), radius: 0.3, speed: 2 });
    occ.set({ id: "b", traj: drive(1.2), radius: 0.3, speed: 2 });
    const r = occ.occupied(tile(5, 2), "me");
    expect(r.length).toBe(2);
    expect(r[1] - r[0]).toBeGreaterThan(1.0);
  });

  test("kept answers follow every change: the same as a fresh occupancy after random sets and removes", () => {
    let seed = 3;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    /** A unit driving a row (or standing) somewhere on the map, at a random time. */
    const random = (): Trajectory => {
      const y = 0.5 + Math.floor(rnd() * H), x = 0.5 + Math.floor(rnd() * 4), len = 1 + Math.floor(rnd() * 6);
      const at = { x, y, heading: 0 };
      if (rnd() < 0.2) return { startTime: rnd() * 3, startPose: at, segments: [] };
      const seg = { ...lineSegment(at, len), startSpeed: 2, endSpeed: 2, duration: len / 2 };
      return { startTime: rnd() * 6, startPose: at, segments: [seg] };
    };
    const ids = ["a", "b", "c", "d", "e", "f"];
    const occ = new TileOccupancy(W, H, DT, 0.3, 0.35);
    const now = new Map<string, Trajectory>();
    for (let step = 0; step < 60; step++) {
      const id = ids[Math.floor(rnd() * ids.length)];
      if (rnd() < 0.25) {
        occ.remove(id);
        now.delete(id);
      } else {
        const traj = random();
        occ.set({ id, traj, radius: 0.3, speed: 2 });
        now.set(id, traj);
      }
      // A fresh occupancy of the same units, set in another order.
      const fresh = new TileOccupancy(W, H, DT, 0.3, 0.35);
      for (const k of [...now.keys()].reverse()) {
        fresh.set({ id: k, traj: now.get(k)!, radius: 0.3, speed: 2 });
      }
      for (let t = 0; t < W * H; t += 1 + Math.floor(rnd() * 3)) {
        for (const asker of ["me", id, ids[Math.floor(rnd() * ids.length)]]) {
          expect([...occ.occupied(t, asker)]).toEqual([...fresh.occupied(t, asker)]);
        }
      }
    }
  });

  test("a tile's answer is kept for units with nothing there until a unit's samples there change", () => {
    const occ = new TileOccupancy(W, H, DT, 0.3, 0.35);
    occ.set({ id: "a", traj: drive(1), radius: 0.3, speed: 2 });
    const first = occ.occupied(tile(5, 2), "me");
    // Another unit asking, with nothing in the tile, gets the same answer (not worked out again).
    expect(occ.occupied(tile(5, 2), "you")).toBe(first);
    // A unit with samples there gets its own; a change there makes a new one.
    expect(occ.occupied(tile(5, 2), "a")).toEqual([]);
    occ.set({ id: "b", traj: drive(4), radius: 0.3, speed: 2 });
    const after = occ.occupied(tile(5, 2), "me");
    expect(after).not.toBe(first);
    expect(after.length).toBe(4);
  });
});
