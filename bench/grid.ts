/**
 * Grid A* benchmark on the shared Moving AI maps: our grid search through the service's own code path
 * (`gridSearch`: jump points on these uniform-cost maps, full tile path out) against PathFinding.js's
 * AStarFinder with the same movement rules (8-connected, no corner cutting), plus plain tile-by-tile A*
 * (GridSpace) on the same queries. All run in-process on the same queries.
 *
 * Run alone: `node_modules/.bin/deno run -A bench/grid.ts`.
 *
 * @module
 */

import * as fs from "node:fs";
import * as path from "node:path";
import PF from "pathfinding";
import { type PassLayer } from "../src/maps/grid.ts";
import { astar, newSearchResult, reconstructPath, SearchWorkspace, unlimited } from "../src/search/astar.ts";
import { gridPathLength, GridSpace } from "../src/search/gridSpace.ts";
import { gridSearch } from "../src/planning/gridRoute.ts";
import { PlanContext } from "../src/planning/context.ts";
import { type PlanTask } from "../src/planning/task.ts";
import { planBudget } from "../src/planning/budget.ts";

/** PathFinding.js is ~100x slower on 512x512 maps; it runs on every PF_STRIDE-th query to bound the time. */
const PF_STRIDE = 5;

interface Query {
  start: number;
  goal: number;
  sx: number;
  sy: number;
  gx: number;
  gy: number;
  optimal: number;
}

interface BenchMap {
  name: string;
  width: number;
  height: number;
  /** 1 = passable. */
  passable: Uint8Array;
  queries: Query[];
}

function dataDir(): string {
  return path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../shared/data/movingai");
}

function loadMap(dir: string, mapFile: string): BenchMap {
  const lines = fs.readFileSync(path.join(dir, mapFile), "utf8").split("\n").map((l) => l.replace(/\r$/, ""));
  let width = 0;
  let height = 0;
  let i = 0;
  for (; i < lines.length; i++) {
    const [key, value] = lines[i].split(/\s+/);
    if (key === "width") width = Number(value);
    else if (key === "height") height = Number(value);
    else if (key === "map") break;
  }
  const passable = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = lines[i + 1 + y];
    for (let x = 0; x < width; x++) {
      const c = row[x];
      passable[y * width + x] = c === "." || c === "G" || c === "S" ? 1 : 0;
    }
  }
  const queries: Query[] = [];
  const scen = fs.readFileSync(path.join(dir, mapFile + ".scen"), "utf8").split("\n").slice(1);
  for (const line of scen) {
    const f = line.trim().split(/\s+/);
    if (f.length < 9) continue;
    const [sx, sy, gx, gy] = [Number(f[4]), Number(f[5]), Number(f[6]), Number(f[7])];
    queries.push({ start: sy * width + sx, goal: gy * width + gx, sx, sy, gx, gy, optimal: Number(f[8]) });
  }
  return { name: mapFile, width, height, passable, queries };
}

function layerOf(m: BenchMap): PassLayer {
  const n = m.width * m.height;
  const tileCost = new Float32Array(n);
  for (let i = 0; i < n; i++) tileCost[i] = m.passable[i];
  // Clearance is not read for r = 0 searches.
  return {
    width: m.width,
    height: m.height,
    tileCost,
    clearanceCode: new Uint8Array(n),
    minCost: 1,
    road: new Uint8Array(n),
  };
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function fmt(us: number): string {
  return us >= 100 ? us.toFixed(0) : us.toFixed(1);
}

/** Runs the benchmark over every shared map and returns a markdown table. */
export async function benchGrid(): Promise<string> {
  const dir = dataDir();
  const mapFiles = fs.readdirSync(dir).filter((f) => f.endsWith(".map")).sort();
  const rows: string[] = [
    "| map | queries | our median µs | our p95 µs | PF queries | PF median µs | PF p95 µs | ratio (PF/ours, median) | our expansions/s |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const allOurs: number[] = [];
  const allPf: number[] = [];
  const allOursOnPfSubset: number[] = [];
  let totalExpansions = 0;
  let totalOurUs = 0;
  const plainVsJump: string[] = [];
  const allPlain: number[] = [];
  for (const mapFile of mapFiles) {
    const m = loadMap(dir, mapFile);
    const layer = layerOf(m);
    const ctx = new PlanContext(() => undefined);
    // The fields gridSearch reads; no limits.
    const task = {
      startTile: 0,
      goalTile: 0,
      clearance: 0,
      maxExpansions: Infinity,
      maxMillis: 1e9,
    } as PlanTask;

    // Warm-up pass (JIT, workspace growth, open mask), also checks our answers against the optimal lengths.
    let wrong = 0;
    for (const q of m.queries) {
      task.startTile = q.start;
      task.goalTile = q.goal;
      const found = gridSearch(ctx, layer, task, 8, planBudget(task));
      const length = gridPathLength(layer, found.path!, m.width);
      if (Math.abs(length - q.optimal) > 0.01) wrong++;
    }
    if (wrong > 0) throw new Error(`${mapFile}: ${wrong} queries disagree with the optimal lengths`);

    const ours: number[] = [];
    let expansions = 0;
    let oursUs = 0;
    for (const q of m.queries) {
      const t0 = performance.now();
      task.startTile = q.start;
      task.goalTile = q.goal;
      const found = gridSearch(ctx, layer, task, 8, planBudget(task));
      const us = (performance.now() - t0) * 1000;
      ours.push(us);
      expansions += found.expansions;
      oursUs += us;
    }

    // Plain tile-by-tile A* (GridSpace) on the same queries, path reconstructed, for the JPS-vs-plain row.
    const space = new GridSpace();
    const ws = new SearchWorkspace();
    const limits = unlimited();
    const result = newSearchResult();
    const startArr = new Int32Array(1);
    const plain: number[] = [];
    for (let pass = 0; pass < 2; pass++) {
      plain.length = 0;
      for (const q of m.queries) {
        startArr[0] = q.start;
        const t0 = performance.now();
        space.configure(layer, 0, 8, q.goal);
        astar(space, ws, startArr, limits, result);
        reconstructPath(ws, result.goal);
        plain.push((performance.now() - t0) * 1000);
      }
    }
    allPlain.push(...plain);
    plain.sort((a, b) => a - b);
    const sortedOurs = ours.slice().sort((a, b) => a - b);
    plainVsJump.push(
      `| ${mapFile} | ${fmt(quantile(plain, 0.5))} | ${fmt(quantile(sortedOurs, 0.5))} | ${
        (quantile(plain, 0.5) / quantile(sortedOurs, 0.5)).toFixed(1)
      } |`,
    );

    // PathFinding.js: matrix[y][x] = 1 for blocked.
    const matrix: number[][] = [];
    for (let y = 0; y < m.height; y++) {
      const row: number[] = [];
      for (let x = 0; x < m.width; x++) row.push(m.passable[y * m.width + x] ? 0 : 1);
      matrix.push(row);
    }
    const grid = new PF.Grid(m.width, m.height, matrix);
    const finder = new PF.AStarFinder({ diagonalMovement: PF.DiagonalMovement.OnlyWhenNoObstacles });
    const subset = m.queries.filter((_, i) => i % PF_STRIDE === 0);
    for (const q of subset.slice(0, 5)) finder.findPath(q.sx, q.sy, q.gx, q.gy, grid.clone());
    const pf: number[] = [];
    for (const q of subset) {
      const t0 = performance.now();
      const p = finder.findPath(q.sx, q.sy, q.gx, q.gy, grid.clone());
      pf.push((performance.now() - t0) * 1000);
      if (p.length === 0) throw new Error(`${mapFile}: PathFinding.js found no path`);
    }
    for (let i = 0; i < m.queries.length; i += PF_STRIDE) allOursOnPfSubset.push(ours[i]);

    allOurs.push(...ours);
    allPf.push(...pf);
    totalExpansions += expansions;
    totalOurUs += oursUs;
    ours.sort((a, b) => a - b);
    pf.sort((a, b) => a - b);
    const ourMedian = quantile(ours, 0.5);
    const pfMedian = quantile(pf, 0.5);
    rows.push(
      `| ${mapFile} | ${m.queries.length} | ${fmt(ourMedian)} | ${
        fmt(quantile(ours, 0.95))
      } | ${pf.length} | ` +
        `${fmt(pfMedian)} | ${fmt(quantile(pf, 0.95))} | ${(pfMedian / ourMedian).toFixed(1)} | ` +
        `${(expansions / (oursUs / 1e6) / 1e6).toFixed(1)} M |`,
    );
    // Yield between maps so a caller's event loop stays responsive.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  allOurs.sort((a, b) => a - b);
  allPf.sort((a, b) => a - b);
  allOursOnPfSubset.sort((a, b) => a - b);
  const ourMedian = quantile(allOurs, 0.5);
  const pfMedian = quantile(allPf, 0.5);
  rows.push(
    `| **all** | ${allOurs.length} | ${fmt(ourMedian)} | ${
      fmt(quantile(allOurs, 0.95))
    } | ${allPf.length} | ` +
      `${fmt(pfMedian)} | ${fmt(quantile(allPf, 0.95))} | ` +
      `${(pfMedian / quantile(allOursOnPfSubset, 0.5)).toFixed(1)} | ` +
      `${(totalExpansions / (totalOurUs / 1e6) / 1e6).toFixed(1)} M |`,
  );
  allPlain.sort((a, b) => a - b);
  plainVsJump.push(
    `| **all** | ${fmt(quantile(allPlain, 0.5))} | ${fmt(ourMedian)} | ${
      (quantile(allPlain, 0.5) / ourMedian).toFixed(1)
    } |`,
  );
  return [
    "Grid A* on the shared Moving AI set (8-connected, no corner cutting), in-process, per-query wall time.",
    `Ours: every query (after a warm-up pass) through gridSearch, the service's path (jump points on these ` +
    `uniform-cost maps, expanded to the full tile path); expansions are the A* core's (jump points).`,
    `PathFinding.js (AStarFinder, OnlyWhenNoObstacles, grid.clone() per search): every ${PF_STRIDE}th query; ` +
    `the "all" ratio compares medians over that same subset.`,
    "",
    ...rows,
    "",
    "Jump points (gridSearch) vs plain tile-by-tile A* (GridSpace, timed on a second pass) on every query:",
    "",
    "| map | GridSpace median µs | gridSearch (JPS) median µs | speed-up |",
    "| --- | ---: | ---: | ---: |",
    ...plainVsJump,
  ].join("\n");
}

if (import.meta.main) console.log(await benchGrid());
