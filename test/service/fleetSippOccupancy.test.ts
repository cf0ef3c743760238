/**
 * The tile occupancy a detour pass's SIPP routers share (service/fleetSipp.ts SippOccupancy): a router that follows
 * others (units re-timed without being recorded, trajectories put back, units lifted for the polish round and
 * recorded again) answers exactly the routes a router building its occupancy afresh answers; only units whose
 * trajectory changed are sampled again.
 */
import { describe, expect, test } from "vitest";
import { standing } from "../../src/motion/trajectory.ts";
import { FleetScheduler } from "../../src/service/fleetScheduler.ts";
import { SippOccupancy, SippRouter } from "../../src/service/fleetSipp.ts";
import { planInProcess } from "../../src/tools/render.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { circleScenario } from "../../bench/fleetCircle.ts";
import { movingAiText } from "../helpers/warehouse.ts";

const unit = BUILTIN_PROFILES.soldier;
const { rows, specs } = circleScenario(16);
const text = movingAiText(rows);
const plans = specs.map((s) =>
  planInProcess(text, unit, { x: s.x, y: s.y, heading: 0 }, { x: s.gx, y: s.gy }, "smooth")
);
const layer = plans[0].layer;

function settled(): FleetScheduler {
  const sched = new FleetScheduler(rows[0].length, rows.length, 0.05);
  specs.forEach((s, order) => {
    const u = sched.addStanding({ id: s.id, order, unit }, { x: s.x, y: s.y, heading: 0 }, 0);
    u.path = plans[order].outcome.segments;
  });
  sched.settle(0, specs.map((s) => s.id));
  return sched;
}

const counts = () => ({ sippSearched: 0, sippFound: 0 });

/** Every unit's route from a router (its start pose now), as plain numbers to compare. */
function routesOf(sched: FleetScheduler, router: SippRouter, ids: string[]) {
  return ids.map((id) => {
    const u = sched.units.get(id)!;
    const got = router.routes(u, u.traj.startPose);
    return {
      paths: got.paths.map((p) => p.map((s) => [s.start.x, s.start.y, s.length, s.duration])),
      stops: got.waits?.stops ?? null,
    };
  });
}

describe("SIPP occupancy shared between a pass's routers", () => {
  test("after changes, lifts and records, a sharing router answers what a fresh one does", () => {
    const sched = settled();
    const ids = specs.map((s) => s.id);
    const shared = new SippOccupancy();
    const first = new SippRouter(sched, 0, () => layer, Infinity, counts(), undefined, false, shared);
    const before = routesOf(sched, first, ids);
    expect(before.some((r) => r.paths.length > 0)).toBe(true);
    // Re-timed without being recorded (a trajectory put back after a round that did not help is the same case).
    for (const id of ["c1", "c6", "c11"]) {
      const u = sched.units.get(id)!;
      sched.table.remove(id);
      sched.commit(u, standing(u.traj.startPose, 0));
    }
    const fresh = () => new SippRouter(sched, 0, () => layer, Infinity, counts());
    const sharing = () => new SippRouter(sched, 0, () => layer, Infinity, counts(), undefined, false, shared);
    expect(routesOf(sched, sharing(), ids)).toEqual(routesOf(sched, fresh(), ids));
    // The polish round's router: units lifted (left out until recorded), one recorded again.
    const lifted = new Set(["c2", "c9"]);
    const lift = new SippRouter(sched, 0, () => layer, Infinity, counts(), lifted, false, shared);
    const liftFresh = new SippRouter(sched, 0, () => layer, Infinity, counts(), lifted);
    expect(routesOf(sched, lift, ids)).toEqual(routesOf(sched, liftFresh, ids));
    lift.record(sched.units.get("c2")!);
    liftFresh.record(sched.units.get("c2")!);
    expect(routesOf(sched, lift, ids)).toEqual(routesOf(sched, liftFresh, ids));
    // The next round's router has every unit again.
    expect(routesOf(sched, sharing(), ids)).toEqual(routesOf(sched, fresh(), ids));
  });
});
