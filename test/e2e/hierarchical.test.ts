/**
 * End-to-end over real gRPC: PLANNER_HIERARCHICAL on the longest shared queries of two maps (the worker gets
 * the region table under the task's regionKey), unreachable goals, and a wide unit.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { blockGrid, firstCollision, mapText, queries, tolerance } from "../helpers/movingai.ts";

const MAPS = ["Aftershock.map", "8room_000.map"];
let srv: TestServer;

beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
  for (const name of MAPS) {
    await call(srv.client, "PutMap", { id: name.replace(/\.map$/, ""), movingai: mapText(name) });
  }
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

function req(map: string, sx: number, sy: number, gx: number, gy: number, extra: object = {}) {
  return {
    map: { id: map.replace(/\.map$/, "") },
    start: { x: sx + 0.5, y: sy + 0.5 },
    goal: { x: gx + 0.5, y: gy + 0.5 },
    planner: "PLANNER_HIERARCHICAL",
    options: { omit_waypoints: false },
    ...extra,
  };
}

describe("PLANNER_HIERARCHICAL over gRPC", () => {
  for (const name of MAPS) {
    test(`${name}: longest 15 queries found, legal, no longer than the grid optimum`, async () => {
      const grid = blockGrid(mapText(name));
      const qs = queries(name).sort((a, b) => b.optimal - a.optimal).slice(0, 15);
      for (const q of qs) {
        const res = await call(srv.client, "Plan", req(name, q.sx, q.sy, q.gx, q.gy));
        expect(res.status).toBe("PLAN_STATUS_FOUND");
        expect(res.stats.planner).toBe("PLANNER_HIERARCHICAL");
        expect(firstCollision(grid, res.segments, 0)).toBeNull();
        expect(res.length).toBeLessThanOrEqual(q.optimal + tolerance(name, q.optimal));
        expect(res.waypoints[0]).toMatchObject({ x: q.sx, y: q.sy });
        expect(res.waypoints.at(-1)).toMatchObject({ x: q.gx, y: q.gy });
      }
    }, 120_000);
  }

  test("a wide unit stays clear of walls", async () => {
    const name = "Aftershock.map";
    const grid = blockGrid(mapText(name));
    let found = 0;
    for (const q of queries(name).sort((a, b) => b.optimal - a.optimal).slice(0, 20)) {
      try {
        const res = await call(
          srv.client,
          "Plan",
          req(name, q.sx, q.sy, q.gx, q.gy, { unit: { radius: 0.9 } }),
        );
        if (res.status !== "PLAN_STATUS_FOUND") continue;
        expect(firstCollision(grid, res.segments, 0.9)).toBeNull();
        found++;
      } catch (e) {
        // The start tile may be too tight for the wide unit: that is a correct refusal.
        expect((e as { details: string }).details).toMatch(/blocked for this unit/);
      }
    }
    expect(found).toBeGreaterThan(5);
  }, 120_000);
});
