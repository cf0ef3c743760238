/**
 * Units halted side by side closer than the reservation table's departure gap (service/fleetPinned.ts, issue 12).
 * `bench/main.ts --only fleet`, circle 10 after one delay: the late unit c9 reported at t = 6 where it should have
 * been at t = 4, and c1, driving past it, was stopped at once 0.63 tiles from it (two soldiers: radii 0.3 + 0.3, but
 * a first step needs 0.65, the motion between two table samples). Both stood legally, yet the table refused either
 * one's first step, whichever way, and SIPP found no route either (its padded model took each one's start tile for
 * good): 8 of 10 arrived. Here the same two units at the same poses in the same open field, with the goals they
 * had: they wait on each other (a 2-cycle), and the standoff breaker (fleetDeadlock.ts) now routes one of them
 * away, both arrive, and the independent checker (test/helpers/fleetCheck.ts) finds no overlap on what a client
 * received. In process, deterministic (the breaker's wall-clock budget is generous for two units).
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import { standing } from "../../src/motion/trajectory.ts";
import { breakStandoffs, standoffHeads } from "../../src/service/fleetDeadlock.ts";
import { clearOfStanding, pinnedBy } from "../../src/service/fleetPinned.ts";
import { FleetScheduler, trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { circleScenario } from "../../bench/fleetCircle.ts";
import { checkFleet, type CTrajectory, discUnit, wireSegments } from "../helpers/fleetCheck.ts";
import { movingAiText } from "../helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;

/** c1 and c9 as the circle-10 bench left them (poses at t = 6, their goals). */
const PAIR = [
  { id: "c1", x: 12.08, y: 10.08, gx: 7.5, gy: 5.5 },
  { id: "c9", x: 12.44, y: 9.56, gx: 3.5, gy: 15.5 },
];

describe("units halted closer than the departure gap", () => {
  test("circle 10's pair: a standoff the breaker now resolves, both arrive, no overlap", () => {
    const { rows } = circleScenario(10);
    const text = movingAiText(rows);
    const sched = new FleetScheduler(rows[0].length, rows.length, 0.05);
    let layer = null;
    PAIR.forEach((s, order) => {
      const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 6);
      const plan = planInProcess(text, unit, { x: s.x, y: s.y, heading: 0 }, { x: s.gx, y: s.gy }, "smooth");
      expect(plan.outcome.status, s.id).toBe("found");
      u.path = plan.outcome.segments;
      layer = plan.layer;
    });
    const received = new Map<string, CTrajectory[]>(PAIR.map((s) => [s.id, []]));
    const send = (ids: Iterable<string>, time: number) => {
      for (const id of ids) {
        const t = trajectoryFrom(sched.units.get(id)!.traj, time);
        received.get(id)!.push({ start_time: t.startTime, segments: wireSegments(t.segments) });
      }
    };
    send(sched.settle(6, PAIR.map((s) => s.id)), 6);
    // Neither can set out: each waits on the other for good.
    expect([...sched.units.values()].map((u) => u.status)).toEqual(["waiting", "waiting"]);
    expect(standoffHeads(sched, 6).map((h) => h.map((u) => u.id).sort())).toEqual([["c1", "c9"]]);
    const changed = new Set<string>();
    const stats = breakStandoffs(sched, 6, () => layer, changed, 10_000);
    expect(stats.cycles).toBe(1);
    expect(stats.rerouted + stats.aside).toBeGreaterThan(0);
    send(changed, 6);
    // The other follows as the clock advances (a sync's breaker, as fleetSession.ts runs it).
    for (let t = 6.5; t <= 30; t += 0.5) {
      const more = new Set<string>();
      breakStandoffs(sched, t, () => layer, more, 10_000);
      send(more, t);
    }
    expect([...sched.units.values()].map((u) => u.status)).toEqual(["moving", "moving"]);
    const report = checkFleet(
      rows,
      PAIR.map((s) => discUnit(s, unit.boundingRadius, received.get(s.id)!)),
      { step: 0.02 },
    );
    expect(report.arrived.sort()).toEqual(["c1", "c9"]);
    expect(report.overlaps).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.contractErrors).toEqual([]);
  }, 30_000);

  test("pinnedBy: standing neighbours within both radii and the motion between samples; clearOfStanding", () => {
    const sched = new FleetScheduler(30, 30, 0.05);
    const a = sched.addStanding({ id: "a", order: 0, unit }, { x: 10, y: 10, heading: 0 }, 0);
    sched.addStanding({ id: "near", order: 1, unit }, { x: 10.63, y: 10, heading: 0 }, 0);
    sched.addStanding({ id: "far", order: 2, unit }, { x: 10, y: 10.72, heading: 0 }, 0);
    const pinned = pinnedBy(sched, a, { x: 10, y: 10, heading: 0 }, 0);
    expect(pinned.map((u) => u.id)).toEqual(["near"]);
    const near = pinned[0];
    // Away from it (west) or across (south): clear; through it, or ending beside it: not.
    const away = { startTime: 0, startPose: { x: 10, y: 10, heading: Math.PI }, segments: [] as never[] };
    const west = lineSegment({ x: 10, y: 10, heading: Math.PI }, 3);
    const south = lineSegment({ x: 10, y: 10, heading: -Math.PI / 2 }, 3);
    expect(clearOfStanding({ ...away, segments: [west] }, 0.3, near)).toBe(true);
    expect(clearOfStanding(standing({ x: 10, y: 10, heading: 0 }, 0), 0.3, near)).toBe(true);
    expect(clearOfStanding({ ...away, segments: [lineSegment({ x: 9, y: 10, heading: 0 }, 3)] }, 0.3, near))
      .toBe(false);
    expect(clearOfStanding({ ...away, segments: [south] }, 0.3, near)).toBe(true);
    expect(clearOfStanding(standing({ x: 10.2, y: 10, heading: 0 }, 0), 0.3, near)).toBe(false);
  });
});
