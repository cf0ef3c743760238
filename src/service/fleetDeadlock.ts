/**
 * Breaking standoffs among waiting fleet units (issue 12: "units that meet in a narrow place stop, yield or back
 * up a step"; "a priority rule that prevents deadlock"). A waiting unit remembers the unit standing for good in
 * its way (`failed.blocker`, fleetScheduler.ts scheduleAhead). Following those links from unit to unit, every
 * queue of waiting units ends in a head: a cycle (two units head-on in a one-tile aisle, each standing on the
 * other's path: no start delay can ever help them, nor anyone queued behind) or a single unit that is stuck
 * otherwise. The scheduler's priority order normally prevents such cycles; a delay repair's halts can still
 * leave one, and the queues behind it strand most of a warehouse fleet.
 *
 * Each head is broken by one of its units, by a priority rule (the unit added last gives way first, then the
 * others in turn): it is routed to its goal in space and time around every unit as it stands and moves now
 * (SIPP, fleetSipp.ts: in a loop of aisles it leaves by the other end and goes round); when none of them has such
 * a route, one steps aside to a refuge (fleetRefuge.ts; reached by a SIPP route, left back over the same ground,
 * fleetBackUp.ts asideAndBack) and waits there while the others pass. Every route is then timed by the scheduler
 * against the whole table like any other path (the guarantee stays with that check), except for units standing
 * so close that the table refuses any first step (halted side by side: fleetPinned.ts), which are checked exactly
 * against it instead. The units queued behind are retried, nearest first; heads left are looked for again,
 * within a wall-clock budget. Only units that turn in place get such routes (SippRouter.applies). Synchronous,
 * no I/O.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { lineSegment, poseAlong } from "../geometry/segment.ts";
import type { PassLayer } from "../maps/grid.ts";
import { trajectoryEnd, trajectoryEndPose } from "../motion/trajectory.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import { asideAndBack } from "./fleetBackUp.ts";
import { pinnedBy, waysOut, withPinnedLifted } from "./fleetPinned.ts";
import { refuges } from "./fleetRefuge.ts";
import { SippRouter } from "./fleetSipp.ts";

/** Rounds of breaking cycles and retrying the waiting units (each round breaks at least one cycle or stops). */
const MAX_ROUNDS = 24;

/** Default wall-clock budget of one call, milliseconds (SIPP's searches stop at it; rounds do not start after). */
export const STANDOFF_MS = 250;

/**
 * Fleet seconds before a unit that found neither a way round nor a refuge is tried again (on a later call with
 * the same `memo`: the units round it mostly still stand).
 */
export const RETRY_AFTER = 2;

/**
 * A unit waiting for good at `time` (no trajectory it could start, a path left), standing or still braking from a
 * halt, or parked at a refuge and there by `time` (fleetScheduler.ts park): where it stands (once stopped), or
 * null when it is not such a unit.
 */
function standingWaiter(u: FleetUnitState, time: number): Pose | null {
  if (u.status !== "waiting" || u.path.length === 0) return null;
  if (u.legOne !== undefined) return trajectoryEnd(u.traj) <= time + 1e-9 ? trajectoryEndPose(u.traj) : null;
  if (u.traj.segments.length > 0 && u.traj !== u.brake) return null;
  return trajectoryEndPose(u.traj);
}

/**
 * The unit in `u`'s way for good when it last failed, if that one still waits with the same trajectory and is
 * not in `dead` (units that could not be routed round: those queued behind them head their own queues).
 */
function link(
  sched: FleetScheduler,
  u: FleetUnitState,
  time: number,
  dead: ReadonlySet<FleetUnitState>,
): FleetUnitState | null {
  const b = u.failed?.blocker;
  const o = b ? sched.units.get(b.id) : undefined;
  return o && o.traj === b!.traj && !dead.has(o) && standingWaiter(o, time) ? o : null;
}

/**
 * The heads of the queues of units standing and waiting at `time`, following each one's link to the unit in its
 * way (see {@link link}): the cycles of links, each as its units in link order (a standoff: none can go first),
 * and the single units a chain of links ends in (it ran out of start delays, or one that moves or has arrived
 * stands in its way). Every unit has at most one link, so each head is found once, walking from each unit not
 * yet visited.
 */
export function standoffHeads(
  sched: FleetScheduler,
  time: number,
  dead: ReadonlySet<FleetUnitState> = new Set(),
): FleetUnitState[][] {
  const seen = new Map<FleetUnitState, number>();
  const heads: FleetUnitState[][] = [];
  let walk = 0;
  for (const start of sched.units.values()) {
    if (seen.has(start) || dead.has(start) || !standingWaiter(start, time)) continue;
    walk++;
    const trail: FleetUnitState[] = [];
    let u: FleetUnitState | null = start;
    while (u && !seen.has(u)) {
      seen.set(u, walk);
      trail.push(u);
      u = link(sched, u, time, dead);
    }
    // A unit met again on this walk closes a cycle; one seen on an earlier walk leads into a known head.
    if (u && seen.get(u) === walk) heads.push(trail.slice(trail.indexOf(u)));
    else if (!u) heads.push(trail.slice(-1));
  }
  return heads;
}

/** What {@link breakStandoffs} did (for tests and benches). */
export interface StandoffStats {
  /** Cycles of two or more units found (over all rounds). */
  cycles: number;
  /** Units routed around the others (heads of queues, one per cycle broken). */
  rerouted: number;
  /** Units that stepped aside to a refuge (when no unit of a cycle had a way round). */
  aside: number;
  /** Units queued behind those that could then start. */
  followed: number;
}

/**
 * Breaks the standoffs among waiting units at `time` (see the module doc): per round, each queue's head (one
 * unit of each cycle, by the priority rule) is routed around the others, and the units queued behind it are
 * retried, nearest first. `layer` gives a unit's map layer. Adds every unit whose trajectory changed to
 * `changed`. A head none of whose units finds a way (round, or aside) is left standing, and those queued behind
 * it head the queues of the next round; such units are not tried again within RETRY_AFTER fleet seconds by a
 * call with the same `memo`. Stops when no head is left, after MAX_ROUNDS, or when `budgetMs` of wall-clock time
 * (`now`) is spent; then the waiting units are retried (within the budget) when any unit went.
 */
export function breakStandoffs(
  sched: FleetScheduler,
  time: number,
  layer: (u: FleetUnitState) => PassLayer | null,
  changed: Set<string>,
  budgetMs = STANDOFF_MS,
  memo: Map<string, number> = new Map(),
  now: () => number = () => performance.now(),
): StandoffStats {
  const stats: StandoffStats = { cycles: 0, rerouted: 0, aside: 0, followed: 0 };
  const deadline = now() + budgetMs;
  const dead = new Set<FleetUnitState>();
  // Units for which no space-time route was found: not searched again in this call (the others they stood
  // among mostly still stand). A unit tried without success (no way round, or no refuge) is not tried again by
  // a later call with the same memo within RETRY_AFTER fleet seconds (a search cut by the budget would
  // otherwise spend every sync's budget again on the same unit).
  const noRoute = new Set<FleetUnitState>();
  const earlier = new Map(memo);
  const skip = (u: FleetUnitState) => time - (earlier.get(u.id) ?? -Infinity) < RETRY_AFTER;
  for (let round = 0; round < MAX_ROUNDS && now() < deadline; round++) {
    const heads = standoffHeads(sched, time, dead);
    if (heads.length === 0) break;
    // The units queued behind each (links reversed), to retry once the way clears.
    const behind = new Map<FleetUnitState, FleetUnitState[]>();
    for (const u of sched.units.values()) {
      const o = standingWaiter(u, time) ? link(sched, u, time, dead) : null;
      if (o) behind.set(o, [...(behind.get(o) ?? []), u]);
    }
    // Units halted side by side take each other's start tiles in SIPP's padded model: they may leave them
    // (fleetPinned.ts).
    const router = new SippRouter(
      sched,
      time,
      layer,
      deadline - now() + performance.now(),
      {
        sippSearched: 0,
        sippFound: 0,
      },
      new Set(),
      true,
    );
    const record = (id: string) => {
      changed.add(id);
      router.record(sched.units.get(id)!);
    };
    for (const head of heads) {
      if (head.length > 1) stats.cycles++;
      // Priority rule: the unit added last gives way first (deterministic; the others keep their place).
      const turn = [...head].sort((a, b) => b.order - a.order);
      let broke = false;
      for (const u of turn) {
        if (now() >= deadline) break;
        if (noRoute.has(u) || skip(u)) continue;
        const got = reroute(sched, time, router, u, layer(u));
        if (got === "none") noRoute.add(u);
        if (got !== "moving") {
          memo.set(u.id, time);
          continue;
        }
        record(u.id);
        stats.rerouted++;
        broke = true;
        stats.followed += retryBehind(sched, time, u, behind, record, () => now() < deadline);
        break;
      }
      // No unit of it finds a way round: one steps aside to a refuge (the article's yield) and comes back.
      for (const u of broke ? [] : turn) {
        if (now() >= deadline || skip(u)) continue;
        if (!stepAside(sched, time, router, layer(u), u)) {
          memo.set(u.id, time);
          continue;
        }
        record(u.id);
        stats.aside++;
        broke = true;
        stats.followed += retryBehind(sched, time, u, behind, record, () => now() < deadline);
        break;
      }
      // None can: the units queued behind it head the queues in the next round.
      if (!broke && now() < deadline) { for (const u of head) dead.add(u); }
    }
  }
  // Units the changes freed that were queued elsewhere (not behind a unit that went).
  if (stats.rerouted + stats.aside > 0) {
    for (const id of sched.retryWaiting(time, performance.now() + deadline - now())) changed.add(id);
  }
  return stats;
}

/**
 * Retries the units queued behind `u` (by `behind`), nearest first, and behind each that starts, while `inTime`;
 * `record` is told every unit whose trajectory changed. Returns how many started.
 */
function retryBehind(
  sched: FleetScheduler,
  time: number,
  u: FleetUnitState,
  behind: Map<FleetUnitState, FleetUnitState[]>,
  record: (id: string) => void,
  inTime: () => boolean,
): number {
  let started = 0;
  const queue = [...(behind.get(u) ?? [])];
  for (let i = 0; i < queue.length && inTime(); i++) {
    const w = queue[i];
    if (!standingWaiter(w, time) || w.legOne !== undefined) continue;
    const before = w.traj;
    sched.table.remove(w.id);
    if (sched.scheduleAhead(w, time, trajectoryEndPose(before))) {
      w.status = "moving";
      w.message = "";
      record(w.id);
      for (const id of sched.takeBumped()) record(id);
      started++;
      queue.push(...(behind.get(w) ?? []));
    } else sched.commit(w, before);
  }
  return started;
}

/**
 * Routes waiting unit `u` to its goal in space and time around every other unit as it is now (SIPP, `router`),
 * and has the scheduler time that route against the table (as one drive, else with the route's waits as planned
 * stops); commits the timing found ("moving"), else leaves the unit as it was ("none": no route found or the unit
 * gets none; "untimed": no timing of it keeps clear). A unit pinned by units standing close beside it
 * (fleetPinned.ts) is also routed from the tiles around it it may step to first, when the route from where it
 * stands does not keep clear of them.
 */
function reroute(
  sched: FleetScheduler,
  time: number,
  router: SippRouter,
  u: FleetUnitState,
  layer: PassLayer | null,
): "moving" | "none" | "untimed" {
  if (!SippRouter.applies(u)) return "none";
  // A unit still braking from its halt sets out from where the braking ends (the scheduler keeps the braking in
  // front, fleetScheduler.ts schedule).
  const pose = trajectoryEndPose(u.traj);
  const saved = { traj: u.traj, path: u.path, legOne: u.legOne };
  const pinned = layer ? pinnedBy(sched, u, pose, time) : [];
  const goal = u.path[u.path.length - 1].end;
  const ways = layer
    ? waysOut(u.unit, layer, pose, pinned, goal, sched.table.dt, (from) => {
      // Searched as the ways are asked for (the router routes to the end of the unit's path).
      const tried = u.path;
      u.path = saved.path;
      try {
        return router.routes(u, from);
      } finally {
        u.path = tried;
      }
    })
    : router.routes(u, pose).paths.map((path) => ({ path, stops: null }));
  let found = false;
  for (const way of ways) {
    found = true;
    const setUp = () => {
      sched.table.remove(u.id);
      // A unit parked at a refuge goes from there by the new route (not by its second leg).
      u.legOne = undefined;
      u.path = way.path;
    };
    setUp();
    // Units standing too close for the table to let it set out are checked exactly instead (fleetPinned.ts).
    let ok = withPinnedLifted(sched, u, pose, time, () => sched.schedule(u, time, pose));
    // SIPP's own waits as planned stops (a standing unit only: a braking one is timed from its stop by schedule).
    if (!ok && way.stops && saved.traj.segments.length === 0) {
      setUp();
      ok = withPinnedLifted(sched, u, pose, time, () => {
        const traj = sched.timing(u, way.path, time, pose, Infinity, way.stops!);
        if (traj !== null) sched.commit(u, traj);
        return traj !== null;
      });
    }
    if (ok) {
      u.status = "moving";
      u.message = "gives way in a standoff: goes round the units standing in its way";
      u.failed = undefined;
      return "moving";
    }
    u.path = saved.path;
    u.legOne = saved.legOne;
    sched.commit(u, saved.traj);
  }
  u.path = saved.path;
  return found ? "untimed" : "none";
}

/**
 * Waiting unit `u` steps aside (fleetRefuge.ts refuges: near, clear of every other unit's path and stand, on its
 * right-hand side first): a space-time route there around the others (SIPP), then back over the same ground and
 * on along its path (fleetBackUp.ts asideAndBack), timed as a refuge's legs; when no wait at the refuge lets it
 * go on yet, it parks there and waits (retried after changes). Returns whether it got a trajectory; else the unit
 * is left as it was.
 */
function stepAside(
  sched: FleetScheduler,
  time: number,
  router: SippRouter,
  layer: PassLayer | null,
  u: FleetUnitState,
): boolean {
  // A unit parked at a refuge is aside already.
  if (!layer || !SippRouter.applies(u) || u.legOne !== undefined) return false;
  const pose = trajectoryEndPose(u.traj);
  const saved = { traj: u.traj, path: u.path };
  const pinned = pinnedBy(sched, u, pose, time);
  for (const spot of refuges(layer, sched, u, pose, ASIDE_CANDIDATES)) {
    // The router routes to the end of the unit's path: a zero-length one ending at the refuge, for each search
    // (waysOut searches as its ways are asked for).
    const toSpot = (from: Pose) => {
      u.path = [lineSegment(spot, 0)];
      try {
        return router.routes(u, from);
      } finally {
        u.path = saved.path;
      }
    };
    for (const out of waysOut(u.unit, layer, pose, pinned, spot, sched.table.dt, toSpot)) {
      const way = asideAndBack(u.unit, out.path, saved.path);
      if (!way || passesGoal(sched, u, way.path.slice(way.legOne))) continue;
      if (tryAside(sched, time, u, pose, saved, way)) return true;
    }
  }
  return false;
}

/**
 * Times waiting unit `u` (standing at `pose`; as it was: `saved`) aside and back by `way`: moving on, else parked
 * at the refuge; returns whether it got a trajectory, else leaves it as it was.
 */
function tryAside(
  sched: FleetScheduler,
  time: number,
  u: FleetUnitState,
  pose: Pose,
  saved: { traj: FleetUnitState["traj"]; path: Segment[] },
  way: { path: Segment[]; legOne: number },
): boolean {
  const setUp = () => {
    sched.table.remove(u.id);
    u.path = way.path;
    u.legOne = way.legOne;
  };
  setUp();
  // Each timing kept only if clear of the units pinning it (fleetPinned.ts; lifted from the table meanwhile).
  let parked = false;
  let ok = withPinnedLifted(sched, u, pose, time, () => sched.schedule(u, time, pose));
  if (!ok) {
    setUp();
    ok = parked = withPinnedLifted(sched, u, pose, time, () => sched.park(u, time, pose));
  }
  if (ok && !parked) {
    u.status = "moving";
    u.message = "steps aside to a refuge in a standoff to let the others pass, then goes on";
  } else if (ok) {
    u.status = "waiting";
    u.message = "steps aside to a refuge in a standoff; goes on when it can (retried after changes)";
  } else {
    u.path = saved.path;
    u.legOne = undefined;
    sched.commit(u, saved.traj);
    return false;
  }
  u.failed = undefined;
  return true;
}

/**
 * Whether `legs` come within both radii (and a margin) of where another unit will stand for good: its goal (the
 * end of the path it still has to drive, else of its trajectory). A refuge whose way back passes there is a trap
 * (a dead end behind the goal of the unit it let pass).
 */
function passesGoal(sched: FleetScheduler, u: FleetUnitState, legs: Segment[]): boolean {
  const ends: { x: number; y: number; r: number }[] = [];
  for (const o of sched.units.values()) {
    if (o === u) continue;
    const r = u.unit.boundingRadius + o.unit.boundingRadius + GOAL_MARGIN;
    // A unit with a path still to drive stands for good at its end; one without, where its trajectory ends.
    const e = o.path.length > 0 ? o.path[o.path.length - 1].end : trajectoryEndPose(o.traj);
    ends.push({ x: e.x, y: e.y, r });
  }
  for (const seg of legs) {
    for (let d = 0; d <= seg.length + 1e-9; d += 0.25) {
      const p = poseAlong(seg, Math.min(d, seg.length));
      if (ends.some((e) => Math.hypot(e.x - p.x, e.y - p.y) < e.r)) return true;
    }
  }
  return false;
}

/**
 * Refuges tried per unit stepping aside (nearest first; a refuge near by may be out of reach, across a wall, or
 * a trap: see passesGoal).
 */
const ASIDE_CANDIDATES = 8;

/** Clearance (tiles) beyond both radii that a refuge's way back keeps from another unit's goal. */
const GOAL_MARGIN = 0.1;
