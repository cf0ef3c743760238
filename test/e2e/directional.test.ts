/**
 * PLANNER_DIRECTIONAL and PLANNER_HYBRID end to end over gRPC on the demo "yard" map with the jeep and the tank:
 * every FOUND path is checked by the independent dense sampler of test/helpers/pathCheck.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkPath, layerOfMap } from "../helpers/pathCheck.ts";
import { tileClearance } from "../../src/maps/grid.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer([]);
}, 60000);
afterAll(async () => {
  await srv?.stop();
});

const yard = layerOfMap(readFileSync(new URL("../../demo/maps/yard.map", import.meta.url), "utf8"));

describe("directional planners over gRPC on the yard", () => {
  for (const planner of ["PLANNER_DIRECTIONAL", "PLANNER_HYBRID"]) {
    for (const name of ["jeep", "tank"]) {
      test(`${planner} ${name}: found paths pass the dense check`, async () => {
        const unit = BUILTIN_PROFILES[name];
        let seed = 99 + name.length;
        const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        const pick = () => {
          for (;;) {
            const x = Math.floor(next() * yard.width), y = Math.floor(next() * yard.height);
            if (tileClearance(yard, y * yard.width + x) >= 1.5) return { x: x + 0.5, y: y + 0.5 };
          }
        };
        let found = 0;
        for (let i = 0; i < 4; i++) {
          const a = pick();
          let b = pick();
          while (Math.hypot(a.x - b.x, a.y - b.y) > 25) b = pick();
          const start = { ...a, heading: 0 };
          const res = await call(srv.client, "Plan", {
            map: { id: "yard" },
            unit: { name },
            start,
            goal: b,
            planner,
            options: { max_millis: 10000 },
          });
          if (res.status !== "PLAN_STATUS_FOUND") continue;
          found++;
          const out = { segments: res.segments } as unknown as PlanOutcome;
          expect(checkPath(yard, unit, out, start, { ...b, tolerance: 0.5 })).toEqual([]);
        }
        expect(found).toBeGreaterThan(0);
      }, 120000);
    }
  }
});
