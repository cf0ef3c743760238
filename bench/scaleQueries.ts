/**
 * Turning-unit queries at scale, in-process (issue 13, items 1 and 2): the section bench/scale.ts (or
 * `deno task bench --only scalequeries`) prints about PLANNER_DIRECTIONAL's per-query setup and long tank paths.
 *
 * 1. Setup independent of the map: a short DIRECTIONAL query (about 5 expansions) and a search cut at 5
 *    expansions in the largest window the state cap allows, on tiled city maps of 512^2 and 8192^2
 *    (bench/scaleMaps.ts; SCALEQ_SIDES to choose). Medians of 15 runs after a warm-up.
 * 2. A ~1,000-step tank pair on the 1024^2 tiled city: DIRECTIONAL (a grid corridor refined window by window
 *    when the window would be capped), HYBRID and AUTO (the hybrid with the portfolio flag), cold (first query of a fresh context; the unit's tables are
 *    already loaded in this process) and warm (median of 5, the three planners' runs alternated so that the
 *    shared machine's load weighs on them alike), each beside its path cost; a full directional
 *    search over the corridor's bounding box (no state cap) as the cost reference, within 30 s.
 * 3. The same on a 1664 x 32 row of rooms (test/helpers/tiledMap.ts), where the full search finishes.
 *
 * 4. With SCALEQ_LONG=4096,8192 (sides; off by default: ~1-2 min per side): the longest connected tank pair of
 *    each tiled city (8k-16k 4-connected steps), DIRECTIONAL, HYBRID and AUTO cold and warm, each checked by the
 *    independent checker (test/helpers/pathCheck.ts). Cost reference: the corridor refinement with unweighted
 *    80-tile steps (half of each kept) along the same 8-connected route, in the same run (a full directional search over the 4096^2
 *    map did not reach the goal in 15 M expansions and 10 min). SCALEQ_LONG_ONLY=1 runs this section alone.
 *
 * SCALEQ_ONLY=city runs section 2 alone; SCALEQ_WARM sets the warm runs per row (default 5). Warm rows give the
 * process CPU time beside wall time (the machine is shared).
 *
 * Only the planners' public entry points are used, so the same file measures an older tree ("before").
 *
 * @module
 */
import process from "node:process";
import { buildPassLayer } from "../src/maps/layer.ts";
import { movingAiTerrain } from "../src/maps/terrain.ts";
import { type PassLayer, tileClearance } from "../src/maps/grid.ts";
import type { Segment } from "../src/geometry/types.ts";
import { pathCost } from "../src/motion/pathCost.ts";
import { PlanBudget } from "../src/planning/budget.ts";
import { PlanContext } from "../src/planning/context.ts";
import { directionalSearch, tableProfileOf, windowAround } from "../src/planning/directional.ts";
import { gridSearch } from "../src/planning/gridRoute.ts";
import { refineCorridor } from "../src/planning/corridorRefine.ts";
import { runPlanTask } from "../src/planning/plan.ts";
import { type PlannerName, type PlanOutcome, type PlanTask, planTask } from "../src/planning/task.ts";
import { tableStore } from "../src/service/directionalTables.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import { checkPath } from "../test/helpers/pathCheck.ts";
import { tiledRoomRows } from "../test/helpers/tiledMap.ts";
import { cachedBySource, longestPair, tiledCity } from "./scaleMaps.ts";

const tank = { ...BUILTIN_PROFILES.tank };
/** Warm runs per long-pair row (median reported). */
const WARM = Number(Deno.env.get("SCALEQ_WARM") ?? 5);
/** "city": only the 1024^2 city pair (no setup rows, no rooms row). */
const ONLY = Deno.env.get("SCALEQ_ONLY") ?? "";
const SIDES = (Deno.env.get("SCALEQ_SIDES") ?? "512,8192").split(",").map(Number);
/** Sides of section 4 (longest pairs), none by default. */
const LONG_SIDES = (Deno.env.get("SCALEQ_LONG") ?? "").split(",").filter((x) => x !== "").map(Number);

function layerOfTiles(tiles: Uint8Array, width: number, height: number): PassLayer {
  const shared = new Uint8Array(new SharedArrayBuffer(width * height));
  shared.set(tiles);
  return buildPassLayer({ width, height, tiles: shared }, movingAiTerrain());
}

/** CPU time of this process so far (user + system), ms: less disturbed than wall time on a shared machine. */
function cpuMillis(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function taskFor(layer: PassLayer, planner: PlannerName, s: number[], g: number[], extra = {}): PlanTask {
  return planTask({
    planner,
    layerKey: "L",
    width: layer.width,
    unit: tank,
    start: { x: s[0] + 0.5, y: s[1] + 0.5, heading: 0 },
    goal: { x: g[0] + 0.5, y: g[1] + 0.5 },
  }, { neighborhood: 24, maxMillis: 30_000, maxExpansions: 5_000_000, wantWaypoints: false, ...extra });
}

function contextFor(layer: PassLayer): PlanContext {
  return new PlanContext((k) => (k === "L" ? layer : undefined), tableStore);
}

/** An open tile for the tank (clearance 1.5) at or right of (x, y) on row y. */
function openNear(layer: PassLayer, x: number, y: number): number[] {
  for (let d = 0; d < layer.width; d++) {
    for (const yy of [y, y + d, y - d]) {
      if (yy < 0 || yy >= layer.height) continue;
      for (const xx of [x + d, x - d]) {
        if (xx < 0 || xx >= layer.width) continue;
        const t = yy * layer.width + xx;
        let ok = true;
        for (let k = 0; k <= 5; k++) ok &&= tileClearance(layer, t + k) >= 1.5;
        if (ok) return [xx, yy];
      }
    }
  }
  throw new Error("no open tile");
}

const fmt = (x: number) => x.toFixed(x < 10 ? 3 : 1);

/** Section 1: setup per query at 512^2 and 8192^2. */
function setupSection(lines: string[]): void {
  lines.push(
    "| map | short DIRECTIONAL query: expansions, median ms | capped window, 5 expansions: window tiles, median ms |",
    "| --- | --- | --- |",
  );
  for (const side of SIDES) {
    const layer = layerOfTiles(tiledCity(side), side, side);
    const ctx = contextFor(layer);
    const s = openNear(layer, side >> 1, side >> 1);
    const short = taskFor(layer, "directional", s, [s[0] + 5, s[1]]);
    const far = [Math.min(side - 20, s[0] + 2000), Math.min(side - 20, s[1] + 2000)];
    const profile = tableProfileOf(tank, 24, true);
    const window = windowAround(layer, s[0], s[1], far[0], far[1], profile.headings * 2);
    const cut = () =>
      directionalSearch(ctx, layer, tank, {
        start: short.start,
        goal: { x: far[0] + 0.5, y: far[1] + 0.5, tolerance: 0.5, headingTolerance: 0.2 },
        neighborhood: 24,
        roadsOnly: false,
        reverse: true,
        maxExpansions: 5,
        window,
      }, new PlanBudget(5, 30_000, null));
    let exp = 0;
    const a: number[] = [], b: number[] = [];
    for (let i = 0; i < 18; i++) {
      let t0 = performance.now();
      exp = runPlanTask(ctx, short, null).expansions;
      if (i >= 3) a.push(performance.now() - t0);
      t0 = performance.now();
      cut();
      if (i >= 3) b.push(performance.now() - t0);
    }
    const area = (window.x1 - window.x0) * (window.y1 - window.y0);
    lines.push(`| ${side}^2 | ${exp}, ${fmt(median(a))} ms | ${area}, ${fmt(median(b))} ms |`);
  }
}

/** Section 4: the longest pair of a tiled city of `side`^2, DIRECTIONAL, HYBRID, AUTO against a same-run reference. */
function longestSection(lines: string[], side: number): void {
  const tiles = tiledCity(side);
  const pair = longestPair(tiles, side, 1000);
  const layer = layerOfTiles(tiles, side, side);
  const s = pair.start, g = pair.goal;
  lines.push(
    "",
    `${side}^2 tiled city, longest pair (${pair.steps} 4-connected steps): tank from (${s}) to (${g})`,
    "",
    `| planner | status | cold ms | warm ms (median of ${WARM}) | warm process CPU ms (median) | expansions | cost | how | checker |`,
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  const start = { x: s[0] + 0.5, y: s[1] + 0.5, heading: 0 }, goal = { x: g[0] + 0.5, y: g[1] + 0.5 };
  const legal = (segments: Segment[]) =>
    segments.length === 0 ? "-" : checkPath(layer, tank, { segments } as unknown as PlanOutcome, start, {
        ...goal,
        tolerance: 0.5,
      }).length === 0
      ? "legal"
      : "ILLEGAL";
  const planners = ["directional", "hybrid", "auto"] as const;
  const rows = longRows(layer, [...planners], s, g).map((r, i) => ({ p: planners[i], r }));
  // The reference: unweighted 80-tile steps along the same 8-connected route (each step optimal in its window),
  // half of each kept.
  const ctx = contextFor(layer);
  const task = taskFor(layer, "directional", s, g);
  const budget = new PlanBudget(50_000_000, 120_000, null);
  const t0 = performance.now();
  const route = gridSearch(ctx, layer, task, 8, budget);
  const ref = route.path
    ? refineCorridor(layer, {
      start: task.start,
      goal: task.goal,
      neighborhood: 24,
      roadsOnly: false,
      reverse: true,
      maxExpansions: 50_000_000,
      corridor: route.path,
      headings: tableProfileOf(tank, 24, true).headings,
      footprint: tank.footprint,
      horizon: 80,
      weight: 1,
      keep: 0.5,
    }, (r) =>
      directionalSearch(ctx, layer, tank, r, budget), budget.stopped)
    : null;
  const refMs = performance.now() - t0;
  const refCost = ref?.status === "found" ? pathCost(ref.segments, tank, layer).total : NaN;
  for (const { r } of rows) lines.push(`| ${r.row} | ${legal(r.segments)} |`);
  lines.push(
    `| reference: unweighted 80-tile steps along the 8-connected route | ${ref?.status ?? "no route"} | ${
      fmt(refMs)
    } | - | - | ${ref?.expansions ?? 0} | ${fmt(refCost)} | ${ref?.message ?? ""} | ${
      legal(ref?.segments ?? [])
    } |`,
  );
  const ratio = (
    c: number,
  ) => (Number.isFinite(refCost) && Number.isFinite(c) ? (c / refCost).toFixed(4) : "-");
  lines.push(
    "",
    `cost / reference: ${rows.map(({ p, r }) => `${p.toUpperCase()} ${ratio(r.cost)}`).join(", ")}`,
  );
}

/**
 * Planners on a long pair: each one's cold query (a fresh context each), then the warm runs alternated between
 * them (round i runs every planner once, in turn), so that a shared machine's load weighs on all alike; per
 * planner its warm median, cost and status. "auto" is the hybrid with the portfolio flag (what the service sends
 * for PLANNER_AUTO).
 */
function longRows(
  layer: PassLayer,
  planners: ("directional" | "hybrid" | "auto")[],
  s: number[],
  g: number[],
): { row: string; cost: number; segments: Segment[] }[] {
  const runs = planners.map((p) => {
    const task = taskFor(layer, p === "auto" ? "hybrid" : p, s, g, p === "auto" ? { portfolio: true } : {});
    const ctx = contextFor(layer);
    const t0 = performance.now();
    const out = runPlanTask(ctx, task, null);
    return { p, task, ctx, out, cold: performance.now() - t0, warm: [] as number[], cpu: [] as number[] };
  });
  for (let i = 0; i < WARM; i++) {
    for (const r of runs) {
      const t0 = performance.now();
      const c0 = cpuMillis();
      r.out = runPlanTask(r.ctx, r.task, null);
      r.warm.push(performance.now() - t0);
      r.cpu.push(cpuMillis() - c0);
    }
  }
  return runs.map(({ p, out, cold, warm, cpu }) => {
    const cost = out.segments.length > 0 ? pathCost(out.segments, tank, layer).total : NaN;
    const why = out.message.split(";")[0].slice(0, 70);
    return {
      row: `${p} | ${out.status} | ${fmt(cold)} | ${fmt(median(warm))} | ${
        fmt(median(cpu))
      } | ${out.expansions} | ${fmt(cost)} | ${why}`,
      cost,
      segments: out.segments,
    };
  });
}

/** The full directional search over the grid corridor's bounding box (grown by 16): the cost reference. */
function fullReference(layer: PassLayer, s: number[], g: number[]): { row: string; cost: number } {
  // Deterministic for the same code and query (only a run cut by its 30 s budget is not): kept on disk.
  const key = `scalequeries-reference-${layer.width}x${layer.height}-${s}-${g}`;
  const ref = cachedBySource(key, () => fullSearch(layer, s, g), (r) => r.status === "found");
  return rowOf(ref.value, ref.cached);
}

/** What the full reference search gave. */
interface Reference {
  status: string;
  ms: number;
  expansions: number;
  cost: number;
  area: number;
}

function rowOf(r: Reference, cached: boolean): { row: string; cost: number } {
  const how = cached ? "reference (kept from an earlier run of the same src/)" : "reference";
  return {
    row: `full directional (window ${r.area} tiles) | ${r.status} | ${
      fmt(r.ms)
    } | - | - | ${r.expansions} | ${fmt(r.cost)} | ${how}`,
    cost: r.cost,
  };
}

function fullSearch(layer: PassLayer, s: number[], g: number[]): Reference {
  const task = taskFor(layer, "directional", s, g);
  const ctx = contextFor(layer);
  const grid = gridSearch(ctx, layer, task, 4, new PlanBudget(5_000_000, 30_000, null));
  let x0 = Infinity, y0 = Infinity, x1 = 0, y1 = 0;
  for (const t of grid.path ?? []) {
    const x = t % layer.width, y = (t - x) / layer.width;
    x0 = Math.min(x0, x), y0 = Math.min(y0, y), x1 = Math.max(x1, x + 1), y1 = Math.max(y1, y + 1);
  }
  const window = {
    x0: Math.max(0, x0 - 16),
    y0: Math.max(0, y0 - 16),
    x1: Math.min(layer.width, x1 + 16),
    y1: Math.min(layer.height, y1 + 16),
  };
  const t0 = performance.now();
  const run = directionalSearch(ctx, layer, tank, {
    start: task.start,
    goal: task.goal,
    neighborhood: 24,
    roadsOnly: false,
    reverse: true,
    maxExpansions: 20_000_000,
    window,
  }, new PlanBudget(20_000_000, 30_000, null));
  const ms = performance.now() - t0;
  const cost = run.status === "found" ? pathCost(run.segments, tank, layer).total : NaN;
  const area = (window.x1 - window.x0) * (window.y1 - window.y0);
  return { status: run.status, ms, expansions: run.expansions, cost, area };
}

function longSection(lines: string[], name: string, layer: PassLayer, s: number[], g: number[]): void {
  lines.push(
    "",
    `${name}: tank from (${s}) to (${g})`,
    "",
    `| planner | status | cold ms | warm ms (median of ${WARM}) | warm process CPU ms (median) | expansions | cost | how |`,
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  );
  const [dir, hyb, auto] = longRows(layer, ["directional", "hybrid", "auto"], s, g);
  const ref = fullReference(layer, s, g);
  lines.push(`| ${dir.row} |`, `| ${hyb.row} |`, `| ${auto.row} |`, `| ${ref.row} |`);
  const ratio = (
    c: number,
  ) => (Number.isFinite(ref.cost) && Number.isFinite(c) ? (c / ref.cost).toFixed(4) : "-");
  lines.push(
    "",
    `cost / full directional: DIRECTIONAL ${ratio(dir.cost)}, HYBRID ${ratio(hyb.cost)}, AUTO ${
      ratio(auto.cost)
    }`,
  );
}

/** Runs the section; returns its text (markdown). */
export function benchScaleQueries(): Promise<string> {
  const lines: string[] = [
    "(in-process, one worker; tiled city maps of bench/scaleMaps.ts; times in ms, medians; the machine is shared)",
    "",
  ];
  if (Deno.env.get("SCALEQ_LONG_ONLY") === "1") {
    for (const side of LONG_SIDES) longestSection(lines, side);
    return Promise.resolve(lines.join("\n"));
  }
  if (ONLY !== "city") setupSection(lines);
  const side = 1024;
  const tiles = tiledCity(side);
  const pair = longestPair(tiles, side, 1000);
  const city = layerOfTiles(tiles, side, side);
  longSection(lines, `1024^2 tiled city, ~1,000 steps`, city, pair.start, pair.near);
  if (ONLY === "city") return Promise.resolve(lines.join("\n"));
  const rows = tiledRoomRows(52, 1);
  const rooms = layerOfTiles(
    Uint8Array.from(rows.join("").split("").map((c) => c.charCodeAt(0))),
    rows[0].length,
    rows.length,
  );
  longSection(lines, "1664 x 32 row of rooms", rooms, [16, 16], [1647, 20]);
  for (const side of LONG_SIDES) longestSection(lines, side);
  return Promise.resolve(lines.join("\n"));
}

if (import.meta.main) console.log(await benchScaleQueries());
