/**
 * Space-time routes for the detour pass (issue 12): safe-interval path planning (search/sippSpace.ts on the one
 * A* core) over when each tile is taken in the fleet's reservation table (motion/safeIntervals.ts), for units that
 * turn in place. SIPP only proposes geometry: the route's tile centres (straight runs joined) as LINE segments
 * profiled with the unit's speed profile; the scheduler then times it against the whole table like any other
 * candidate (the guarantee stays with that check; SIPP's model ignores acceleration), once as one drive and once
 * with SIPP's waits as planned stops (a real stop: braking, standing, setting out again; fleetWaits.ts). Its
 * string-pulled form was offered too until it was seen never to be taken (in process, circles 30-100: 0 of ~400
 * units; the tile centres 207) while costing half the timing time. Units that turn on a radius get none (they keep
 * the via-point detours), nor do units without a speed.
 *
 * @module
 */
import type { Pose, Segment } from "../geometry/types.ts";
import { lineSegment } from "../geometry/segment.ts";
import type { PassLayer } from "../maps/grid.ts";
import { clearanceClass } from "../maps/layer.ts";
import { type MovingUnit, TileOccupancy } from "../motion/safeIntervals.ts";
import { applySpeedProfile, splitAtSpeedPhases } from "../motion/speedProfile.ts";
import type { Trajectory } from "../motion/trajectory.ts";
import { COST_SCALE, SearchWorkspace } from "../search/astar.ts";
import { type SippRoute, sippRoute, SippSpace } from "../search/sippSpace.ts";
import type { FleetScheduler, FleetUnitState } from "./fleetScheduler.ts";
import type { PlannedStop } from "./fleetWaits.ts";

/**
 * Distance kept beyond the two radii while a tile is held, tiles: half a straight step (the swept move) plus the
 * unit's own motion between two table samples is added per unit.
 */
export const SIPP_PAD = 0.35;
/** Expansions per search. */
const SIPP_EXPANSIONS = 40_000;
/** States (tile, interval) per search. */
const SIPP_STATES = 1 << 16;

/** Counters a router adds to (the detour pass's stats). */
export interface SippCounts {
  /** Searches run. */
  sippSearched: number;
  /** Routes found. */
  sippFound: number;
}

/**
 * Tile occupancy kept from one router to the next within a detour pass (one per searching reach, with the trajectory
 * each unit was sampled with): a router brings it up to date when it searches, sampling again only the units whose
 * trajectory changed since. Each round's and each polish try's router had sampled every unit again (circle 100 in
 * process: ~15% of the pass). The same answers: a unit's tiles depend on its trajectory only.
 */
export class SippOccupancy {
  /** Per reach (bounding radius + pad): the occupancy, and per unit the trajectory it holds (null: left out). */
  readonly byReach = new Map<number, { occ: TileOccupancy; held: Map<string, Trajectory | null> }>();
}

/**
 * Searches SIPP routes for the units of one detour round at fleet time `time`, until `deadline` (performance.now).
 * Every unit's trajectory is sampled into tiles once (motion/safeIntervals.ts TileOccupancy, built on the first
 * search, or brought up to date from `shared`); tell the router each trajectory committed after that with
 * {@link record}.
 */
export class SippRouter {
  // One search space and workspace for every router (searches are synchronous): a round's router would otherwise
  // allocate per-tile arrays of the whole map again.
  static readonly #space = new SippSpace();
  static readonly #ws = new SearchWorkspace();
  /** Occupancy per searching reach (bounding radius + pad), shared with later routers of the pass if asked. */
  readonly #occupancy: SippOccupancy;
  /** Lifted units recorded since (they are in the occupancy again). */
  readonly #recorded = new Set<string>();

  /** A router over `sched`'s units; `layer` gives a unit's map layer (null: no route for it). */
  constructor(
    readonly sched: FleetScheduler,
    readonly time: number,
    readonly layer: (u: FleetUnitState) => PassLayer | null,
    readonly deadline: number,
    readonly counts: SippCounts,
    /** Units left out of the occupancy until {@link record}ed (lifted from the table: fleetDetour.ts polish). */
    readonly lifted: ReadonlySet<string> = new Set(),
    /** SIPP may leave a start tile taken at the start time (search/sippSpace.ts; the standoff breaker's). */
    readonly leaveStart = false,
    /** Occupancy from the pass's earlier routers (see SippOccupancy); a fresh one by default. */
    shared: SippOccupancy = new SippOccupancy(),
  ) {
    this.#occupancy = shared;
  }

  /** Whether a unit gets SIPP routes: it turns in place, has a speed and a path. */
  static applies(u: FleetUnitState): boolean {
    return u.unit.turningRadius === 0 && u.unit.maxSpeed > 0 && u.path.length > 0;
  }

  /** Records the trajectory just committed for a unit (every commit while the router is in use). */
  record(u: FleetUnitState): void {
    this.#recorded.add(u.id);
    for (const { occ, held } of this.#occupancy.byReach.values()) {
      occ.set(moving(u));
      held.set(u.id, u.traj);
    }
  }

  /** The occupancy for a reach, every unit on its trajectory now (the lifted ones left out until recorded). */
  #occupancyFor(radius: number, pad: number, w: number, h: number): TileOccupancy {
    const key = radius + pad;
    let entry = this.#occupancy.byReach.get(key);
    if (!entry) {
      entry = { occ: new TileOccupancy(w, h, this.sched.table.dt, radius, pad), held: new Map() };
      this.#occupancy.byReach.set(key, entry);
    }
    // Identity checks only (a router may follow another that lifted units or left trajectories restored).
    const { occ, held } = entry;
    for (const u of this.sched.units.values()) {
      const want = this.lifted.has(u.id) && !this.#recorded.has(u.id) ? null : u.traj;
      if (held.get(u.id) === want) continue;
      if (want === null) occ.remove(u.id);
      else occ.set(moving(u));
      held.set(u.id, want);
    }
    if (held.size > this.sched.units.size) {
      for (const id of [...held.keys()]) {
        if (!this.sched.units.has(id)) occ.remove(id), held.delete(id);
      }
    }
    return occ;
  }

  /**
   * Candidate paths for `u` standing at `pose`, from a SIPP route against the others as they are now, arriving
   * before `latest` (fleet time) in SIPP's model: none when it does not apply, the budget is spent, or no route
   * was found.
   */
  routes(u: FleetUnitState, pose: Pose, latest = Infinity): SippCandidates {
    const none = { paths: [], waits: null };
    if (!SippRouter.applies(u) || performance.now() >= this.deadline) return none;
    const layer = this.layer(u);
    if (!layer) return none;
    const w = layer.width, end = u.path[u.path.length - 1].end;
    const tileOf = (x: number, y: number) => {
      const tx = Math.floor(x), ty = Math.floor(y);
      return tx >= 0 && ty >= 0 && tx < w && ty < layer.height ? ty * w + tx : -1;
    };
    const start = tileOf(pose.x, pose.y), goal = tileOf(end.x, end.y);
    if (start < 0 || goal < 0) return none;
    const radius = u.unit.boundingRadius, speed = u.unit.maxSpeed, dt = this.sched.table.dt;
    const occ = this.#occupancyFor(radius, SIPP_PAD + speed * dt / 2, w, layer.height);
    const occupied = (t: number) => occ.occupied(t, u.id);
    this.counts.sippSearched++;
    const route = sippRoute(SippRouter.#space, SippRouter.#ws, {
      layer,
      clearance: clearanceClass(radius),
      start,
      startTime: this.time,
      goal,
      speed,
      occupied,
      maxStates: SIPP_STATES,
      leaveStart: this.leaveStart,
    }, {
      maxExpansions: SIPP_EXPANSIONS,
      deadline: this.deadline,
      cancel: null,
      trackNearest: false,
      // Routes that cannot arrive before `latest` even in SIPP's model (no acceleration) are not looked for.
      maxCost: (latest - this.time) * COST_SCALE,
    });
    if (!route || route.tiles.length < 2) return none;
    this.counts.sippFound++;
    const centres = straightRuns(route.tiles, w);
    const paths = [profiled(u, pose, end, centres)];
    const stops = plannedStops(u, pose, route, w);
    return { paths, waits: stops.length > 0 ? { path: paths[0], stops } : null };
  }
}

/** What {@link SippRouter.routes} proposes. */
export interface SippCandidates {
  /** Route geometries (no waits), profiled from rest to rest, to be timed by the scheduler. */
  paths: Segment[][];
  /**
   * The route's tile-centre geometry (the first of `paths`) with SIPP's own waits as planned stops (where it
   * waited at least MIN_WAIT), for the scheduler to time with stops there (fleetWaits.ts timePath); null when
   * SIPP did not wait on the way.
   */
  waits: { path: Segment[]; stops: PlannedStop[] } | null;
}

/** Waits shorter than this (seconds) in a SIPP route are driven through. */
const MIN_WAIT = 0.1;

/**
 * Where the SIPP route waits (at tile i before leaving it, at least MIN_WAIT), as distances along its tile-centre
 * geometry from `pose` (see profiled) and SIPP's departure times; a wait at the start tile is a planned start.
 */
function plannedStops(u: FleetUnitState, pose: Pose, route: SippRoute, w: number): PlannedStop[] {
  const { tiles, times } = route, n = tiles.length;
  const out: PlannedStop[] = [];
  let at = Math.hypot((tiles[0] % w) + 0.5 - pose.x, Math.floor(tiles[0] / w) + 0.5 - pose.y);
  for (let i = 0; i < n - 1; i++) {
    const dx = (tiles[i + 1] % w) - (tiles[i] % w),
      dy = Math.floor(tiles[i + 1] / w) - Math.floor(tiles[i] / w);
    const len = Math.hypot(dx, dy), depart = times[i + 1] - len / u.unit.maxSpeed;
    if (depart - times[i] >= MIN_WAIT) out.push({ at, depart });
    at += len;
  }
  return out;
}

/** What occupancy needs of a unit. */
function moving(u: FleetUnitState): MovingUnit {
  return { id: u.id, traj: u.traj, radius: u.unit.boundingRadius, speed: u.unit.maxSpeed };
}

/** Tile centres of a tile path where its direction changes (start and end included), as (x, y) pairs. */
function straightRuns(tiles: Int32Array, w: number): Float64Array {
  const pts: number[] = [];
  const at = (i: number) => [tiles[i] % w, Math.floor(tiles[i] / w)];
  for (let i = 0; i < tiles.length; i++) {
    if (i > 0 && i < tiles.length - 1) {
      const [ax, ay] = at(i - 1), [bx, by] = at(i), [cx, cy] = at(i + 1);
      if (bx - ax === cx - bx && by - ay === cy - by) continue;
    }
    const [x, y] = at(i);
    pts.push(x + 0.5, y + 0.5);
  }
  return Float64Array.from(pts);
}

/**
 * LINE segments from `pose` through the waypoints (x, y pairs at tile centres, from the start's tile to the goal's)
 * to `end`, profiled as one drive from rest to rest. The start and the goal lie in the first and last tiles (off
 * their centres only if the unit's own path already went there).
 */
function profiled(u: FleetUnitState, pose: Pose, end: Pose, pts: Float64Array): Segment[] {
  const xs: number[] = [pose.x], ys: number[] = [pose.y];
  for (let i = 0; i < pts.length; i += 2) xs.push(pts[i]), ys.push(pts[i + 1]);
  xs.push(end.x), ys.push(end.y);
  const segs: Segment[] = [];
  for (let i = 1; i < xs.length; i++) {
    const dx = xs[i] - xs[i - 1], dy = ys[i] - ys[i - 1], len = Math.hypot(dx, dy);
    if (len < 1e-9) continue;
    segs.push(lineSegment({ x: xs[i - 1], y: ys[i - 1], heading: Math.atan2(dy, dx) }, len));
  }
  applySpeedProfile(segs, u.unit);
  return splitAtSpeedPhases(segs, u.unit);
}
