/**
 * End-to-end SIPP routes over gRPC (issue 12: "units crossing an open field in all directions", makespan within
 * 1.3x of the slowest unit's solo duration): 12 soldiers on a circle (bench/fleetCircle.ts's scenario), each
 * through the centre to the far side. Soldiers turn in place, so the detour pass gives the late ones routes searched
 * in space and time (service/fleetSipp.ts) instead of via points; each route is timed by the scheduler against
 * every reservation. The independent checker (test/helpers/fleetCheck.ts) finds no overlap and no wall contact,
 * every unit arrives, and the makespan is within 1.3x; the same crossing on a server with `--fleet-detours 0`
 * (timing alone) takes longer. The detour budget is far beyond the need so that the outcome does not depend on
 * the machine's speed.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { checkFleet, unitsFromUpdates } from "../helpers/fleetCheck.ts";
import { fleetToSync } from "../helpers/fleetStream.ts";
import { movingAiText } from "../helpers/warehouse.ts";
import { circleScenario } from "../../bench/fleetCircle.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const N = 12;
const { rows, specs } = circleScenario(N);

let sipp: TestServer, peer: TestServer;

beforeAll(async () => {
  [sipp, peer] = await Promise.all([
    startServer(["--no-demo", "--fleet-detour-ms", "600000"]),
    startServer(["--no-demo", "--fleet-detours", "0"]),
  ]);
  for (const s of [sipp, peer]) await call(s.client, "PutMap", { id: "field", movingai: movingAiText(rows) });
}, 60_000);

afterAll(async () => {
  await Promise.all([sipp?.stop(), peer?.stop()]);
});

describe("Fleet SIPP routes", () => {
  test(
    "12 soldiers crossing through the centre: 0 overlaps, all arrive, makespan within 1.3x solo",
    async () => {
      const res = await call(sipp.client, "PlanMany", {
        requests: specs.map((s) => ({
          map: { id: "field" },
          unit: { name: "soldier" },
          start: { x: s.x, y: s.y },
          goal: { x: s.gx, y: s.gy },
        })),
      });
      const solo = Math.max(...res.results.map((r: Any) => Number(r.response.duration)));
      const [withSipp, timingOnly] = await Promise.all(
        [sipp, peer].map(async (srv) =>
          checkFleet(rows, unitsFromUpdates(specs, await fleetToSync(srv.client, "field", specs)), {
            step: 0.02,
          })
        ),
      );
      for (const report of [withSipp, timingOnly]) {
        expect(report.contractErrors).toEqual([]);
        expect(report.overlaps).toEqual([]);
        expect(report.wallContacts).toEqual([]);
      }
      expect(withSipp.arrived.length).toBe(N);
      expect(withSipp.makespan).toBeLessThanOrEqual(1.3 * solo);
      expect(withSipp.makespan).toBeLessThan(timingOnly.makespan);
    },
    60_000,
  );
});
