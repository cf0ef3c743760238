/**
 * Halts brake (fleetScheduler.ts haltAt, motion/braking.ts): units stopped by the scheduler while moving slow
 * down at their deceleration along their own path instead of stopping dead, and the settle cascade still ends
 * with a fleet that never overlaps. Checked with the independent checker (test/helpers/fleetCheck.ts: poses
 * and speeds followed in time, each trajectory replacing the previous from its start time, as a client would).
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { Pose } from "../../src/geometry/types.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { trajectoryPose, waitSegment } from "../../src/motion/trajectory.ts";
import { FleetScheduler, trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { checkFleet, type CUnit, unitPose, wireSegments } from "../helpers/fleetCheck.ts";
import { rng } from "../helpers/rng.ts";

const TANK = BUILTIN_PROFILES.tank;
const SOLDIER = BUILTIN_PROFILES.soldier;
const FIELD = Array.from({ length: 40 }, () => ".".repeat(40));

function straight(from: Pose, to: { x: number; y: number }, unit: UnitSpec) {
  const heading = Math.atan2(to.y - from.y, to.x - from.x);
  const segs = [lineSegment({ ...from, heading }, Math.hypot(to.x - from.x, to.y - from.y))];
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

/** A fleet driven in-process, every change recorded as a client receives it. */
class Run {
  readonly sched: FleetScheduler;
  /** Messages of units a halt stopped at once (harder than they can brake), by id. */
  readonly hardStops = new Map<string, string>();
  /** `envelopes`: the fleet option braking_envelopes (on here unless a test says otherwise). */
  constructor(envelopes = true) {
    this.sched = new FleetScheduler(40, 40, 0.05, true, true, envelopes);
  }
  readonly units = new Map<string, CUnit>();

  add(id: string, unit: UnitSpec, at: Pose, goal: { x: number; y: number }, order: number) {
    const u = this.sched.addStanding({ id, order, unit }, at, 0);
    u.path = straight(at, goal, unit);
    this.units.set(id, {
      id,
      radius: unit.boundingRadius,
      width: 0,
      length: 0,
      start: at,
      goal,
      trajectories: [],
      limits: { maxSpeed: unit.maxSpeed, acceleration: unit.acceleration, deceleration: unit.deceleration },
    });
  }

  /** Records what changed at `time` (a standing unit: one zero-length segment where it stands, as on the wire). */
  record(ids: Iterable<string>, time: number) {
    for (const id of ids) {
      const u = this.sched.units.get(id)!;
      if (/stopped at once/.test(u.message)) this.hardStops.set(id, u.message);
      const wire = u.traj.segments.length > 0
        ? trajectoryFrom(u.traj, time)
        : { startTime: time, segments: [waitSegment(u.traj.startPose, 0)] };
      this.units.get(id)!.trajectories.push({
        start_time: wire.startTime,
        segments: wireSegments(wire.segments),
      });
    }
  }

  /** A unit dropped standing at `pose` at `time`: those that would hit it are halted and rescheduled. */
  drop(id: string, unit: UnitSpec, pose: Pose, time: number, order: number) {
    const u = this.sched.addStanding({ id, order, unit }, pose, time);
    this.units.set(id, {
      id,
      radius: unit.boundingRadius,
      width: 0,
      length: 0,
      start: pose,
      goal: pose,
      trajectories: [],
      limits: { maxSpeed: unit.maxSpeed, acceleration: unit.acceleration, deceleration: unit.deceleration },
    });
    const dirty = new Set([id]);
    const halted: string[] = [];
    for (const o of this.sched.conflictsOfStanding(u, pose, time)) {
      const other = this.sched.units.get(o)!;
      this.sched.haltAt(other, time);
      this.sched.commit(other, other.traj);
      dirty.add(o);
      halted.push(o);
    }
    this.record(this.sched.settle(time, dirty), time);
    return halted;
  }

  check() {
    return checkFleet(FIELD, [...this.units.values()], { step: 0.01, until: 60 });
  }
}

describe("halts brake", () => {
  test("a tank halted at full speed brakes within its deceleration; the obstacle is never touched", () => {
    const run = new Run();
    run.add("tank", TANK, { x: 3, y: 20, heading: 0 }, { x: 37, y: 20 }, 0);
    run.record(run.sched.settle(0, ["tank"]), 0);
    const at = trajectoryPose(run.sched.units.get("tank")!.traj, 4);
    // At t = 4 the tank cruises at 4 tiles/s; a soldier appears 4 tiles ahead of it, on its path.
    const halted = run.drop("s", SOLDIER, { x: at.x + 4, y: 20, heading: 0 }, 4, 1);
    expect(halted).toEqual(["tank"]);
    const tank = run.sched.units.get("tank")!;
    // Its trajectory from the halt begins at the speed it had (braking), not at rest.
    expect(tank.traj.startTime).toBe(4);
    expect(tank.traj.segments[0].startSpeed).toBeCloseTo(TANK.maxSpeed, 6);
    const report = run.check();
    expect(report.speedErrors).toEqual([]);
    expect(report.overlaps).toEqual([]);
    expect(report.contractErrors).toEqual([]);
  });

  test("two units halted together (a tank following another) brake without meeting", () => {
    const run = new Run();
    run.add("lead", TANK, { x: 8, y: 20, heading: 0 }, { x: 37, y: 20 }, 0);
    run.add("follow", TANK, { x: 3, y: 20, heading: 0 }, { x: 33, y: 20 }, 1);
    run.record(run.sched.settle(0, ["lead", "follow"]), 0);
    // Both cruise at t = 5; a soldier in front of the leader (beyond its braking distance, 2.67 tiles, and the
    // two radii) halts it, and the follower behind it in turn.
    const lead = trajectoryPose(run.sched.units.get("lead")!.traj, 5);
    const halted = run.drop("s", SOLDIER, { x: lead.x + 4.2, y: 20, heading: 0 }, 5, 2);
    expect(halted).toContain("lead");
    const report = run.check();
    expect(report.speedErrors).toEqual([]);
    expect(report.overlaps).toEqual([]);
    // Both braked (moving at the halt).
    for (const id of ["lead", "follow"]) {
      const t = run.units.get(id)!.trajectories.find((x) => x.start_time === 5);
      expect(t?.segments[0].start_speed ?? 0, id).toBeGreaterThan(1);
    }
  });

  test("a unit dropped inside a cruising tank's braking distance: the settle ends and says so (no hang)", () => {
    const run = new Run();
    run.add("tank", TANK, { x: 3, y: 20, heading: 0 }, { x: 37, y: 20 }, 0);
    run.record(run.sched.settle(0, ["tank"]), 0);
    const at = trajectoryPose(run.sched.units.get("tank")!.traj, 4);
    // 2 tiles ahead: the tank needs 2.67 tiles plus the radii to stop short of it.
    run.drop("s", SOLDIER, { x: at.x + 2, y: 20, heading: 0 }, 4, 1);
    // It cannot brake short of it: it stops at once (harder than it can brake), says so, and never touches it.
    expect(run.sched.units.get("tank")!.message).toMatch(/stopped at once .* harder than its deceleration/);
    expect(run.check().overlaps).toEqual([]);
  });

  for (
    const [seed, envelopes] of [[1, true], [2, true], [3, true], [1, false], [2, false], [3, false]] as const
  ) {
    test(`the cascade ends conflict-free: random tanks and soldiers, obstacles dropped while they move (seed ${seed}, envelopes ${envelopes})`, () => {
      const r = rng(seed);
      const run = new Run(envelopes);
      const starts: Pose[] = [];
      const n = 14;
      const free = (p: { x: number; y: number }, d: number) =>
        starts.every((q) => Math.hypot(q.x - p.x, q.y - p.y) >= d);
      for (let i = 0; i < n; i++) {
        const unit = i % 3 === 0 ? TANK : SOLDIER;
        let p: Pose;
        do p = { x: 3 + r() * 34, y: 3 + r() * 34, heading: 0 }; while (!free(p, 2));
        starts.push(p);
        run.add(`u${i}`, unit, p, { x: 3 + r() * 34, y: 3 + r() * 34 }, i);
      }
      run.record(run.sched.settle(0, [...run.sched.units.keys()]), 0);
      let t = 0, braked = 0;
      for (let k = 0; k < 4; k++) {
        t += 1 + r() * 2;
        // An obstacle 1.5-3 tiles ahead of a moving unit (clear of every unit standing or passing there now).
        const movers = [...run.sched.units.values()].filter((u) =>
          u.traj.segments.length > 0 && u.traj.startTime < t && u.traj.startTime + 1 < t
        );
        const m = movers[Math.floor(r() * movers.length)];
        if (!m) break;
        const p = trajectoryPose(m.traj, t), q = trajectoryPose(m.traj, t + 0.6);
        const dir = Math.atan2(q.y - p.y, q.x - p.x), ahead = 1.5 + r() * 1.5 + m.unit.boundingRadius;
        const pose = { x: p.x + ahead * Math.cos(dir), y: p.y + ahead * Math.sin(dir), heading: 0 };
        const clear = [...run.sched.units.values()].every((o) => {
          const op = trajectoryPose(o.traj, t);
          return Math.hypot(op.x - pose.x, op.y - pose.y) >
            o.unit.boundingRadius + SOLDIER.boundingRadius + 0.1;
        });
        if (!clear || pose.x < 1 || pose.y < 1 || pose.x > 39 || pose.y > 39) continue;
        run.drop(`o${k}`, SOLDIER, pose, t, n + k);
        for (const u of run.units.values()) {
          if (u.trajectories.some((x) => x.start_time === t && x.segments[0].start_speed > 0)) braked++;
        }
      }
      expect(braked).toBeGreaterThan(0);
      const report = run.check();
      expect(report.overlaps).toEqual([]);
      expect(report.contractErrors).toEqual([]);
      // With envelopes every halt brakes; without, only a unit told it was stopped at once may brake harder.
      if (envelopes) expect(report.speedErrors).toEqual([]);
      else expect(report.speedErrors.filter((e) => !run.hardStops.has(e.id))).toEqual([]);
    });
  }

  test("a soldier halted just before a corner brakes round it: the wire's segments drive where the table has it", () => {
    // A fluid turn: west along y = 10, then north from the corner (20, 10); the heading jumps there.
    const run = new Run();
    run.add("s", SOLDIER, { x: 30, y: 10, heading: Math.PI }, { x: 20, y: 18 }, 0);
    const path = [
      lineSegment({ x: 30, y: 10, heading: Math.PI }, 10),
      lineSegment({ x: 20, y: 10, heading: Math.PI / 2 }, 8),
    ];
    applySpeedProfile(path, SOLDIER);
    run.sched.units.get("s")!.path = splitAtSpeedPhases(path, SOLDIER);
    run.record(run.sched.settle(0, ["s"]), 0);
    const s = run.sched.units.get("s")!;
    // When it is 0.05 tiles before the corner, a unit appears on its way north: it brakes round the corner.
    let lo = 0, hi = 10;
    for (let i = 0; i < 60; i++) {
      const mid = (lo + hi) / 2;
      if (trajectoryPose(s.traj, mid).x > 20.05) lo = mid;
      else hi = mid;
    }
    expect(run.drop("o", SOLDIER, { x: 20, y: 12.5, heading: 0 }, lo, 2)).toEqual(["s"]);
    // Once it has stopped, a unit appears 0.65 tiles beyond the corner on the line's extension: clear of where
    // the table has it stand (past the corner, on its way north), not of a soldier that drove on west.
    expect(run.drop("b", SOLDIER, { x: 19.35, y: 10, heading: 0 }, lo + 1, 1)).toEqual([]);
    const report = run.check();
    expect(report.overlaps).toEqual([]);
    expect(report.contractErrors).toEqual([]);
    // The client's pose (the checker integrating the wire's segments) is the scheduler's at every moment.
    const client = run.units.get("s")!;
    for (let t = lo; t < lo + 2; t += 0.01) {
      const a = unitPose(client, t).pose, b = trajectoryPose(s.traj, t);
      expect(Math.hypot(a.x - b.x, a.y - b.y), `t = ${t}`).toBeLessThan(1e-6);
    }
    // It braked (not stopped at once) and stopped past the corner.
    expect(s.message).toBe(
      "no start time keeps it clear of the other units; it stands and is retried after changes",
    );
    expect(trajectoryPose(s.traj, 100).y).toBeGreaterThan(10.01);
  });
});
