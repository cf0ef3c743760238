/**
 * Detours around congestion (issue 12; the article's unit that "decelerates and replans around the problem
 * tile"). Timing alone (fleetScheduler.ts) keeps each unit's geometric path, so units whose paths all meet in
 * one place queue there. A unit that has not set out yet and would arrive much later than driving its path alone
 * gets alternative geometry. Where its path meets the others when it sets out now (the middle of the reservation
 * table's first conflicts) is its problem spot. Via points beside it at several offsets, on the right-hand side
 * (the same side for every unit, so crossing flows turn one way, as on a roundabout: the article's "yield to the
 * right"; the left only where the right is blocked), are planned by the fleet's planners in two legs (start to
 * via, then via to goal from the first leg's end pose; the planning layer takes no per-tile cost overlay, so
 * "around these tiles" is asked as an intermediate goal). The joined path is profiled as one drive and timed by
 * the same scheduler against every reservation; the late units are re-timed latest first, each taking its
 * earliest-arriving variant (its current path and its trajectory from before included), and the round is kept only
 * when the makespan they promise is shorter. Each committed trajectory is checked against the whole table, so the
 * fleet stays conflict-free whatever is kept. Bounded: a budget of the server thread's CPU time (the pass runs
 * before the late units' trajectories are sent; see threadCpuMs), units per round, via points per unit, rounds,
 * legs planned per pass.
 *
 * Units that turn in place (discs such as soldiers), when the caller gives the map layer, also get a route searched
 * in space and time against the table as it is when each is re-timed (SIPP, fleetSipp.ts): its geometry is timed
 * like the other candidates, once more with SIPP's waits as stops (fleetWaits.ts). In the first round they get
 * SIPP routes alone (no legs to plan: a short budget reaches every late unit), from the second on via points too
 * (both together came closest to the slowest solo duration on the circle crossing; see SIPP_VIAS_FROM_ROUND).
 * A polish round ends the pass: the unit that sets the makespan goes first with the late units in its way lifted.
 * The default budget grows with the late units and shrinks in big fleets (defaultBudgetMs).
 *
 * @module
 */
import process from "node:process";
import type { Pose, Segment } from "../geometry/types.ts";
import type { PassLayer } from "../maps/grid.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../motion/speedProfile.ts";
import { type Trajectory, trajectoryEnd, trajectoryPose } from "../motion/trajectory.ts";
import { duration, reservation, resettle, resettleBest } from "./fleetRetime.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import { SippOccupancy, SippRouter } from "./fleetSipp.ts";

/** A leg to plan: from a pose to a via point (or, with `to` null, to the unit's goal). */
export interface DetourLeg {
  /** The unit (its profile, planner and goal). */
  unit: FleetUnitState;
  /** Start pose of the leg. */
  from: Pose;
  /** The via point, or null for the unit's own goal. */
  to: { x: number; y: number } | null;
}

/** Plans legs (in parallel): each a profiled path, or null when the planner found none. */
export type LegPlanner = (legs: DetourLeg[]) => Promise<(Segment[] | null)[]>;

/** Bounds and map access of a detour pass. */
export interface DetourOptions {
  /** Late units given via points per round (0: no detours; halved after a round that did not help). */
  maxUnits: number;
  /** Whether the unit's footprint fits at (x, y) on the map (some heading). */
  fits: (u: FleetUnitState, x: number, y: number) => boolean;
  /** Rounds (a unit detoured in one round may detour again around a new spot in the next). */
  rounds?: number;
  /**
   * Budget of the pass, milliseconds on `now` (default: defaultBudgetMs, sized to the work): no round starts after
   * it, no second legs are planned once it is spent, and units not re-timed by then keep their trajectories (the
   * round's best so far is kept or dropped by the same makespan rule). Infinity: bounded by rounds and legs only.
   */
  budgetMs?: number;
  /**
   * The clock (milliseconds) the budget is measured on; by default the CPU time of the thread the pass runs on
   * (threadCpuMs; tests pass a fake).
   */
  now?: () => number;
  /**
   * The map layer a unit plans on. With it, late units that turn in place also get a route searched in space
   * and time (SIPP, fleetSipp.ts) against the table as it is when they are re-timed; without it, or for units
   * that turn on a radius, only via points.
   */
  layer?: (u: FleetUnitState) => PassLayer | null;
}

/** What a detour pass did (for the bench and the logs). */
export interface DetourStats {
  /** Units that were late and given via points, summed over rounds. */
  tried: number;
  /** Legs planned. */
  plans: number;
  /** Units whose trajectory changed (a detour or an earlier re-timing). */
  improved: number;
  /** Of those, units now on a detour. */
  detoured: number;
  /** Rounds started. */
  rounds: number;
  /** Whether the budget ended the pass (or cut a round short). */
  outOfTime: boolean;
  /** Space-time (SIPP) routes searched, and found. */
  sippSearched: number;
  sippFound: number;
}

/**
 * A unit is late when it arrives more than this times its solo driving time after now... (the units a pass may
 * change, withheld until it ends). 1.08 did better on the circles (in process, circles 50 and 100 each in five
 * splits into two batches at the default budget, mean makespan / slowest solo 1.32 and 1.32 against 1.34 and 1.38;
 * over gRPC circle 50 1.30 three runs of three against 1.33) but the 20-unit e2e crossing came to 1.32x (so did 1.10
 * and 1.12).
 */
const LATE_RATIO = 1.15;
/** ...and more than this many seconds later. */
const LATE_SECONDS = 0.5;
/**
 * Offsets of the via points from a problem spot beyond the unit's bounding radius, as fractions of half the
 * straight distance from start to goal (a crowd where many paths meet grows with the distances they come from),
 * at least MIN_OFFSET tiles.
 */
const OFFSETS = [0.1, 0.2, 0.3, 0.45, 0.6, 0.8];
/** The smallest offset, tiles. */
const MIN_OFFSET = 1.5;
/** Conflicts (with distinct units) looked at to find a problem spot. */
const SPOT_TRIES = 8;
/** Default rounds (each a set of the latest units; with a budget, sized to the time left). */
const ROUNDS = 8;
/** Rounds in a row that did not help end the pass (where detours do not help, as in one-tile aisles). */
const MAX_REJECTED = 2;
/** Legs planned per pass: no round starts once this many were planned. */
const MAX_PLANS = 4096;
/** Legs planned in one call between budget checks (a call is not interrupted; the pool plans it in parallel). */
const PLAN_CHUNK = 16;
/**
 * From this round on, units SIPP routes are also given via points (both kinds of candidate). The first round
 * gives them SIPP routes alone: cheap (no legs planned), so a short budget is spent on every late unit; the via
 * points' legs are planned once time remains (in process, circles 30-100, load ~15: mean makespan / slowest solo
 * at a 600 ms budget 1.56 against 1.64 SIPP alone and 2.16 with via points from the first round; at 1500 ms 1.45,
 * 1.55 and 1.43).
 */
const SIPP_VIAS_FROM_ROUND = 1;
/**
 * Rounds of at most this many units are run both ways, one at a time and stood up first, keeping the better
 * (fleetRetime.ts resettleBest); bigger rounds one at a time only (twice the work of the bigger rounds bought fewer
 * rounds: circle 100 in process at a 1500 ms budget 1.362x against 1.295). Sized by the round, not by the time left
 * (25 ms per late unit before): the pass's choices do not depend on how fast the machine ran it (with them, circle
 * 100 at the default budget came to 1.278-1.458x from run to run).
 */
const BOTH_MAX_UNITS = 24;
/**
 * The default budget of a pass (ms of the thread's CPU time, see threadCpuMs; measured on the wall clock before),
 * sized to the work: BUDGET_BASE_MS plus BUDGET_PER_LATE_MS per late unit (detourCandidates), at most BUDGET_CAP_MS
 * and at most the larger of BUDGET_FLEET_MS / units and BUDGET_SMALL_MS / units^2 in the fleet. The pass runs
 * before the late units' trajectories are sent; in a big fleet the settle before it is long already and each check
 * is against a bigger table, and a fleet sent in batches gets a pass per batch (8room 500 over gRPC, two batches
 * of ~340 and 500: every unit's first trajectory 2442 ms at a 1000 ms budget against 1416 at 300, same makespan;
 * at load ~2, 1740 ms at 200 and 2150 at 300 against a peer without detours of ~1250), so its allowance shrinks
 * (500 units: 200 ms, 300: 333 ms). Circles 50 and 100 (~40 and ~90 late) get 1000 and 2000 ms: circle 100 in
 * process, 1000 ms of CPU ended after its third round (1.295x the slowest solo drive), 2000 ms let it end by itself
 * (1.256x, ~1400 ms; the legs' planning, in the planners' pool over gRPC, not counted).
 */
export function defaultBudgetMs(late: number, units: number): number {
  const n = Math.max(1, units);
  return Math.min(
    BUDGET_CAP_MS,
    BUDGET_BASE_MS + BUDGET_PER_LATE_MS * late,
    Math.max(BUDGET_FLEET_MS / n, BUDGET_SMALL_MS / (n * n)),
  );
}
/** See defaultBudgetMs. */
const BUDGET_BASE_MS = 200, BUDGET_PER_LATE_MS = 20, BUDGET_CAP_MS = 2000, BUDGET_FLEET_MS = 100_000;
/** See defaultBudgetMs: 2000 ms at 100 units, below BUDGET_FLEET_MS / units from 200 units on. */
const BUDGET_SMALL_MS = 20_000_000;

/**
 * The CPU time (ms) of the thread calling it, the default clock of a pass's budget: over gRPC the pass shares the
 * machine, and on the wall clock its rounds, so its result, shrank with the load (circle 100 1.31-2.4x the slowest
 * solo drive over a session). Where the runtime lacks it, the wall clock.
 */
export const threadCpuMs: () => number = (() => {
  const cpu = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;
  if (typeof cpu !== "function") return () => performance.now();
  return () => {
    const u = cpu.call(process);
    return (u.user + u.system) / 1000;
  };
})();

/**
 * Margin (ms) for the CPU clock's coarseness in {@link budgetSpent}: a reading may lag the thread's true CPU time
 * by up to a scheduler tick (4 ms at 250 Hz).
 */
const CPU_TICK_MS = 20;

/**
 * Whether a budget on `cpu` (a thread's CPU time, ms) is spent by `deadline`, asking `cpu` only when it could be:
 * a thread's CPU time grows no faster than the wall clock (`wall`, ms), so while the wall time since the last
 * reading is below what was left then (less CPU_TICK_MS), the answer is no without reading. The same answers as
 * reading every time; reading the thread's CPU time costs ~40 us a call (node:process threadCpuUsage), 6% of circle
 * 100's pass at ~1,600 calls.
 */
export function budgetSpent(
  deadline: number,
  cpu: () => number = threadCpuMs,
  wall: () => number = () => performance.now(),
): () => boolean {
  let wall0 = -Infinity, left = 0;
  return () => {
    const w = wall();
    if (w >= wall0 && w - wall0 < left - CPU_TICK_MS) return false;
    const c = cpu();
    wall0 = w;
    left = deadline - c;
    return left <= 0;
  };
}

/** When the unit stands at its goal for good (Infinity for a unit standing with a path still to drive). */
function arrival(u: FleetUnitState): number {
  return u.traj.segments.length > 0 ? trajectoryEnd(u.traj) : Infinity;
}

/** The pose a unit stands at now, if it has not set out at `time` and can be re-timed from there. */
function notSetOut(u: FleetUnitState, time: number): Pose | null {
  if (u.status === "unreachable" || u.legOne !== undefined || u.path.length === 0) return null;
  if (u.traj.segments.length > 0 && u.traj.startTime < time - 1e-9) return null;
  // Moving at its start: braking from a halt (fleetScheduler.ts haltAt), it has set out.
  if ((u.traj.segments[0]?.startSpeed ?? 0) > 0) return null;
  return u.traj.startPose;
}

/**
 * The units a detour pass at `time` may change: those that have not set out and arrive late (see LATE_RATIO).
 * A pass re-times only these (and never makes another unit late), so the others' trajectories can be sent before
 * it runs.
 */
export function detourCandidates(sched: FleetScheduler, time: number): Set<string> {
  const out = new Set<string>();
  for (const u of sched.units.values()) {
    if (notSetOut(u, time) && isLate(u, time)) out.add(u.id);
  }
  return out;
}

/**
 * The solo driving time of the path a detour replaced, by the detour path (the shortest drive known for its goal).
 * A unit on a detour is late against that, not against its detour's own length: judged by the detour's (often
 * 1.2-1.3x the straight drive on the circles), units arriving last were no longer late, so later rounds and
 * later batches' passes left them alone (in process at the default budget, circle 100 in batches of 40 + 60 and
 * 85 + 15: 1.363 and 1.350 -> 1.335 and 1.251x the slowest solo drive; one batch, and circle 50, the same either
 * way). Kept per unit with the path's two ends: a path from elsewhere or to elsewhere (a goal change, a repair
 * after it set out) counts its own length, the same trip's path made anew (halted at its start by a unit added
 * in its way: the remaining path is a new array) keeps it (keyed by the path array, circle 100 in batches of
 * 30 + 70 ended 1.335x, its last unit no longer late against its 40.6 s detour).
 */
const SOLO = new WeakMap<FleetUnitState, { from: Pose; to: Pose; solo: number }>();

/** The solo driving time a unit's lateness is judged by (see SOLO). */
function soloOf(u: FleetUnitState): number {
  const own = duration(u.path), k = SOLO.get(u);
  if (!k || u.path.length === 0) return own;
  const from = u.path[0].start, to = u.path[u.path.length - 1].end;
  const same = Math.hypot(from.x - k.from.x, from.y - k.from.y) < 1e-6 &&
    Math.hypot(to.x - k.to.x, to.y - k.to.y) < 1e-6;
  return same ? Math.min(own, k.solo) : own;
}

/**
 * Whether a unit arrives late: more than LATE_RATIO times its solo driving time (`solo`, by id, if given, else
 * soloOf) and LATE_SECONDS after `time`.
 */
function isLate(u: FleetUnitState, time: number, solo?: ReadonlyMap<string, number>): boolean {
  const alone = solo?.get(u.id) ?? soloOf(u), by = arrival(u) - time;
  return by > LATE_RATIO * alone && by - alone > LATE_SECONDS;
}

/**
 * Where the unit's path, driven from `pose` at `time` without waiting, meets the others: the middle one (along
 * the path) of its first conflicts with distinct units away from its two ends (a queue at the start or at the
 * goal is not helped by a detour), with the path's heading there; null when there is none.
 */
function problemSpot(sched: FleetScheduler, u: FleetUnitState, pose: Pose, time: number): Pose | null {
  const probe: Trajectory = { startTime: time, startPose: pose, segments: u.path };
  const cand = {
    id: u.id,
    traj: probe,
    radius: u.unit.boundingRadius,
    speed: u.unit.maxSpeed,
    deceleration: u.unit.deceleration,
  };
  const end = u.path[u.path.length - 1].end;
  const ignore = new Set<string>();
  const near = 2 * u.unit.boundingRadius + 1;
  const times: number[] = [];
  for (let i = 0; i < SPOT_TRIES; i++) {
    const c = sched.table.firstConflict(cand, time, ignore);
    if (c === null || c.forever) break;
    ignore.add(c.id);
    const p = trajectoryPose(probe, c.time);
    if (Math.hypot(p.x - pose.x, p.y - pose.y) > near && Math.hypot(p.x - end.x, p.y - end.y) > near) {
      times.push(c.time);
    }
  }
  if (times.length === 0) return null;
  times.sort((a, b) => a - b);
  return trajectoryPose(probe, times[Math.floor(times.length / 2)]);
}

/**
 * Via points beside `spot`, one per offset: on the right-hand side (y grows down the map, so the right of heading h
 * is h + pi/2; every unit passing a crowd on the same side makes the crossing flows turn one way, as on a
 * roundabout, where passing on either side makes them cut through each other), on the left where the right one
 * does not fit; kept when the footprint fits there and the straight way through it could still arrive before
 * `late` (seconds of driving at top speed).
 */
function viaPoints(
  u: FleetUnitState,
  spot: Pose,
  start: Pose,
  late: number,
  fits: DetourOptions["fits"],
): { x: number; y: number }[] {
  const goal = u.path[u.path.length - 1].end;
  const out: { x: number; y: number }[] = [];
  const half = Math.hypot(goal.x - start.x, goal.y - start.y) / 2;
  for (const f of OFFSETS) {
    for (const side of [1, -1]) {
      const a = spot.heading + side * Math.PI / 2, r = Math.max(MIN_OFFSET, f * half) + u.unit.boundingRadius;
      const v = { x: spot.x + r * Math.cos(a), y: spot.y + r * Math.sin(a) };
      const drive = (Math.hypot(v.x - start.x, v.y - start.y) + Math.hypot(goal.x - v.x, goal.y - v.y)) /
        u.unit.maxSpeed;
      if (drive >= late || !fits(u, v.x, v.y)) continue;
      out.push(v);
      break;
    }
  }
  return out;
}

/** Two legs joined and profiled as one drive (the unit does not stop at the via point unless it must). */
function joined(u: FleetUnitState, a: Segment[], b: Segment[]): Segment[] {
  const segs = [...a, ...b].map((s) => ({ ...s, start: { ...s.start }, end: { ...s.end } }));
  applySpeedProfile(segs, u.unit);
  return splitAtSpeedPhases(segs, u.unit);
}

/**
 * One detour pass at fleet time `time` over the units that have not set out and are late; returns the ids whose
 * trajectories changed and what it did. Units are re-timed latest first, each against the whole table; only
 * units in {@link detourCandidates} change.
 */
export async function detourLate(
  sched: FleetScheduler,
  time: number,
  plan: LegPlanner,
  opts: DetourOptions,
): Promise<{ changed: Set<string>; stats: DetourStats }> {
  const changed = new Set<string>();
  const stats: DetourStats = {
    tried: 0,
    plans: 0,
    improved: 0,
    detoured: 0,
    rounds: 0,
    outOfTime: false,
    sippSearched: 0,
    sippFound: 0,
  };
  if (opts.maxUnits <= 0) return { changed, stats };
  // Only these may change (the others' trajectories may have been sent already).
  const mayChange = detourCandidates(sched, time);
  // Their solo drives as the pass starts: a unit the pass detours stays late against it (see SOLO).
  const solo = new Map<string, number>();
  for (const id of mayChange) solo.set(id, soloOf(sched.units.get(id)!));
  const now = opts.now ?? threadCpuMs;
  const deadline = now() + (opts.budgetMs ?? defaultBudgetMs(mayChange.size, sched.units.size));
  // A search is not cut short by a wall-clock deadline on the CPU clock (each is bounded by its expansions; the
  // budget is watched between searches): the same work whatever the machine's load.
  const sippDeadline = () => opts.now ? performance.now() + (deadline - now()) : Infinity;
  // On the default clock, read only when the budget could be spent (budgetSpent); a caller's clock every time.
  const over = opts.now ? () => now() >= deadline : budgetSpent(deadline);
  const spent = () => {
    if (!over()) return false;
    stats.outOfTime = true;
    return true;
  };
  /** Legs planned in chunks of PLAN_CHUNK while the budget lasts (null for those not planned). */
  const planWithin = async (legs: DetourLeg[]): Promise<(Segment[] | null)[]> => {
    const out: (Segment[] | null)[] = [];
    for (let i = 0; i < legs.length; i += PLAN_CHUNK) {
      const chunk = legs.slice(i, i + PLAN_CHUNK);
      if (i > 0 && spent()) out.push(...chunk.map(() => null));
      else {
        out.push(...await plan(chunk));
        stats.plans += chunk.length;
      }
    }
    return out;
  };
  const detoured = new Set<string>();
  // Every router of the pass brings one occupancy up to date (fleetSipp.ts SippOccupancy).
  const occupancy = new SippOccupancy();
  const bySipp = (u: FleetUnitState) =>
    opts.layer !== undefined && SippRouter.applies(u) && opts.layer(u) !== null;
  // Rounds are not sized to the time left (the budget cuts a round short): the same choices whatever the speed.
  let cap = opts.maxUnits, rejected = 0;
  for (let round = 0; round < (opts.rounds ?? ROUNDS) && cap > 0 && stats.plans < MAX_PLANS; round++) {
    if (spent()) break;
    stats.rounds++;
    // The latest units (at most `cap`: halved after a round that did not help, to focus on the worst), latest
    // first: they set the makespan a round is judged by, and a round the budget cuts short has tried them (in
    // priority order, circle 50 kept a unit standing and circle 100 ended 1.70x; latest first 1.91x and 1.61x).
    const lateAll: { u: FleetUnitState; pose: Pose; by: number }[] = [];
    for (const u of sched.units.values()) {
      const pose = notSetOut(u, time);
      if (pose && isLate(u, time, solo)) lateAll.push({ u, pose, by: arrival(u) - time });
    }
    lateAll.sort((a, b) => b.by - a.by);
    const late: { u: FleetUnitState; pose: Pose; spot: Pose; by: number; vias: boolean }[] = [];
    for (const l of lateAll) {
      // Each spot costs up to SPOT_TRIES checks of a whole path: the budget is watched here too.
      if (late.length >= cap || (late.length > 0 && spent())) break;
      // Units SIPP routes (fleetSipp.ts) need no problem spot or via points in the first round: their route is
      // searched when they are re-timed, against the table as it is then. Later, via points too (where a spot is).
      const sippToo = bySipp(l.u);
      if (sippToo && round < SIPP_VIAS_FROM_ROUND) late.push({ ...l, spot: l.pose, vias: false });
      else {
        const spot = problemSpot(sched, l.u, l.pose, time);
        if (spot) late.push({ ...l, spot, vias: true });
        else if (sippToo) late.push({ ...l, spot: l.pose, vias: false });
      }
    }
    if (late.length === 0) break;
    stats.tried += late.length;
    const vias = late.map((l) => l.vias ? viaPoints(l.u, l.spot, l.pose, l.by, opts.fits) : []);
    const firstLegs: DetourLeg[] = late.flatMap((l, i) =>
      vias[i].map((to) => ({ unit: l.u, from: l.pose, to }))
    );
    const ones = await planWithin(firstLegs);
    if (spent()) break;
    const secondLegs: DetourLeg[] = [];
    const pairs: { i: number; one: Segment[] }[] = [];
    let k = 0;
    late.forEach((l, i) => {
      for (let j = 0; j < vias[i].length; j++, k++) {
        const one = ones[k];
        if (!one || one.length === 0) continue;
        pairs.push({ i, one });
        secondLegs.push({ unit: l.u, from: one[one.length - 1].end, to: null });
      }
    });
    const twos = await planWithin(secondLegs);
    const variants: Segment[][][] = late.map(() => []);
    pairs.forEach((p, j) => {
      const two = twos[j];
      if (two && two.length > 0) variants[p.i].push(joined(late[p.i].u, p.one, two));
    });
    const router = () =>
      opts.layer
        ? new SippRouter(
          sched,
          time,
          opts.layer,
          sippDeadline(),
          stats,
          undefined,
          false,
          occupancy,
        )
        : undefined;
    // One at a time, and for a small round both ways (see resettleBest).
    const both = late.length <= BOTH_MAX_UNITS;
    const ok = resettleBest(sched, time, late, variants, changed, detoured, spent, router, both);
    if (ok) {
      rejected = 0;
      cap = opts.maxUnits;
    } else if (++rejected >= MAX_REJECTED) break;
    else cap = Math.floor(late.length / 2);
  }
  polish(sched, time, opts, mayChange, changed, detoured, spent, sippDeadline, stats, occupancy);
  for (const id of changed) {
    const u = sched.units.get(id)!;
    if (u.path.length === 0) continue;
    const from = u.path[0].start, to = u.path[u.path.length - 1].end;
    SOLO.set(u, { from, to, solo: Math.min(soloOf(u), solo.get(id) ?? Infinity) });
  }
  stats.improved = changed.size;
  stats.detoured = detoured.size;
  return { changed, stats };
}

/** Units whose trajectories the polish round lifts for the unit that sets the makespan, at most. */
const POLISH_BLOCKERS = 8;
/** Polish tries at most (each on the latest unit then). */
const POLISH_TRIES = 8;

/**
 * The polish round, while the budget lasts: the unit that arrives last (the makespan) is timed first with the units
 * in the way of its own path (not set out yet, up to POLISH_BLOCKERS, the first conflicts of its path driven now)
 * lifted from the table, then those are re-timed one at a time around it (resettle, "lift"); kept only when all of
 * them arrive earlier than it did and none is left standing. Rounds re-time the latest units against everyone
 * else, so one whose own way is held by units that are not late stays last. The unit that arrives last is picked
 * among all the pass may change, late or not: one on a detour is seldom late against the detour's own length
 * (circle 50 in one batch, in process at the default budget: 1.309 -> 1.252x the slowest solo drive). On the wall
 * clock, over gRPC, this rule had spread circle 50 to 1.30-1.63 with the load; the CPU clock (threadCpuMs) gives
 * the pass the same work whatever the load.
 */
function polish(
  sched: FleetScheduler,
  time: number,
  opts: DetourOptions,
  mayChange: ReadonlySet<string>,
  changed: Set<string>,
  detoured: Set<string>,
  spent: () => boolean,
  sippDeadline: () => number,
  stats: DetourStats,
  occupancy: SippOccupancy,
): void {
  const tried = new Set<string>();
  for (let k = 0; k < POLISH_TRIES && !spent(); k++) {
    let last: FleetUnitState | null = null, pose: Pose | null = null;
    for (const u of sched.units.values()) {
      const p = notSetOut(u, time);
      if (
        p && mayChange.has(u.id) && !tried.has(u.id) &&
        (last === null || arrival(u) > arrival(last))
      ) {
        [last, pose] = [u, p];
      }
    }
    if (!last || !pose || arrival(last) === Infinity) return;
    tried.add(last.id);
    const probe = reservation(last, { startTime: time, startPose: pose, segments: last.path });
    const ignore = new Set<string>([last.id]);
    const lifted: { u: FleetUnitState; pose: Pose }[] = [];
    for (let i = 0; i < 2 * POLISH_BLOCKERS && lifted.length < POLISH_BLOCKERS; i++) {
      const c = sched.table.firstConflict(probe, time, ignore);
      if (c === null) break;
      ignore.add(c.id);
      const b = sched.units.get(c.id), bp = b && notSetOut(b, time);
      if (b && bp && mayChange.has(b.id) && b.traj.segments.length > 0) lifted.push({ u: b, pose: bp });
    }
    if (lifted.length === 0) continue;
    lifted.sort((a, b) => arrival(b.u) - arrival(a.u));
    const late = [{ u: last, pose }, ...lifted];
    const sipp = opts.layer
      ? new SippRouter(
        sched,
        time,
        opts.layer,
        sippDeadline(),
        stats,
        new Set(lifted.map((l) => l.u.id)),
        false,
        occupancy,
      )
      : undefined;
    resettle(sched, time, late, late.map(() => []), changed, detoured, spent, sipp, "lift");
  }
}
