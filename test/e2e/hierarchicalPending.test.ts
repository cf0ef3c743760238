/**
 * A big map's abstract graph is prepared by the map builders in the background (service/mapGraphs.ts). Over gRPC
 * on a 1024 x 1024 map: the first HIERARCHICAL query, sent before the graph is ready, is answered FOUND by the
 * grid search (PLANNER_GRID's optimal grid path, smoothed: stats.planner PLANNER_SMOOTH, PLANNER_SMOOTH's segments)
 * with a message saying the graph is being prepared; later queries use the graph once it is published; a query whose grid search runs out
 * too answers BUDGET naming both (with what the grid search gives on BUDGET); with `prepare` the first query already uses the graph, and it gives the same
 * path as the background-prepared one (same tiles, same graph).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { call, startServer, type TestServer } from "../helpers/server.ts";

const SIDE = 1024;
const ROWS_PER_CHUNK = 256;
const PENDING = /^abstract graph of class 0\.5 is being prepared \(\d+% ready\); answered by the grid search/;

/** Open ground with 1% of the tiles blocked (seeded); `salt` changes the content (a new version). */
function tiles(salt: number): Uint8Array {
  const out = new Uint8Array(SIDE * SIDE).fill(46);
  let s = 777 + salt;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    if (s < 42949673) out[i] = 64;
  }
  for (const [cx, cy] of [[10, 10], [1000, 990]]) {
    for (let y = cy - 3; y <= cy + 3; y++) out.fill(46, y * SIDE + cx - 3, y * SIDE + cx + 4);
  }
  return out;
}

// deno-lint-ignore no-explicit-any
function putChunks(client: any, id: string, t: Uint8Array, prepare = false): Promise<any> {
  return new Promise((res, rej) => {
    const s = client.PutMapChunks((
      err: grpc.ServiceError | null,
      info: unknown,
    ) => (err ? rej(err) : res(info)));
    s.write({ header: { id, width: SIDE, height: SIDE, format: "TILE_FORMAT_MOVINGAI", prepare } });
    for (let y = 0; y < SIDE; y += ROWS_PER_CHUNK) {
      const tilesOf = t.subarray(y * SIDE, (y + ROWS_PER_CHUNK) * SIDE);
      s.write({ chunk: { x: 0, y, width: SIDE, height: ROWS_PER_CHUNK, tiles: tilesOf } });
    }
    s.end();
  });
}

const plan = (id: string, planner: string, options: Record<string, number> = { max_millis: 20_000 }) => ({
  map: { id },
  planner,
  unit: { name: "soldier" },
  start: { x: 10.5, y: 10.5, heading: 0 },
  goal: { x: 1000.5, y: 990.5 },
  options,
});

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--workers", "2", "--no-demo"]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

describe("HIERARCHICAL while the abstract graph is prepared in the background", () => {
  test("the first query is answered by the grid search, later ones by the graph", async () => {
    await putChunks(srv.client, "hp", tiles(0));
    const first = await call(srv.client, "Plan", plan("hp", "PLANNER_HIERARCHICAL"));
    expect(first.status).toBe("PLAN_STATUS_FOUND");
    expect(first.stats.planner).toBe("PLANNER_SMOOTH");
    expect(first.message).toMatch(PENDING);
    // The grid search's optimal path (PLANNER_GRID's waypoints), smoothed: PLANNER_SMOOTH's answer.
    const grid = await call(srv.client, "Plan", plan("hp", "PLANNER_GRID"));
    const smooth = await call(srv.client, "Plan", plan("hp", "PLANNER_SMOOTH"));
    expect(grid.status).toBe("PLAN_STATUS_FOUND");
    expect(first.waypoints).toEqual(grid.waypoints);
    expect(first.waypoints.length).toBeGreaterThan(900);
    expect(first.segments).toEqual(smooth.segments);
    expect(first.length).toBeCloseTo(smooth.length, 9);
    expect(first.length).toBeLessThanOrEqual(grid.length);
    // Once the builders publish the graph (bounded wait), HIERARCHICAL answers with it.
    let later = first;
    for (let i = 0; i < 300 && later.stats.planner !== "PLANNER_HIERARCHICAL"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      later = await call(srv.client, "Plan", plan("hp", "PLANNER_HIERARCHICAL"));
    }
    expect(later.stats.planner).toBe("PLANNER_HIERARCHICAL");
    expect(later.status).toBe("PLAN_STATUS_FOUND");
    expect(later.message).not.toMatch(/being prepared/);
    // Smoothing may shorten the grid's path; the hierarchy is within a few percent of it.
    expect(later.length).toBeLessThan(grid.length * 1.05);

    // The same tiles uploaded with `prepare`: the graph is there for the first query, and gives the same path.
    await putChunks(srv.client, "hp-prepared", tiles(0), true);
    const preparedFirst = await call(srv.client, "Plan", plan("hp-prepared", "PLANNER_HIERARCHICAL"));
    expect(preparedFirst.stats.planner).toBe("PLANNER_HIERARCHICAL");
    expect(preparedFirst.message).toBe("");
    expect(preparedFirst.segments).toEqual(later.segments);
  }, 120_000);

  test("a grid search that runs out of budget too answers BUDGET naming the preparation", async () => {
    await putChunks(srv.client, "hp2", tiles(1));
    const out = await call(srv.client, "Plan", plan("hp2", "PLANNER_HIERARCHICAL", { max_expansions: 10 }));
    expect(out.status).toBe("PLAN_STATUS_BUDGET_EXHAUSTED");
    expect(out.message).toMatch(PENDING);
    expect(out.message).toMatch(/the grid search ran out of budget too/);
    // What the grid search gives on BUDGET, as a PLANNER_SMOOTH request does.
    const grid = await call(srv.client, "Plan", plan("hp2", "PLANNER_SMOOTH", { max_expansions: 10 }));
    expect(grid.status).toBe("PLAN_STATUS_BUDGET_EXHAUSTED");
    expect(out.segments ?? []).toEqual(grid.segments ?? []);
  }, 120_000);
});
