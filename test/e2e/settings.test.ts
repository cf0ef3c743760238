/**
 * End-to-end over real gRPC: a unit's settings are honoured or refused, never silently ignored (issue 11,
 * items 2 and 5). Profile fields with a meaningful false or 0 can be overridden (explicit presence); the
 * response shows the resolved unit; fixed-angle art, keep_to_roads, turn_penalty and can_reverse are checked on
 * the path itself (headings, road tiles, reverse segments) or answered with a status naming the setting.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";
import { checkPath, layerOfMap } from "../helpers/pathCheck.ts";
import { decodeUnit, type WireUnitProfile } from "../../src/server/decodeUnit.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import type { PassLayer } from "../../src/maps/grid.ts";

let srv: TestServer;

function mapText(rows: string[]): string {
  return `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;
}

/** A 3-wide corridor (rows 5-7) ending in a dead end at x = 1, opening into a yard from x = 13. */
function deadEndRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < 20; y++) {
    let r = "";
    for (let x = 0; x < 30; x++) {
      const border = x === 0 || y === 0 || x === 29 || y === 19;
      r += !border && ((y >= 5 && y <= 7) || x >= 13) ? "." : "@";
    }
    rows.push(r);
  }
  return rows;
}

/** Grass everywhere, and an L of road ('R', 3 wide): along rows 3-5, then down columns 24-26. */
function roadRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < 30; y++) {
    let r = "";
    for (let x = 0; x < 30; x++) {
      const border = x === 0 || y === 0 || x === 29 || y === 29;
      const road = ((y >= 3 && y <= 5) || (x >= 24 && x <= 26)) && x >= 3 && y >= 3 && y <= 26;
      r += border ? "@" : road ? "R" : ".";
    }
    rows.push(r);
  }
  return rows;
}

/**
 * The article's Figure 22 case: straight ahead, walls with one-tile gaps alternately at rows 12 and 16 force a
 * zigzag (about 36 tiles, seven sharp turns); the lane along the top (rows 1-2) is longer (about 47 tiles) with
 * two turns.
 */
function zigzagRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < 26; y++) {
    let r = "";
    for (let x = 0; x < 32; x++) {
      const border = x === 0 || y === 0 || x === 31 || y === 25;
      const wall = [6, 10, 14, 18, 22, 26].includes(x) && y >= 3;
      const gap = [6, 14, 22].includes(x) ? y === 12 : y === 16;
      r += border || (wall && !gap) ? "@" : ".";
    }
    rows.push(r);
  }
  return rows;
}

/** Two ponds ('W', 7 x 7) with land between them: a boat cannot go from one to the other. */
function pondRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < 9; y++) {
    let r = "";
    for (let x = 0; x < 20; x++) {
      const border = x === 0 || y === 0 || x === 19 || y === 8;
      r += border ? "@" : x >= 8 && x <= 11 ? "." : "W";
    }
    rows.push(r);
  }
  return rows;
}

const ROAD_TERRAIN = [{ code: "R".charCodeAt(0), cost: 1, impassable: false, road: true }];
const deadEnd = layerOfMap(mapText(deadEndRows()));
const roads = roadRows();
const yard = layerOfMap(readFileSync(new URL("../../demo/maps/yard.map", import.meta.url), "utf8"));

beforeAll(async () => {
  srv = await startServer();
  await call(srv.client, "PutMap", { id: "deadend", movingai: mapText(deadEndRows()), ephemeral: true });
  await call(srv.client, "PutMap", {
    id: "roads",
    movingai: mapText(roads),
    terrain: ROAD_TERRAIN,
    ephemeral: true,
  });
  await call(srv.client, "PutMap", { id: "ponds", movingai: mapText(pondRows()), ephemeral: true });
  await call(srv.client, "PutMap", { id: "zigzag", movingai: mapText(zigzagRows()), ephemeral: true });
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

// deno-lint-ignore no-explicit-any
type Wire = any;

/** Points every 0.05 tiles along the wire segments (lines and arcs, closed form). */
function samples(segs: Wire[]): { x: number; y: number }[] {
  const pts: { x: number; y: number }[] = [];
  for (const s of segs) {
    const n = Math.max(1, Math.ceil(s.length / 0.05));
    for (let i = 0; i <= n; i++) {
      const u = (s.length * i) / n;
      const d = s.direction * u;
      const h0 = s.start.heading;
      if (s.curvature === 0) {
        pts.push({ x: s.start.x + d * Math.cos(h0), y: s.start.y + d * Math.sin(h0) });
      } else {
        const h = h0 + s.curvature * d;
        pts.push({
          x: s.start.x + (Math.sin(h) - Math.sin(h0)) / s.curvature,
          y: s.start.y - (Math.cos(h) - Math.cos(h0)) / s.curvature,
        });
      }
    }
  }
  return pts;
}

/** The dense check's problems, less the heading jumps that fixed-angle art makes on purpose (frame changes). */
function legalityProblems(
  layer: PassLayer,
  unit: WireUnitProfile,
  res: Wire,
  start: Wire,
  goal: Wire,
): string[] {
  const out = { segments: res.segments } as unknown as PlanOutcome;
  return checkPath(layer, decodeUnit(unit), out, start, { ...goal, tolerance: 0.5 })
    .filter((p) => !/heading/.test(p));
}

const plan = (req: object) => call(srv.client, "Plan", req);

describe("profiles can be overridden to false and 0 (explicit presence)", () => {
  const deadEndReq = (unit: WireUnitProfile, planner: string) => ({
    map: { id: "deadend" },
    unit,
    start: { x: 3.5, y: 6.5, heading: Math.PI },
    goal: { x: 22.5, y: 15.5 },
    planner,
  });

  test("the tank backs out of the dead end; with can_reverse: false no planner reverses", async () => {
    // The control: the tank's profile may reverse, and facing the dead end it must.
    const control = await plan(deadEndReq({ name: "tank" }, "PLANNER_DIRECTIONAL"));
    expect(control.status).toBe("PLAN_STATUS_FOUND");
    expect(control.segments.some((s: Wire) => s.direction < 0)).toBe(true);
    for (const planner of ["PLANNER_AUTO", "PLANNER_HYBRID", "PLANNER_DIRECTIONAL", "PLANNER_CURVED"]) {
      const res = await plan(deadEndReq({ name: "tank", can_reverse: false }, planner));
      expect(res.unit.can_reverse, planner).toBe(false);
      expect(res.segments.filter((s: Wire) => s.direction < 0), planner).toEqual([]);
      // No forward way out exists for a turning radius of 1.5 in a 3-wide corridor.
      expect(res.status, planner).toBe("PLAN_STATUS_NO_LEGAL_PATH");
    }
  }, 120_000);

  test("turning_radius: 0 makes the tank turn in place (AUTO plans lines)", async () => {
    const tank = await plan(deadEndReq({ name: "tank" }, "PLANNER_AUTO"));
    // AUTO's curve planners (its portfolio: the hybrid, or Directional when that backs out for less).
    expect(["PLANNER_HYBRID", "PLANNER_DIRECTIONAL"]).toContain(tank.stats.planner);
    expect(tank.segments.some((s: Wire) => s.curvature !== 0)).toBe(true);
    const res = await plan(deadEndReq({ name: "tank", turning_radius: 0 }, "PLANNER_AUTO"));
    expect(res.unit.turning_radius).toBe(0);
    expect(res.unit.radius).toBe(0.9);
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expect(res.stats.planner).toBe("PLANNER_SMOOTH");
    expect(res.segments.every((s: Wire) => s.curvature === 0 && s.direction === 1)).toBe(true);
    const start = { x: 3.5, y: 6.5, heading: Math.PI };
    expect(legalityProblems(deadEnd, { name: "tank", turning_radius: 0 }, res, start, { x: 22.5, y: 15.5 }))
      .toEqual([]);
  }, 60_000);

  test("explicit zeros override, unset fields keep the profile, out-of-range zeros are refused", async () => {
    const req = (unit: WireUnitProfile) => ({
      ...deadEndReq(unit, "PLANNER_GRID"),
      start: { x: 14.5, y: 6.5 },
    });
    const jeep = await plan(req({ name: "jeep" }));
    expect(jeep.unit.cusp_penalty).toBe(2);
    expect(jeep.unit.max_speed).toBe(8);
    expect(jeep.duration).toBeGreaterThan(0);
    const zeroed = await plan(req({ name: "jeep", cusp_penalty: 0, max_speed: 0, fluid_turning: false }));
    expect(zeroed.unit.cusp_penalty).toBe(0);
    expect(zeroed.unit.max_speed).toBe(0);
    expect(zeroed.duration).toBe(0);
    const soldier = await plan(req({ name: "soldier", fluid_turning: false }));
    expect(soldier.unit.fluid_turning).toBe(false);
    const err = await callError(srv.client, "Plan", req({ name: "jeep", reverse_penalty: 0 }));
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/unit\.reverse_penalty.*\[1, 100\].*0/);
    const neg = await callError(srv.client, "Plan", req({ name: "jeep", turning_radius: -1 }));
    expect(neg.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(neg.details).toMatch(/unit\.turning_radius.*-1/);
  }, 60_000);
});

describe("the resolved unit is shown", () => {
  test("every field of the truck profile, and the request's overrides, in the response", async () => {
    const res = await plan({
      map: { id: "yard" },
      unit: { name: "truck", turn_penalty: 0.5, headings: 0 },
      start: { x: 30.5, y: 40.5, heading: 0 },
      goal: { x: 45.5, y: 40.5 },
      planner: "PLANNER_GRID",
    });
    expect(res.unit).toMatchObject({
      name: "truck",
      radius: 0,
      width: 1,
      length: 2.4,
      turning_radius: 4,
      can_reverse: true,
      reverse_penalty: 3,
      turn_penalty: 0.5,
      cusp_penalty: 2,
      max_speed: 6,
      acceleration: 2,
      deceleration: 4,
      lateral_acceleration: 3,
      headings: 0,
      fluid_turning: false,
      terrain: [],
    });
  }, 60_000);

  test("also on an answer from the region tables, and for the boat's terrain", async () => {
    const res = await plan({
      map: { id: "ponds" },
      unit: { name: "boat" },
      start: { x: 4.5, y: 4.5 },
      goal: { x: 15.5, y: 4.5 },
    });
    expect(res.status).toBe("PLAN_STATUS_UNREACHABLE");
    expect(res.stats.from_region_table).toBe(true);
    expect(res.unit.name).toBe("boat");
    expect(res.unit.turning_radius).toBe(3);
    expect(res.unit.terrain.map((t: Wire) => [String.fromCharCode(t.code), t.impassable])).toEqual([
      ["W", false],
      [".", true],
      ["G", true],
      ["S", true],
    ]);
  }, 60_000);
});

describe("fixed-angle art (unit.headings) is honoured by every planner", () => {
  const start = { x: 25.5, y: 3.5, heading: 0 };
  const goal = { x: 50.5, y: 55.5, heading: Math.PI / 2 };
  const cases: [WireUnitProfile, string[]][] = [
    [{ name: "tank", headings: 16 }, [
      "PLANNER_AUTO",
      "PLANNER_HYBRID",
      "PLANNER_DIRECTIONAL",
      "PLANNER_HIERARCHICAL",
    ]],
    [{ name: "soldier", headings: 8 }, [
      "PLANNER_AUTO",
      "PLANNER_HYBRID",
      "PLANNER_DIRECTIONAL",
      "PLANNER_GRID",
    ]],
  ];
  for (const [unit, planners] of cases) {
    for (const planner of planners) {
      test(
        `${unit.name} with ${unit.headings} headings under ${planner}: lines at legal headings, legal`,
        async () => {
          const res = await plan({
            map: { id: "yard" },
            unit,
            start,
            goal,
            planner,
            options: { max_millis: 10000 },
          });
          expect(res.status).toBe("PLAN_STATUS_FOUND");
          const step = (2 * Math.PI) / unit.headings!;
          for (const s of res.segments) {
            expect(s.kind).toBe("SEGMENT_KIND_LINE");
            const k = s.start.heading / step;
            expect(Math.abs(k - Math.round(k)), `heading ${s.start.heading}`).toBeLessThan(1e-6);
          }
          expect(legalityProblems(yard, unit, res, start, goal)).toEqual([]);
          if (planner !== "PLANNER_GRID" && planner !== "PLANNER_AUTO") {
            expect(res.message).toMatch(new RegExp(`unit\\.headings ${unit.headings}`));
          }
        },
        60_000,
      );
    }
  }

  test("the same query without art has arcs (the check can fail)", async () => {
    const res = await plan({
      map: { id: "yard" },
      unit: { name: "tank" },
      start,
      goal,
      planner: "PLANNER_DIRECTIONAL",
    });
    expect(res.segments.some((s: Wire) => s.kind === "SEGMENT_KIND_ARC")).toBe(true);
  }, 60_000);
});

describe("options.keep_to_roads", () => {
  const start = { x: 4.5, y: 4.5, heading: 0 };
  const goal = { x: 25.5, y: 24.5 };
  const onRoad = (p: { x: number; y: number }) => roads[Math.floor(p.y)][Math.floor(p.x)] === "R";

  for (const name of ["soldier", "agent", "jeep"]) {
    for (const planner of ["PLANNER_AUTO", "PLANNER_DIRECTIONAL", "PLANNER_HYBRID"]) {
      test(`${name} under ${planner}: every point of the path on a road tile`, async () => {
        const res = await plan({
          map: { id: "roads" },
          unit: { name },
          start,
          goal,
          planner,
          options: { keep_to_roads: true },
        });
        expect(res.status).toBe("PLAN_STATUS_FOUND");
        const off = samples(res.segments).filter((p) => !onRoad(p));
        expect(off.slice(0, 3)).toEqual([]);
        if (planner === "PLANNER_AUTO") {
          expect(res.stats.planner).toBe(name === "jeep" ? "PLANNER_HYBRID" : "PLANNER_DIRECTIONAL");
        }
      }, 60_000);
    }
  }

  test("without the option the soldier cuts across the grass (the check can fail)", async () => {
    const res = await plan({ map: { id: "roads" }, unit: { name: "soldier" }, start, goal });
    expect(samples(res.segments).some((p) => !onRoad(p))).toBe(true);
  }, 60_000);

  for (const planner of ["PLANNER_GRID", "PLANNER_SMOOTH", "PLANNER_CURVED", "PLANNER_HIERARCHICAL"]) {
    test(`${planner} refuses it, naming the setting and the planners that honour it`, async () => {
      const err = await callError(srv.client, "Plan", {
        map: { id: "roads" },
        unit: { name: "soldier" },
        start,
        goal,
        planner,
        options: { keep_to_roads: true },
      });
      expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(err.details).toMatch(new RegExp(`options\\.keep_to_roads: ${planner} .*PLANNER_DIRECTIONAL`));
    }, 60_000);
  }

  test("a start off the road is refused, naming the setting and the tile", async () => {
    const err = await callError(srv.client, "Plan", {
      map: { id: "roads" },
      unit: { name: "soldier" },
      start: { x: 10.5, y: 15.5 },
      goal,
      options: { keep_to_roads: true },
    });
    expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(err.details).toMatch(/options\.keep_to_roads: the start tile \(10, 15\) is not a road tile/);
  }, 60_000);
});

describe("unit.turn_penalty (the article's Figure 22)", () => {
  const start = { x: 2.5, y: 14.5, heading: 0 };
  const goal = { x: 29.5, y: 14.5 };
  const req = (turnPenalty: number | undefined, planner = "PLANNER_AUTO") => ({
    map: { id: "zigzag" },
    unit: { name: "soldier", ...(turnPenalty === undefined ? {} : { turn_penalty: turnPenalty }) },
    start,
    goal,
    planner,
    options: { max_millis: 10000 },
  });

  test("AUTO takes the zigzag without a turn penalty, the lane with few turns with one", async () => {
    const zig = await plan(req(undefined));
    expect(zig.status).toBe("PLAN_STATUS_FOUND");
    expect(Math.min(...samples(zig.segments).map((p) => p.y))).toBeGreaterThan(3);
    const res = await plan(req(5));
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expect(res.stats.planner).toBe("PLANNER_DIRECTIONAL");
    expect(res.unit.turn_penalty).toBe(5);
    // The top lane (rows 1-2): longer, far fewer radians turned.
    expect(Math.min(...samples(res.segments).map((p) => p.y))).toBeLessThan(3);
    expect(res.length).toBeGreaterThan(zig.length);
  }, 120_000);

  test(
    "where DIRECTIONAL finds nothing, AUTO answers with the usual planner and says it approximated",
    async () => {
      const res = await plan({ ...req(5), options: { max_expansions: 50 } });
      expect(res.status).toBe("PLAN_STATUS_FOUND");
      expect(res.stats.planner).toBe("PLANNER_SMOOTH");
      expect(res.message).toMatch(
        /unit\.turn_penalty 5: PLANNER_DIRECTIONAL, which minimises it, found no path/,
      );
      expect(res.message).toMatch(/not minimised by PLANNER_SMOOTH/);
    },
    60_000,
  );

  test("a planner asked for by name that does not minimise it says so", async () => {
    for (const planner of ["PLANNER_GRID", "PLANNER_SMOOTH", "PLANNER_HYBRID"]) {
      const res = await plan(req(5, planner));
      expect(res.status, planner).toBe("PLAN_STATUS_FOUND");
      expect(res.message, planner).toMatch(
        new RegExp(`unit\\.turn_penalty 5: .*not minimised by ${planner}`),
      );
    }
    const dir = await plan(req(5, "PLANNER_DIRECTIONAL"));
    expect(dir.message).not.toMatch(/turn_penalty/);
  }, 120_000);
});

describe("options.allow_backing_up against unit.can_reverse", () => {
  test("refused for a unit that cannot reverse, under every planner", async () => {
    for (const planner of ["PLANNER_AUTO", "PLANNER_CURVED", "PLANNER_HYBRID", "PLANNER_DIRECTIONAL"]) {
      const err = await callError(srv.client, "Plan", {
        map: { id: "deadend" },
        unit: { name: "tank", can_reverse: false },
        start: { x: 3.5, y: 6.5, heading: Math.PI },
        goal: { x: 22.5, y: 15.5 },
        planner,
        options: { allow_backing_up: true },
      });
      expect(err.code, planner).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details, planner).toMatch(/options\.allow_backing_up: .*unit\.can_reverse is false/);
    }
  }, 60_000);

  test("allowed for a unit that may reverse: the curved planner backs out", async () => {
    const res = await plan({
      map: { id: "deadend" },
      unit: { name: "tank" },
      start: { x: 3.5, y: 6.5, heading: Math.PI },
      goal: { x: 22.5, y: 15.5 },
      planner: "PLANNER_CURVED",
      options: { allow_backing_up: true },
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expect(res.segments.some((s: Wire) => s.direction < 0)).toBe(true);
    expect(res.message).toMatch(/unit\.reverse_penalty 2 and unit\.cusp_penalty 2: .*PLANNER_CURVED/);
  }, 60_000);
});

describe("settings in a stream", () => {
  test(
    "keep_to_roads: the fast first answer and the refined one both stay on the road and show the unit",
    async () => {
      const s = srv.client.Stream();
      const updates: Wire[] = [];
      const done = new Promise<void>((res, rej) => {
        s.on("data", (u: Wire) => {
          updates.push(u);
          if (updates.filter((x) => x.plan).length >= 2) res();
        });
        s.on("error", rej);
        setTimeout(res, 20_000);
      });
      s.write({
        plan: {
          map: { id: "roads" },
          unit: { name: "soldier", can_reverse: false },
          start: { x: 4.5, y: 4.5, heading: 0 },
          goal: { x: 25.5, y: 24.5 },
          options: { keep_to_roads: true },
        },
      });
      await done;
      s.cancel();
      const plans = updates.filter((u) => u.plan && u.plan.segments.length > 0).map((u) => u.plan);
      expect(plans.length).toBeGreaterThan(0);
      for (const p of plans) {
        expect(p.unit.name).toBe("soldier");
        expect(p.unit.can_reverse).toBe(false);
        const off = samples(p.segments).filter((q) => roads[Math.floor(q.y)][Math.floor(q.x)] !== "R");
        expect(off.slice(0, 3)).toEqual([]);
      }
    },
    60_000,
  );
});
