/**
 * End-to-end over real gRPC, the red team's smaller findings: a huge client value is never echoed whole into a
 * status message (a 100 KB map.version used to be, and hung grpc-js clients); a turning radius in the upper
 * part of the documented range (46.5-64) plans instead of failing INTERNAL, and its paths are legal.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";
import { checkPath, layerOfMap } from "../helpers/pathCheck.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const yard = layerOfMap(readFileSync(new URL("../../demo/maps/yard.map", import.meta.url), "utf8"));
const HUGE = "v".repeat(100_000);
const plan = { map: { id: "arena" }, start: { x: 1.5, y: 11.5 }, goal: { x: 4.5, y: 12.5 } };

describe("echoed values are capped", () => {
  const cases: [string, string, object, grpc.status, RegExp][] = [
    [
      "PatchMap, 100 KB version",
      "PatchMap",
      {
        map: { id: "arena", version: HUGE },
        edits: [{ x: 1, y: 1, tile: "@" }],
      },
      grpc.status.FAILED_PRECONDITION,
      /^map\.version: "v{10,}\.\.\." is not the latest/,
    ],
    [
      "GetMap, 100 KB version",
      "GetMap",
      { map: { id: "arena", version: HUGE } },
      grpc.status.NOT_FOUND,
      /vvv\.\.\."/,
    ],
    [
      "Plan, 100 KB version",
      "Plan",
      { ...plan, map: { id: "arena", version: HUGE } },
      grpc.status.NOT_FOUND,
      /\.\.\."/,
    ],
    ["GetMap, 100 KB id", "GetMap", { map: { id: HUGE } }, grpc.status.INVALID_ARGUMENT, /^map\.id: must be/],
    [
      "PutMap, 100 KB width",
      "PutMap",
      {
        id: "w",
        movingai: `type octile\nheight 2\nwidth ${"9".repeat(100_000)}x\nmap\n..\n..\n`,
      },
      grpc.status.INVALID_ARGUMENT,
      /width must be a positive integer/,
    ],
  ];
  for (const [name, method, req, code, re] of cases) {
    test(name, async () => {
      const err = await callError(srv.client, method, req, { deadline: Date.now() + 10_000 });
      expect(err.code).toBe(code);
      expect(err.details).toMatch(re);
      expect(err.details.length).toBeLessThan(400);
    });
  }
});

describe("turning radii up to the documented 64", () => {
  for (const planner of ["PLANNER_DIRECTIONAL", "PLANNER_HYBRID"]) {
    test(`${planner}, tank with turning radius 50 on the yard: found and legal`, async () => {
      const unit = { ...BUILTIN_PROFILES.tank, turningRadius: 50 };
      const start = { x: 25.5, y: 3.5, heading: 0 };
      const goal = { x: 50.5, y: 55.5, heading: 1.5708 };
      // The first requests build this radius's tables; a build stopped by the budget resumes on the next one.
      let res;
      for (let attempt = 0; attempt < 6; attempt++) {
        res = await call(srv.client, "Plan", {
          map: { id: "yard" },
          unit: { name: "tank", turning_radius: 50 },
          start,
          goal,
          planner,
          options: { max_millis: 30_000 },
        }, { deadline: Date.now() + 60_000 });
        if (res.status !== "PLAN_STATUS_BUDGET_EXHAUSTED") break;
      }
      expect(res.status).toBe("PLAN_STATUS_FOUND");
      const out = { segments: res.segments } as unknown as PlanOutcome;
      expect(checkPath(yard, unit, out, start, { ...goal, tolerance: 0.5 })).toEqual([]);
    }, 400_000);
  }
});
