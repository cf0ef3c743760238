/**
 * Long paths for turning units over gRPC (issue 13): on a tiled map of rooms too long for one directional
 * window (the state cap), PLANNER_DIRECTIONAL plans a grid corridor and refines it window by window. The answer
 * is found, legal by the independent checker, and within 5% of the cost of a full directional search of the
 * whole map run in-process on the same query (both costs from the independent sampled cost).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { call, type TestServer } from "../helpers/server.ts";
import { checkPath } from "../helpers/pathCheck.ts";
import { longRoomLayer, longRoomTankCost, startLongRoomServer } from "../helpers/longRooms.ts";
import { fullDirectionalSearch } from "../helpers/directionalReference.ts";

// The long rooms map (a ~1,630-tile tank path).
const layer = longRoomLayer;
const tank = BUILTIN_PROFILES.tank;

let srv: TestServer;
beforeAll(async () => {
  srv = await startLongRoomServer();
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

const cost = longRoomTankCost;

describe("long turning-unit paths over gRPC", () => {
  test(
    "a 1,600-tile tank path is found, legal, and within 5% of a full directional search's cost",
    async () => {
      const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: 1647.5, y: 20.5 };
      const res = await call(srv.client, "Plan", {
        map: { id: "rooms" },
        unit: { name: "tank" },
        start,
        goal,
        planner: "PLANNER_DIRECTIONAL",
        options: { max_millis: 30_000 },
      });
      expect(res.status, res.message).toBe("PLAN_STATUS_FOUND");
      expect(res.message).toMatch(/corridor refinement/);
      const out = { segments: res.segments } as unknown as PlanOutcome;
      expect(checkPath(layer, tank, out, start, { ...goal, tolerance: 0.5 })).toEqual([]);
      // The reference: one directional search over the whole map (no state cap when the window is given).
      const full = fullDirectionalSearch(layer, tank, start, goal);
      expect(full.status).toBe("found");
      const ratio = cost(res.segments) / cost(full.segments);
      expect(ratio).toBeLessThanOrEqual(1.05);
      expect(ratio).toBeGreaterThan(0.9);
    },
    120_000,
  );
});
