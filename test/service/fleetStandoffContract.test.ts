/**
 * The standoff breaker's trajectories keep the segment contract (issue 12; service/fleetDeadlock.ts,
 * fleetBackUp.ts asideAndBack, fleetRefuge.ts): every segment followed from its start pose reaches its own `end`,
 * and each one starts where the one before ends (docs/segments.md; a client drives them one after another). At
 * 262e401 bench/fleetDelay.ts at 300 robots showed such errors now and then: a refuge's way back ended up to 0.05
 * tiles from the path it rejoined (segments that do not join; fixed by 282f535). This checks the breaker where its
 * trajectories are made, over many generated cases with fixed seeds, in process:
 * - asideAndBack over random ways out (straight legs turning in place, as SIPP routes are) and random paths on
 *   (lines and arcs, as smoothed paths are) from the same pose, turning round in place and in reverse;
 * - small aisle-and-bay maps (one-tile aisles, random bays, a loop or dead ends) with two units head-on in an
 *   aisle and others about, a delay repair, then the breaker at every sync (as fleetSession.ts runs it): after
 *   each call every unit's committed trajectory and remaining path is checked, and at the end the independent
 *   checker (test/helpers/fleetCheck.ts) checks everything a client would have received.
 */
import { describe, expect, test } from "vitest";
import { arcSegment, lineSegment, poseAlong } from "../../src/geometry/segment.ts";
import type { Pose, Segment } from "../../src/geometry/types.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../../src/motion/speedProfile.ts";
import { trajectoryPose } from "../../src/motion/trajectory.ts";
import { asideAndBack } from "../../src/service/fleetBackUp.ts";
import { breakStandoffs } from "../../src/service/fleetDeadlock.ts";
import { repairLate } from "../../src/service/fleetRepair.ts";
import { FleetScheduler, remainingPath, trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { checkFleet, type CTrajectory, type CUnit, discUnit, wireSegments } from "../helpers/fleetCheck.ts";
import { movingAiText } from "../helpers/warehouse.ts";
import { rng } from "../helpers/rng.ts";

/** The contract faults of a run of segments: a segment not reaching its own end, two not joining (tiles). */
function faults(segs: readonly Segment[], what: string, tol = 1e-6): string[] {
  const out: string[] = [];
  segs.forEach((s, i) => {
    const e = poseAlong(s, s.length);
    const gap = Math.hypot(e.x - s.end.x, e.y - s.end.y);
    if (gap > tol) out.push(`${what} segment ${i}/${segs.length}: its end is ${gap.toExponential(2)} off`);
    const n = segs[i + 1];
    const join = n ? Math.hypot(n.start.x - s.end.x, n.start.y - s.end.y) : 0;
    if (join > tol) out.push(`${what} segments ${i}-${i + 1}/${segs.length}: gap ${join.toExponential(2)}`);
  });
  return out;
}

/** Random straight legs from `from` turning in place at the corners (as SIPP routes are), profiled. */
function legs(from: Pose, r: () => number, unit: UnitSpec, n: number): Segment[] {
  const segs: Segment[] = [];
  let p = from;
  for (let i = 0; i < n; i++) {
    // The first leg keeps the start heading (it may share ground with the path); later ones turn a right angle.
    const h = i === 0 ? p.heading : p.heading + (r() < 0.5 ? 1 : -1) * Math.PI / 2;
    const s = lineSegment({ x: p.x, y: p.y, heading: h }, 0.25 + Math.floor(r() * 12) * 0.25 + r() * 1e-3);
    segs.push(s);
    p = s.end;
  }
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

/** A random smoothed path from `from`: lines and arcs joined in pose, profiled. */
function smooth(from: Pose, r: () => number, unit: UnitSpec, n: number): Segment[] {
  const segs: Segment[] = [];
  let p = from;
  for (let i = 0; i < n; i++) {
    const len = 0.1 + r() * 4;
    const s = r() < 0.5 ? lineSegment(p, len) : arcSegment(p, (r() < 0.5 ? 1 : -1) * (0.3 + r() * 3), len);
    segs.push(s);
    p = s.end;
  }
  applySpeedProfile(segs, unit);
  return splitAtSpeedPhases(segs, unit);
}

describe("the standoff breaker's segments keep the contract", () => {
  test("asideAndBack: random ways out and paths on (shared starts, arcs, both backing modes)", () => {
    const units = [BUILTIN_PROFILES.soldier, { ...BUILTIN_PROFILES.soldier, canReverse: true }];
    let made = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const r = rng(seed);
      const unit = units[seed % 2];
      const start: Pose = { x: 10 + r() * 50, y: 10 + r() * 50, heading: (r() - 0.5) * 2 * Math.PI };
      const out = legs(start, r, unit, 1 + Math.floor(r() * 4));
      // The path on: sharing the way out's first leg, then parting (smoothed); sharing it, then bending off
      // gently; sharing it, then going on straight a few degrees off it (as in bench/fleetDelay.ts at 262e401:
      // a way back from a refuge 0.048 tiles from the path it was to rejoin); or a smoothed path of its own. The
      // gentle partings stay within a few hundredths of a tile of the way out for a while, never on it.
      const kind = Math.floor(r() * 4);
      const off = (r() < 0.5 ? 1 : -1) * (0.02 + r() * 0.15);
      const rest = kind === 0
        ? [lineSegment(start, out[0].length), ...smooth(out[0].end, r, unit, 3)]
        : kind === 1
        ? [lineSegment(start, out[0].length), arcSegment(out[0].end, 5 * off, 1 + r() * 3)]
        : kind === 2
        ? [
          lineSegment(start, out[0].length),
          lineSegment({ ...out[0].end, heading: out[0].end.heading + off }, 2 + r() * 10),
        ]
        : smooth(start, r, unit, 1 + Math.floor(r() * 5));
      const way = asideAndBack(unit, out, rest);
      if (!way) continue;
      made++;
      expect(faults(way.path, `seed ${seed}`)).toEqual([]);
      // It ends where the path does.
      const e = way.path[way.path.length - 1].end, g = rest[rest.length - 1].end;
      expect(Math.hypot(e.x - g.x, e.y - g.y), `seed ${seed}`).toBeLessThan(1e-6);
    }
    expect(made).toBeGreaterThan(300);
  });

  test("aisles and bays: standoffs broken after a delay and at every sync", () => {
    const unit = BUILTIN_PROFILES.soldier;
    const totals = { cases: 0, rerouted: 0, aside: 0, trajectories: 0, segments: 0 };
    for (let seed = 1; seed <= 40; seed++) {
      const r = rng(seed * 7919);
      const W = 16 + Math.floor(r() * 8);
      // Aisles at rows 2, 5 (and 8), joined by a cross aisle at the west end, and at the east end in a loop.
      const aisles = r() < 0.5 ? [2, 5] : [2, 5, 8];
      const H = aisles[aisles.length - 1] + 2;
      const rows = Array.from({ length: H }, () => Array.from({ length: W }, () => "@"));
      for (const y of aisles) for (let x = 1; x < W - 1; x++) rows[y][x] = ".";
      const loop = r() < 0.5;
      for (let y = aisles[0]; y <= aisles[aisles.length - 1]; y++) {
        rows[y][1] = ".";
        if (loop) rows[y][W - 2] = ".";
      }
      // Bays: one-tile pockets off the aisles.
      for (const y of aisles) {
        for (let x = 3; x < W - 3; x++) if (r() < 0.12) rows[r() < 0.5 ? y - 1 : y + 1][x] = ".";
      }
      const map = rows.map((row) => row.join(""));
      const text = movingAiText(map);
      const free: { x: number; y: number }[] = [];
      for (const y of aisles) for (let x = 2; x < W - 2; x++) free.push({ x: x + 0.5, y: y + 0.5 });
      const y0 = aisles[0] + 0.5;
      // Two head-on in the first aisle, and others from and to random aisle tiles.
      const specs = [
        { id: "a", x: 2.5 + Math.floor(r() * 3), y: y0, gx: W - 3.5, gy: y0 },
        { id: "b", x: W - 3.5 - Math.floor(r() * 3), y: y0, gx: 2.5, gy: y0 },
      ];
      const used = new Set(specs.flatMap((s) => [`${s.x},${s.y}`, `${s.gx},${s.gy}`]));
      for (let i = 0; i < 3 + Math.floor(r() * 6); i++) {
        const s = free[Math.floor(r() * free.length)], g = free[Math.floor(r() * free.length)];
        if (used.has(`${s.x},${s.y}`) || used.has(`${g.x},${g.y}`) || (s.x === g.x && s.y === g.y)) continue;
        used.add(`${s.x},${s.y}`), used.add(`${g.x},${g.y}`);
        specs.push({ id: `u${i}`, x: s.x, y: s.y, gx: g.x, gy: g.y });
      }
      const plan = (s: (typeof specs)[0]) =>
        planInProcess(text, unit, { x: s.x, y: s.y, heading: 0 }, { x: s.gx, y: s.gy }, "smooth");
      const layer = plan(specs[0]).layer;
      const sched = new FleetScheduler(W, H, 0.05);
      const kept = specs.filter((s, order) => {
        const o = plan(s).outcome;
        if (o.status !== "found") return false;
        sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 0).path = o.segments;
        return true;
      });
      const received = new Map<string, CTrajectory[]>(kept.map((s) => [s.id, []]));
      const found: string[] = [];
      const send = (ids: Iterable<string>, time: number, when: string) => {
        for (const id of ids) {
          const u = sched.units.get(id)!;
          const t = trajectoryFrom(u.traj, time);
          received.get(id)!.push({ start_time: t.startTime, segments: wireSegments(t.segments) });
        }
        // At the source: every unit's committed trajectory and the path it still has.
        for (const u of sched.units.values()) {
          found.push(...faults(u.traj.segments, `seed ${seed} ${when} ${u.id} trajectory`));
          found.push(...faults(u.path.filter((s) => s.length > 0), `seed ${seed} ${when} ${u.id} path`));
        }
      };
      send(sched.settle(0, kept.map((s) => s.id)), 0, "settle");
      // A moving unit reports at t = 3 the pose it should have had at t = 1 (the repair, no breaker), then the
      // breaker runs at the repair and at every sync, on a clock that never runs out (deterministic).
      const late = [...sched.units.values()].find((u) => u.status === "moving" && u.traj.segments.length > 0);
      const layerOf = () => layer;
      const memo = new Map<string, number>();
      if (late) {
        const at = trajectoryPose(late.traj, 1);
        late.path = remainingPath(late.traj, 1, unit);
        send(repairLate(sched, late, at, 3, true), 3, "repair");
      }
      for (let t = 3; t <= 40; t += 0.5) {
        const changed = new Set<string>();
        const stats = breakStandoffs(sched, t, layerOf, changed, 60_000, memo, () => 0);
        totals.rerouted += stats.rerouted, totals.aside += stats.aside;
        send(changed, t, `sync ${t}`);
      }
      expect(found).toEqual([]);
      const units: CUnit[] = kept.map((s) => discUnit(s, unit.boundingRadius, received.get(s.id)!));
      for (const u of units) {
        totals.trajectories += u.trajectories.length;
        totals.segments += u.trajectories.reduce((n, t) => n + t.segments.length, 0);
      }
      const report = checkFleet(map, units, { step: 0.05, until: 60 });
      expect(report.contractErrors, `seed ${seed}`).toEqual([]);
      expect(report.overlaps, `seed ${seed}`).toEqual([]);
      expect(report.wallContacts, `seed ${seed}`).toEqual([]);
      totals.cases++;
    }
    // Not vacuous: the breaker routed units round and sent some aside.
    expect(totals.rerouted, JSON.stringify(totals)).toBeGreaterThan(0);
    expect(totals.aside, JSON.stringify(totals)).toBeGreaterThan(0);
  }, 120_000);
});
