/**
 * Long tank paths over gRPC on a tiled map whose route is beyond LONG_ROUTE_TILES (issue 13): 70 rooms of
 * 32 x 32 in a row (2240 x 32, a ~2,200-tile path). PLANNER_HYBRID and PLANNER_DIRECTIONAL answer found, legal by
 * the independent checker, and within 5% of the cost of a full directional search of the whole map run
 * in-process on the same query (both costs from the independent sampled cost).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkPath, layerOf, sampledPathCost } from "../helpers/pathCheck.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";
import { fullDirectionalSearch } from "../helpers/directionalReference.ts";

const rows = tiledRoomRows(70, 1);
const layer = layerOf(rows);
const tank = BUILTIN_PROFILES.tank;
const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: 70 * 32 - 16.5, y: 20.5 };

/** The tank's independent sampled cost on the map. */
const cost = (segments: Parameters<typeof sampledPathCost>[0]) =>
  sampledPathCost(segments, tank, (x, y) => layer.tileCost[y * layer.width + x] || 1, 1e-2).total;

let srv: TestServer;
let reference = NaN;
beforeAll(async () => {
  srv = await startServer(["--no-demo"]);
  const text = `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;
  await call(srv.client, "PutMap", { id: "rooms70", movingai: text });
  // The reference: one directional search over the whole map (no state cap when the window is given).
  const full = fullDirectionalSearch(layer, tank, start, goal);
  expect(full.status).toBe("found");
  reference = cost(full.segments);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

describe("long tank paths on a tiled map over gRPC", () => {
  for (const planner of ["PLANNER_HYBRID", "PLANNER_DIRECTIONAL"]) {
    test(
      `${planner}: a ~2,200-tile tank path is found, legal, and within 5% of a full directional search`,
      async () => {
        const res = await call(srv.client, "Plan", {
          map: { id: "rooms70" },
          unit: { name: "tank" },
          start,
          goal,
          planner,
          options: { max_millis: 30_000 },
        });
        expect(res.status, res.message).toBe("PLAN_STATUS_FOUND");
        const out = { segments: res.segments } as unknown as PlanOutcome;
        expect(checkPath(layer, tank, out, start, { ...goal, tolerance: 0.5 })).toEqual([]);
        const ratio = cost(res.segments) / reference;
        expect(ratio).toBeLessThanOrEqual(1.05);
        expect(ratio).toBeGreaterThan(0.95);
      },
      60_000,
    );
  }
});
