/**
 * Fleet warm-up (issue 12): fleets are scheduled and repaired on the server's main thread, and a server
 * repairs rarely, so the first delay repair of a process ran cold: the scheduler, the reservation table, the
 * retiming and the repair code were compiled while the client waited (the warehouse-300 repair after one delay:
 * ~90 ms CPU the first time in a process, 19-45 ms later ones). The warm-up settles a small
 * private fleet in a little aisle warehouse (one-tile aisles, head-on traffic, so that units wait, standoffs
 * form and are broken) and repairs it after a few reported delays, once, shortly after the server starts
 * listening. It runs in slices with a timer between them so that requests are served meanwhile; its fleet is
 * dropped afterwards and touches nothing shared, so answers do not change. Measured: 70-120 ms of the main
 * thread's CPU, 120-190 ms wall from first slice to last; the first warehouse-300 repair of bench/fleetRepairReplay.ts
 * in a fresh process 62-70 ms CPU without it, 22-38 ms after it. Since its paths are split at their speed
 * phases (timed as the wire's contract wants) it costs more: 170-220 ms CPU, median 190 (90-170, median 130,
 * unsplit), 5 fresh processes each, interleaved, on a loaded 2-core machine. (24 units on this map once "ran over 30 s":
 * not settle/repair but the job generator, drawing a free bay for ever; the map has 42 bays, room for 21 units,
 * and more are now refused.)
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { buildPassLayer } from "../maps/layer.ts";
import { movingAiTerrain } from "../maps/terrain.ts";
import type { PassLayer } from "../maps/grid.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../motion/speedProfile.ts";
import { trajectoryEnd, trajectoryPose } from "../motion/trajectory.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";
import { threadCpuMs } from "./fleetDetour.ts";
import { repairLate } from "./fleetRepair.ts";
import { FleetScheduler, remainingPath, trajectoryFrom } from "./fleetScheduler.ts";

/**
 * Aisles: rows 1, 4 and 7, one tile wide, joined by the columns 1, 12 and 24; between them shelves two tiles
 * deep with one-tile pick bays cut in from either aisle (as in src/tools/fleetWarehouse.ts), where units start
 * and stop.
 */
const WIDTH = 26, HEIGHT = 9;
const JOINS = [1, 12, 24];

/** Units in the private fleet, and how many of them report a delay (one repair each). */
const UNITS = 20, DELAYS = 5;

/** Draws of a bay before the lowest free one is taken instead (see `jobs`). */
const DRAWS = 10_000;

/** A late unit reports at BEHIND + 2 s the pose it should have had at BEHIND. */
const BEHIND = 2;

/** The aisle row a bay opens on, or -1 when (x, y) is not a bay. */
function bayAisle(x: number, y: number): number {
  if (x < 2 || x > WIDTH - 3 || JOINS.includes(x)) return -1;
  const r = y % 3; // rows 2 and 5 open upwards (even x), rows 3 and 6 downwards (odd x)
  if (r === 2 && y < HEIGHT - 1 && x % 2 === 0) return y - 1;
  if (r === 0 && y > 0 && y < HEIGHT - 1 && x % 2 === 1) return y + 1;
  return -1;
}

/** '@' walls, '.' floor. */
function tileAt(x: number, y: number): string {
  if (x === 0 || y === 0 || x === WIDTH - 1 || y === HEIGHT - 1) return "@";
  return y % 3 === 1 || JOINS.includes(x) || bayAisle(x, y) >= 0 ? "." : "@";
}
/** What {@link warmUpFleet} did. */
export interface FleetWarmUp {
  /** Units in the private fleet. */
  units: number;
  /** Units moving after settling (the rest wait). */
  moving: number;
  /** Delay repairs run. */
  repairs: number;
  /** Trajectories the repairs changed, in total. */
  changed: number;
  /** CPU time of the thread spent in the warm-up's steps, ms (not the waits between slices). */
  cpuMillis: number;
  /** Wall time from the first step to the last, ms (slices and waits between them). */
  millis: number;
  /** The error that ended the warm-up early, or "". */
  error: string;
}

/** The warm-up's map as rows of '@' and '.', `rows[y][x]` (for a test's fleet checker). */
export function warmUpRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < HEIGHT; y++) {
    let row = "";
    for (let x = 0; x < WIDTH; x++) row += tileAt(x, y);
    rows.push(row);
  }
  return rows;
}

function warmUpLayer(): PassLayer {
  const tiles = new Uint8Array(WIDTH * HEIGHT);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) tiles[y * WIDTH + x] = tileAt(x, y).charCodeAt(0);
  }
  return buildPassLayer({ width: WIDTH, height: HEIGHT, tiles }, movingAiTerrain());
}

/** Line segments through `points` (a soldier turns on the spot, so corners need no arc). */
function polyline(points: { x: number; y: number }[]): Segment[] {
  const out: Segment[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1], b = points[i];
    const length = Math.hypot(b.x - a.x, b.y - a.y);
    if (length === 0) continue;
    const heading = Math.atan2(b.y - a.y, b.x - a.x);
    out.push({
      start: { x: a.x, y: a.y, heading },
      end: { x: b.x, y: b.y, heading },
      length,
      curvature: 0,
      direction: 1,
    });
  }
  return out;
}

/**
 * The jobs: distinct starts and distinct goals on the aisles, drawn by a fixed generator (the same fleet every
 * time), each path along its aisle to the nearest join, along the join to the goal's aisle, then to the goal.
 */
function jobs(units: number): Segment[][] {
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const bays: { x: number; y: number; aisle: number }[] = [];
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const aisle = bayAisle(x, y);
      if (aisle >= 0) bays.push({ x: x + 0.5, y: y + 0.5, aisle: aisle + 0.5 });
    }
  }
  // Distinct starts and goals: two bays a unit. More units than that once looped for ever drawing a free bay.
  if (!Number.isInteger(units) || units < 1 || 2 * units > bays.length) {
    throw new RangeError(
      `fleet warm-up: units must be an integer from 1 to ${
        bays.length / 2
      } (two of its ${bays.length} bays ` +
        `each), got ${units}`,
    );
  }
  // The draws are bounded: this generator reaches only 39 of the 42 bays (its products pass 2^53), so after
  // DRAWS misses the lowest free bay is taken (the 20-unit fleet needs at most 1568 draws: it is unchanged).
  const spot = (used: Set<number>) => {
    let i = next(bays.length);
    for (let draws = 1; used.has(i) && draws < DRAWS; draws++) i = next(bays.length);
    while (used.has(i)) i = (i + 1) % bays.length;
    used.add(i);
    return bays[i];
  };
  // Goals apart from every start: a unit bound for another's bay would wait on it, and a ring of them for good.
  const used = new Set<number>();
  const out: Segment[][] = [];
  while (out.length < units) {
    const s = spot(used), g = spot(used);
    const join = JOINS.reduce((best, j) =>
      Math.abs(j - s.x) + Math.abs(j - g.x) < Math.abs(best - s.x) + Math.abs(best - g.x) ? j : best
    ) + 0.5;
    const out1 = { x: s.x, y: s.aisle }, in1 = { x: g.x, y: g.aisle };
    const path = polyline(
      s.aisle === g.aisle
        ? [s, out1, in1, g]
        : [s, out1, { x: join, y: s.aisle }, { x: join, y: g.aisle }, in1, g],
    );
    // Timed as a planner's answer is (planning/plan.ts): speeds along the path, stopping at its corners.
    // (Split at its speed phases: one segment speeding up, cruising and slowing down breaks the wire's linear
    // speed per segment, and a unit timed so jumped ahead at each segment's end.)
    applySpeedProfile(path, BUILTIN_PROFILES.soldier);
    if (path.length > 0) {
      out.push(splitAtSpeedPhases(path, BUILTIN_PROFILES.soldier));
    }
  }
  return out;
}

/**
 * The warm-up as steps (each a few ms to a few tens of ms of CPU when cold): settle the fleet, then one delay
 * repair each. {@link warmUpFleet} runs them with a timer between; a test can run them at once. `units`: fleet
 * size (default 20, at most 21: two bays each); `seen` is given the private scheduler (a test checks its fleet).
 */
export function fleetWarmUpSteps(
  out: FleetWarmUp,
  units = UNITS,
  seen?: (sched: FleetScheduler) => void,
): (() => void)[] {
  const unit = BUILTIN_PROFILES.soldier;
  const layer = warmUpLayer();
  const sched = new FleetScheduler(layer.width, layer.height, 0.05);
  const ids: string[] = [];
  const memo = new Map<string, number>();
  seen?.(sched);
  const steps: (() => void)[] = [() => {
    for (const path of jobs(units)) {
      const id = `warm-up-${ids.length}`;
      const u = sched.addStanding({ id, order: ids.length, unit }, path[0].start, 0);
      u.path = path;
      ids.push(id);
    }
    out.units = ids.length;
    sched.settle(0, ids);
    for (const u of sched.units.values()) if (u.status === "moving") out.moving++;
  }];
  for (let k = 0; k < DELAYS; k++) {
    steps.push(() => {
      // The k-th unit still driving at BEHIND + 2 s reports, as in bench/fleet.ts, 2 s behind its schedule; as
      // the session does (fleetSession.ts #progress), the rest of its path is repaired from there.
      const late = ids.map((id) => sched.units.get(id)!).filter((u) =>
        u.status === "moving" && u.traj.startTime < BEHIND && trajectoryEnd(u.traj) > BEHIND + 4
      );
      const u = late[(k * 7) % Math.max(1, late.length)];
      if (u === undefined) return;
      const time = BEHIND + 2;
      const at: Pose = trajectoryPose(u.traj, BEHIND);
      u.path = remainingPath(u.traj, BEHIND, unit);
      const changed = repairLate(sched, u, at, time, true, () => layer, memo);
      for (const id of changed) trajectoryFrom(sched.units.get(id)!.traj, time);
      out.repairs++;
      out.changed += changed.size;
    });
  }
  return steps;
}

/** A fresh, empty result. */
export function emptyFleetWarmUp(): FleetWarmUp {
  return { units: 0, moving: 0, repairs: 0, changed: 0, cpuMillis: 0, millis: 0, error: "" };
}

/**
 * Runs the warm-up in slices, `gapMs` apart (default 5 ms of timer, so that requests queued meanwhile are
 * served between slices). Never rejects: a failure must not keep the server from serving; it is reported in
 * the result instead.
 */
export async function warmUpFleet(gapMs = 5): Promise<FleetWarmUp> {
  const out = emptyFleetWarmUp();
  const t0 = performance.now();
  try {
    for (const step of fleetWarmUpSteps(out)) {
      await new Promise((resolve) => setTimeout(resolve, gapMs));
      const c0 = threadCpuMs();
      step();
      out.cpuMillis += threadCpuMs() - c0;
    }
  } catch (e) {
    out.error = e instanceof Error ? e.message : String(e);
  }
  out.millis = performance.now() - t0;
  return out;
}
