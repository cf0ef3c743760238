/**
 * The fleet scheduler's guarantee, property-tested without the planners: random discs on an open map with
 * straight paths, all added at once, then random delays (a unit found standing where it was earlier) repaired
 * at later times. After every repair, every unit following its latest trajectory (each replacing the previous
 * from the repair's time) keeps every pair apart at 5 ms steps, exactly.
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { Pose } from "../../src/geometry/types.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { type Trajectory, trajectoryPose } from "../../src/motion/trajectory.ts";
import { FleetScheduler, remainingPath } from "../../src/service/fleetScheduler.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { rng } from "../helpers/rng.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;
const TANK = BUILTIN_PROFILES.tank;

function straight(from: Pose, to: { x: number; y: number }, unit = SOLDIER) {
  const heading = Math.atan2(to.y - from.y, to.x - from.x);
  const segs = [lineSegment({ ...from, heading }, Math.hypot(to.x - from.x, to.y - from.y))];
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

/** Every unit's trajectories with the time each took over. */
type History = Map<string, { from: number; traj: Trajectory }[]>;

function record(h: History, sched: FleetScheduler, ids: Iterable<string>, time: number) {
  for (const id of ids) {
    const u = sched.units.get(id);
    if (!u) continue;
    const list = h.get(id) ?? [];
    list.push({ from: time, traj: u.traj });
    h.set(id, list);
  }
}

function poseAt(h: History, id: string, t: number): Pose {
  const list = h.get(id)!;
  let cur = list[0].traj;
  for (const e of list) if (e.from <= t) cur = e.traj;
  return trajectoryPose(cur, t);
}

function minGap(
  h: History,
  sched: FleetScheduler,
  until: number,
): { gap: number; pair: string; time: number } {
  const ids = [...h.keys()];
  let worst = { gap: Infinity, pair: "", time: 0 };
  for (let t = 0; t <= until; t += 0.005) {
    const poses = ids.map((id) => poseAt(h, id, t));
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const r = sched.units.get(ids[i])!.unit.boundingRadius + sched.units.get(ids[j])!.unit.boundingRadius;
        const gap = Math.hypot(poses[i].x - poses[j].x, poses[i].y - poses[j].y) - r;
        if (gap < worst.gap) worst = { gap, pair: `${ids[i]}|${ids[j]}`, time: t };
      }
    }
  }
  return worst;
}

describe("FleetScheduler", () => {
  // 50 ms is the fleet's step; at 400 ms the motion margin alone must keep the pairs apart between samples.
  for (const [seed, dt] of [[1, 0.05], [2, 0.05], [3, 0.05], [4, 0.4], [5, 0.4]]) {
    test(`random crossings and delays keep every pair apart (seed ${seed}, samples ${dt} s)`, () => {
      const r = rng(seed);
      const sched = new FleetScheduler(30, 30, dt);
      const h: History = new Map();
      const starts: Pose[] = [];
      for (let i = 0; i < 14; i++) {
        const unit = i % 4 === 0 ? TANK : SOLDIER;
        let p: Pose;
        do {
          p = { x: 2 + r() * 26, y: 2 + r() * 26, heading: 0 };
        } while (starts.some((q) => Math.hypot(q.x - p.x, q.y - p.y) < 1.9));
        starts.push(p);
        const u = sched.addStanding({ id: `u${i}`, order: i, unit }, p, 0);
        u.path = straight(p, { x: 2 + r() * 26, y: 2 + r() * 26 }, unit);
      }
      const all = [...sched.units.keys()];
      const changed = sched.settle(0, all);
      record(h, sched, all, 0);
      expect(changed.size).toBe(all.length);
      const moving = [...sched.units.values()].filter((u) => u.status === "moving").length;
      // At 400 ms samples the braking envelopes' stop-point margin (v (1 + a / b) dt / 2: 0.8 tiles for a
      // soldier) holds more units back at the start than at the fleet's 50 ms.
      expect(moving).toBeGreaterThan(dt > 0.1 ? all.length / 3 : all.length / 2);
      // Three delays: at time t a unit is found where its trajectory had it at t - 1.5.
      let t = 0;
      for (let k = 0; k < 3; k++) {
        t += 2 + r() * 3;
        const u = [...sched.units.values()].find((x) =>
          x.status === "moving" && x.traj.startTime < t - 1.5 &&
          x.traj.segments.length > 0
        )!;
        if (!u) break;
        const back = trajectoryPose(u.traj, t - 1.5);
        // Others must make room for it where it is now: the session does this (standAside), so do the same.
        // It goes on along the rest of its path from there (as the session does for a late unit on its path).
        u.path = remainingPath(u.traj, t - 1.5, u.unit);
        u.traj = { startTime: t, startPose: back, segments: [] };
        sched.commit(u, u.traj);
        const dirty = new Set([u.id]);
        for (const id of sched.conflictsOfStanding(u, back, t)) {
          const o = sched.units.get(id)!;
          sched.haltAt(o, t);
          sched.commit(o, o.traj);
          dirty.add(id);
        }
        const c = sched.settle(t, dirty, false);
        record(h, sched, c, t);
      }
      const worst = minGap(h, sched, 40);
      expect(worst.gap, `${worst.pair} at ${worst.time}`).toBeGreaterThanOrEqual(-1e-9);
    });
  }

  test("a unit standing on another's path: the other waits for ever (waiting), never drives into it", () => {
    const sched = new FleetScheduler(20, 20);
    const a = sched.addStanding({ id: "a", order: 0, unit: SOLDIER }, { x: 2, y: 5, heading: 0 }, 0);
    a.path = straight({ x: 2, y: 5, heading: 0 }, { x: 18, y: 5 });
    sched.addStanding({ id: "b", order: 1, unit: SOLDIER }, { x: 10, y: 5, heading: 0 }, 0);
    sched.settle(0, ["a"]);
    expect(a.status).toBe("waiting");
    expect(a.traj.segments).toHaveLength(0);
  });

  test("priority rule: a unit stopped for good by another's goal on its way goes first; the other sets out later", () => {
    // a (scheduled first) arrives at (10, 5) in about 5 s and would stand there for good; b crosses that point
    // at about 7 s. b goes first, a waits at its start until b has passed, and nobody touches anybody.
    const sched = new FleetScheduler(20, 20);
    const h: History = new Map();
    const a = sched.addStanding({ id: "a", order: 0, unit: SOLDIER }, { x: 2, y: 5, heading: 0 }, 0);
    a.path = straight({ x: 2, y: 5, heading: 0 }, { x: 10, y: 5 });
    const b = sched.addStanding({ id: "b", order: 1, unit: SOLDIER }, { x: 10, y: 18, heading: 0 }, 0);
    b.path = straight({ x: 10, y: 18, heading: 0 }, { x: 10, y: 1 });
    const changed = sched.settle(0, ["a", "b"]);
    record(h, sched, ["a", "b"], 0);
    expect(a.status).toBe("moving");
    expect(b.status).toBe("moving");
    expect(b.traj.startTime).toBe(0);
    expect(a.traj.startTime).toBeGreaterThan(0);
    expect([...changed].sort()).toEqual(["a", "b"]);
    const worst = minGap(h, sched, 30);
    expect(worst.gap, `${worst.pair} at ${worst.time}`).toBeGreaterThanOrEqual(-1e-9);
  });

  test("without the rule's conditions (the goal's owner already on its way) the blocked unit waits", () => {
    const sched = new FleetScheduler(20, 20);
    const a = sched.addStanding({ id: "a", order: 0, unit: SOLDIER }, { x: 2, y: 5, heading: 0 }, 0);
    a.path = straight({ x: 2, y: 5, heading: 0 }, { x: 10, y: 5 });
    sched.settle(0, ["a"]);
    // At t = 1 a is on its way; b is added then and would cross a's goal after a arrives.
    const b = sched.addStanding({ id: "b", order: 1, unit: SOLDIER }, { x: 10, y: 18, heading: 0 }, 1);
    b.path = straight({ x: 10, y: 18, heading: 0 }, { x: 10, y: 1 });
    sched.settle(1, ["b"]);
    expect(b.status).toBe("waiting");
    expect(a.traj.startTime).toBe(0);
  });

  test("mid-path waits: a unit crossing a stream of others sets out at once, stops short of it, crosses in a gap", () => {
    // A column of three along y = 10, 1.5 tiles apart, through (10, 10); b drives down x = 10 and would meet
    // them there (no room for it between them).
    const sched = new FleetScheduler(24, 24);
    const h: History = new Map();
    for (let i = 0; i < 3; i++) {
      const p = { x: 4.5 - 1.5 * i, y: 10, heading: 0 };
      const a = sched.addStanding({ id: `a${i}`, order: i, unit: SOLDIER }, p, 0);
      a.path = straight(p, { x: 22 - 1.5 * i, y: 10 });
    }
    sched.settle(0, ["a0", "a1", "a2"]);
    const b = sched.addStanding({ id: "b", order: 9, unit: SOLDIER }, { x: 10, y: 15, heading: 0 }, 0);
    b.path = straight({ x: 10, y: 15, heading: 0 }, { x: 10, y: 1 });
    sched.settle(0, ["b"]);
    record(h, sched, sched.units.keys(), 0);
    expect(b.status).toBe("moving");
    expect(b.traj.startTime).toBe(0);
    const waits = b.traj.segments.filter((s) => s.length === 0 && (s.duration ?? 0) > 0);
    expect(waits.length).toBeGreaterThan(0);
    // The wait is on the way (not at the start), and every leg starts and ends at rest.
    expect(waits[0].start.y).toBeLessThan(15 - 1);
    for (const w of waits) {
      const i = b.traj.segments.indexOf(w);
      expect(b.traj.segments[i - 1]?.endSpeed ?? 0).toBe(0);
      expect(b.traj.segments[i + 1]?.startSpeed ?? 0).toBe(0);
    }
    const worst = minGap(h, sched, 30);
    expect(worst.gap, `${worst.pair} at ${worst.time}`).toBeGreaterThanOrEqual(-1e-9);
    // The same crossing timed by start delays only starts b late instead.
    const peer = new FleetScheduler(24, 24, 0.05, false);
    for (const u of sched.units.values()) {
      if (u.id === "b") continue;
      const c = peer.addStanding({ id: u.id, order: u.order, unit: SOLDIER }, u.traj.startPose, 0);
      peer.commit(c, u.traj);
    }
    const pb = peer.addStanding({ id: "b", order: 9, unit: SOLDIER }, { x: 10, y: 15, heading: 0 }, 0);
    pb.path = b.path;
    peer.settle(0, ["b"]);
    expect(pb.traj.startTime).toBeGreaterThan(0);
  });
});
