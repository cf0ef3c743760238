import { describe, expect, test } from "vitest";
import { type PassLayer, tileClearance } from "../../src/maps/grid.ts";
import { astar, reconstructPath, SearchWorkspace, unlimited } from "../../src/search/astar.ts";
import { GridSpace } from "../../src/search/gridSpace.ts";
import { smoothPath } from "../../src/smoothing/simpleSmooth.ts";
import { POINT_RADIUS, sweptMaxCost, walkable } from "../../src/smoothing/walkable.ts";
import { rng } from "../helpers/rng.ts";
import { bruteClearance } from "../helpers/clearance.ts";
import { clearanceCodes } from "../helpers/clearanceCodes.ts";
import { runPlanTask } from "../../src/planning/plan.ts";
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { contextOf, layerOf, taskOf } from "../helpers/pathCheck.ts";

// ---------- local helpers (independent of src/maps) ----------

function layerFromCosts(width: number, height: number, cost: Float32Array): PassLayer {
  let minCost = Infinity;
  for (const c of cost) if (c > 0) minCost = Math.min(minCost, c);
  return {
    width,
    height,
    tileCost: cost,
    clearanceCode: clearanceCodes(bruteClearance(width, height, cost)),
    minCost: minCost === Infinity ? 1 : minCost,
    road: new Uint8Array(width * height),
  };
}

/** The terrain integral along a line by dense midpoint sampling (independent of the cost model's code). */
function sampledIntegral(layer: PassLayer, ax: number, ay: number, bx: number, by: number): number {
  const len = Math.hypot(bx - ax, by - ay);
  const n = Math.max(1, Math.ceil(len / 0.001));
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = (i + 0.5) / n;
    const x = Math.floor(ax + t * (bx - ax)), y = Math.floor(ay + t * (by - ay));
    const c = x >= 0 && y >= 0 && x < layer.width && y < layer.height
      ? layer.tileCost[y * layer.width + x]
      : 1;
    sum += (c > 0 ? c : 1) * (len / n);
  }
  return sum;
}

function layerFromRows(rows: string[], costOf: Record<string, number> = {}): PassLayer {
  const w = rows[0].length;
  const h = rows.length;
  const cost = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const ch = rows[y][x];
      cost[y * w + x] = ch in costOf ? costOf[ch] : ch === "." ? 1 : 0;
    }
  }
  return layerFromCosts(w, h, cost);
}

/**
 * Dense sampler: walks the segment in steps of at most 1/200 tile (an even count, so a grid step's midpoint is
 * sampled) and, at each sample, tests the disc of radius max(r, 1e-6) against every nearby tile square.
 * Returns Infinity if a blocked or off-map square is overlapped, else the largest cost of a tile the unit
 * crosses (within distance < r, or for r = 0 the sample strictly inside the tile).
 */
function sampledMaxCost(layer: PassLayer, r: number, ax: number, ay: number, bx: number, by: number): number {
  const rr = Math.max(r, POINT_RADIUS);
  const len = Math.hypot(bx - ax, by - ay);
  const steps = 2 * Math.max(1, Math.ceil(len * 100));
  const reach = Math.ceil(rr) + 1;
  let max = 0;
  for (let k = 0; k <= steps; k++) {
    const px = ax + ((bx - ax) * k) / steps;
    const py = ay + ((by - ay) * k) / steps;
    const tx = Math.floor(px);
    const ty = Math.floor(py);
    for (let j = ty - reach; j <= ty + reach; j++) {
      for (let i = tx - reach; i <= tx + reach; i++) {
        const dx = Math.max(i - px, 0, px - (i + 1));
        const dy = Math.max(j - py, 0, py - (j + 1));
        const d = Math.hypot(dx, dy);
        if (d >= rr) continue;
        const inside = i >= 0 && j >= 0 && i < layer.width && j < layer.height;
        const c = inside ? layer.tileCost[j * layer.width + i] : 0;
        if (c === 0) return Infinity;
        const crosses = r > 0 ? d < r : px > i && px < i + 1 && py > j && py < j + 1;
        if (crosses && c > max) max = c;
      }
    }
  }
  return max;
}

function center(t: number, w: number): [number, number] {
  return [(t % w) + 0.5, Math.floor(t / w) + 0.5];
}

function polylineLength(xy: ArrayLike<number>): number {
  let s = 0;
  for (let i = 2; i < xy.length; i += 2) s += Math.hypot(xy[i] - xy[i - 2], xy[i + 1] - xy[i - 1]);
  return s;
}

// ---------- tests ----------

describe("walkable (exact capsule)", () => {
  test("agrees with a dense sampler on random segments", () => {
    const rand = rng(3);
    let agree = 0;
    let blockedSeen = 0;
    let total = 0;
    for (let m = 0; m < 20; m++) {
      const w = 10 + Math.floor(rand() * 15);
      const h = 10 + Math.floor(rand() * 15);
      const cost = new Float32Array(w * h);
      for (let i = 0; i < cost.length; i++) cost[i] = rand() < 0.15 ? 0 : 1 + Math.floor(rand() * 3);
      const layer = layerFromCosts(w, h, cost);
      for (let q = 0; q < 40; q++) {
        const ax = rand() * w;
        const ay = rand() * h;
        const bx = Math.min(w - 1e-3, Math.max(0, ax + (rand() - 0.5) * 8));
        const by = Math.min(h - 1e-3, Math.max(0, ay + (rand() - 0.5) * 8));
        const r = [0, 0.25, 0.5, 0.8, 1.3][q % 5];
        const maxCost = 1 + Math.floor(rand() * 3);
        const exact = walkable(layer, r, ax, ay, bx, by, maxCost);
        const sampled = sampledMaxCost(layer, r, ax, ay, bx, by) <= maxCost;
        // The sampler can only miss overlaps (thin grazes between samples), never invent them.
        if (exact) expect(sampled).toBe(true);
        if (!exact) blockedSeen++;
        if (exact === sampled) agree++;
        total++;
      }
    }
    expect(blockedSeen).toBeGreaterThan(100);
    expect(agree / total).toBeGreaterThan(0.97);
  });

  test("uniform-cost layers: clearance-certified stretches give the exact answer, and agree with the sampler", () => {
    const rand = rng(17);
    let agree = 0;
    let blockedSeen = 0;
    let freeSeen = 0;
    let total = 0;
    for (let m = 0; m < 16; m++) {
      const w = 20 + Math.floor(rand() * 30);
      const h = 20 + Math.floor(rand() * 30);
      const density = 0.01 + 0.08 * rand();
      const cost = new Float32Array(w * h);
      for (let i = 0; i < cost.length; i++) cost[i] = rand() < density ? 0 : 1;
      const layer = layerFromCosts(w, h, cost);
      // Same tiles, no clearance: nothing is certified, every stretch is scanned tile by tile.
      const scanned = { ...layer, clearanceCode: new Uint8Array(w * h) };
      for (let q = 0; q < 60; q++) {
        const ax = rand() * w;
        const ay = rand() * h;
        const bx = Math.min(w - 1e-3, Math.max(0, ax + (rand() - 0.5) * 30));
        const by = Math.min(h - 1e-3, Math.max(0, ay + (rand() - 0.5) * 30));
        const r = [0, 0.25, 0.5, 0.8, 1.3, 2.1][q % 6];
        const fast = sweptMaxCost(layer, r, ax, ay, bx, by, Infinity);
        expect(fast, `map ${m} query ${q}`).toBe(sweptMaxCost(scanned, r, ax, ay, bx, by, Infinity));
        const sampled = sampledMaxCost(layer, r, ax, ay, bx, by);
        if (fast !== Infinity) {
          expect(sampled).toBe(1);
          freeSeen++;
        } else blockedSeen++;
        if ((fast === Infinity) === (sampled === Infinity)) agree++;
        total++;
      }
    }
    expect(blockedSeen).toBeGreaterThan(100);
    expect(freeSeen).toBeGreaterThan(100);
    expect(agree / total).toBeGreaterThan(0.97);
  });

  test("a point unit cannot slip through the shared corner of two diagonally blocked tiles", () => {
    const layer = layerFromRows([
      ".....",
      ".@...",
      "..@..",
      ".....",
      ".....",
    ]);
    // The line x + y = 4 passes exactly through (2, 2), the corner shared by tiles (1, 1) and (2, 2).
    expect(walkable(layer, 0, 0.5, 3.5, 3.5, 0.5)).toBe(false);
    // Shifted off the corner by one and a half tiles it is clear (x + y = 7 touches no blocked corner).
    expect(walkable(layer, 0, 2.5, 4.5, 4.5, 2.5)).toBe(true);
    // x + y = 6 passes (3, 3), the far corner of blocked tile (2, 2).
    expect(walkable(layer, 0, 1.5, 4.5, 4.5, 1.5)).toBe(false);
    // Running exactly along a blocked tile's edge is refused too (y = 1 is the top edge of tile (1, 1)).
    expect(walkable(layer, 0, 0.25, 1, 3.5, 1)).toBe(false);
    expect(walkable(layer, 0, 0.25, 0.5, 3.5, 0.5)).toBe(true);
  });

  test("the unit's width counts: a 2-wide gap passes r = 0.5 and r = 1.0, not r = 1.01", () => {
    const layer = layerFromRows([
      "..........",
      "..........",
      "@@@@..@@@@",
      "..........",
      "..........",
    ]);
    expect(walkable(layer, 0.5, 5, 0.5, 5, 4.5)).toBe(true);
    expect(walkable(layer, 1.0, 5, 1, 5, 4)).toBe(true);
    expect(walkable(layer, 1.01, 5, 1.01, 5, 3.99)).toBe(false);
    // Off the map counts as blocked.
    expect(walkable(layer, 0.6, 0.5, 0.5, 0.5, 1.5)).toBe(false);
  });
});

describe("smoothPath", () => {
  test("random maps: endpoints kept, never longer, every pair clear by the dense sampler, no costlier terrain", () => {
    const rand = rng(11);
    const space = new GridSpace();
    const ws = new SearchWorkspace();
    let checkedPairs = 0;
    let shortened = 0;
    for (let m = 0; m < 40; m++) {
      const w = 12 + Math.floor(rand() * 20);
      const h = 12 + Math.floor(rand() * 20);
      const cost = new Float32Array(w * h);
      const costly = m % 2 === 1;
      for (let i = 0; i < cost.length; i++) {
        cost[i] = rand() < 0.18 ? 0 : costly && rand() < 0.3 ? 1 + Math.floor(rand() * 4) : 1;
      }
      const layer = layerFromCosts(w, h, cost);
      for (let q = 0; q < 6; q++) {
        const r = [0, 0.5, 0.7, 1.2][q % 4];
        let s = -1;
        let goal = -1;
        for (let tries = 0; tries < 200 && (s < 0 || goal < 0 || s === goal); tries++) {
          const a = Math.floor(rand() * w * h);
          const b = Math.floor(rand() * w * h);
          if (cost[a] > 0 && tileClearance(layer, a) >= r) s = a;
          if (cost[b] > 0 && tileClearance(layer, b) >= r) goal = b;
        }
        if (s < 0 || goal < 0 || s === goal) continue;
        space.configure(layer, r, 8, goal);
        const res = astar(space, ws, [s], unlimited());
        if (res.status !== "found") continue;
        const grid = reconstructPath(ws, res.goal);
        const gridXY = new Float64Array(grid.length * 2);
        grid.forEach((t, i) => {
          [gridXY[2 * i], gridXY[2 * i + 1]] = center(t, w);
        });
        const smooth = smoothPath(layer, r, grid, w);
        // Endpoints preserved.
        expect([smooth[0], smooth[1]]).toEqual(center(s, w));
        expect([smooth[smooth.length - 2], smooth[smooth.length - 1]]).toEqual(center(goal, w));
        const gridLength = polylineLength(gridXY);
        const smoothLength = polylineLength(smooth);
        expect(smoothLength).toBeLessThanOrEqual(gridLength + 1e-9);
        if (smoothLength < gridLength - 1e-6) shortened++;
        // Each smoothed pair: clear of blocked squares, and (by the cost model: terrain integrated along the
        // line, sampled here) no dearer than the grid steps it replaces.
        let k = 0;
        for (let p = 2; p < smooth.length; p += 2) {
          const from = k;
          while (gridXY[2 * k] !== smooth[p] || gridXY[2 * k + 1] !== smooth[p + 1]) k++;
          let replaced = 0;
          for (let step = from; step < k; step++) {
            replaced += sampledIntegral(
              layer,
              gridXY[2 * step],
              gridXY[2 * step + 1],
              gridXY[2 * step + 2],
              gridXY[2 * step + 3],
            );
          }
          const swept = sampledMaxCost(layer, r, smooth[p - 2], smooth[p - 1], smooth[p], smooth[p + 1]);
          expect(swept).toBeLessThan(Infinity);
          const integral = sampledIntegral(layer, smooth[p - 2], smooth[p - 1], smooth[p], smooth[p + 1]);
          expect(integral).toBeLessThanOrEqual(replaced + 0.02);
          checkedPairs++;
        }
        expect(k).toBe(grid.length - 1);
      }
    }
    expect(checkedPairs).toBeGreaterThan(200);
    expect(shortened).toBeGreaterThan(50);
  });

  test("the corner slip through a diagonal gap is refused", () => {
    const layer = layerFromRows([
      "......",
      ".@....",
      "..@...",
      "......",
      "......",
    ]);
    const w = layer.width;
    // The straight line (0,3) -> (3,0) would pass through the shared corner (2, 2).
    const start = 3 * w + 0;
    const goal = 0 * w + 3;
    const space = new GridSpace().configure(layer, 0, 8, goal);
    const ws = new SearchWorkspace();
    const res = astar(space, ws, [start], unlimited());
    expect(res.status).toBe("found");
    const smooth = smoothPath(layer, 0, reconstructPath(ws, res.goal), w);
    expect(smooth.length).toBeGreaterThan(4);
    for (let p = 2; p < smooth.length; p += 2) {
      expect(walkable(layer, 0, smooth[p - 2], smooth[p - 1], smooth[p], smooth[p + 1])).toBe(true);
      // No segment touches the corner point (2, 2).
      const [ax, ay, bx, by] = [smooth[p - 2], smooth[p - 1], smooth[p], smooth[p + 1]];
      const t = Math.max(
        0,
        Math.min(1, ((2 - ax) * (bx - ax) + (2 - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)),
      );
      expect(Math.hypot(ax + t * (bx - ax) - 2, ay + t * (by - ay) - 2)).toBeGreaterThan(POINT_RADIUS);
    }
  });

  test("a shortcut never crosses costlier terrain than the grid path it replaces", () => {
    const layer = layerFromRows([
      ".........",
      "....5....",
      ".........",
    ], { "5": 5 });
    const w = layer.width;
    const start = 1 * w + 0;
    const goal = 1 * w + 8;
    const space = new GridSpace().configure(layer, 0, 8, goal);
    const ws = new SearchWorkspace();
    const res = astar(space, ws, [start], unlimited());
    const grid = reconstructPath(ws, res.goal);
    expect(Array.from(grid)).not.toContain(1 * w + 4);
    const smooth = smoothPath(layer, 0, grid, w);
    // The straight line through the cost-5 tile is refused: the result detours.
    expect(smooth.length).toBeGreaterThan(4);
    for (let p = 2; p < smooth.length; p += 2) {
      expect(sampledMaxCost(layer, 0, smooth[p - 2], smooth[p - 1], smooth[p], smooth[p + 1])).toBe(1);
    }
    // With the costly tile made ordinary, the same grid path smooths to one straight segment.
    const plain = layerFromRows([".........", ".........", "........."]);
    expect(smoothPath(plain, 0, grid, w).length).toBe(4);
  });
});

describe("smoothing by cost", () => {
  test("a shortcut is refused when it costs more than the grid stretch, even if no tile is dearer", () => {
    // The grid path runs beside a cost-9 band; a tank-wide disc sweeps over the band on the grid path too, so
    // the highest cost swept is the same either way, but the straight shortcut drives through the band.
    const layer = layerFromRows([
      "...........",
      "...........",
      "...99999...",
      "...99999...",
      "...........",
      "...........",
    ], { "9": 9 });
    const w = layer.width;
    // An explicit grid path around the band (below it), start (0, 2) to goal (10, 2).
    const tiles = [[0, 2], [1, 3], [2, 4], [3, 4], [4, 4], [5, 4], [6, 4], [7, 4], [8, 4], [9, 3], [10, 2]];
    const grid = Int32Array.from(tiles.map(([x, y]) => y * w + x));
    const smooth = smoothPath(layer, 0.9, grid, w);
    let total = 0;
    for (let p = 2; p < smooth.length; p += 2) {
      total += sampledIntegral(layer, smooth[p - 2], smooth[p - 1], smooth[p], smooth[p + 1]);
    }
    let gridTotal = 0;
    for (let i = 1; i < tiles.length; i++) {
      gridTotal += sampledIntegral(
        layer,
        tiles[i - 1][0] + 0.5,
        tiles[i - 1][1] + 0.5,
        tiles[i][0] + 0.5,
        tiles[i][1] + 0.5,
      );
    }
    expect(smooth.length).toBeGreaterThan(4);
    expect(total).toBeLessThanOrEqual(gridTotal + 0.02);
  });
});

describe("PLANNER_SMOOTH straight line", () => {
  const tank = { ...BUILTIN_PROFILES.tank };
  const smoothTask = (layer: PassLayer, sx: number, sy: number, gx: number, gy: number) =>
    taskOf(layer, tank, { x: sx, y: sy, heading: 0 }, { x: gx, y: gy }, {
      planner: "smooth",
      neighborhood: 8,
    });

  test("open uniform room: the straight line between the tile centers, with no search", () => {
    const layer = layerOf(Array.from({ length: 30 }, () => ".".repeat(30)));
    const out = runPlanTask(contextOf(layer), smoothTask(layer, 3.5, 4.5, 25.5, 21.5), null);
    expect(out.status).toBe("found");
    expect(out.message).toMatch(/^straight line to the goal/);
    expect(out.expansions).toBe(0);
    // One straight line, split at the tank's speed phases (accelerate, cruise, brake: docs/segments.md).
    expect(out.segments.length).toBe(3);
    for (const s of out.segments) {
      expect(s.curvature).toBe(0);
      expect(s.start.heading).toBe(out.segments[0].start.heading);
    }
    expect(out.length).toBeCloseTo(Math.hypot(22, 17), 12);
    expect(Array.from(out.waypoints!)).toEqual([4 * 30 + 3, 21 * 30 + 25]);
  });

  test("a wall in the way, or costlier terrain anywhere on the map: the grid search and smoothing run", () => {
    const walled = Array.from(
      { length: 30 },
      (_, y) => (y >= 5 && y < 25 ? ".".repeat(14) + "@" + ".".repeat(15) : ".".repeat(30)),
    );
    const layer = layerOf(walled);
    const out = runPlanTask(contextOf(layer), smoothTask(layer, 3.5, 15.5, 25.5, 15.5), null);
    expect(out.status).toBe("found");
    expect(out.expansions).toBeGreaterThan(0);
    expect(out.message).not.toMatch(/^straight line to the goal/);
    // A costlier row (cost 3) far from the line makes the layer non-uniform: the search decides.
    const costly = Array.from({ length: 30 }, (_, y) => (y === 28 ? "G".repeat(30) : ".".repeat(30)));
    const base = layerOf(costly);
    const tileCost = base.tileCost.slice();
    for (let x = 0; x < 30; x++) tileCost[28 * 30 + x] = 3;
    const mixed = { ...base, tileCost };
    const viaSearch = runPlanTask(contextOf(mixed), smoothTask(mixed, 3.5, 4.5, 25.5, 21.5), null);
    expect(viaSearch.status).toBe("found");
    expect(viaSearch.expansions).toBeGreaterThan(0);
  });
});

describe("line planners for a unit with a turning radius", () => {
  test("the message says the path is an approximation for it; not for a unit that turns in place", () => {
    const layer = layerOf(
      Array.from(
        { length: 20 },
        (_, y) => (y === 10 ? ".".repeat(5) + "@".repeat(10) + ".".repeat(5) : ".".repeat(20)),
      ),
    );
    const ctx = contextOf(layer);
    for (const planner of ["grid", "smooth"] as const) {
      const tank = runPlanTask(
        ctx,
        taskOf(layer, { ...BUILTIN_PROFILES.tank }, { x: 9.5, y: 3.5, heading: 0 }, { x: 9.5, y: 16.5 }, {
          planner,
          neighborhood: 8,
        }),
        null,
      );
      expect(tank.status).toBe("found");
      expect(tank.message).toMatch(
        /approximation for this unit: corners are turns in place.*turning radius 1\.5/,
      );
      const agent = runPlanTask(
        ctx,
        taskOf(layer, { ...BUILTIN_PROFILES.agent }, { x: 9.5, y: 3.5, heading: 0 }, { x: 9.5, y: 16.5 }, {
          planner,
          neighborhood: 8,
        }),
        null,
      );
      expect(agent.status).toBe("found");
      expect(agent.message).not.toMatch(/approximation/);
    }
  });
});
