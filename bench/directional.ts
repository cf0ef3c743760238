/**
 * Directional A* and the fast hybrid, in-process: per scenario set, median and p95 milliseconds, expansions and
 * path length for PLANNER_DIRECTIONAL (Directional-24) and PLANNER_HYBRID vs PLANNER_SMOOTH on the same queries.
 *
 * Run alone: deno run -A bench/directional.ts
 *
 * @module
 */
import { buildPassLayer } from "../src/maps/layer.ts";
import { movingAiTerrain } from "../src/maps/terrain.ts";
import { type PassLayer, tileClearance } from "../src/maps/grid.ts";
import { runPlanTask } from "../src/planning/plan.ts";
import { PlanContext } from "../src/planning/context.ts";
import { tableStore } from "../src/service/directionalTables.ts";
import { type PlannerName, type PlanTask, planTask } from "../src/planning/task.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import { type UnitSpec } from "../src/units/unit.ts";

function layerOf(rows: string[]): PassLayer {
  const height = rows.length, width = rows[0].length;
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) tiles[y * width + x] = rows[y].charCodeAt(x);
  }
  return buildPassLayer({ width, height, tiles }, movingAiTerrain());
}

function carve(w: number, h: number, rects: number[][]): string[] {
  const g = Array.from({ length: h }, () => Array.from({ length: w }, () => "@"));
  for (const [x0, y0, x1, y1] of rects) {
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) g[y][x] = ".";
  }
  return g.map((r) => r.join(""));
}

/** A start pose and a goal (optional heading). */
export interface Query {
  start: { x: number; y: number; heading: number };
  goal: { x: number; y: number; heading?: number };
}

function task(layer: PassLayer, unit: UnitSpec, q: Query, planner: PlannerName): PlanTask {
  return planTask(
    { planner, layerKey: "L", width: layer.width, unit, start: q.start, goal: q.goal },
    { neighborhood: planner === "smooth" ? 8 : 24, maxMillis: 5000, wantWaypoints: false },
  );
}

function stats(xs: number[]): { median: number; p95: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    median: s[Math.floor(s.length / 2)] ?? NaN,
    p95: s[Math.min(s.length - 1, Math.floor(s.length * 0.95))] ?? NaN,
  };
}

/** One scenario set: its map rows (Moving AI characters), the built-in unit it is for, and its queries. */
export interface ScenarioSpec {
  /** Set name. */
  name: string;
  /** Map rows, '.' open and '@' blocked (Moving AI characters). */
  rows: string[];
  /** Built-in unit profile name. */
  unit: "jeep" | "tank";
  /** Start and goal poses. */
  queries: Query[];
}

/**
 * The scenario sets of issue 4 (parking, a U-turn in a corridor, narrow doors, long detours on arena.map),
 * shared by this benchmark and the one over gRPC (bench/e2e.ts).
 */
export function scenarioSpecs(): ScenarioSpec[] {
  const out: ScenarioSpec[] = [];
  // Parking: a 64x64 lot with rows of blocks; park into a bay facing a given heading.
  const lotRects = [[1, 1, 62, 62]];
  const lot = carve(64, 64, lotRects).map((r, y) =>
    r.split("").map((c, x) => (y % 10 >= 4 && y % 10 <= 5 && x % 16 >= 4 && x % 16 <= 12 ? "@" : c)).join("")
  );
  const pq: Query[] = [];
  for (let i = 0; i < 12; i++) {
    pq.push({
      start: { x: 2.5 + (i % 3), y: 2.5 + 4 * (i % 5), heading: 0 },
      goal: { x: 10.5 + 8 * (i % 6), y: 7.5 + 10 * (i % 5), heading: i % 2 ? 0 : Math.PI },
    });
  }
  out.push({ name: "parking 64x64", rows: lot, unit: "jeep", queries: pq });
  // U-turn in a 5-wide corridor with a dead end.
  const uq: Query[] = [];
  for (let i = 0; i < 10; i++) {
    uq.push({ start: { x: 58.5 - i, y: 9.5, heading: 0 }, goal: { x: 8.5, y: 9.5, heading: Math.PI } });
  }
  out.push({
    name: "U-turn corridor",
    rows: carve(64, 20, [[1, 1, 20, 18], [21, 7, 62, 11]]),
    unit: "tank",
    queries: uq,
  });
  // Narrow doors: rooms joined by 3-wide doors.
  const rooms = carve(64, 64, [[1, 1, 62, 62]]).map((r, y) =>
    r.split("").map((c, x) => ((x === 21 || x === 42) && !(y % 21 >= 9 && y % 21 <= 11) ? "@" : c)).join("")
  );
  const dq: Query[] = [];
  for (let i = 0; i < 12; i++) {
    dq.push({ start: { x: 5.5, y: 5.5 + 4 * i, heading: 0 }, goal: { x: 58.5, y: 55.5 - 4 * i } });
  }
  out.push({ name: "narrow doors", rows: rooms, unit: "tank", queries: dq });
  // Long detours on a shared map.
  try {
    const text = Deno.readTextFileSync(new URL("../../shared/data/movingai/arena.map", import.meta.url));
    const lines = text.split(/\r?\n/);
    const h = Number(lines.find((l) => l.startsWith("height"))!.split(/\s+/)[1]);
    const s = lines.indexOf("map") + 1;
    const rows = lines.slice(s, s + h);
    const layer = layerOf(rows);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = () => {
      for (;;) {
        const x = Math.floor(next() * layer.width), y = Math.floor(next() * layer.height);
        if (tileClearance(layer, y * layer.width + x) >= 1.5) return { x: x + 0.5, y: y + 0.5 };
      }
    };
    const lq: Query[] = [];
    while (lq.length < 12) {
      const a = pick(), b = pick();
      if (Math.hypot(a.x - b.x, a.y - b.y) > 20) lq.push({ start: { ...a, heading: 0 }, goal: b });
    }
    out.push({ name: "arena detours", rows, unit: "tank", queries: lq });
  } catch { /* shared maps absent */ }
  return out;
}

function scenarios(): { name: string; layer: PassLayer; unit: UnitSpec; queries: Query[] }[] {
  return scenarioSpecs().map((sc) => ({
    name: sc.name,
    layer: layerOf(sc.rows),
    unit: { ...BUILTIN_PROFILES[sc.unit] },
    queries: sc.queries,
  }));
}

/** Runs per query: the query's time is the median of its runs (sub-0.1 ms timings are noisy one by one). */
const RUNS_PER_QUERY = 9;

/** Runs the benchmark; returns a text report. */
export async function benchDirectional(): Promise<string> {
  await Promise.resolve();
  const lines: string[] = [
    `(each query's time is the median of ${RUNS_PER_QUERY} runs after one warm-up pass over the set; ` +
    "the table gives the median and p95 of those over the set's queries)",
  ];
  const planners: PlannerName[] = ["directional", "hybrid", "smooth"];
  for (const sc of scenarios()) {
    const ctx = new PlanContext((k) => (k === "L" ? sc.layer : undefined), tableStore);
    // Warm the tables and the JIT on every query of the set.
    for (const p of planners) {
      for (const q of sc.queries) runPlanTask(ctx, task(sc.layer, sc.unit, q, p), null);
    }
    const res: Record<string, { ms: number[]; exp: number[]; len: number[]; found: number }> = {};
    for (const p of planners) {
      const r = { ms: [] as number[], exp: [] as number[], len: [] as number[], found: 0 };
      for (const q of sc.queries) {
        const runs: number[] = [];
        let o = null;
        for (let k = 0; k < RUNS_PER_QUERY; k++) {
          const t0 = performance.now();
          o = runPlanTask(ctx, task(sc.layer, sc.unit, q, p), null);
          runs.push(performance.now() - t0);
        }
        r.ms.push(stats(runs).median);
        r.exp.push(o!.expansions);
        if (o!.status === "found") {
          r.found++;
          r.len.push(o!.length);
        }
      }
      res[p] = r;
    }
    for (const p of planners) {
      const r = res[p];
      const ms = stats(r.ms), ex = stats(r.exp), len = stats(r.len);
      lines.push(
        `${sc.name.padEnd(16)} ${p.padEnd(12)} found ${r.found}/${sc.queries.length}  median ${
          ms.median.toFixed(3)
        } ms  p95 ${ms.p95.toFixed(3)} ms  expansions ${ex.median}  length ${len.median?.toFixed(2)}`,
      );
    }
    const ratio = stats(res.hybrid.ms).median / stats(res.smooth.ms).median;
    lines.push(`${sc.name.padEnd(16)} hybrid/smooth median ratio ${ratio.toFixed(2)}`);
  }
  return lines.join("\n");
}

if (import.meta.main) console.log(await benchDirectional());
