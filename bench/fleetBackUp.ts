/**
 * Backing up a step, measured in-process and paired: the warehouse aisle grid of bench/fleet.ts (95 x 82, one-tile
 * aisles, 300 soldiers from pick bay to pick bay, paths by the smooth planner) scheduled at t = 0, then one unit
 * reports a delay (at t = 6 it is where it should have been at t = 4) and the fleet is repaired (fleetRepair.ts),
 * for several different late units. Each delay is run with the scheduler as it is and with backing up switched
 * off (the peer), alternately, from the same schedule (the schedule at t = 0 does not depend on it: no unit has
 * driven yet). Reported per variant: units waiting after the repair (median, worst, delays that cascaded to
 * more than 10% of the fleet waiting) beside the repair's median time. Usage:
 * `node_modules/deno/deno run -A bench/fleetBackUp.ts [robots] [delays]`.
 *
 * @module
 */
import type { Segment } from "../src/geometry/types.ts";
import { trajectoryEnd, trajectoryPose } from "../src/motion/trajectory.ts";
import { repairLate } from "../src/service/fleetRepair.ts";
import { FleetScheduler, remainingPath } from "../src/service/fleetScheduler.ts";
import { planInProcess } from "../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import { movingAiText, warehouse, warehouseJobs } from "../test/helpers/warehouse.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Runs the paired delays; returns a markdown table. */
export function benchFleetBackUp(robots = 300, delays = 12): string {
  const w = warehouse(30, 10);
  const text = movingAiText(w.rows);
  const unit = BUILTIN_PROFILES.soldier;
  const jobs = warehouseJobs(w, robots, 11);
  const paths: Segment[][] = jobs.map((j) => {
    const { outcome } = planInProcess(
      text,
      unit,
      { x: j.x, y: j.y, heading: 0 },
      { x: j.gx, y: j.gy },
      "smooth",
    );
    if (outcome.status !== "found") throw new Error(`${j.id}: no path (${outcome.status})`);
    return outcome.segments;
  });
  const fleet = (backUp: boolean) => {
    const sched = new FleetScheduler(w.rows[0].length, w.rows.length, 0.05, true, backUp);
    jobs.forEach((j, order) => {
      const u = sched.addStanding({ id: j.id, order, unit }, { x: j.x, y: j.y, heading: 0 }, 0);
      u.path = paths[order];
    });
    sched.settle(0, jobs.map((j) => j.id));
    return sched;
  };
  // The late units: moving at t = 6 (started by t = 4, arriving after t = 10), spread over the fleet.
  const first = fleet(true);
  const candidates = [...first.units.values()].filter((u) =>
    u.status === "moving" && u.traj.segments.length > 0 && u.traj.startTime <= 4 && trajectoryEnd(u.traj) > 10
  ).map((u) => u.id);
  const step = Math.max(1, Math.floor(candidates.length / delays));
  const movers = candidates.filter((_, i) => i % step === 0).slice(0, delays);
  const result = {
    on: [] as { waiting: number; ms: number }[],
    off: [] as { waiting: number; ms: number }[],
  };
  movers.forEach((id, k) => {
    for (const backUp of k % 2 === 0 ? [true, false] : [false, true]) {
      const sched = fleet(backUp);
      const u = sched.units.get(id)!;
      const at = trajectoryPose(u.traj, 4);
      u.path = remainingPath(u.traj, 4, u.unit);
      const t0 = performance.now();
      repairLate(sched, u, at, 6);
      const ms = performance.now() - t0;
      const waiting = [...sched.units.values()].filter((x) => x.status === "waiting").length;
      (backUp ? result.on : result.off).push({ waiting, ms });
    }
  });
  const line = (name: string, r: { waiting: number; ms: number }[]) =>
    `| ${name} | ${r.length} | ${median(r.map((x) => x.waiting))} | ${
      Math.max(...r.map((x) => x.waiting))
    } | ` +
    `${r.filter((x) => x.waiting > robots / 10).length} | ${median(r.map((x) => x.ms)).toFixed(1)} |`;
  return [
    `| warehouse 95x82, ${robots} robots, one delay | delays | units waiting after the repair (median) | worst | ` +
    `delays cascading to > 10% waiting | repair ms (median) |`,
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    line("backing up", result.on),
    line("peer: no backing up", result.off),
    "",
    "Per delay: " +
    movers.map((id, i) => `${id} ${result.on[i].waiting}/${result.off[i].waiting}`).join(", ") +
    " (waiting with/without backing up).",
  ].join("\n");
}

if (import.meta.main) {
  const [robots, delays] = Deno.args.map(Number);
  console.log(benchFleetBackUp(robots || 300, delays || 12));
}
