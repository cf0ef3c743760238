/**
 * Units halted side by side closer than the reservation table's departure gap (service/fleetPinned.ts, issue 12).
 * `bench/main.ts --only fleet`, circle 10 after one delay: the late unit c9 reported at t = 6 where it should have
 * been at t = 4, and c1, driving past it, was stopped at once 0.63 tiles from it (two soldiers: radii 0.3 + 0.3, but
 * a first step needs 0.65, the motion between two table samples). Both stood legally, yet the table refused either
 * one's first step, whichever way, and SIPP found no route either (its padded model took each one's start tile for
 * good): 8 of 10 arrived. Here the same two units at the same poses in the same open field, with the goals they
 * had: they wait on each other (a 2-cycle), and the standoff breaker (fleetDeadlock.ts) now routes one of them
 * away, both arrive, and the independent checker (test/helpers/fleetCheck.ts) finds no overlap on what a client
 * received. The same for random pairs and threes halted so close in the open (one unit's tile may hold both, or
 * its centre lie beside the other: it steps away first or cuts that corner, fleetPinned.ts waysOut), and for a
 * pair head-on in a one-tile aisle beside a bay (one goes into the bay, even from under it). In process,
 * deterministic (the breaker's wall-clock budget is generous for a few units).
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { standing } from "../../src/motion/trajectory.ts";
import { breakStandoffs, standoffHeads } from "../../src/service/fleetDeadlock.ts";
import { clearOfStanding, pinnedBy } from "../../src/service/fleetPinned.ts";
import { FleetScheduler, trajectoryFrom } from "../../src/service/fleetScheduler.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { circleScenario } from "../../bench/fleetCircle.ts";
import { checkFleet, type CTrajectory, discUnit, wireSegments } from "../helpers/fleetCheck.ts";
import { movingAiText } from "../helpers/warehouse.ts";
import { rng } from "../helpers/rng.ts";

const unit = BUILTIN_PROFILES.soldier;

/** c1 and c9 as the circle-10 bench left them (poses at t = 6, their goals). */
const PAIR = [
  { id: "c1", x: 12.08, y: 10.08, gx: 7.5, gy: 5.5 },
  { id: "c9", x: 12.44, y: 9.56, gx: 3.5, gy: 15.5 },
];

type Spec = { id: string; x: number; y: number; gx: number; gy: number };

/**
 * The units standing at their poses at `t0` with their planned paths in the circle-10 field: settled (all wait on
 * each other, it is checked), then the standoff breaker at every half second up to `t0` + 30 s (as a sync runs
 * it); returns the breaker's first stats, the statuses at the end and the checker's report on what a client
 * received.
 */
function runStandoff(specs: Spec[], t0: number, rows = circleScenario(10).rows) {
  const text = movingAiText(rows);
  const sched = new FleetScheduler(rows[0].length, rows.length, 0.05);
  let layer: PassLayer | null = null;
  specs.forEach((s, order) => {
    const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, t0);
    const plan = planInProcess(text, unit, { x: s.x, y: s.y, heading: 0 }, { x: s.gx, y: s.gy }, "smooth");
    expect(plan.outcome.status, s.id).toBe("found");
    u.path = plan.outcome.segments;
    layer = plan.layer;
  });
  const received = new Map<string, CTrajectory[]>(specs.map((s) => [s.id, []]));
  const send = (ids: Iterable<string>, time: number) => {
    for (const id of ids) {
      const t = trajectoryFrom(sched.units.get(id)!.traj, time);
      received.get(id)!.push({ start_time: t.startTime, segments: wireSegments(t.segments) });
    }
  };
  send(sched.settle(t0, specs.map((s) => s.id)), t0);
  // Neither can set out: each waits on the other for good.
  const waiting = [...sched.units.values()].map((u) => u.status);
  const heads = standoffHeads(sched, t0).map((h) => h.map((u) => u.id).sort());
  let stats = null;
  for (let t = t0; t <= t0 + 30; t += 0.5) {
    const changed = new Set<string>();
    const got = breakStandoffs(sched, t, () => layer, changed, 10_000);
    stats ??= got;
    send(changed, t);
  }
  const report = checkFleet(
    rows,
    specs.map((s) => discUnit(s, unit.boundingRadius, received.get(s.id)!)),
    { step: 0.02 },
  );
  return { waiting, heads, stats: stats!, status: [...sched.units.values()].map((u) => u.status), report };
}

describe("units halted closer than the departure gap", () => {
  test("circle 10's pair: a standoff the breaker now resolves, both arrive, no overlap", () => {
    const { waiting, heads, stats, status, report } = runStandoff(PAIR, 6);
    expect(waiting).toEqual(["waiting", "waiting"]);
    expect(heads).toEqual([["c1", "c9"]]);
    expect(stats.cycles).toBe(1);
    expect(stats.rerouted + stats.aside).toBeGreaterThan(0);
    expect(status).toEqual(["moving", "moving"]);
    expect(report.arrived.sort()).toEqual(["c1", "c9"]);
    expect(report.overlaps).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.contractErrors).toEqual([]);
  }, 30_000);

  test(
    "random pairs (and threes) halted 0.60-0.65 tiles apart, heading through each other: all arrive, no overlap",
    () => {
      for (let seed = 1; seed <= 16; seed++) {
        const r = rng(seed);
        const x = 10 + r() * 6, y = 10 + r() * 6, a = r() * 2 * Math.PI, d = 0.601 + r() * 0.048;
        const bx = x + d * Math.cos(a), by = y + d * Math.sin(a);
        // Each one's goal lies beyond the other, 5-8 tiles on (tile centres, inside the field).
        const beyond = (px: number, py: number, dir: number) => {
          const far = 5 + r() * 3, turn = (r() - 0.5) * 0.6;
          return {
            gx: Math.floor(Math.min(23, Math.max(2, px + far * Math.cos(dir + turn)))) + 0.5,
            gy: Math.floor(Math.min(23, Math.max(2, py + far * Math.sin(dir + turn)))) + 0.5,
          };
        };
        const specs = [
          { id: "a", x, y, ...beyond(bx, by, a) },
          { id: "b", x: bx, y: by, ...beyond(x, y, a + Math.PI) },
        ];
        // Every other seed a third unit as close to the first (and not closer to the second than two radii).
        const a2 = a + Math.PI / 3 * (r() < 0.5 ? 1 : -1), d2 = 0.601 + r() * 0.048;
        const cx = x + d2 * Math.cos(a2), cy = y + d2 * Math.sin(a2);
        if (seed % 2 === 0 && Math.hypot(cx - bx, cy - by) >= 0.601) {
          specs.push({ id: "c", x: cx, y: cy, ...beyond(x, y, a2 + Math.PI) });
        }
        const { waiting, status, report } = runStandoff(specs, 0);
        const what = `seed ${seed}: ${JSON.stringify(specs)}`;
        expect(waiting, what).toEqual(specs.map(() => "waiting"));
        expect(status, what).toEqual(specs.map(() => "moving"));
        expect(report.arrived.sort(), what).toEqual(specs.map((s) => s.id));
        expect(report.overlaps, what).toEqual([]);
        expect(report.wallContacts, what).toEqual([]);
        expect(report.contractErrors, what).toEqual([]);
      }
    },
    60_000,
  );

  test(
    "head-on in a one-tile aisle beside a bay, 0.62-0.63 apart: one goes into the bay, both arrive",
    () => {
      const BAY = [
        "@@@@@@@@@@@@@@@@@@@@@@",
        "@@@@@@@@@@.@@@@@@@@@@@",
        "@....................@",
        "@@@@@@@@@@@@@@@@@@@@@@",
      ];
      // Left of the bay, under it (one tile for both, or either side of its middle), right of it.
      for (const [ax, bx] of [[9, 9.62], [9.7, 10.33], [10.2, 10.83], [10.5, 11.12], [11.4, 12.02]]) {
        const specs = [
          { id: "a", x: ax, y: 2.5, gx: 18.5, gy: 2.5 },
          { id: "b", x: bx, y: 2.5, gx: 2.5, gy: 2.5 },
        ];
        const { waiting, status, report } = runStandoff(specs, 0, BAY);
        const what = JSON.stringify(specs);
        expect(waiting, what).toEqual(["waiting", "waiting"]);
        expect(status, what).toEqual(["moving", "moving"]);
        expect(report.arrived.sort(), what).toEqual(["a", "b"]);
        expect(report.overlaps, what).toEqual([]);
        expect(report.wallContacts, what).toEqual([]);
        expect(report.contractErrors, what).toEqual([]);
      }
    },
    60_000,
  );

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
