/**
 * Randomized requests over real gRPC: valid, odd and invalid Plan requests mixed. Every request gets an answer
 * (a plan status, or an error code from the documented set with a message); every path a curve planner returns
 * as found is legal for the unit (independent dense check); the server keeps serving throughout.
 * FUZZ_SEED and FUZZ_N (environment) run other seeds or more requests.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { decodeUnit, type WireUnitProfile } from "../../src/server/decodeUnit.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { call, PLANNERS, startServer, type TestServer } from "../helpers/server.ts";
import { checkPath, layerOfMap } from "../helpers/pathCheck.ts";
import { rng } from "../helpers/rng.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const yard = layerOfMap(readFileSync(new URL("../../demo/maps/yard.map", import.meta.url), "utf8"));

const ERROR_CODES = new Set([
  grpc.status.INVALID_ARGUMENT,
  grpc.status.NOT_FOUND,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.RESOURCE_EXHAUSTED,
  grpc.status.DEADLINE_EXCEEDED,
]);
const STATUSES = new Set([
  "PLAN_STATUS_FOUND",
  "PLAN_STATUS_UNREACHABLE",
  "PLAN_STATUS_NEAREST",
  "PLAN_STATUS_BUDGET_EXHAUSTED",
  "PLAN_STATUS_NO_LEGAL_PATH",
]);

describe("randomized Plan requests", () => {
  test("every request is answered; found curve paths are legal; the server keeps serving", async () => {
    const rand = rng(Number(Deno.env.get("FUZZ_SEED") ?? 20261123));
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const odd = (p: number) => rand() < p;
    const coordinate = () => (odd(0.05) ? pick([NaN, -1, 64.5, 1e9]) : 1 + rand() * 62);
    let found = 0, checked = 0, errors = 0;
    const problems: string[] = [];
    const requests = Number(Deno.env.get("FUZZ_N") ?? 400);
    for (let i = 0; i < requests; i++) {
      const unit: WireUnitProfile = odd(0.5)
        ? { name: pick(["agent", "soldier", "jeep", "tank", "truck", "boat"]) }
        : {
          radius: odd(0.05) ? -0.5 : rand() * 1.4,
          turning_radius: odd(0.3) ? 0 : rand() * 4,
          can_reverse: odd(0.5),
          headings: odd(0.1) ? pick([8, 16, 7]) : 0,
          ...(odd(0.2) ? { width: 0.3 + rand(), length: 0.5 + rand() * 2 } : {}),
        };
      const planner = odd(0.03) ? 42 : pick(PLANNERS);
      const options = {
        neighborhood: pick([0, 0, 0, 4, 8, 24, 48, 6]),
        max_millis: odd(0.2) ? 20 : 2000,
        max_expansions: odd(0.1) ? 50 : 0,
        nearest_fallback: odd(0.2),
        ignore_obstacles_in_curves: odd(0.1),
        tighter_turns: odd(0.1),
        allow_backing_up: odd(0.2),
      };
      const start = { x: coordinate(), y: coordinate(), heading: odd(0.05) ? NaN : rand() * 6.3 - 3.15 };
      const goal = {
        x: coordinate(),
        y: coordinate(),
        ...(odd(0.3) ? { heading: rand() * 6.3 - 3.15 } : {}),
      };
      const map = odd(0.05)
        ? pick([{ id: "nope" }, { id: "yard", version: "0000" }, { id: "" }])
        : { id: "yard" };
      const req = { map, unit, start, goal, planner, options };
      const where = `request ${i}: ${JSON.stringify(req)}`;
      let res;
      try {
        res = await call(srv.client, "Plan", req);
      } catch (e) {
        const err = e as grpc.ServiceError;
        expect(ERROR_CODES.has(err.code), `${where}: code ${err.code} ${err.details}`).toBe(true);
        expect(err.details.length, where).toBeGreaterThan(0);
        errors++;
        continue;
      }
      expect(STATUSES.has(res.status), `${where}: status ${res.status}`).toBe(true);
      if (res.status !== "PLAN_STATUS_FOUND") continue;
      found++;
      // Curve planners promise legality unless the request asked for an approximation.
      const curvePlanner = ["PLANNER_CURVED", "PLANNER_DIRECTIONAL", "PLANNER_HYBRID"].includes(
        res.stats.planner,
      );
      const approximate = options.ignore_obstacles_in_curves || options.tighter_turns;
      const spec = decodeUnit(unit);
      if (!curvePlanner || approximate || spec.headings > 0 || map.id !== "yard") continue;
      const out = { segments: res.segments } as unknown as PlanOutcome;
      // A unit that turns in place (turning radius 0) may change heading between segments (docs/segments.md).
      const issues = checkPath(yard, spec, out, start, { ...goal, tolerance: 0.5 })
        .filter((issue) => spec.turningRadius > 0 || !/heading/.test(issue));
      if (issues.length > 0) problems.push(`${where}: ${res.stats.planner} ${issues.join(", ")}`);
      checked++;
    }
    expect(problems).toEqual([]);
    // The mix exercises every outcome (fractions of the request count: about 25% found, 8% checked, 4% errors).
    expect(found).toBeGreaterThan(requests * 0.1);
    expect(checked).toBeGreaterThan(requests * 0.03);
    expect(errors).toBeGreaterThan(requests * 0.015);
    const after = await call(srv.client, "Plan", {
      map: { id: "yard" },
      start: { x: 10.5, y: 10.5 },
      goal: { x: 12.5, y: 10.5 },
      planner: "PLANNER_GRID",
    });
    expect(after.status).toBe("PLAN_STATUS_FOUND");
    expect(srv.proc.exitCode).toBeNull();
  }, 600_000);

  test(
    "random Curve requests: a curve that ends at the goal pose, or INVALID_ARGUMENT naming the field",
    async () => {
      const rand = rng(Number(Deno.env.get("FUZZ_SEED") ?? 99));
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
      const value = (
        scale: number,
      ) => (rand() < 0.04 ? pick([NaN, Infinity, -Infinity, 1e300]) : (rand() - 0.5) * scale);
      let ok = 0, refused = 0;
      const problems: string[] = [];
      for (let i = 0; i < 300; i++) {
        const scale = pick([1e-3, 1, 50, 4096]);
        const start = { x: value(scale), y: value(scale), heading: value(7) };
        const goal = rand() < 0.05 ? { ...start } : { x: value(scale), y: value(scale), heading: value(7) };
        const req = {
          start,
          goal,
          turning_radius: rand() < 0.05 ? pick([0, -1, NaN, 1e-9, 1e6]) : 0.1 + rand() * 5,
          allow_reverse: rand() < 0.5,
          ignore_goal_heading: rand() < 0.2,
        };
        const where = `curve ${i}: ${JSON.stringify(req)}`;
        try {
          const res = await call(srv.client, "Curve", req);
          ok++;
          if (!Number.isFinite(res.length) || res.length < 0) problems.push(`${where}: length ${res.length}`);
          const segs = res.segments;
          const end = segs.length > 0 ? segs[segs.length - 1].end : start;
          const tol = 1e-6 * Math.max(1, scale, req.turning_radius);
          if (Math.hypot(end.x - goal.x, end.y - goal.y) > tol) problems.push(`${where}: ends off the goal`);
          const dh = Math.abs(
            Math.atan2(Math.sin(end.heading - goal.heading), Math.cos(end.heading - goal.heading)),
          );
          if (!req.ignore_goal_heading && dh > 1e-6) problems.push(`${where}: wrong final heading`);
        } catch (e) {
          const err = e as grpc.ServiceError;
          refused++;
          if (err.code !== grpc.status.INVALID_ARGUMENT || !/start|goal|turning_radius/.test(err.details)) {
            problems.push(`${where}: ${err.code} ${err.details}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(ok).toBeGreaterThan(200);
      expect(refused).toBeGreaterThan(5);
    },
    120_000,
  );

  test(
    "a storm of concurrent requests with random deadlines and cancels: answered, and the server recovers",
    async () => {
      const rand = rng(Number(Deno.env.get("FUZZ_SEED") ?? 5150));
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
      const codes = new Map<string, number>();
      const calls: Promise<void>[] = [];
      for (let i = 0; i < 240; i++) {
        const planner = pick([
          "PLANNER_DIRECTIONAL",
          "PLANNER_HYBRID",
          "PLANNER_HIERARCHICAL",
          "PLANNER_SMOOTH",
        ]);
        const req = {
          map: { id: "yard" },
          unit: { name: pick(["tank", "jeep", "agent"]) },
          start: { x: 3 + rand() * 58, y: 3 + rand() * 58, heading: rand() * 6 - 3 },
          goal: { x: 3 + rand() * 58, y: 3 + rand() * 58 },
          planner,
          options: { neighborhood: pick([0, 48]) },
        };
        calls.push(
          new Promise<void>((res) => {
            const deadline = rand() < 0.5 ? new Date(Date.now() + 1 + rand() * 60) : undefined;
            const c = srv.client.Plan(
              req,
              deadline ? { deadline } : {},
              (err: grpc.ServiceError | null, r: { status: string }) => {
                const key = err ? grpc.status[err.code] : r.status;
                codes.set(key, (codes.get(key) ?? 0) + 1);
                res();
              },
            );
            if (rand() < 0.25) setTimeout(() => c.cancel(), rand() * 40);
          }),
        );
      }
      await Promise.all(calls);
      // Only documented outcomes.
      const allowed = new Set([
        ...STATUSES,
        "INVALID_ARGUMENT",
        "DEADLINE_EXCEEDED",
        "CANCELLED",
        "RESOURCE_EXHAUSTED",
      ]);
      for (const key of codes.keys()) expect(allowed.has(key), `outcome ${key}`).toBe(true);
      expect(codes.get("PLAN_STATUS_FOUND") ?? 0).toBeGreaterThan(10);
      expect((codes.get("DEADLINE_EXCEEDED") ?? 0) + (codes.get("CANCELLED") ?? 0)).toBeGreaterThan(10);
      // Recovered: a plain request is answered (within its deadline) once the storm has passed.
      const after = await call(srv.client, "Plan", {
        map: { id: "yard" },
        start: { x: 10.5, y: 10.5 },
        goal: { x: 12.5, y: 10.5 },
        planner: "PLANNER_GRID",
      }, { deadline: new Date(Date.now() + 10_000) });
      expect(after.status).toBe("PLAN_STATUS_FOUND");
      if (Deno.env.get("FUZZ_VERBOSE")) console.log(Object.fromEntries(codes));
      expect(srv.proc.exitCode).toBeNull();
    },
    300_000,
  );
});
