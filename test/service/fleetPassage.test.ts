/**
 * A delay in a fleet dense in time keeps the plan's order of passage for moving units too (fleetPassage.ts,
 * fleetSlowDown.ts; issue 12): in a one-tile aisle crossed by another, the late unit's followers are driving when
 * it reports, and a unit crosses its path just behind it. The propagation gives each a delay of its own:
 * followers slow down along their own paths (never ahead of their old schedules, within their acceleration and
 * braking, never halted), the crossing unit still crosses after the late one, and the independent checker
 * (test/helpers/fleetCheck.ts) finds every unit arriving with no overlap, wall contact or contract error on the
 * trajectories as a client received them. Before, a unit moving at the report failed the propagation. (The
 * repair as a whole may still halt a follower here: its first way does that and leaves nobody waiting, which is
 * cheaper; the delays per unit are for fleets where halting strands units, bench/fleetRepairReplay.ts detours.)
 * In process, no clock.
 */
import { describe, expect, test } from "vitest";
import type { Pose } from "../../src/geometry/types.ts";
import { type Trajectory, trajectoryEnd, trajectoryPose } from "../../src/motion/trajectory.ts";
import { repairLate } from "../../src/service/fleetRepair.ts";
import { propagateDelay, type PropagationWay, reportedTime } from "../../src/service/fleetShift.ts";
import { FleetScheduler, remainingPath, trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { slowedBy } from "../../src/service/fleetSlowDown.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { checkFleet, type CTrajectory, type CUnit, discUnit, wireSegments } from "../helpers/fleetCheck.ts";
import { movingAiText } from "../helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;

/** A one-tile aisle (row 2) crossed at x = 14 by a one-tile aisle (column 14). */
const CROSS = [
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@............................@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
  "@@@@@@@@@@@@@@.@@@@@@@@@@@@@@@",
];

type Spec = { id: string; x: number; y: number; gx: number; gy: number };

const SPECS: Spec[] = [
  { id: "L", x: 5.5, y: 2.5, gx: 27.5, gy: 2.5 },
  { id: "F1", x: 3.5, y: 2.5, gx: 25.5, gy: 2.5 },
  { id: "F2", x: 1.5, y: 2.5, gx: 23.5, gy: 2.5 },
  { id: "C", x: 14.5, y: 12.5, gx: 14.5, gy: 0.5 },
];

const dist = (a: Pose, b: Pose) => Math.hypot(a.x - b.x, a.y - b.y);

/** The first time (every 10 ms from `from`) `traj` has the unit within `r` of `p`. */
function firstNear(traj: Trajectory, p: Pose, r: number, from = 0): number {
  for (let t = from; t < trajectoryEnd(traj) + 1; t += 0.01) {
    if (dist(trajectoryPose(traj, t), p) < r) return t;
  }
  return Infinity;
}

/**
 * Settles the fleet at t = 0; at t = 3 L reports the pose it should have had at t = 2.5 (its followers drive a
 * second apart, so they have not run into it yet); its delay is propagated by `way` (a delay per unit), or L is
 * repaired as the session does ("repair"). Returns the scheduler, the trajectories before, and the checker's report on what was sent.
 */
function run(way: PropagationWay | "repair" = "late") {
  const text = movingAiText(CROSS);
  const sched = new FleetScheduler(CROSS[0].length, CROSS.length, 0.05);
  const plan = (s: Spec) =>
    planInProcess(text, unit, { x: s.x, y: s.y, heading: 0 }, { x: s.gx, y: s.gy }, "smooth");
  const layer = plan(SPECS[0]).layer;
  SPECS.forEach((s, order) => {
    const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 0);
    const o = plan(s).outcome;
    expect(o.status, s.id).toBe("found");
    u.path = o.segments;
  });
  const received = new Map<string, CTrajectory[]>(SPECS.map((s) => [s.id, []]));
  const send = (ids: Iterable<string>, time: number) => {
    for (const id of ids) {
      const t = trajectoryFrom(sched.units.get(id)!.traj, time);
      received.get(id)!.push({ start_time: t.startTime, segments: wireSegments(t.segments) });
    }
  };
  send(sched.settle(0, SPECS.map((s) => s.id)), 0);
  const before = new Map([...sched.units.values()].map((u) => [u.id, u.traj]));
  const l = sched.units.get("L")!;
  const at = trajectoryPose(l.traj, 2.5);
  l.path = remainingPath(l.traj, 2.5, unit);
  let changed: Set<string>;
  if (way === "repair") changed = repairLate(sched, l, at, 3, true, () => layer);
  else {
    // The delay per unit alone, as the repair runs it when halting moving units would leave some waiting.
    const old = l.traj;
    sched.table.remove(l.id);
    const shifted = propagateDelay(sched, l, old, at, reportedTime(old, at, 3, sched.table.dt), 3, way);
    expect(shifted.ok, shifted.ok ? "" : shifted.reason).toBe(true);
    changed = shifted.ok ? shifted.changed : new Set();
  }
  send(changed, 3);
  const units: CUnit[] = SPECS.map((s) => discUnit(s, unit.boundingRadius, received.get(s.id)!));
  return { sched, before, changed, report: checkFleet(CROSS, units, { step: 0.02 }) };
}

describe("a delay keeps the order of passage for moving units", () => {
  test(
    "followers driving at the report slow down on their paths; the crossing unit still crosses after",
    () => {
      const { sched, before, changed, report } = run();
      // The plan this starts from: the followers drive at the report, C crosses the aisle just after L.
      const cross = { x: 14.5, y: 2.5, heading: 0 };
      for (const id of ["F1", "F2"]) {
        const b = before.get(id)!;
        expect(dist(trajectoryPose(b, 3), trajectoryPose(b, 3.05)), `${id} moving at 3`).toBeGreaterThan(
          0.01,
        );
      }
      const order = (trajs: Map<string, Trajectory>) =>
        [...trajs].map(([id, t]) => [id, firstNear(t, cross, 0.45)] as const).sort((a, b) => a[1] - b[1])
          .map(([id]) => id);
      expect(order(before)).toEqual(["L", "C", "F1", "F2"]);
      const after = new Map([...sched.units.values()].map((u) => [u.id, u.traj]));
      // Nobody halted or left waiting; the order through the crossing is the plan's.
      for (const u of sched.units.values()) {
        expect(u.status, u.id).toBe("moving");
        expect(u.brake, `${u.id} halted`).toBeUndefined();
      }
      expect(order(after)).toEqual(order(before));
      // The follower right behind L and the unit crossing after it take delays of their own.
      for (const id of ["L", "F1", "C"]) expect(changed.has(id), id).toBe(true);
      // Each follower keeps its path, never ahead of its old schedule, within its limits.
      for (const id of ["F1", "F2", "C"]) {
        const b = before.get(id)!, a = after.get(id)!;
        expect(trajectoryEnd(a), `${id} later`).toBeGreaterThanOrEqual(trajectoryEnd(b) - 1e-9);
        for (let t = 3; t < trajectoryEnd(a) + 0.5; t += 0.05) {
          const p = trajectoryPose(a, t);
          let best = Infinity, when = 0;
          for (let s = 0; s <= t + 1e-9; s += 0.01) {
            const d = dist(trajectoryPose(b, s), p);
            if (d < best - 1e-12) [best, when] = [d, s];
          }
          expect(best, `${id} on its path at ${t}`).toBeLessThan(0.02);
          expect(when, `${id} not ahead at ${t}`).toBeLessThanOrEqual(t + 1e-9);
        }
        for (const seg of trajectoryFrom(a, 3).segments) {
          const v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0, d = seg.duration ?? 0;
          expect(Math.max(v0, v1)).toBeLessThanOrEqual(unit.maxSpeed + 1e-9);
          if (d > 0) {
            expect(Math.abs(v1 - v0) / d, `${id} accel`).toBeLessThanOrEqual(
              unit.deceleration + 1e-6,
            );
          }
        }
        expect(dist(trajectoryPose(a, 1e6), trajectoryPose(b, 1e6))).toBeLessThan(1e-6);
      }
      expect(report.arrived.sort()).toEqual(["C", "F1", "F2", "L"]);
      expect(report.overlaps).toEqual([]);
      expect(report.wallContacts).toEqual([]);
      expect(report.contractErrors).toEqual([]);
    },
    30_000,
  );

  test(
    "the repair: everyone arrives, nobody waits (its first way halts a follower, leaves nobody waiting: kept)",
    () => {
      const { sched, report } = run("repair");
      for (const u of sched.units.values()) expect(u.status, u.id).toBe("moving");
      expect(report.arrived.sort()).toEqual(["C", "F1", "F2", "L"]);
      expect(report.overlaps).toEqual([]);
      expect(report.wallContacts).toEqual([]);
      expect(report.contractErrors).toEqual([]);
    },
    30_000,
  );

  test("slowedBy: the same path, never ahead, within the limits, exactly the delay behind once slowed", () => {
    const { before } = run();
    const b = before.get("F1")!;
    for (const extra of [0.05, 0.3, 0.5, 2]) {
      const a = slowedBy(b, 3, extra, unit)!;
      expect(trajectoryEnd(a) - trajectoryEnd(b)).toBeCloseTo(extra, 9);
      for (let t = 0; t < trajectoryEnd(a) + 0.5; t += 0.05) {
        const p = trajectoryPose(a, t);
        if (t <= 3) expect(dist(p, trajectoryPose(b, t))).toBeLessThan(1e-9);
        // Ahead of where it was `extra` earlier, never; at or behind where it was then, always.
        expect(p.x).toBeLessThanOrEqual(trajectoryPose(b, t).x + 1e-9);
        if (t > 6) expect(dist(p, trajectoryPose(b, t - extra))).toBeLessThan(1e-6);
      }
      for (const seg of a.segments) {
        const v0 = seg.startSpeed ?? 0, v1 = seg.endSpeed ?? 0, d = seg.duration ?? 0;
        expect(Math.abs((v0 + v1) / 2 * d - seg.length)).toBeLessThan(1e-9);
        if (d > 0) expect(Math.abs(v1 - v0) / d).toBeLessThanOrEqual(unit.deceleration + 1e-6);
      }
    }
  });
});
