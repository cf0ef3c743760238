/**
 * End-to-end PlanMany: one result per request in order, the same answers as single Plan calls, a bad request's
 * own error naming `requests[i].field` while the others answer, the batch map default, and the count limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";
import * as grpc from "@grpc/grpc-js";

let srv: TestServer;

// 24x24 open field with a wall across the middle (gap at x = 20).
const MAP = ["type octile", "height 24", "width 24", "map"].concat(
  Array.from(
    { length: 24 },
    (_, y) => Array.from({ length: 24 }, (_, x) => (y === 12 && x !== 20 ? "@" : ".")).join(""),
  ),
).join("\n");

beforeAll(async () => {
  srv = await startServer(["--no-demo", "--max-plan-many", "50"]);
  await call(srv.client, "PutMap", { id: "field", movingai: MAP });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

function req(sx: number, sy: number, gx: number, gy: number, extra: object = {}) {
  return {
    map: { id: "field" },
    start: { x: sx + 0.5, y: sy + 0.5 },
    goal: { x: gx + 0.5, y: gy + 0.5 },
    planner: "PLANNER_GRID",
    ...extra,
  };
}

describe("PlanMany", () => {
  test("answers in order, the same as single Plan calls", async () => {
    const reqs = Array.from({ length: 40 }, (_, i) => req(i % 24, 2 + (i % 5), (i * 7) % 24, 20 - (i % 3)));
    const res = await call(srv.client, "PlanMany", { requests: reqs });
    expect(res.results).toHaveLength(40);
    for (let i = 0; i < reqs.length; i++) {
      const single = await call(srv.client, "Plan", reqs[i]);
      const r = res.results[i];
      expect(r.code, r.error).toBe(0);
      expect(r.response.status).toBe(single.status);
      expect(r.response.length).toBeCloseTo(single.length, 9);
      expect(r.response.waypoints.at(-1)).toEqual(single.waypoints.at(-1));
    }
  });

  test("a bad request gets its own error naming requests[i].field; the others answer", async () => {
    const reqs = [
      req(1, 1, 5, 5),
      req(1, 1, 99, 5),
      { ...req(1, 1, 5, 5), unit: { name: "dragon" } },
      req(0, 12, 5, 5), // start on the wall
      req(3, 3, 3, 20),
    ];
    const res = await call(srv.client, "PlanMany", { requests: reqs });
    expect(res.results.map((r: { code: number }) => r.code)).toEqual([0, 3, 3, 3, 0]);
    expect(res.results[1].error).toMatch(/^requests\[1\]\.goal\.x: /);
    expect(res.results[2].error).toMatch(/^requests\[2\]\.unit\.name: /);
    expect(res.results[3].error).toMatch(/^requests\[3\]\.start/);
    expect(res.results[1].response).toBeNull();
    expect(res.results[4].response.status).toBe("PLAN_STATUS_FOUND");
  });

  test("an unknown map is NOT_FOUND for that request only", async () => {
    const res = await call(srv.client, "PlanMany", {
      requests: [{ ...req(1, 1, 2, 2), map: { id: "nope" } }, req(1, 1, 2, 2)],
    });
    expect(res.results[0].code).toBe(grpc.status.NOT_FOUND);
    expect(res.results[0].error).toMatch(/^requests\[0\]\./);
    expect(res.results[1].code).toBe(0);
  });

  test("requests without a map use the batch's map", async () => {
    const { map: _m, ...bare } = req(1, 1, 8, 8);
    const res = await call(srv.client, "PlanMany", { map: { id: "field" }, requests: [bare] });
    expect(res.results[0].code, res.results[0].error).toBe(0);
    const none = await call(srv.client, "PlanMany", { requests: [bare] });
    expect(none.results[0].error).toMatch(/^requests\[0\]\.map\.id: /);
  });

  test("more than --max-plan-many is RESOURCE_EXHAUSTED", async () => {
    const reqs = Array.from({ length: 51 }, () => req(1, 1, 2, 2));
    const err = await callError(srv.client, "PlanMany", { requests: reqs });
    expect(err.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(err.details).toMatch(/max-plan-many/);
    const ok = await call(srv.client, "PlanMany", { requests: reqs.slice(0, 50) });
    expect(ok.results).toHaveLength(50);
  });
});
