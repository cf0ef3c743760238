/**
 * End-to-end over real gRPC: the line planners (GRID, SMOOTH, HIERARCHICAL, and AUTO where it resolves to one)
 * answer paths that start exactly at the requested start pose and end exactly at the goal point, off tile
 * centres; and a fleet unit added off-centre gets a trajectory that starts where it stands and joins up
 * (src/planning/exactEnds.ts). Before, they ran from and to the tile centres.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkFleet, type CUnit, unitsFromUpdates } from "../helpers/fleetCheck.ts";
import { fleetToSync } from "../helpers/fleetStream.ts";

let srv: TestServer;

// 20 x 20: a border and a wall at x = 9 open at y 12-16.
const ROWS: string[] = [];
for (let y = 0; y < 20; y++) {
  let r = "";
  for (let x = 0; x < 20; x++) {
    r += x === 0 || y === 0 || x === 19 || y === 19 || (x === 9 && !(y >= 12 && y <= 16)) ? "@" : ".";
  }
  ROWS.push(r);
}

beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
  await call(srv.client, "PutMap", {
    id: "walls",
    movingai: ["type octile", "height 20", "width 20", "map", ...ROWS].join("\n"),
  });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

// deno-lint-ignore no-explicit-any
type Any = any;

const START = { x: 3.3, y: 4.8, heading: 0 };
const GOAL = { x: 16.2, y: 3.7 };

describe("line planners over gRPC: exact start and goal", () => {
  const cases: [string, string, string][] = [
    ["PLANNER_GRID", "soldier", "PLANNER_GRID"],
    ["PLANNER_SMOOTH", "soldier", "PLANNER_SMOOTH"],
    ["PLANNER_HIERARCHICAL", "soldier", "PLANNER_HIERARCHICAL"],
    ["PLANNER_SMOOTH", "tank", "PLANNER_SMOOTH"],
    ["PLANNER_AUTO", "soldier", "PLANNER_SMOOTH"],
    // The built-in tank has a turning radius (AUTO: the hybrid, exact ends already); this one turns in place.
    ["PLANNER_AUTO", "tank-in-place", "PLANNER_SMOOTH"],
  ];
  for (const [planner, unit, answered] of cases) {
    test(`${planner}, ${unit}`, async () => {
      const res: Any = await call(srv.client, "Plan", {
        map: { id: "walls" },
        unit: unit === "tank-in-place" ? { name: "tank", turning_radius: 0 } : { name: unit },
        start: START,
        goal: GOAL,
        planner,
      });
      expect(res.status).toBe("PLAN_STATUS_FOUND");
      if (answered) expect(res.stats.planner).toBe(answered);
      const segs = res.segments;
      expect(segs[0].start.x).toBeCloseTo(START.x, 12);
      expect(segs[0].start.y).toBeCloseTo(START.y, 12);
      const end = segs.at(-1).end;
      expect(Math.hypot(end.x - GOAL.x, end.y - GOAL.y)).toBeLessThan(1e-9);
      for (let i = 0; i + 1 < segs.length; i++) {
        expect(Math.hypot(segs[i].end.x - segs[i + 1].start.x, segs[i].end.y - segs[i + 1].start.y))
          .toBeLessThan(1e-9);
      }
      const sum = segs.reduce((a: number, s: Any) => a + s.length, 0);
      expect(res.length).toBeCloseTo(sum, 9);
      expect(res.duration).toBeCloseTo(segs.reduce((a: number, s: Any) => a + s.duration, 0), 6);
      // Cost-1 tiles: the terrain integral is the length, joins included.
      expect(res.cost_breakdown.terrain).toBeCloseTo(sum, 6);
    }, 30_000);
  }
});

describe("Fleet: a unit added off-centre", () => {
  test("its trajectory starts at its pose, joins up and arrives at its goal", async () => {
    const units = [
      { id: "a", x: 3.3, y: 4.8, gx: 16.2, gy: 3.7 },
      { id: "b", x: 15.7, y: 16.4, gx: 2.6, gy: 15.2 },
    ];
    const updates = await fleetToSync(srv.client, "walls", units, { planner: "PLANNER_SMOOTH" });
    const checked: CUnit[] = unitsFromUpdates(units, updates);
    for (const u of checked) {
      expect(u.trajectories.length).toBeGreaterThan(0);
      const first = u.trajectories[0].segments[0].start;
      expect(Math.hypot(first.x - u.start.x, first.y - u.start.y)).toBeLessThan(1e-9);
    }
    const report = checkFleet(ROWS, checked, { arrivalTolerance: 1e-6 });
    expect(report.contractErrors).toEqual([]);
    expect(report.wallContacts).toEqual([]);
    expect(report.overlaps).toEqual([]);
    expect(report.arrived.sort()).toEqual(["a", "b"]);
  }, 60_000);
});
