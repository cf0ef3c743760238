/**
 * The gate tells the truth for every footprint (issue 11, items 4 and 7), end to end over gRPC: corridors built
 * so that a legal path exists by construction (a 1-wide corridor with a 90-degree bend for the jeep, 2-wide
 * corridors with start and goal on the centre line for the tank and the truck) are found by PLANNER_AUTO,
 * PLANNER_HYBRID and PLANNER_DIRECTIONAL, every answer passing the independent checker; the article's Figure 12
 * fixture is found; a goal on a wall and a start whose footprint overlaps a wall are refused naming the field
 * with the nearest legal pose; headings in degrees are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import type { Segment } from "../../src/geometry/types.ts";
import type { PlanOutcome } from "../../src/planning/task.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { checkPath, layerOf, layerOfMap } from "../helpers/pathCheck.ts";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer([]);
}, 60000);
afterAll(async () => {
  await srv?.stop();
});

/**
 * A corridor with one left bend: a horizontal straight (`wide` tiles across, centre line y = cy) up to x = ax,
 * a quarter circle of radius `radius` (the unit's turning radius) to the vertical straight (centre line
 * x = ax + radius) going down to the map's bottom wall. The straights are exactly `wide` tiles wide; at the bend
 * every tile within `reach` of the arc is open. A footprint whose every point is within `reach` of its center
 * and whose half-width fits the straights therefore drives the centre line legally (`path`), and the test
 * checks that with the independent checker too.
 */
function bendCorridor(
  { wide, cy, ax, radius, reach, width, height }: {
    wide: 1 | 2;
    cy: number;
    ax: number;
    radius: number;
    reach: number;
    width: number;
    height: number;
  },
): { rows: string[]; text: string; path: (startX: number, goalY: number) => Segment[] } {
  const bx = ax + radius;
  const open = (x: number, y: number): boolean => {
    if (x < 1 || y < 1 || x >= width - 1 || y >= height - 1) return false;
    const inRow = wide === 1 ? y === Math.floor(cy) : y === cy - 1 || y === cy;
    const inCol = wide === 1 ? x === Math.floor(bx) : x === bx - 1 || x === bx;
    if (inRow && x < ax) return true;
    if (inCol && y >= cy + radius) return true;
    // The bend: distance from the tile square to the arc (sampled densely) within reach.
    for (let i = 0; i <= 400; i++) {
      const a = -Math.PI / 2 + (Math.PI / 2) * (i / 400);
      const px = ax + radius * Math.cos(a), py = cy + radius + radius * Math.sin(a);
      const dx = Math.max(x - px, 0, px - x - 1), dy = Math.max(y - py, 0, py - y - 1);
      if (Math.hypot(dx, dy) < reach) return true;
    }
    return false;
  };
  const rows: string[] = [];
  for (let y = 0; y < height; y++) {
    let row = "";
    for (let x = 0; x < width; x++) row += open(x, y) ? "." : "@";
    rows.push(row);
  }
  const text = `type octile\nheight ${height}\nwidth ${width}\nmap\n${rows.join("\n")}\n`;
  const path = (startX: number, goalY: number): Segment[] => [
    lineSegment({ x: startX, y: cy, heading: 0 }, ax - startX),
    arcSegment({ x: ax, y: cy, heading: 0 }, 1 / radius, (Math.PI / 2) * radius),
    lineSegment({ x: bx, y: cy + radius, heading: Math.PI / 2 }, goalY - (cy + radius)),
  ];
  return { rows, text, path };
}

/**
 * A straight horizontal corridor 2 tiles wide (rows cy - 1 and cy, centre line y = cy) along the map; its
 * legal path is the straight centre line (checked below with the independent checker).
 */
function straightCorridor(cy: number, width: number, height: number): ReturnType<typeof bendCorridor> {
  const rows: string[] = [];
  for (let y = 0; y < height; y++) {
    let row = "";
    for (let x = 0; x < width; x++) row += x > 0 && x < width - 1 && (y === cy - 1 || y === cy) ? "." : "@";
    rows.push(row);
  }
  const text = `type octile\nheight ${height}\nwidth ${width}\nmap\n${rows.join("\n")}\n`;
  const path = (startX: number, goalX: number): Segment[] => [
    lineSegment({ x: startX, y: cy, heading: 0 }, goalX - startX),
  ];
  return { rows, text, path };
}

interface Case {
  name: string;
  /** A corridor with a bend (the goal's y is the constructed path's end), else a straight one (its x). */
  bend: boolean;
  unit: UnitSpec;
  corridor: ReturnType<typeof bendCorridor>;
  /** How far the unit may leave the centre line (on the straights) before it hits a wall. */
  slack: number;
  start: { x: number; y: number; heading: number };
  goal: { x: number; y: number; heading: number };
}

const jeep = BUILTIN_PROFILES.jeep, tank = BUILTIN_PROFILES.tank, truck = BUILTIN_PROFILES.truck;
const cases: Case[] = [
  {
    // 1 wide, centre lines at half tiles: the jeep (0.8 wide) has 0.1 on either side.
    name: "jeep",
    bend: true,
    unit: jeep,
    corridor: bendCorridor({ wide: 1, cy: 2.5, ax: 10.5, radius: 2, reach: 1, width: 16, height: 18 }),
    start: { x: 2.5, y: 2.5, heading: 0 },
    slack: 0.1,
    goal: { x: 12.5, y: 15.5, heading: Math.PI / 2 },
  },
  {
    // 2 wide, the centre line on a tile border: the tank (radius 0.9) has 0.1 on either side, and no tile
    // center of the corridor is a legal pose for it (the bounding disc at tile centres refused it).
    name: "tank",
    bend: false,
    unit: tank,
    corridor: straightCorridor(3, 30, 7),
    slack: 0.1,
    start: { x: 3.5, y: 3, heading: 0 },
    goal: { x: 26, y: 3, heading: 0 },
  },
  {
    // 2 wide: the truck (1.0 wide, 2.4 long; bounding disc 1.3) on the centre line.
    name: "truck",
    bend: false,
    unit: truck,
    corridor: straightCorridor(3, 30, 7),
    slack: 0.5,
    start: { x: 3.5, y: 3, heading: 0 },
    goal: { x: 26, y: 3, heading: 0 },
  },
  {
    // 2 wide with a 90-degree bend of radius 2 (the tank turns at 1.5): the centre lines run on tile borders,
    // so no tile centre fits the tank anywhere in it; the lattice finds nothing and the off-lattice search
    // (src/planning/offLattice.ts) places the footprint between tile centres.
    name: "tank-bend",
    bend: true,
    unit: tank,
    corridor: bendCorridor({ wide: 2, cy: 3, ax: 10, radius: 2, reach: 1, width: 16, height: 21 }),
    slack: 0.1,
    start: { x: 3.5, y: 3, heading: 0 },
    goal: { x: 12, y: 18, heading: Math.PI / 2 },
  },
  {
    // The truck (half diagonal 1.3) round a bend of its turning radius 4 in a 2-wide corridor.
    name: "truck-bend",
    bend: true,
    unit: truck,
    corridor: bendCorridor({ wide: 2, cy: 3, ax: 10, radius: 4, reach: 1.4, width: 18, height: 23 }),
    slack: 0.5,
    start: { x: 3.5, y: 3, heading: 0 },
    goal: { x: 14, y: 20, heading: Math.PI / 2 },
  },
];

describe("corridors built so that a legal path exists are found", () => {
  for (const c of cases) {
    const layer = layerOf(c.corridor.rows);
    test(`${c.name}: the constructed centre-line path is legal (independent checker)`, () => {
      const segs = c.corridor.path(c.start.x, c.bend ? c.goal.y : c.goal.x);
      const out = { segments: segs } as unknown as PlanOutcome;
      expect(checkPath(layer, c.unit, out, c.start, { ...c.goal, tolerance: 1e-6 })).toEqual([]);
      // The corridor is tight: a little more than the slack off the centre line the same path hits a wall.
      const shifted = segs.map((s) => ({ ...s, start: { ...s.start, y: s.start.y - c.slack - 0.02 } }));
      const problems = checkPath(
        layer,
        c.unit,
        { segments: shifted } as unknown as PlanOutcome,
        c.start,
        c.goal,
      );
      expect(problems.some((p) => /hits a blocked tile/.test(p))).toBe(true);
    });
    for (const planner of ["PLANNER_AUTO", "PLANNER_HYBRID", "PLANNER_DIRECTIONAL"]) {
      for (const withHeading of [true, false]) {
        const label = `${c.name} ${planner}, goal ${withHeading ? "with" : "without"} heading`;
        test(`${label}: found, and legal`, async () => {
          const id = `gate-${c.name}`;
          await call(srv.client, "PutMap", { id, movingai: c.corridor.text });
          const goal = withHeading ? c.goal : { x: c.goal.x, y: c.goal.y };
          const res = await call(srv.client, "Plan", {
            map: { id },
            unit: { name: c.unit.name },
            start: c.start,
            goal,
            planner,
            options: { max_millis: 10000 },
          });
          expect(res.status, res.message).toBe("PLAN_STATUS_FOUND");
          const out = { segments: res.segments } as unknown as PlanOutcome;
          expect(checkPath(layer, c.unit, out, c.start, { ...goal, tolerance: 0.5 })).toEqual([]);
        }, 60000);
      }
    }
  }
});

describe("the Figure 12 fixture over gRPC", () => {
  const text = readFileSync(new URL("../fixtures/figure12.map", import.meta.url), "utf8");
  const layer = layerOfMap(text);
  // The launch of test/planning/directionalFigures.test.ts: a disc of radius 0.8, turning radius 2, forward only
  // (the default profile's other fields: no speed limits).
  const launch: UnitSpec = {
    ...BUILTIN_PROFILES.agent,
    footprint: { radius: 0.8, width: 0, length: 0 },
    boundingRadius: 0.8,
    turningRadius: 2,
  };
  const start = { x: 3.5, y: 3.5, heading: 0 };
  const goal = { x: 10.5, y: 7.5 };
  for (const planner of ["PLANNER_DIRECTIONAL", "PLANNER_AUTO", "PLANNER_HYBRID"]) {
    test(`${planner} finds a legal path (not UNREACHABLE from the region table)`, async () => {
      await call(srv.client, "PutMap", { id: "figure12", movingai: text });
      const res = await call(srv.client, "Plan", {
        map: { id: "figure12" },
        unit: { radius: 0.8, turning_radius: 2 },
        start,
        goal,
        planner,
        options: { max_millis: 15000, max_expansions: 2_000_000 },
      });
      expect(res.status, res.message).toBe("PLAN_STATUS_FOUND");
      expect(res.stats.from_region_table).toBe(false);
      const out = { segments: res.segments } as unknown as PlanOutcome;
      expect(checkPath(layer, launch, out, start, goal)).toEqual([]);
    }, 60000);
  }

  test("a line planner says its tile-centre rule is what separates the pair (NO_LEGAL_PATH)", async () => {
    await call(srv.client, "PutMap", { id: "figure12", movingai: text });
    const res = await call(srv.client, "Plan", {
      map: { id: "figure12" },
      unit: { radius: 0.8 },
      start,
      goal,
      planner: "PLANNER_GRID",
    });
    expect(res.status).toBe("PLAN_STATUS_NO_LEGAL_PATH");
    expect(res.message).toMatch(/tile centers/);
    expect(res.message).toMatch(/PLANNER_DIRECTIONAL/);
  });
});

describe("a 1-wide door: the region tables answer only what is true", () => {
  // Two rooms split by a wall at x = 30 with a 1-wide door at y = 5.
  const W = 61, H = 30;
  const rows = Array.from(
    { length: H },
    (_, y) => Array.from({ length: W }, (_, x) => (x === 30 && y !== 5 ? "@" : ".")).join(""),
  );
  const text = `type octile\nheight ${H}\nwidth ${W}\nmap\n${rows.join("\n")}\n`;
  const layer = layerOf(rows);
  const base = { map: { id: "gate-door" }, start: { x: 2.5, y: 5.5, heading: 0 }, goal: { x: 57.5, y: 5.5 } };

  test("the tank (radius 0.9) cannot pass: UNREACHABLE from the region tables, no search", async () => {
    await call(srv.client, "PutMap", { id: "gate-door", movingai: text });
    for (const planner of ["PLANNER_AUTO", "PLANNER_DIRECTIONAL", "PLANNER_GRID"]) {
      const res = await call(srv.client, "Plan", { ...base, unit: { name: "tank" }, planner });
      expect(res.status, planner).toBe("PLAN_STATUS_UNREACHABLE");
      expect(res.stats.expansions).toBe(0);
      expect(res.stats.from_region_table).toBe(true);
    }
  });

  test("the jeep and the truck (0.8 and 1.0 wide) pass straight through; GRID says its rule stops it", async () => {
    await call(srv.client, "PutMap", { id: "gate-door", movingai: text });
    for (const name of ["jeep", "truck"]) {
      for (const planner of ["PLANNER_AUTO", "PLANNER_DIRECTIONAL"]) {
        const res = await call(srv.client, "Plan", { ...base, unit: { name }, planner });
        expect(res.status, `${name} ${planner}`).toBe("PLAN_STATUS_FOUND");
        const out = { segments: res.segments } as unknown as PlanOutcome;
        expect(checkPath(layer, BUILTIN_PROFILES[name], out, base.start, base.goal)).toEqual([]);
      }
      const grid = await call(srv.client, "Plan", { ...base, unit: { name }, planner: "PLANNER_GRID" });
      expect(grid.status).toBe("PLAN_STATUS_NO_LEGAL_PATH");
      expect(grid.message).toMatch(/bounding disc .* on tile centers/);
    }
  });
});

describe("refusals name the field and suggest the nearest legal pose", () => {
  const jeepCase = cases[0];

  test("a goal on a wall is INVALID_ARGUMENT (goal), not UNREACHABLE", async () => {
    await call(srv.client, "PutMap", { id: "gate-jeep", movingai: jeepCase.corridor.text });
    const err = await callError(srv.client, "Plan", {
      map: { id: "gate-jeep" },
      unit: { name: "jeep" },
      start: jeepCase.start,
      goal: { x: 6.5, y: 6.5 },
    });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^goal: /);
    expect(err.details).toMatch(/at any heading/);
    expect(err.details).toMatch(/nearest legal pose \(\d+(\.\d+)?, \d+(\.\d+)?, -?\d+(\.\d+)?\)/);
  });

  test("a goal whose heading does not fit is refused; the suggestion fits", async () => {
    await call(srv.client, "PutMap", { id: "gate-jeep", movingai: jeepCase.corridor.text });
    // Across the 1-wide corridor the jeep (1.4 long) does not fit.
    const err = await callError(srv.client, "Plan", {
      map: { id: "gate-jeep" },
      unit: { name: "jeep" },
      start: jeepCase.start,
      goal: { x: 5.5, y: 2.5, heading: Math.PI / 2 },
    });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^goal: .*at heading 1\.571/);
    const m = /nearest legal pose \(([-\d.]+), ([-\d.]+), ([-\d.]+)\)/.exec(err.details);
    expect(m).not.toBeNull();
    const [x, y, heading] = [Number(m![1]), Number(m![2]), Number(m![3])];
    // The suggested pose is accepted as it is.
    const ok = await call(srv.client, "Plan", {
      map: { id: "gate-jeep" },
      unit: { name: "jeep" },
      start: jeepCase.start,
      goal: { x, y, heading },
      planner: "PLANNER_DIRECTIONAL",
      options: { max_millis: 10000 },
    });
    expect(ok.status).not.toBe("PLAN_STATUS_UNREACHABLE");
  });

  test("a start whose footprint overlaps a wall (its tile is open) is refused naming start", async () => {
    await call(srv.client, "PutMap", { id: "gate-tank", movingai: cases[1].corridor.text });
    // Tile (3, 3) is open, but the tank (radius 0.9) at its centre overlaps the wall below.
    const err = await callError(srv.client, "Plan", {
      map: { id: "gate-tank" },
      unit: { name: "tank" },
      start: { x: 3.5, y: 3.5, heading: 0 },
      goal: cases[1].goal,
    });
    expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(err.details).toMatch(/^start: tile \(3, 3\) is blocked for this unit/);
    expect(err.details).toMatch(/disc radius 0\.9/);
    expect(err.details).toMatch(/nearest legal pose/);
  });

  test("headings in degrees are refused with a hint; radians near the circle pass", async () => {
    await call(srv.client, "PutMap", { id: "gate-jeep", movingai: jeepCase.corridor.text });
    const base = { map: { id: "gate-jeep" }, unit: { name: "jeep" }, goal: jeepCase.goal };
    for (
      const [field, req] of [
        ["start.heading", { ...base, start: { ...jeepCase.start, heading: 90 } }],
        ["goal.heading", { ...base, start: jeepCase.start, goal: { ...jeepCase.goal, heading: -180 } }],
      ] as const
    ) {
      const err = await callError(srv.client, "Plan", req);
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toMatch(new RegExp(`^${field.replace(".", "\\.")}: .*looks like degrees`));
    }
    // 2 pi + a little (a client's accumulated heading) is still radians.
    const res = await call(srv.client, "Plan", {
      ...base,
      start: { ...jeepCase.start, heading: 2 * Math.PI },
      planner: "PLANNER_DIRECTIONAL",
      options: { max_millis: 10000 },
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
  });
});
