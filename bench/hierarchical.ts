/**
 * Hierarchical (HPA*-style) search against plain grid A* on the longest queries of the shared 512x512 Moving
 * AI maps, in-process, same queries, same run. Hierarchical time includes the abstract search, refinement,
 * the corridor re-search (if enabled) and smoothing; the abstract graph's in-region distance blocks, trees and
 * landmark distances are a one-off cost per map version, measured separately ("prep") before timing.
 *
 * Length ratios: smoothed hierarchical length / the .scen optimal grid length (below 1 is possible: smoothing
 * cuts corners the 8-connected optimum cannot), and / the smoothed optimal grid path (like for like).
 *
 * Run alone: `node_modules/.bin/deno run -A bench/hierarchical.ts [--all]` (--all: the longest 20% of every
 * map, quality only).
 *
 * @module
 */

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseMovingAi } from "../src/maps/movingai.ts";
import { movingAiTerrain } from "../src/maps/terrain.ts";
import { buildPassLayer } from "../src/maps/layer.ts";
import { buildRegionTable } from "../src/maps/regionBuild.ts";
import { astar, newSearchResult, reconstructPath, SearchWorkspace } from "../src/search/astar.ts";
import { smoothPath } from "../src/smoothing/simpleSmooth.ts";
import { GridSpace } from "../src/search/gridSpace.ts";
import { expandJumpPath, JumpPointSpace } from "../src/search/jumpPointSpace.ts";
import { AbstractGraph } from "../src/search/abstractGraph.ts";
import { HierarchicalScratch } from "../src/search/hierarchical.ts";
import {
  DEFAULT_HIERARCHICAL,
  DEFAULT_LANDMARKS,
  type HierarchicalOptions,
  hierarchicalPath,
} from "../src/planning/hierarchical.ts";

const DATA = resolve(new URL(".", import.meta.url).pathname, "../../shared/data/movingai");
const MAPS_512 = ["AR0011SR.map", "Aftershock.map", "maze512-1-0.map", "8room_000.map", "random512-10-0.map"];
const ALL_MAPS = [...MAPS_512, "Berlin_0_256.map", "arena.map"];
const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const LONGEST = 30;
const RUNS = 5;

interface Query {
  start: number;
  goal: number;
  optimal: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[sorted.length >> 1];
}

/** Length of a polyline given as x, y pairs. */
function polylineLength(points: Float64Array): number {
  let length = 0;
  for (let i = 2; i < points.length; i += 2) {
    length += Math.hypot(points[i] - points[i - 2], points[i + 1] - points[i - 1]);
  }
  return length;
}

/** The map's queries, longest first. */
function longestQueries(name: string, width: number): Query[] {
  const rows = readFileSync(resolve(DATA, name + ".scen"), "utf8").split(/\r?\n/).slice(1);
  const qs: Query[] = [];
  for (const row of rows) {
    const f = row.trim().split(/\s+/);
    if (f.length < 9) continue;
    qs.push({ start: +f[5] * width + +f[4], goal: +f[7] * width + +f[6], optimal: +f[8] });
  }
  return qs.sort((a, b) => b.optimal - a.optimal);
}

function loadMap(name: string) {
  const grid = parseMovingAi(readFileSync(resolve(DATA, name), "latin1"), LIMITS);
  const layer = buildPassLayer(grid, movingAiTerrain());
  const table = buildRegionTable(layer, 0.5);
  return { layer, table };
}

/** Length ratios of hierarchical paths to the optimum on the longest `fraction` of each map's queries. */
export function qualityOnLongest(
  fraction: number,
  options: HierarchicalOptions = DEFAULT_HIERARCHICAL,
  maps: string[] = ALL_MAPS,
): { map: string; ratios: number[] }[] {
  const out: { map: string; ratios: number[] }[] = [];
  for (const name of maps) {
    const { layer, table } = loadMap(name);
    const graph = new AbstractGraph(table, layer, 8, options.sampling);
    graph.prepareLandmarks(DEFAULT_LANDMARKS);
    const scratch = new HierarchicalScratch();
    const qs = longestQueries(name, layer.width);
    const ratios: number[] = [];
    for (const q of qs.slice(0, Math.ceil(qs.length * fraction))) {
      const p = hierarchicalPath(graph, scratch, q.start, q.goal, 0, {
        maxExpansions: Infinity,
        deadline: Infinity,
        cancel: null,
      }, options);
      ratios.push(p.status === "found" ? p.length / q.optimal : Infinity);
    }
    out.push({ map: name, ratios });
  }
  return out;
}

/** Runs the benchmark and returns a markdown table. */
export async function benchHierarchical(
  options: HierarchicalOptions = DEFAULT_HIERARCHICAL,
): Promise<string> {
  const lines = [
    `Longest ${LONGEST} queries per 512x512 map; median over queries of the per-query median of ${RUNS} runs (µs).`,
    `Hierarchical = abstract search + refinement + smoothing (corridor radius ${options.corridorRadius}, ` +
    `entrance ends for runs > ${options.sampling.longRun}); prep = one-off in-region distance blocks, trees and ` +
    `${DEFAULT_LANDMARKS} ALT landmarks per map version and worker.`,
    "",
    "| map | nodes | prep ms | grid A* µs | hierarchical µs | speed-up | ≥10x | jump-point A* µs | length / optimal median | max | length / smoothed A* median | max |",
    "| --- | ---: | ---: | ---: | ---: | ---: | :-: | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const name of MAPS_512) {
    const { layer, table } = loadMap(name);
    const qs = longestQueries(name, layer.width).slice(0, LONGEST);
    const graph = new AbstractGraph(table, layer, 8, options.sampling);
    const t0 = performance.now();
    graph.prepareLandmarks(DEFAULT_LANDMARKS);
    const prepMs = performance.now() - t0;
    const scratch = new HierarchicalScratch();
    const grid = new GridSpace();
    const jump = new JumpPointSpace();
    const jpUs: number[] = [];
    const jpWs = new SearchWorkspace();
    const jpResult = newSearchResult();
    const ws = new SearchWorkspace();
    const result = newSearchResult();
    const limits = { maxExpansions: Infinity, deadline: Infinity, cancel: null };
    const gridUs: number[] = [];
    const hierUs: number[] = [];
    const ratios: number[] = [];
    const vsSmooth: number[] = [];
    for (let run = -1; run < RUNS; run++) {
      for (let i = 0; i < qs.length; i++) {
        const q = qs[i];
        let a = performance.now();
        const r = astar(grid.configure(layer, 0.5, 8, q.goal), ws, [q.start], {
          maxExpansions: Infinity,
          deadline: Infinity,
          cancel: null,
          trackNearest: false,
        }, result);
        let b = performance.now();
        if (r.status !== "found") throw new Error(`grid A* found no path on ${name} query ${i}`);
        if (run >= 0) gridUs[i * RUNS + run] = (b - a) * 1000;
        // The service's grid search on uniform-cost maps: jump points, expanded back to the full tile path.
        a = performance.now();
        const j = astar(jump.configure(layer, 0.5, q.goal), jpWs, [q.start], {
          maxExpansions: Infinity,
          deadline: Infinity,
          cancel: null,
          trackNearest: false,
        }, jpResult);
        expandJumpPath(layer, reconstructPath(jpWs, j.goal));
        b = performance.now();
        if (run >= 0) jpUs[i * RUNS + run] = (b - a) * 1000;
        a = performance.now();
        const p = hierarchicalPath(graph, scratch, q.start, q.goal, 0, limits, options);
        b = performance.now();
        if (run >= 0) hierUs[i * RUNS + run] = (b - a) * 1000;
        if (run === 0) {
          ratios.push(p.status === "found" ? p.length / q.optimal : Infinity);
          // The same smoothing on the optimal grid path (what SMOOTH returns), for a like-for-like ratio.
          const smoothed = polylineLength(smoothPath(layer, 0, reconstructPath(ws, r.goal), layer.width));
          vsSmooth.push(p.length / smoothed);
        }
      }
      await Promise.resolve();
    }
    const perQuery = (xs: number[]) => qs.map((_, i) => median(xs.slice(i * RUNS, (i + 1) * RUNS)));
    const g = median(perQuery(gridUs));
    const jp = median(perQuery(jpUs));
    const h = median(perQuery(hierUs));
    const speedup = g / h;
    lines.push(
      `| ${name} | ${graph.nodeCount} | ${prepMs.toFixed(0)} | ${g.toFixed(0)} | ${h.toFixed(0)} | ` +
        `${speedup.toFixed(1)}x | ${speedup >= 10 ? "yes" : "no"} | ${jp.toFixed(0)} | ${
          median(ratios).toFixed(4)
        } | ` +
        `${Math.max(...ratios).toFixed(4)} | ${median(vsSmooth).toFixed(4)} | ${
          Math.max(...vsSmooth).toFixed(4)
        } |`,
    );
  }
  return lines.join("\n");
}

/** Options from `--corridor=N --longRun=N --spacing=N --free --corners` (defaults otherwise). */
function cliOptions(): HierarchicalOptions {
  const arg = (name: string) => Deno.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const d = DEFAULT_HIERARCHICAL;
  return {
    corridorRadius: Number(arg("corridor") ?? d.corridorRadius),
    freeWindows: Deno.args.includes("--free") || d.freeWindows,
    smoothCorners: Deno.args.includes("--corners") || d.smoothCorners,
    sampling: {
      longRun: Number(arg("longRun") ?? d.sampling.longRun),
      spacing: Number(arg("spacing") ?? d.sampling.spacing),
    },
  };
}

if (import.meta.main) {
  if (Deno.args.includes("--all")) {
    const res = qualityOnLongest(0.2, cliOptions());
    for (const { map, ratios } of res) {
      const s = [...ratios].sort((a, b) => a - b);
      const over = s.filter((x) => x > 1.01).length;
      console.log(
        `${map}: n=${s.length} median=${median(s).toFixed(4)} p90=${
          s[Math.floor(s.length * 0.9)].toFixed(4)
        } ` +
          `max=${s[s.length - 1].toFixed(4)} over1%=${over}`,
      );
    }
  } else {
    console.log(await benchHierarchical(cliOptions()));
  }
}
