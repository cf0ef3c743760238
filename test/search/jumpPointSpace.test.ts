/**
 * JumpPointSpace: optimal on every shared Moving AI query, the same fixed-point costs as GridSpace on random maps
 * with clearance classes, valid expanded tile paths, and gridSearch's fallback to GridSpace on non-uniform costs.
 */
import { describe, expect, test } from "vitest";
import { type PassLayer } from "../../src/maps/grid.ts";
import {
  astar,
  COST_SCALE,
  newSearchResult,
  reconstructPath,
  SearchWorkspace,
  unlimited,
} from "../../src/search/astar.ts";
import { gridPathLength, GridSpace } from "../../src/search/gridSpace.ts";
import {
  expandJumpPath,
  forgetJumpTables,
  jumpCacheSize,
  JumpPointSpace,
  setJumpCacheLimit,
  useJumpPoints,
} from "../../src/search/jumpPointSpace.ts";
import { tileClearance, uniformCost } from "../../src/maps/grid.ts";
import { gridSearch } from "../../src/planning/gridRoute.ts";
import { PlanContext } from "../../src/planning/context.ts";
import { type PlanTask } from "../../src/planning/task.ts";
import { mapNames, mapText, queries, tolerance } from "../helpers/movingai.ts";
import { rng } from "../helpers/rng.ts";
import { bruteClearance } from "../helpers/clearance.ts";
import { clearanceCodes } from "../helpers/clearanceCodes.ts";
import { planBudget } from "../../src/planning/budget.ts";

/** gridSearch within the task's own budget. */
function searchGrid(ctx: PlanContext, layer: PassLayer, task: PlanTask, neighborhood: 4 | 8) {
  return gridSearch(ctx, layer, task, neighborhood, planBudget(task));
}

// ---------- local helpers ----------

function layerFromCosts(width: number, height: number, cost: Float32Array, withClearance = true): PassLayer {
  let minCost = Infinity;
  for (const c of cost) if (c > 0) minCost = Math.min(minCost, c);
  return {
    width,
    height,
    tileCost: cost,
    clearanceCode: withClearance
      ? clearanceCodes(bruteClearance(width, height, cost, 4))
      : new Uint8Array(width * height),
    minCost: minCost === Infinity ? 1 : minCost,
    road: new Uint8Array(width * height),
  };
}

function layerFromMapText(text: string): PassLayer {
  const lines = text.split(/\r?\n/);
  const height = +lines.find((l) => l.startsWith("height"))!.split(/\s+/)[1];
  const width = +lines.find((l) => l.startsWith("width"))!.split(/\s+/)[1];
  const first = lines.indexOf("map") + 1;
  const cost = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) cost[y * width + x] = ".GS".includes(lines[first + y][x]) ? 1 : 0;
  }
  return layerFromCosts(width, height, cost, false);
}

/** Checks adjacency, no corner cutting, all tiles open for clearance r; returns a failure message or "". */
function pathProblem(layer: PassLayer, p: Int32Array, r: number): string {
  const w = layer.width;
  const open = (x: number, y: number) =>
    x >= 0 && y >= 0 && x < w && y < layer.height && layer.tileCost[y * w + x] > 0 &&
    (r <= 0 || tileClearance(layer, y * w + x) >= r);
  for (let i = 0; i < p.length; i++) {
    const x = p[i] % w;
    const y = Math.floor(p[i] / w);
    if (!open(x, y)) return `tile ${x},${y} not open`;
    if (i === 0) continue;
    const px = p[i - 1] % w;
    const py = Math.floor(p[i - 1] / w);
    const dx = x - px;
    const dy = y - py;
    if (Math.abs(dx) > 1 || Math.abs(dy) > 1 || (dx === 0 && dy === 0)) return `not adjacent at ${i}`;
    if (dx !== 0 && dy !== 0 && (!open(px + dx, py) || !open(px, py + dy))) return `corner cut at ${i}`;
  }
  return "";
}

/** Straight and diagonal step counts of a tile path. */
function stepCounts(p: Int32Array, w: number): [number, number] {
  let straight = 0;
  let diagonal = 0;
  for (let i = 1; i < p.length; i++) {
    if (p[i] % w !== p[i - 1] % w && Math.floor(p[i] / w) !== Math.floor(p[i - 1] / w)) diagonal++;
    else straight++;
  }
  return [straight, diagonal];
}

/** A random map: blocked with probability blockedP, else a random entry of costs; some rectangular walls. */
function randomLayer(rand: () => number, w: number, h: number, blockedP: number, costs: number[]): PassLayer {
  const cost = new Float32Array(w * h);
  for (let i = 0; i < cost.length; i++) {
    cost[i] = rand() < blockedP ? 0 : costs[Math.floor(rand() * costs.length)];
  }
  // Long walls make straight runs with side openings (the forced-neighbour cases).
  for (let k = 0; k < 3; k++) {
    const x0 = Math.floor(rand() * w);
    const y0 = Math.floor(rand() * h);
    const len = Math.floor(rand() * Math.max(w, h));
    for (let i = 0; i < len; i++) {
      const x = k % 2 === 0 ? x0 + i : x0;
      const y = k % 2 === 0 ? y0 : y0 + i;
      if (x < w && y < h) cost[y * w + x] = 0;
    }
  }
  return layerFromCosts(w, h, cost);
}

function pickOpen(rand: () => number, layer: PassLayer, r: number): number {
  for (let tries = 0; tries < 10_000; tries++) {
    const t = Math.floor(rand() * layer.width * layer.height);
    if (layer.tileCost[t] > 0 && (r <= 0 || tileClearance(layer, t) >= r)) return t;
  }
  return -1;
}

function task(start: number, goal: number, clearance: number, maxExpansions = Infinity): PlanTask {
  // gridSearch reads only these fields.
  return {
    startTile: start,
    goalTile: goal,
    clearance,
    maxExpansions,
    maxMillis: 60_000,
  } as unknown as PlanTask;
}

// ---------- tests ----------

describe("JPS on the Moving AI benchmark (8-connected, no corner cutting)", () => {
  let total = 0;
  for (const name of mapNames()) {
    test(`${name}: every query optimal within the README tolerance, expanded paths valid`, () => {
      const layer = layerFromMapText(mapText(name));
      expect(useJumpPoints(layer, 8)).toBe(true);
      const w = layer.width;
      const space = new JumpPointSpace();
      const ws = new SearchWorkspace();
      const result = newSearchResult();
      const failures: string[] = [];
      const qs = queries(name);
      for (const q of qs) {
        const start = q.sy * w + q.sx;
        const goal = q.gy * w + q.gx;
        astar(space.configure(layer, 0, goal), ws, [start], unlimited(), result);
        expect(result.status).toBe("found");
        const jumps = reconstructPath(ws, result.goal);
        const p = expandJumpPath(layer, jumps);
        expect(p[0]).toBe(start);
        expect(p[p.length - 1]).toBe(goal);
        expect(p.length).toBeGreaterThanOrEqual(jumps.length);
        const problem = pathProblem(layer, p, 0);
        if (problem) failures.push(`${q.sx},${q.sy}->${q.gx},${q.gy}: ${problem}`);
        const length = gridPathLength(layer, p, w);
        // The fixed-point cost the core summed over jumps is the expanded path's length.
        expect(Math.abs(result.cost / COST_SCALE - length)).toBeLessThan(1e-6 * p.length);
        if (Math.abs(length - q.optimal) > tolerance(name, q.optimal)) {
          failures.push(`${q.sx},${q.sy}->${q.gx},${q.gy}: ${length} vs ${q.optimal}`);
        }
        total++;
      }
      expect(failures).toEqual([]);
    }, 120_000);
  }
  test("all 1960 queries were run", () => {
    expect(total).toBe(1960);
  });
});

describe("JPS equals GridSpace on random uniform maps", () => {
  for (const r of [0, 0.5, 1.5]) {
    test(`clearance class ${r}: same fixed-point cost, same step counts, valid paths`, () => {
      const rand = rng(31 + r * 10);
      const jps = new JumpPointSpace();
      const grid = new GridSpace();
      const ws = new SearchWorkspace();
      let found = 0;
      let unreachable = 0;
      let gridExpansions = 0;
      let jumpExpansions = 0;
      for (let trial = 0; trial < 120; trial++) {
        const w = 6 + Math.floor(rand() * 30);
        const h = 6 + Math.floor(rand() * 30);
        // Cost 1 or a uniform non-unit cost (JPS applies to any single cost).
        const layer = randomLayer(rand, w, h, 0.05 + rand() * 0.3, [trial % 5 === 0 ? 2.5 : 1]);
        expect(useJumpPoints(layer, 8)).toBe(true);
        for (let q = 0; q < 8; q++) {
          const start = pickOpen(rand, layer, r);
          const goal = pickOpen(rand, layer, r);
          if (start < 0 || goal < 0) continue;
          const a = astar(grid.configure(layer, r, 8, goal), ws, [start], unlimited());
          const gridPath = a.status === "found" ? reconstructPath(ws, a.goal) : null;
          const b = astar(jps.configure(layer, r, goal), ws, [start], unlimited());
          expect(b.status).toBe(a.status);
          if (!gridPath) {
            unreachable++;
            continue;
          }
          const p = expandJumpPath(layer, reconstructPath(ws, b.goal));
          expect(pathProblem(layer, p, r)).toBe("");
          expect(p[0]).toBe(start);
          expect(p[p.length - 1]).toBe(goal);
          expect(b.cost).toBe(a.cost);
          // Lengths are a + b√2 (times the cost) with a unique (a, b) per optimal length.
          expect(stepCounts(p, w)).toEqual(stepCounts(gridPath, w));
          // Summed in a different order, float lengths may differ in the last bit only.
          expect(Math.abs(gridPathLength(layer, p, w) - gridPathLength(layer, gridPath, w))).toBeLessThan(
            1e-9,
          );
          gridExpansions += a.expansions;
          jumpExpansions += b.expansions;
          found++;
        }
      }
      expect(found).toBeGreaterThan(250);
      expect(unreachable).toBeGreaterThan(0);
      expect(jumpExpansions).toBeLessThan(gridExpansions);
    });
  }
});

describe("JPS from a blocked start (the east table's BLOCKED cells scan from their neighbour)", () => {
  test("same status and fixed-point cost as GridSpace, classes 0 and 1.5", () => {
    const rand = rng(97);
    const jps = new JumpPointSpace();
    const grid = new GridSpace();
    const ws = new SearchWorkspace();
    let found = 0;
    for (let trial = 0; trial < 80; trial++) {
      const w = 6 + Math.floor(rand() * 30);
      const h = 6 + Math.floor(rand() * 30);
      const layer = randomLayer(rand, w, h, 0.1 + rand() * 0.3, [1]);
      for (const r of [0, 1.5]) {
        for (let q = 0; q < 6; q++) {
          let start = -1;
          for (let k = 0; k < 1000 && start < 0; k++) {
            const t = Math.floor(rand() * w * h);
            if (!(layer.tileCost[t] > 0 && (r <= 0 || tileClearance(layer, t) >= r))) start = t;
          }
          const goal = pickOpen(rand, layer, r);
          if (start < 0 || goal < 0) continue;
          const a = astar(grid.configure(layer, r, 8, goal), ws, [start], unlimited());
          const b = astar(jps.configure(layer, r, goal), ws, [start], unlimited());
          expect(b.status).toBe(a.status);
          if (a.status !== "found") continue;
          expect(b.cost).toBe(a.cost);
          found++;
        }
      }
    }
    expect(found).toBeGreaterThan(100);
  });
});

describe("the jump cache is bounded", () => {
  test("many clearance classes on one map: the cache stays under its bound, evicted tables are rebuilt right", () => {
    const rand = rng(77);
    const layer = randomLayer(rand, 60, 60, 0.08, [1]);
    const perClass = 17 * 62 * 62;
    const previous = setJumpCacheLimit(3 * perClass);
    try {
      const jps = new JumpPointSpace();
      const grid = new GridSpace();
      const ws = new SearchWorkspace();
      const classes = [0, 0.5, Math.SQRT1_2, 1.5, Math.hypot(1.5, 0.5), Math.hypot(1.5, 1.5)];
      let compared = 0;
      for (let round = 0; round < 3; round++) {
        for (const r of classes) {
          const start = pickOpen(rand, layer, r), goal = pickOpen(rand, layer, r);
          if (start < 0 || goal < 0) continue;
          const a = astar(grid.configure(layer, r, 8, goal), ws, [start], unlimited());
          const b = astar(jps.configure(layer, r, goal), ws, [start], unlimited());
          expect(b.status).toBe(a.status);
          if (a.status === "found") expect(b.cost).toBe(a.cost);
          expect(jumpCacheSize()).toBeLessThanOrEqual(3 * perClass);
          compared++;
        }
      }
      expect(compared).toBeGreaterThan(10);
      expect(jumpCacheSize()).toBeGreaterThan(0);
      // Dropping the layer drops its tables at once; a later search builds them again.
      const held = jumpCacheSize();
      forgetJumpTables(layer);
      expect(jumpCacheSize()).toBeLessThan(held);
      const start = pickOpen(rand, layer, 0), goal = pickOpen(rand, layer, 0);
      const again = astar(jps.configure(layer, 0, goal), ws, [start], unlimited());
      const plain = astar(grid.configure(layer, 0, 8, goal), ws, [start], unlimited());
      expect(again.status).toBe(plain.status);
      expect(jumpCacheSize()).toBeGreaterThan(0);
    } finally {
      setJumpCacheLimit(previous);
    }
  });
});

describe("uniform-cost check and the fallback to GridSpace", () => {
  const rand = rng(77);
  const mixed = randomLayer(rand, 40, 30, 0.2, [1, 1, 2, 3.5]);
  const uniform = randomLayer(rand, 40, 30, 0.2, [1]);

  test("uniformCost: the shared cost, or 0 for mixed costs", () => {
    expect(uniformCost(uniform)).toBe(1);
    expect(uniformCost(mixed)).toBe(0);
    expect(uniformCost(randomLayer(rand, 10, 10, 0.2, [2.5]))).toBe(2.5);
    expect(useJumpPoints(mixed, 8)).toBe(false);
    expect(useJumpPoints(uniform, 4)).toBe(false);
    expect(useJumpPoints(uniform, 8)).toBe(true);
    expect(() => new JumpPointSpace().configure(mixed, 0, 0)).toThrow(RangeError);
  });

  test("gridSearch: GridSpace on mixed costs and 4-connected, jump points on uniform 8-connected", () => {
    const ctx = new PlanContext(() => undefined);
    const ws = new SearchWorkspace();
    let checked = 0;
    for (let i = 0; i < 30; i++) {
      for (const [layer, nb] of [[mixed, 8], [uniform, 4], [uniform, 8]] as const) {
        const start = pickOpen(rand, layer, 0);
        const goal = pickOpen(rand, layer, 0);
        const plain = astar(new GridSpace().configure(layer, 0, nb, goal), ws, [start], unlimited());
        const jump = nb === 8 && layer === uniform
          ? astar(new JumpPointSpace().configure(layer, 0, goal), new SearchWorkspace(), [start], unlimited())
          : null;
        const got = searchGrid(ctx, layer, task(start, goal, 0), nb);
        expect(got.status).toBe(plain.status === "found" ? "found" : "unreachable");
        // The expansion count identifies the space that ran.
        expect(got.expansions).toBe(jump ? jump.expansions : plain.expansions);
        if (plain.status !== "found") continue;
        const p = got.path!;
        expect(pathProblem(layer, p, 0)).toBe("");
        if (nb === 4) expect(stepCounts(p, layer.width)[1]).toBe(0);
        // Fixed-point rounding: under 1e-6 per step.
        expect(Math.abs(gridPathLength(layer, p, layer.width) - plain.cost / COST_SCALE)).toBeLessThan(
          1e-6 * p.length,
        );
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  test("gridSearch over jump points: a budget-limited search returns a valid partial tile path", () => {
    const ctx = new PlanContext(() => undefined);
    const w = 200;
    const cost = new Float32Array(w * w).fill(1);
    for (let y = 0; y < w - 1; y++) cost[y * w + 100] = 0;
    const layer = layerFromCosts(w, w, cost, false);
    const start = 5 * w + 5;
    const goal = 5 * w + 190;
    const got = searchGrid(ctx, layer, task(start, goal, 0, 3), 8);
    expect(got.status).toBe("budget");
    expect(got.expansions).toBe(3);
    const p = got.path!;
    expect(p[0]).toBe(start);
    expect(p.length).toBeGreaterThan(1);
    expect(pathProblem(layer, p, 0)).toBe("");
  });
});

describe("expandJumpPath", () => {
  test("diagonal run then straight run between points; single points and empty paths", () => {
    const layer = layerFromCosts(10, 10, new Float32Array(100).fill(1), false);
    // (1,1) -> (4,4) diagonal, (4,4) -> (4,8) straight down, (4,8) -> (2,8) straight left.
    const p = expandJumpPath(layer, Int32Array.of(11, 44, 84, 82));
    expect(Array.from(p)).toEqual([11, 22, 33, 44, 54, 64, 74, 84, 83, 82]);
    // A mixed leg (3,0) -> (0,2): two diagonal steps first, then one straight step.
    expect(Array.from(expandJumpPath(layer, Int32Array.of(3, 20)))).toEqual([3, 12, 21, 20]);
    expect(Array.from(expandJumpPath(layer, Int32Array.of(57)))).toEqual([57]);
    expect(expandJumpPath(layer, new Int32Array(0)).length).toBe(0);
  });
});
