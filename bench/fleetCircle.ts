/**
 * The open-field circle crossing, in process: N soldiers evenly on a circle, each driving straight to the
 * opposite point, so all paths meet in the centre. Scheduled all at once at time 0 by the fleet scheduler with
 * mid-path waits and, in the same run, by start delays only (the peer); both checked by the independent checker
 * (test/helpers/fleetCheck.ts, exact discs every 20 ms). Reported: scheduling time, collisions, arrivals, and the
 * makespan against the slowest unit's solo driving time (the target is 1.3).
 *
 * @module
 */
import { lineSegment } from "../src/geometry/segment.ts";
import type { Pose } from "../src/geometry/types.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../src/motion/speedProfile.ts";
import { FleetScheduler } from "../src/service/fleetScheduler.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import { checkFleet, type CUnit, wireSegments } from "../test/helpers/fleetCheck.ts";

const SOLDIER = BUILTIN_PROFILES.soldier;

/** One size: a markdown row per timing. */
function one(n: number): string[] {
  const r = Math.max(8, (n * 1.6) / (2 * Math.PI));
  const side = Math.ceil(2 * r + 6), c = side / 2;
  const rows = Array.from({ length: side }, () => ".".repeat(side));
  const out: string[] = [];
  for (const waits of [false, true]) {
    const sched = new FleetScheduler(side, side, 0.05, waits);
    const units: CUnit[] = [];
    let solo = 0;
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      const p: Pose = { x: c + r * Math.cos(a), y: c + r * Math.sin(a), heading: a + Math.PI };
      // Just past the opposite point, between two starts (a start stands there until its unit sets out).
      const b = a + Math.PI + Math.PI / n;
      const g = { x: c + r * Math.cos(b), y: c + r * Math.sin(b) };
      const h = Math.atan2(g.y - p.y, g.x - p.x);
      const segs = [lineSegment({ ...p, heading: h }, Math.hypot(g.x - p.x, g.y - p.y))];
      applySpeedProfile(segs, SOLDIER);
      const u = sched.addStanding({ id: `c${i}`, order: i, unit: SOLDIER }, p, 0);
      u.path = splitAtSpeedPhases(segs, SOLDIER);
      solo = Math.max(solo, u.path.reduce((d, s) => d + (s.duration ?? 0), 0));
      units.push({ id: u.id, radius: 0.3, width: 0, length: 0, start: p, goal: g, trajectories: [] });
    }
    const t0 = performance.now();
    sched.settle(0, [...sched.units.keys()]);
    const ms = performance.now() - t0;
    let waiting = 0, stops = 0;
    for (const cu of units) {
      const u = sched.units.get(cu.id)!;
      if (u.status !== "moving") waiting++;
      stops += u.traj.segments.filter((s) => s.length === 0 && (s.duration ?? 0) > 0).length;
      cu.trajectories.push({ start_time: u.traj.startTime, segments: wireSegments(u.traj.segments) });
    }
    const rep = checkFleet(rows, units, { step: 0.02 });
    out.push(
      `| ${n} | ${waits ? "start delays + mid-path waits" : "start delays only (peer)"} | ${
        ms.toFixed(0)
      } | ` +
        `${rep.overlaps.length} | ${rep.wallContacts.length} | ${
          (100 * rep.arrived.length / n).toFixed(0)
        }% | ` +
        `${waiting} | ${stops} | ${rep.makespan.toFixed(1)} s / ${solo.toFixed(1)} s = ${
          (rep.makespan / solo).toFixed(2)
        } |`,
    );
  }
  return out;
}

/** The circle crossing at each size; returns a markdown table. */
export function benchCircle(sizes = [10, 50, 100]): string {
  const lines = [
    "| units | timing | scheduling ms | collisions | wall contacts | arrived | left waiting | mid-path waits | " +
    "makespan / slowest solo driving time |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const n of sizes) lines.push(...one(n));
  return lines.join("\n") +
    "\n\nSoldiers (disc r 0.3, 2 tiles/s) evenly on a circle (1.6 tiles apart, radius at least 8), each to the " +
    "point just past the opposite one through the centre, all added at t = 0; in process (no gRPC); checker: exact discs every 20 ms.";
}
