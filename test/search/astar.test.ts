import { describe, expect, test } from "vitest";
import * as fs from "node:fs";
import * as path from "node:path";
import { type PassLayer, tileClearance } from "../../src/maps/grid.ts";
import {
  astar,
  COST_SCALE,
  newSearchResult,
  reconstructPath,
  type SearchLimits,
  type SearchSpace,
  SearchWorkspace,
  unlimited,
} from "../../src/search/astar.ts";
import { gridPathLength, GridSpace, type Neighborhood } from "../../src/search/gridSpace.ts";
import { IndexedMinHeap } from "../../src/search/heap.ts";
import { rng } from "../helpers/rng.ts";
import { bruteClearance } from "../helpers/clearance.ts";
import { clearanceCodes } from "../helpers/clearanceCodes.ts";

// ---------- local helpers (the real map parser lives elsewhere; these are deliberately independent) ----------

const DATA_DIR = path.resolve(process.cwd(), "../shared/data/movingai");

interface TextMap {
  width: number;
  height: number;
  rows: string[];
}

function parseMap(text: string): TextMap {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  let height = 0;
  let width = 0;
  let i = 0;
  for (; i < lines.length; i++) {
    const [key, value] = lines[i].split(/\s+/);
    if (key === "height") height = Number(value);
    else if (key === "width") width = Number(value);
    else if (key === "map") break;
  }
  return { width, height, rows: lines.slice(i + 1, i + 1 + height) };
}

function layerFromCosts(width: number, height: number, cost: Float32Array, clearanceCap = 4): PassLayer {
  let minCost = Infinity;
  for (const c of cost) if (c > 0) minCost = Math.min(minCost, c);
  return {
    width,
    height,
    tileCost: cost,
    clearanceCode: clearanceCodes(bruteClearance(width, height, cost, clearanceCap)),
    minCost: minCost === Infinity ? 1 : minCost,
    road: new Uint8Array(width * height),
  };
}

function layerFromText(m: TextMap, clearanceCap = 4): PassLayer {
  const cost = new Float32Array(m.width * m.height);
  for (let y = 0; y < m.height; y++) {
    for (let x = 0; x < m.width; x++) {
      const ch = m.rows[y][x];
      cost[y * m.width + x] = ch === "." || ch === "G" || ch === "S" ? 1 : 0;
    }
  }
  return layerFromCosts(m.width, m.height, cost, clearanceCap);
}

/** Checks adjacency, no corner cutting, all tiles open for clearance r; returns a failure message or "". */
function pathProblem(layer: PassLayer, p: Int32Array, r: number, neighborhood: Neighborhood): string {
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
    if (dx !== 0 && dy !== 0) {
      if (neighborhood === 4) return `diagonal in 4-connected path at ${i}`;
      if (!open(px + dx, py) || !open(px, py + dy)) return `corner cut at ${i}`;
    }
  }
  return "";
}

/** Plain Dijkstra with float costs (O(n^2) selection): independent reference for small maps. */
function dijkstraLength(
  layer: PassLayer,
  start: number,
  goal: number,
  r: number,
  neighborhood: Neighborhood,
): number {
  const w = layer.width;
  const h = layer.height;
  const n = w * h;
  const dist = new Float64Array(n).fill(Infinity);
  const done = new Uint8Array(n);
  const open = (x: number, y: number) =>
    x >= 0 && y >= 0 && x < w && y < h && layer.tileCost[y * w + x] > 0 &&
    (r <= 0 || tileClearance(layer, y * w + x) >= r);
  dist[start] = 0;
  for (;;) {
    let u = -1;
    for (let i = 0; i < n; i++) if (!done[i] && dist[i] < Infinity && (u < 0 || dist[i] < dist[u])) u = i;
    if (u < 0) return Infinity;
    if (u === goal) return dist[u];
    done[u] = 1;
    const ux = u % w;
    const uy = Math.floor(u / w);
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -1; dx <= 1; dx++) {
        if (dx === 0 && dy === 0) continue;
        const diag = dx !== 0 && dy !== 0;
        if (diag && neighborhood === 4) continue;
        if (!open(ux + dx, uy + dy)) continue;
        if (diag && (!open(ux + dx, uy) || !open(ux, uy + dy))) continue;
        const v = (uy + dy) * w + ux + dx;
        const nd = dist[u] + (diag ? Math.SQRT2 : 1) * layer.tileCost[v];
        if (nd < dist[v]) dist[v] = nd;
      }
    }
  }
}

function randomLayer(rand: () => number, w: number, h: number, blockedP: number, costs: number[]): PassLayer {
  const cost = new Float32Array(w * h);
  for (let i = 0; i < cost.length; i++) {
    cost[i] = rand() < blockedP ? 0 : costs[Math.floor(rand() * costs.length)];
  }
  return layerFromCosts(w, h, cost);
}

function pickOpen(rand: () => number, layer: PassLayer): number {
  for (;;) {
    const t = Math.floor(rand() * layer.width * layer.height);
    if (layer.tileCost[t] > 0) return t;
  }
}

// ---------- tests ----------

describe("IndexedMinHeap", () => {
  test("pops by f ascending then g descending, with decrease-key", () => {
    const rand = rng(7);
    const n = 3000;
    const f = new Float64Array(n);
    const g = new Float64Array(n);
    const pos = new Int32Array(n);
    const heap = new IndexedMinHeap(pos);
    for (let i = 0; i < n; i++) {
      f[i] = Math.floor(rand() * 50);
      g[i] = Math.floor(rand() * 10);
      heap.push(i, f[i], g[i]);
    }
    for (let i = 0; i < n; i += 3) {
      f[i] -= 5;
      heap.decrease(i, f[i], g[i]);
    }
    let prevF = -Infinity;
    let prevG = Infinity;
    let count = 0;
    while (heap.size > 0) {
      const s = heap.pop();
      expect(pos[s]).toBe(-1);
      expect(f[s] > prevF || (f[s] === prevF && g[s] <= prevG)).toBe(true);
      prevF = f[s];
      prevG = g[s];
      count++;
    }
    expect(count).toBe(n);
  });
});

const SCEN_FILES = fs.readdirSync(DATA_DIR).filter((f) => f.endsWith(".map.scen")).sort();

describe("Moving AI benchmark queries (8-connected, no corner cutting)", () => {
  let total = 0;
  for (const scenFile of SCEN_FILES) {
    const mapFile = scenFile.replace(/\.scen$/, "");
    test(`${mapFile}: all queries optimal within the README tolerance, paths valid`, () => {
      const m = parseMap(fs.readFileSync(path.join(DATA_DIR, mapFile), "utf8"));
      const layer = layerFromText(m, 1);
      const rows = fs.readFileSync(path.join(DATA_DIR, scenFile), "utf8").split("\n").slice(1)
        .map((l) => l.trim()).filter((l) => l.length > 0);
      const space = new GridSpace();
      const ws = new SearchWorkspace();
      const limits = unlimited();
      const w = m.width;
      let failures = 0;
      for (const row of rows) {
        const f = row.split(/\s+/);
        const sx = Number(f[4]);
        const sy = Number(f[5]);
        const gx = Number(f[6]);
        const gy = Number(f[7]);
        const optimal = Number(f[8]);
        const tol = mapFile === "AR0011SR.map"
          ? 0.01
          : mapFile === "Berlin_0_256.map"
          ? 1e-4
          : Math.pow(10, Math.floor(Math.log10(optimal)) - 5);
        space.configure(layer, 0, 8, gy * w + gx);
        const res = astar(space, ws, [sy * w + sx], limits);
        expect(res.status).toBe("found");
        const p = reconstructPath(ws, res.goal);
        expect(p[0]).toBe(sy * w + sx);
        expect(p[p.length - 1]).toBe(gy * w + gx);
        expect(pathProblem(layer, p, 0, 8)).toBe("");
        const length = gridPathLength(layer, p, w);
        // The fixed-point search cost agrees with the float length to rounding error.
        expect(Math.abs(res.cost / COST_SCALE - length)).toBeLessThan(1e-6 * p.length);
        if (Math.abs(length - optimal) > tol) failures++;
        total++;
      }
      expect(failures).toBe(0);
      expect(rows.length).toBeGreaterThan(0);
    }, 120_000);
  }
  test("all 1960 queries were run", () => {
    expect(total).toBe(1960);
  });
});

describe("optimality vs an independent Dijkstra on random maps with terrain costs", () => {
  for (const neighborhood of [4, 8] as const) {
    test(`${neighborhood}-connected`, () => {
      const rand = rng(1000 + neighborhood);
      const space = new GridSpace();
      const ws = new SearchWorkspace();
      let found = 0;
      let unreachable = 0;
      for (let trial = 0; trial < 60; trial++) {
        const w = 8 + Math.floor(rand() * 25);
        const h = 8 + Math.floor(rand() * 25);
        const costs = trial % 3 === 0 ? [1] : [1, 1, 1.5, 2, 3.25, 7];
        const layer = randomLayer(rand, w, h, 0.1 + rand() * 0.25, costs);
        for (let q = 0; q < 5; q++) {
          const s = pickOpen(rand, layer);
          const goal = pickOpen(rand, layer);
          const r = trial % 4 === 1 ? 0.5 + rand() : 0;
          space.configure(layer, r, neighborhood, goal);
          const res = astar(space, ws, [s], unlimited());
          const ref = dijkstraLength(layer, s, goal, r, neighborhood);
          if (ref === Infinity || (r > 0 && tileClearance(layer, s) < r)) {
            if (r <= 0 || tileClearance(layer, s) >= r) expect(res.status).toBe("exhausted");
            unreachable++;
            continue;
          }
          expect(res.status).toBe("found");
          const p = reconstructPath(ws, res.goal);
          expect(pathProblem(layer, p, r, neighborhood)).toBe("");
          // Fixed-point rounding is < 2^-21 relative per step, far below any real difference in lengths.
          expect(gridPathLength(layer, p, w)).toBeCloseTo(ref, 6);
          found++;
        }
      }
      expect(found).toBeGreaterThan(150);
      expect(unreachable).toBeGreaterThan(0);
    });
  }
});

describe("clearance", () => {
  // A wall across the map with a 2-wide gap; the gap tiles' centers are 1.0 from the gap's sides.
  const text = [
    "..........",
    "..........",
    "..........",
    "..........",
    "@@@@..@@@@",
    "..........",
    "..........",
    "..........",
    "..........",
  ];
  const m: TextMap = { width: 10, height: 9, rows: text };
  const layer = layerFromText(m);
  const start = 1 * 10 + 4;
  const goal = 7 * 10 + 5;

  test("r = 0.5 goes through the 2-wide gap", () => {
    const space = new GridSpace().configure(layer, 0.5, 8, goal);
    const ws = new SearchWorkspace();
    const res = astar(space, ws, [start], unlimited());
    expect(res.status).toBe("found");
    const p = reconstructPath(ws, res.goal);
    expect(pathProblem(layer, p, 0.5, 8)).toBe("");
    expect(Array.from(p).some((t) => t === 4 * 10 + 4 || t === 4 * 10 + 5)).toBe(true);
  });

  test("r = 1.5 cannot take the gap (the wall spans the map, so no path)", () => {
    const space = new GridSpace().configure(layer, 1.5, 8, goal);
    const ws = new SearchWorkspace();
    const res = astar(space, ws, [start], { ...unlimited(), trackNearest: true });
    expect(res.status).toBe("exhausted");
    expect(res.goal).toBe(-1);
    // The nearest reachable tile is on the start side of the wall.
    expect(Math.floor(res.best / 10)).toBeLessThan(4);
  });
});

describe("limits", () => {
  const rand = rng(99);
  const layer = randomLayer(rand, 200, 200, 0.0, [1]);
  const w = 200;
  const start = 5 * w + 5;
  const goal = 190 * w + 150;
  // Wall to force a wide search.
  for (let y = 0; y < 199; y++) layer.tileCost[y * w + 100] = 0;
  const space = new GridSpace().configure(layer, 0, 8, goal);

  test("maxExpansions gives budget with a partial best state", () => {
    const ws = new SearchWorkspace();
    const res = astar(space, ws, [start], { ...unlimited(), maxExpansions: 500, trackNearest: true });
    expect(res.status).toBe("budget");
    expect(res.expansions).toBe(500);
    expect(res.best).not.toBe(start);
    expect(res.bestH).toBeLessThan(space.heuristic(start));
    const p = reconstructPath(ws, res.best);
    expect(p[0]).toBe(start);
    expect(pathProblem(layer, p, 0, 8)).toBe("");
  });

  test("a cancel flag set before the search stops it within 1024 expansions", () => {
    const ws = new SearchWorkspace();
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    Atomics.store(cancel, 0, 1);
    const res = astar(space, ws, [start], { ...unlimited(), cancel });
    expect(res.status).toBe("cancelled");
    expect(res.expansions).toBeLessThanOrEqual(1024);
    Atomics.store(cancel, 0, 0);
    expect(astar(space, ws, [start], { ...unlimited(), cancel }).status).toBe("found");
  });

  test("a deadline in the past gives deadline", () => {
    const ws = new SearchWorkspace();
    const res = astar(space, ws, [start], { ...unlimited(), deadline: performance.now() - 1 });
    expect(res.status).toBe("deadline");
    expect(res.expansions).toBeLessThanOrEqual(1024);
  });

  test("multiple starts: the search uses the closer one", () => {
    const ws = new SearchWorkspace();
    const near = 185 * w + 150;
    const res = astar(space, ws, [start, near], unlimited());
    expect(res.status).toBe("found");
    expect(res.cost).toBe(5 * COST_SCALE);
    expect(reconstructPath(ws, res.goal)[0]).toBe(near);
  });
});

describe("workspace reuse", () => {
  test("100 consecutive searches on one workspace match fresh workspaces", () => {
    const rand = rng(5);
    const layers = [randomLayer(rand, 40, 30, 0.25, [1, 2, 5]), randomLayer(rand, 64, 64, 0.3, [1])];
    const shared = new SearchWorkspace();
    const space = new GridSpace();
    const limits: SearchLimits = { ...unlimited(), trackNearest: true };
    const reused = newSearchResult();
    for (let i = 0; i < 100; i++) {
      const layer = layers[i % 2];
      const s = pickOpen(rand, layer);
      const goal = pickOpen(rand, layer);
      const nb: Neighborhood = i % 3 === 0 ? 4 : 8;
      space.configure(layer, 0, nb, goal);
      const a = astar(space, shared, Int32Array.of(s), limits, reused);
      expect(a).toBe(reused);
      const pa = a.status === "found" ? Array.from(reconstructPath(shared, a.goal)) : [];
      const fresh = new SearchWorkspace();
      const b = astar(new GridSpace().configure(layer, 0, nb, goal), fresh, [s], limits);
      const pb = b.status === "found" ? Array.from(reconstructPath(fresh, b.goal)) : [];
      expect({ ...a }).toEqual(b);
      expect(pa).toEqual(pb);
    }
  });
});

describe("spaces that list a state twice in one expansion", () => {
  /**
   * A random graph whose expand() repeats each successor with a worse and a better cost (in either order), as a
   * directional space can (a Dubins and a Reeds-Shepp transition to the same state). The answer must equal a
   * Dijkstra over the cheaper edges, and repeated runs must agree.
   */
  test("A* stays optimal and deterministic", () => {
    const rand = rng(4242);
    const n = 400;
    const edges: { to: number; cost: number }[][] = Array.from({ length: n }, () => []);
    for (let a = 0; a < n; a++) {
      for (let k = 0; k < 4; k++) {
        const b = Math.floor(rand() * n);
        edges[a].push({ to: b, cost: 1 + Math.floor(rand() * 20) });
      }
    }
    const space: SearchSpace & { goal: number } = {
      stateCount: n,
      maxSuccessors: 16,
      goal: 0,
      expand(state, out) {
        let c = 0;
        for (const e of edges[state]) {
          const worse = (e.cost + 7) * COST_SCALE, better = e.cost * COST_SCALE;
          const first = (state + e.to) % 2 === 0;
          out.ids[c] = e.to;
          out.costs[c++] = first ? worse : better;
          out.ids[c] = e.to;
          out.costs[c++] = first ? better : worse;
        }
        return c;
      },
      heuristic: () => 0,
      isGoal(state) {
        return state === this.goal;
      },
    };
    // Independent Dijkstra over the cheaper edges.
    const dijkstra = (from: number, to: number) => {
      const dist = new Float64Array(n).fill(Infinity);
      const done = new Uint8Array(n);
      dist[from] = 0;
      for (;;) {
        let u = -1;
        for (let i = 0; i < n; i++) if (!done[i] && (u < 0 || dist[i] < dist[u])) u = i;
        if (u < 0 || dist[u] === Infinity) break;
        done[u] = 1;
        for (const e of edges[u]) dist[e.to] = Math.min(dist[e.to], dist[u] + e.cost);
      }
      return dist[to];
    };
    const ws = new SearchWorkspace();
    let checked = 0;
    for (let q = 0; q < 60; q++) {
      const from = Math.floor(rand() * n), to = Math.floor(rand() * n);
      space.goal = to;
      const expect1 = dijkstra(from, to);
      const r1 = astar(space, ws, [from], unlimited());
      const cost1 = r1.cost, exp1 = r1.expansions;
      const r2 = astar(space, ws, [from], unlimited());
      if (expect1 === Infinity) {
        expect(r1.status).toBe("exhausted");
        continue;
      }
      expect(r1.status).toBe("found");
      expect(cost1 / COST_SCALE).toBe(expect1);
      expect([r2.cost, r2.expansions]).toEqual([cost1, exp1]);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });
});

describe("limits.maxCost", () => {
  test("only paths cheaper than the bound: below the optimum the search ends exhausted, above it finds it", () => {
    const rand = rng(7);
    const layer = randomLayer(rand, 40, 40, 0.2, [1, 2, 5]);
    const ws = new SearchWorkspace();
    let checked = 0;
    for (let q = 0; q < 40; q++) {
      const from = pickOpen(rand, layer), to = pickOpen(rand, layer);
      const space = new GridSpace().configure(layer, 0, 8, to);
      const free = astar(space, ws, [from], unlimited());
      if (free.status !== "found" || free.cost === 0) continue;
      const optimum = free.cost;
      const above = astar(space, ws, [from], { ...unlimited(), maxCost: optimum + 1 });
      expect(above.status).toBe("found");
      expect(above.cost).toBe(optimum);
      const at = astar(space, ws, [from], { ...unlimited(), maxCost: optimum });
      expect(at.status).toBe("exhausted");
      expect(at.goal).toBe(-1);
      // Pruned: it expands no more than the free search.
      expect(at.expansions).toBeLessThanOrEqual(free.expansions);
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });
});
