/**
 * The delay repair replayed in process (issue 12's "warehouse 300 within 50 ms"): the warehouse fleet of
 * bench/fleet.ts (same aisle grid, same jobs) built deterministically, with no server and no batching by timing:
 * every path planned in process ("smooth", as the soldier's automatic choice), all units added in job order and
 * settled at t = 0 (timing only: bench/fleet.ts's peer server builds the same kind of fleet; its makespan is
 * close to the default server's, whose short detour budget changes little at 300 units), and, as a second
 * fleet, then the detour pass run to the end on a clock that ticks once per reading (a budget in ticks cuts the
 * same rounds every run, but SIPP's deadline is wall-clock, so only a pass never cut is the same under any
 * load; it leaves a much shorter makespan, and its build takes 10-50 s, so it runs only when asked for). The
 * timing-only fleet's makespan as settled, 175.6 s, is the one bench/fleet.ts's servers report for warehouse 300
 * (2.59x the slowest solo). Each settled state is captured once; each repeat of a repair starts from a fresh
 * scheduler holding that state, so every repeat meets the same table and a few milliseconds are visible.
 *
 * A late unit reports, as in bench/fleet.ts, at t = 6 the pose it should have had at t = 4; the repair is what
 * the session runs for it (fleetSession.ts #progress: the rest of its path from there, fleetRepair.ts repairLate).
 * Late units: the bench's own (the first moving one that ends after t = 10) and every STRIDE-th further one.
 * Timed: the repair alone, CPU (the figure to compare on a loaded machine) and wall ms, median and least of the
 * repeats after a warm-up; beside them the reservation checks and samples tested (the same every run: work
 * saved shows there whatever the load). Quality beside it, per late unit: trajectories changed, units left
 * waiting, the makespan after / before, arrivals (goal within 0.6 tiles at the end) and the independent checker's
 * overlaps and wall contacts over what a client would follow (test/helpers/fleetCheck.ts, every 50 ms).
 * Peer in the same run: the same repair without the delay propagation (`repairLate(..., false)`, the tests'
 * and benches' peer: it halts the units in the way instead of shifting them). A third row repairs as the session
 * does (fleetSession.ts #repair: then the standoffs it left are broken, fleetDeadlock.ts, within a wall-clock
 * budget). Last, a check that the replay is faithful (see {@link faithful}): the first late unit repaired in the
 * scheduler the fleet was settled in gives what a restored copy gives. (In the detoured fleet most units drive at
 * t = 6: the uniform shift fails at its first moving member, and every way of the repair that halts units in
 * one-tile aisles cascades, as the peer row shows; the delays per unit, fleetPassage.ts, keep the order there.)
 *
 * Usage: deno run -A bench/fleetRepairReplay.ts [robots=300] [repeats=7] [late units=6] [fleets=timing; or detours, or timing,detours] [more late unit ids, e.g. r45,r12]
 *
 * @module
 */
import process from "node:process";
import type { Segment } from "../src/geometry/types.ts";
import type { PassLayer } from "../src/maps/grid.ts";
import { trajectoryEnd, trajectoryPose, waitSegment } from "../src/motion/trajectory.ts";
import { detourLate, type DetourLeg } from "../src/service/fleetDetour.ts";
import { repairLate } from "../src/service/fleetRepair.ts";
import {
  FleetScheduler,
  type FleetUnitState,
  remainingPath,
  trajectoryFrom,
} from "../src/service/fleetScheduler.ts";
import { planInProcess } from "../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import {
  checkFleet,
  type CTrajectory,
  type CUnit,
  discUnit,
  wireSegments,
} from "../test/helpers/fleetCheck.ts";
import { movingAiText, warehouse, warehouseJobs } from "../test/helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;
/** Late units after the bench's own: every STRIDE-th moving unit that ends after t = 10. */
const STRIDE = 37;
/** The report: at REPORT_TIME the unit is where it should have been at BEHIND_TIME (bench/fleet.ts). */
const REPORT_TIME = 6, BEHIND_TIME = 4;
/** The detour pass's budget in clock readings (see buildFleet). */
const DETOUR_TICKS = 1e7;

type Saved = Omit<FleetUnitState, "id" | "order" | "unit">;

/** A settled warehouse fleet: the map rows, the jobs and every unit's state. */
export interface ReplayFleet {
  rows: string[];
  width: number;
  height: number;
  jobs: { id: string; x: number; y: number; gx: number; gy: number }[];
  states: Saved[];
  /** Milliseconds the build took (planning, settle, detours). */
  buildMs: number;
  /** The robots' map layer (what the session passes the repair to break standoffs; absent once serialised). */
  layer?: PassLayer;
  /** The scheduler the fleet was settled in (to check a restored one against; absent once serialised). */
  original?: FleetScheduler;
}

/** Builds and settles the warehouse fleet of `robots` (bench/fleet.ts's jobs, seed 11), deterministically. */
export async function buildFleet(robots: number, detours = true): Promise<ReplayFleet> {
  const t0 = performance.now();
  const w = warehouse(30, 10);
  const jobs = warehouseJobs(w, robots, 11);
  const text = movingAiText(w.rows);
  const height = w.rows.length, width = w.rows[0].length;
  const goals = new Map(jobs.map((j) => [j.id, { x: j.gx, y: j.gy }]));
  const planLeg = (from: { x: number; y: number; heading?: number }, to: { x: number; y: number }) =>
    planInProcess(text, unit, { x: from.x, y: from.y, heading: from.heading ?? 0 }, to, "smooth");
  const layer = planLeg(jobs[0], goals.get(jobs[0].id)!).layer;
  const sched = new FleetScheduler(width, height, 0.05);
  jobs.forEach((j, order) => {
    const u = sched.addStanding({ id: j.id, order, unit }, { x: j.x, y: j.y, heading: 0 }, 0);
    const o = planLeg(j, goals.get(j.id)!).outcome;
    u.path = o.status === "found" ? o.segments : [];
  });
  sched.settle(0, jobs.map((j) => j.id));
  if (detours) {
    const plan = (legs: DetourLeg[]) =>
      Promise.resolve(legs.map((l): Segment[] | null => {
        const o = planLeg(l.from, l.to ?? goals.get(l.unit.id)!).outcome;
        return o.status === "found" ? o.segments : null;
      }));
    let ticks = 0;
    await detourLate(sched, 0, plan, {
      maxUnits: 64,
      fits: () => true,
      layer: () => layer,
      // A budget no round reaches on a clock of one tick per reading: SIPP's own deadline (wall clock, the
      // budget left) is then never met either, so load cannot change which rounds run.
      budgetMs: DETOUR_TICKS,
      now: () => ticks++,
    });
  }
  const states = jobs.map((j) => {
    const { id: _i, order: _o, unit: _u, ...rest } = sched.units.get(j.id)!;
    return rest;
  });
  return {
    rows: w.rows,
    width,
    height,
    jobs,
    states,
    buildMs: performance.now() - t0,
    layer,
    original: sched,
  };
}

/** A fresh scheduler holding the captured state (the units' fields copied; the table built anew). */
export function restoreFleet(f: ReplayFleet): FleetScheduler {
  const sched = new FleetScheduler(f.width, f.height, 0.05);
  f.jobs.forEach((j, order) => {
    const u: FleetUnitState = { id: j.id, order, unit, ...f.states[order] };
    sched.units.set(j.id, u);
    sched.commit(u, u.traj);
  });
  return sched;
}

/** The late units: the bench's own first, then every STRIDE-th further moving one that ends after t = 10. */
export function lateUnits(f: ReplayFleet, count: number): string[] {
  const movers = f.jobs.filter((_, i) =>
    f.states[i].status === "moving" && trajectoryEnd(f.states[i].traj) > 10
  ).map((j) => j.id);
  const out = [movers[0]];
  for (let i = STRIDE; i < movers.length && out.length < count; i += STRIDE) out.push(movers[i]);
  return out;
}

/**
 * One repair of unit `id` as the session runs it on a progress report: its wall and CPU milliseconds (the CPU
 * time of the process, all threads: the repair is synchronous, so this is its thread's plus any GC helpers'),
 * the reservation checks it made and what changed.
 */
export function repairOnce(
  sched: FleetScheduler,
  id: string,
  propagate: boolean,
  layer?: PassLayer,
): { ms: number; cpuMs: number; queries: number; samples: number; changed: Set<string> } {
  const u = sched.units.get(id)!;
  const at = trajectoryPose(u.traj, BEHIND_TIME);
  const w0 = { ...sched.table.work };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  u.path = remainingPath(u.traj, BEHIND_TIME, u.unit);
  const changed = layer
    ? repairLate(sched, u, at, REPORT_TIME, propagate, () => layer, new Map())
    : repairLate(sched, u, at, REPORT_TIME, propagate);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const { queries, samples } = sched.table.work;
  return {
    ms,
    cpuMs: (c.user + c.system) / 1000,
    queries: queries - w0.queries,
    samples: samples - w0.samples,
    changed,
  };
}

/** Quality after a repair: waiting units, makespan, arrivals, the checker's overlaps and wall contacts. */
export function quality(f: ReplayFleet, sched: FleetScheduler, changed: Set<string>) {
  const wire = (t: { startTime: number; segments: Segment[] }, pose = t.segments[0]?.start): CTrajectory => ({
    start_time: t.startTime,
    segments: wireSegments(t.segments.length > 0 ? t.segments : [waitSegment(pose!, 0)]),
  });
  let makespan = 0, waiting = 0;
  const units: CUnit[] = f.jobs.map((j, i) => {
    const before = f.states[i].traj;
    const u = sched.units.get(j.id)!;
    if (u.status === "waiting") waiting++;
    if (u.traj.segments.length > 0) makespan = Math.max(makespan, trajectoryEnd(u.traj));
    const trajectories = [wire(before, before.startPose)];
    if (changed.has(j.id)) {
      const after = u.traj.segments.length > 0
        ? trajectoryFrom(u.traj, REPORT_TIME)
        : { startTime: REPORT_TIME, segments: [waitSegment(u.traj.startPose, 0)] };
      trajectories.push(wire(after));
    }
    return discUnit(j, unit.boundingRadius, trajectories);
  });
  const report = checkFleet(f.rows, units, { step: 0.05 });
  return {
    waiting,
    makespan,
    arrived: report.arrived.length,
    overlaps: report.overlaps.length,
    walls: report.wallContacts.length,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the replay; returns a markdown table. */
export async function benchFleetRepair(
  robots = 300,
  repeats = 7,
  lateCount = 6,
  fleets = ["timing"],
  extra: string[] = [],
): Promise<string> {
  const out: string[] = [];
  for (const kind of fleets) out.push(await replay(robots, repeats, lateCount, kind === "detours", extra));
  return out.join("\n\n");
}

/**
 * Whether the replay is faithful to the scheduler it captured: that scheduler's table holds exactly its units'
 * trajectories, none conflicting, and repairing late unit `id` there (not restored) changes the same units to
 * the same trajectories as in a restored one. Consumes `f.original`. Returns the report line.
 */
export function faithful(f: ReplayFleet, id: string): string {
  const orig = f.original;
  if (!orig) return "check: no original scheduler kept";
  let stray = 0, conflicting = 0;
  for (const u of orig.units.values()) {
    if (orig.table.get(u.id)?.traj !== u.traj) stray++;
    else if (orig.table.conflictsWith(orig.table.get(u.id)!, 0).size > 0) conflicting++;
  }
  const copy = restoreFleet(f);
  const a = repairOnce(orig, id, true).changed, b = repairOnce(copy, id, true).changed;
  f.original = undefined;
  const same = a.size === b.size && [...a].every((x) => b.has(x)) &&
    [...orig.units.values()].every((u) =>
      JSON.stringify(u.traj) === JSON.stringify(copy.units.get(u.id)!.traj) &&
      u.status === copy.units.get(u.id)!.status
    );
  return `check: the settled scheduler's table holds its units' trajectories (${stray} differ), ${conflicting} ` +
    `units conflict; ${id} repaired there (not restored): ${
      same ? "the same" : "NOT the same"
    } changed units (${a.size}), trajectories and statuses as in a restored copy`;
}

/** One fleet's table (see benchFleetRepair). */
async function replay(
  robots: number,
  repeats: number,
  lateCount: number,
  detours: boolean,
  extra: string[] = [],
): Promise<string> {
  const f = await buildFleet(robots, detours);
  let before = 0, print = 0;
  for (const s of f.states) {
    if (s.traj.segments.length > 0) before = Math.max(before, trajectoryEnd(s.traj));
    print += trajectoryEnd(s.traj);
  }
  const late = [...lateUnits(f, lateCount), ...extra.filter((id) => f.jobs.some((j) => j.id === id))];
  const lines = [
    `warehouse ${robots} (${detours ? "detour pass to the end" : "timing only"}), fleet built in ${
      f.buildMs.toFixed(0)
    } ms, makespan as settled ${before.toFixed(1)} s (sum of trajectory ends ${
      print.toFixed(2)
    }: the same every run); repair: median (min) of ${repeats} after a warm-up`,
    "",
    "| late unit | repair | CPU ms | wall ms | checks / samples | changed | waiting | makespan after / before | " +
    "arrived | overlaps + walls |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const totals = [[] as number[], [] as number[], [] as number[]];
  // The session's repair also breaks the standoffs it leaves (fleetDeadlock.ts, within a wall-clock budget:
  // under load it may stop earlier, so that row is the one figure here that load can change).
  const variants = [
    { propagate: true, layer: undefined, name: "repairLate" },
    { propagate: false, layer: undefined, name: "peer: no propagation" },
    { propagate: true, layer: f.layer, name: "as the session: + standoffs" },
  ];
  for (const id of late) {
    for (const [v, { propagate, layer, name }] of variants.entries()) {
      const cpu: number[] = [], wall: number[] = [];
      let last: (ReturnType<typeof repairOnce> & { sched: FleetScheduler }) | null = null;
      for (let r = 0; r <= repeats; r++) {
        const sched = restoreFleet(f);
        const out = repairOnce(sched, id, propagate, layer);
        if (r > 0) {
          cpu.push(out.cpuMs);
          wall.push(out.ms);
        }
        last = { ...out, sched };
      }
      const q = quality(f, last!.sched, last!.changed);
      totals[v].push(median(cpu));
      lines.push(
        `| ${id} | ${name} | ${median(cpu).toFixed(1)} (${Math.min(...cpu).toFixed(1)}) | ${
          median(wall).toFixed(1)
        } (${Math.min(...wall).toFixed(1)}) | ${last!.queries} / ${last!.samples} | ` +
          `${last!.changed.size} | ${q.waiting} | ${
            (q.makespan / before).toFixed(3)
          } | ${q.arrived}/${robots} | ` +
          `${q.overlaps} + ${q.walls} |`,
      );
    }
  }
  lines.push(
    "",
    `CPU ms: the bench's late unit (${late[0]}) ${totals[0][0].toFixed(1)}, peer ${
      totals[1][0].toFixed(1)
    }; ` +
      `median over the ${late.length} late units ${median(totals[0]).toFixed(1)}, peer ${
        median(totals[1]).toFixed(1)
      }; as the session ${median(totals[2]).toFixed(1)}`,
    "",
    faithful(f, late[0]),
  );
  return lines.join("\n");
}

if (import.meta.main) {
  const [robots, repeats, late] = Deno.args.slice(0, 3).map(Number);
  const fleets = Deno.args[3]?.split(",");
  const extra = Deno.args[4]?.split(",") ?? [];
  console.log(await benchFleetRepair(robots || 300, repeats || 7, late || 6, fleets, extra));
}
