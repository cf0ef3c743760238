/**
 * The reported cost (docs/cost.md) over real gRPC: on a map with a cost-20 swamp band every planner's
 * `cost` and `cost_breakdown` match an independent sampled path cost (test/helpers/pathCheck.ts, computed from
 * the map text and terrain table the test itself uploads, not from the server's layers); reverse driving,
 * cusps and turning show up as their penalties; a Curve's cost is its length.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { type CostPenalties, sampledPathCost } from "../helpers/pathCheck.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const W = 48, H = 24;
const SWAMP_COST = 20;

/** Border walls, a swamp band across the whole height (x 20..25) and a swamp blob (x 8..11, y 3..6). */
function swampRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < H; y++) {
    let r = "";
    for (let x = 0; x < W; x++) {
      if (x === 0 || y === 0 || x === W - 1 || y === H - 1) r += "@";
      else if ((x >= 20 && x < 26) || (x >= 8 && x < 12 && y >= 3 && y < 7)) r += "S";
      else r += ".";
    }
    rows.push(r);
  }
  return rows;
}

/** An open map: border walls only. */
function openRows(n: number): string[] {
  const rows: string[] = [];
  for (let y = 0; y < n; y++) {
    let r = "";
    for (let x = 0; x < n; x++) r += x === 0 || y === 0 || x === n - 1 || y === n - 1 ? "@" : ".";
    rows.push(r);
  }
  return rows;
}

const movingai = (rows: string[]) =>
  `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;

/** The tile cost the test's own table gives ('S' 20, '.' 1; walls and off-map are never charged above 1). */
function tileCostOf(rows: string[]) {
  return (tx: number, ty: number) => {
    const c = rows[ty]?.[tx];
    return c === "S" ? SWAMP_COST : 1;
  };
}

/** The penalties of the built-in profiles the tests use (README / proto table; agent: the defaults). */
const PENALTIES: Record<string, CostPenalties> = {
  agent: { reversePenalty: 2, cuspPenalty: 2, turnPenalty: 0 },
  tank: { reversePenalty: 2, cuspPenalty: 2, turnPenalty: 0 },
  jeep: { reversePenalty: 2, cuspPenalty: 2, turnPenalty: 0 },
  truck: { reversePenalty: 3, cuspPenalty: 2, turnPenalty: 0 },
};

// deno-lint-ignore no-explicit-any
type Response = any;

/** Checks a response's cost against the sampled cost of its segments; returns the sampled cost. */
function expectCostMatches(
  res: Response,
  penalties: CostPenalties,
  tileCost: (x: number, y: number) => number,
) {
  const sampled = sampledPathCost(res.segments, penalties, tileCost, 2e-4);
  const b = res.cost_breakdown;
  const tol = 1e-3 * sampled.total + 0.02;
  expect(Math.abs(res.cost - sampled.total)).toBeLessThanOrEqual(tol);
  expect(Math.abs(b.terrain - sampled.terrain)).toBeLessThanOrEqual(1e-3 * sampled.terrain + 0.02);
  expect(Math.abs(b.reverse_extra - sampled.reverseExtra)).toBeLessThanOrEqual(
    1e-3 * sampled.reverseExtra + 0.02,
  );
  expect(b.reverse_length).toBeCloseTo(sampled.reverseLength, 6);
  expect(b.cusps).toBe(sampled.cusps);
  expect(b.turning).toBeCloseTo(sampled.turning, 6);
  // The total is its parts with the unit's weights.
  const parts = b.terrain + b.reverse_extra + b.cusps * penalties.cuspPenalty +
    b.turning * penalties.turnPenalty;
  expect(res.cost).toBeCloseTo(parts, 9);
  return sampled;
}

describe("PlanResponse.cost", () => {
  test(
    "every planner's cost matches the independent sampled cost on a map with a cost-20 swamp band",
    async () => {
      const rows = swampRows();
      await call(srv.client, "PutMap", {
        id: "cost-swamp",
        movingai: movingai(rows),
        terrain: [{ code: "S".charCodeAt(0), cost: SWAMP_COST }],
      });
      const tileCost = tileCostOf(rows);
      const queries = [
        { start: { x: 4.5, y: 12.5, heading: 0 }, goal: { x: 43.5, y: 12.5 } },
        { start: { x: 4.5, y: 5.5, heading: 0 }, goal: { x: 43.5, y: 18.5 } },
      ];
      const planners = [
        "PLANNER_AUTO",
        "PLANNER_GRID",
        "PLANNER_SMOOTH",
        "PLANNER_CURVED",
        "PLANNER_DIRECTIONAL",
        "PLANNER_HYBRID",
        "PLANNER_HIERARCHICAL",
      ];
      const priced = new Set<string>();
      let checked = 0;
      for (const unitName of ["agent", "tank", "jeep", "truck"]) {
        for (const planner of planners) {
          for (const q of queries) {
            const res: Response = await call(srv.client, "Plan", {
              map: { id: "cost-swamp" },
              unit: { name: unitName },
              start: q.start,
              goal: { ...q.goal, tolerance: 0.5 },
              planner,
            }).catch(() => null); // a planner may refuse a unit (the message names why): not this test's subject
            if (!res || res.status !== "PLAN_STATUS_FOUND") continue;
            const sampled = expectCostMatches(res, PENALTIES[unitName], tileCost);
            // The band spans the map: every path crosses at least its 6 tiles at cost 20.
            const length = res.segments.reduce((a: number, s: Response) => a + s.length, 0);
            expect(res.cost_breakdown.terrain).toBeGreaterThan(length + 6 * (SWAMP_COST - 1) - 0.5);
            expect(sampled.terrain).toBeGreaterThan(length + 6 * (SWAMP_COST - 1) - 0.5);
            priced.add(res.stats.planner);
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThanOrEqual(30);
      for (
        const p of [
          "PLANNER_GRID",
          "PLANNER_SMOOTH",
          "PLANNER_CURVED",
          "PLANNER_DIRECTIONAL",
          "PLANNER_HYBRID",
          "PLANNER_HIERARCHICAL",
        ]
      ) {
        expect(priced).toContain(p);
      }
    },
    300_000,
  );

  test("a unit's terrain override prices its own layer", async () => {
    const rows = swampRows();
    await call(srv.client, "PutMap", {
      id: "cost-swamp-2",
      movingai: movingai(rows),
      terrain: [{ code: "S".charCodeAt(0), cost: SWAMP_COST }],
    });
    // A tank for which swamp costs 2, not 20.
    const res: Response = await call(srv.client, "Plan", {
      map: { id: "cost-swamp-2" },
      unit: { name: "tank", terrain: [{ code: "S".charCodeAt(0), cost: 2 }] },
      start: { x: 4.5, y: 12.5, heading: 0 },
      goal: { x: 43.5, y: 12.5, tolerance: 0.5 },
      planner: "PLANNER_HYBRID",
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expectCostMatches(res, PENALTIES.tank, (x, y) => (rows[y]?.[x] === "S" ? 2 : 1));
  }, 120_000);

  test("reverse driving, cusps and turning show up as their penalties; no path costs 0", async () => {
    const rows = openRows(30);
    await call(srv.client, "PutMap", { id: "cost-open", movingai: movingai(rows) });
    const uniform = tileCostOf(rows);
    // The goal 4 tiles straight behind, same heading: backing up is the cheap way.
    const back: Response = await call(srv.client, "Plan", {
      map: { id: "cost-open" },
      unit: { name: "tank" },
      start: { x: 15.5, y: 15.5, heading: 0 },
      goal: { x: 11.5, y: 15.5, heading: 0, tolerance: 0.3, heading_tolerance: 0.1 },
      planner: "PLANNER_DIRECTIONAL",
    });
    expect(back.status).toBe("PLAN_STATUS_FOUND");
    expectCostMatches(back, PENALTIES.tank, uniform);
    const b = back.cost_breakdown;
    const length = back.segments.reduce((a: number, s: Response) => a + s.length, 0);
    expect(b.reverse_length).toBeGreaterThan(3);
    // Uniform terrain: the reverse extra is (reverse_penalty - 1) * the reverse length, and the cost exceeds
    // the length by exactly the penalties.
    expect(b.reverse_extra).toBeCloseTo((PENALTIES.tank.reversePenalty - 1) * b.reverse_length, 6);
    expect(b.terrain).toBeCloseTo(length, 6);
    expect(back.cost - length).toBeCloseTo(b.reverse_extra + 2 * b.cusps, 6);
    expect(back.cost).toBeGreaterThan(length + b.reverse_length - 1e-9);

    // A right-angle turn with a turn penalty of 3 per radian: the turning is charged.
    const turn: Response = await call(srv.client, "Plan", {
      map: { id: "cost-open" },
      unit: { name: "jeep", turn_penalty: 3 },
      start: { x: 5.5, y: 5.5, heading: 0 },
      goal: { x: 20.5, y: 20.5, heading: Math.PI / 2, tolerance: 0.5 },
      planner: "PLANNER_HYBRID",
    });
    expect(turn.status).toBe("PLAN_STATUS_FOUND");
    expectCostMatches(turn, { ...PENALTIES.jeep, turnPenalty: 3 }, uniform);
    expect(turn.cost_breakdown.turning).toBeGreaterThan(Math.PI / 2 - 0.25);
    const turnLength = turn.segments.reduce((a: number, s: Response) => a + s.length, 0);
    expect(turn.cost).toBeGreaterThan(turnLength + 3 * (Math.PI / 2 - 0.25));

    // A goal walled off: no path, cost 0.
    const walled = openRows(30).map((r, y) => (y === 10 ? "@".repeat(30) : r));
    await call(srv.client, "PutMap", { id: "cost-walled", movingai: movingai(walled) });
    const none: Response = await call(srv.client, "Plan", {
      map: { id: "cost-walled" },
      start: { x: 5.5, y: 5.5 },
      goal: { x: 5.5, y: 20.5 },
      planner: "PLANNER_GRID",
    });
    expect(none.status).toBe("PLAN_STATUS_UNREACHABLE");
    expect(none.cost).toBe(0);
  }, 120_000);
});

describe("PLANNER_AUTO's portfolio", () => {
  test(
    "the tank drives forward where the hybrid backs up for more; stats.planner and the message say whose answer",
    async () => {
      const req = (planner: string) => ({
        map: { id: "yard" },
        unit: { name: "tank" },
        start: { x: 20.5, y: 19.5, heading: -Math.PI / 2 },
        goal: { x: 24.5, y: 32.5, heading: Math.PI / 2, tolerance: 0.5, heading_tolerance: 0.2 },
        planner,
      });
      // The control: PLANNER_HYBRID by name runs alone and backs up here.
      const hybrid: Response = await call(srv.client, "Plan", req("PLANNER_HYBRID"));
      expect(hybrid.status).toBe("PLAN_STATUS_FOUND");
      expect(hybrid.cost_breakdown.reverse_length).toBeGreaterThan(0);
      const auto: Response = await call(srv.client, "Plan", req("PLANNER_AUTO"));
      expect(auto.status).toBe("PLAN_STATUS_FOUND");
      expect(auto.stats.planner).toBe("PLANNER_DIRECTIONAL");
      expect(auto.message).toMatch(
        /^AUTO: Directional-(24|48)'s answer, the cheapest of PLANNER_HYBRID [\d.]+ \(it reverses/,
      );
      expect(auto.segments.every((s: Response) => s.direction === 1)).toBe(true);
      expect(auto.cost).toBeLessThan(hybrid.cost);
      // Priced by the one model, as every answer (the yard has no costed terrain).
      expectCostMatches(auto, PENALTIES.tank, () => 1);
    },
    120_000,
  );
});

describe("CurveResponse.cost", () => {
  test("no map and no penalties: the cost is the length; the breakdown counts reverse, cusps and turning", async () => {
    const res: Response = await call(srv.client, "Curve", {
      start: { x: 0, y: 0, heading: 0 },
      goal: { x: -3, y: 0.5, heading: 0 },
      turning_radius: 1,
      allow_reverse: true,
    });
    const none = { reversePenalty: 1, cuspPenalty: 0, turnPenalty: 0 };
    const sampled = expectCostMatches(res, none, () => 1);
    expect(res.cost).toBeCloseTo(res.length, 9);
    expect(res.cost_breakdown.reverse_length).toBeGreaterThan(0);
    expect(res.cost_breakdown.turning).toBeCloseTo(sampled.turning, 9);
  });
});
