/**
 * Path quality against the unit's cost model (issue 11), in-process: on costed variants of shared maps (swamp
 * blobs of terrain cost 5-20 placed with a fixed seed), for tank, jeep and truck on random legal start/goal
 * pairs, every planner that returns curves is run (AUTO = HYBRID's portfolio for turning units, HYBRID alone, DIRECTIONAL 24 and 48,
 * CURVED with backing up) and each legal answer is priced with pathCost (src/motion/pathCost.ts). Per map and
 * unit: median and p95 of cost(AUTO) / min cost over all planners, the fraction of pairs where AUTO reverses
 * while some planner's forward-only path is cheaper, AUTO's found rate and median time.
 *
 * Targets (issue 11): AUTO within 5% at the median and 25% at p95; no reverse where a forward path is cheaper.
 *
 * Run alone: deno run -A bench/quality.ts [pairs per map and unit, default 20]
 *
 * @module
 */
import { footprintHitsBlocked, pathHitsBlocked } from "../src/geometry/sweep.ts";
import type { Segment } from "../src/geometry/types.ts";
import type { PassLayer } from "../src/maps/grid.ts";
import { buildPassLayer, clearanceClass, reachClearanceClass } from "../src/maps/layer.ts";
import { buildRegionTable } from "../src/maps/regionBuild.ts";
import { componentOfTile, type RegionTable } from "../src/maps/regions.ts";
import { movingAiTerrain, withOverrides } from "../src/maps/terrain.ts";
import { pathCost } from "../src/motion/pathCost.ts";
import { PlanContext } from "../src/planning/context.ts";
import { runPlanTask } from "../src/planning/plan.ts";
import { type PlannerName, type PlanTask, planTask } from "../src/planning/task.ts";
import { tableStore } from "../src/service/directionalTables.ts";
import { inscribedRadius } from "../src/units/footprint.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import type { UnitSpec } from "../src/units/unit.ts";

/** Swamp terrain codes: 'a' + i costs 5 + i (i = 0..15). */
const SWAMP_CODES = 16;

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 4294967296;
}

function readRows(path: string, crop?: { x: number; y: number; w: number; h: number }): string[] | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(new URL(path, import.meta.url));
  } catch {
    return null;
  }
  const lines = text.split(/\r?\n/);
  const h = Number(lines.find((l) => l.startsWith("height"))!.split(/\s+/)[1]);
  const s = lines.indexOf("map") + 1;
  let rows = lines.slice(s, s + h);
  if (crop) rows = rows.slice(crop.y, crop.y + crop.h).map((r) => r.slice(crop.x, crop.x + crop.w));
  return rows;
}

/** Open tiles ('.', 'G', 'S') inside pseudo-random discs become swamp of one cost 5-20 per blob. */
function withSwamps(rows: string[], seed: number): string[] {
  const rnd = lcg(seed);
  const h = rows.length, w = rows[0].length;
  const g = rows.map((r) => r.split(""));
  const blobs = Math.max(3, Math.round((w * h) / 400));
  for (let b = 0; b < blobs; b++) {
    const cx = rnd() * w, cy = rnd() * h, r = 1.5 + rnd() * 4;
    const code = String.fromCharCode(97 + Math.floor(rnd() * SWAMP_CODES));
    for (let y = Math.max(0, Math.floor(cy - r)); y < Math.min(h, cy + r + 1); y++) {
      for (let x = Math.max(0, Math.floor(cx - r)); x < Math.min(w, cx + r + 1); x++) {
        if (Math.hypot(x + 0.5 - cx, y + 0.5 - cy) <= r && ".GS".includes(g[y][x])) g[y][x] = code;
      }
    }
  }
  return g.map((r) => r.join(""));
}

/** The layer of a costed map (swamp codes priced 5-20 over the Moving AI terrain). */
export function layerOf(rows: string[]): PassLayer {
  const height = rows.length, width = rows[0].length;
  const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) tiles[y * width + x] = rows[y].charCodeAt(x);
  }
  const swamp = Array.from({ length: SWAMP_CODES }, (_, i) => ({
    code: 97 + i,
    cost: 5 + i,
    impassable: false,
    road: false,
  }));
  return buildPassLayer({ width, height, tiles }, withOverrides(movingAiTerrain(), swamp));
}

/** A planner configuration the bench runs on each pair. */
export interface Variant {
  label: string;
  planner: PlannerName;
  neighborhood?: number;
  backingUp?: boolean;
  portfolio?: boolean;
}

/** AUTO is the hybrid with the portfolio for turning units (service/planService.ts, planning/auto.ts). */
export const VARIANTS: Variant[] = [
  { label: "auto", planner: "hybrid", portfolio: true },
  { label: "hybrid", planner: "hybrid" },
  { label: "directional24", planner: "directional", neighborhood: 24 },
  { label: "directional48", planner: "directional", neighborhood: 48 },
  { label: "curved+backing", planner: "curved", backingUp: true },
];

/** Region tables per layer and clearance class (to guide curve planners as the service's gate does). */
const tablesOf = new WeakMap<PassLayer, Map<number, RegionTable>>();
function regionsOf(layer: PassLayer, cls: number): RegionTable {
  let m = tablesOf.get(layer);
  if (!m) tablesOf.set(layer, m = new Map());
  let t = m.get(cls);
  if (!t) m.set(cls, t = buildRegionTable(layer, cls));
  return t;
}

/** The task of one variant on one pair, guided as the service's gate does. */
export function taskFor(layer: PassLayer, unit: UnitSpec, q: Pair, v: Variant): PlanTask {
  const t = planTask(
    { planner: v.planner, layerKey: "L", width: layer.width, unit, start: q.start, goal: q.goal },
    { maxMillis: 5000, wantWaypoints: false },
  );
  if (v.neighborhood) t.neighborhood = v.neighborhood;
  if (v.backingUp) t.options.allowBackingUp = true;
  if (v.portfolio) t.portfolio = true;
  // As the service's gate (src/service/planService.ts): when the bounding disc on tile centers does not
  // join start and goal, curve planners' grid routes are guided at the over-approximating class.
  const centers = regionsOf(layer, clearanceClass(unit.boundingRadius));
  const c = componentOfTile(centers, t.startTile);
  if (c < 0 || componentOfTile(centers, t.goalTile) !== c) {
    t.guideClearance = reachClearanceClass(inscribedRadius(unit.footprint));
  }
  return t;
}

/** A start/goal pair. */
export interface Pair {
  start: { x: number; y: number; heading: number };
  goal: { x: number; y: number; heading: number };
}

/** Random pairs whose poses the footprint fits, at least 8 tiles apart. */
export function pairs(layer: PassLayer, unit: UnitSpec, n: number, seed: number): Pair[] {
  const rnd = lcg(seed);
  const pose = () => {
    for (let k = 0; k < 100000; k++) {
      const x = Math.floor(rnd() * layer.width) + 0.5, y = Math.floor(rnd() * layer.height) + 0.5;
      const heading = Math.round(rnd() * 16) * (Math.PI / 8) - Math.PI;
      const t = Math.floor(y) * layer.width + Math.floor(x);
      if (layer.tileCost[t] <= 0) continue;
      if (!footprintHitsBlocked(layer, x, y, heading, unit.footprint)) return { x, y, heading };
    }
    throw new Error("no legal pose");
  };
  const out: Pair[] = [];
  while (out.length < n) {
    const a = pose(), b = pose();
    if (Math.hypot(a.x - b.x, a.y - b.y) >= 8) out.push({ start: a, goal: b });
  }
  return out;
}

function legal(layer: PassLayer, unit: UnitSpec, segs: readonly Segment[]): boolean {
  const r = unit.turningRadius;
  for (const s of segs) {
    if (s.tightened || s.touchesBlocked) return false;
    if (r > 0 && Math.abs(s.curvature) > 1 / r + 1e-9) return false;
  }
  return !pathHitsBlocked(layer, segs, unit.footprint);
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(s.length * q))];
}

/** The costed maps of the bench (those whose files exist here). */
export function maps(): { name: string; rows: string[] }[] {
  const out: { name: string; rows: string[] }[] = [];
  const arena = readRows("../../shared/data/movingai/arena.map");
  if (arena) out.push({ name: "arena+swamp", rows: withSwamps(arena, 11) });
  const r512 = readRows("../../shared/data/movingai/random512-10-0.map", { x: 0, y: 0, w: 96, h: 96 });
  if (r512) out.push({ name: "random512 96x96+swamp", rows: withSwamps(r512, 12) });
  const yard = readRows("../demo/maps/yard.map");
  if (yard) out.push({ name: "yard+swamp", rows: withSwamps(yard, 13) });
  return out;
}

/** The seed of a map's and unit's random pairs (tests reproduce a bench pair with it). */
export function pairSeed(mapName: string, unitName: string): number {
  return 1000 + unitName.length * 7 + mapName.length;
}

/** Runs the benchmark; returns a markdown table. */
export async function benchQuality(pairsPerCell = 20): Promise<string> {
  await Promise.resolve();
  const lines: string[] = [
    `(${pairsPerCell} random legal pairs per map and unit; ratio = cost(AUTO) / min legal cost over ` +
    `${VARIANTS.map((v) => v.label).join(", ")}; "rev>fwd" = AUTO reverses while a forward-only answer is ` +
    "cheaper; ms = AUTO's median time)",
    "",
    "| map | unit | AUTO found | median ratio | p95 ratio | rev>fwd | AUTO ms | HYBRID median / p95 / ms | " +
    "found per planner |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  // Which of AUTO's steps gave the answers that reverse where a forward one is cheaper (its message).
  const revSources = new Map<string, number>();
  const revPairs: string[] = [];
  for (const m of maps()) {
    const layer = layerOf(m.rows);
    const ctx = new PlanContext((k) => (k === "L" ? layer : undefined), tableStore);
    for (const unitName of ["tank", "jeep", "truck"]) {
      const unit = { ...BUILTIN_PROFILES[unitName] };
      const qs = pairs(layer, unit, pairsPerCell, pairSeed(m.name, unitName));
      const ratios: number[] = [];
      const ms: number[] = [];
      const hybridRatios: number[] = [];
      const hybridMs: number[] = [];
      const found = VARIANTS.map(() => 0);
      let revWorse = 0;
      for (const q of qs) {
        let autoMessage = "";
        const costs: (number | null)[] = [];
        const forwardOnly: boolean[] = [];
        for (let i = 0; i < VARIANTS.length; i++) {
          const t0 = performance.now();
          const o = runPlanTask(ctx, taskFor(layer, unit, q, VARIANTS[i]), null);
          if (i === 1) hybridMs.push(performance.now() - t0);
          if (i === 0) {
            ms.push(performance.now() - t0);
            autoMessage = o.message;
          }
          if (o.status === "found" && o.segments.length > 0 && legal(layer, unit, o.segments)) {
            found[i]++;
            const c = pathCost(o.segments, unit, layer);
            costs.push(c.total);
            forwardOnly.push(c.reverseLength === 0);
          } else {
            costs.push(null);
            forwardOnly.push(false);
          }
        }
        const auto = costs[0];
        if (auto === null) continue;
        const best = Math.min(...costs.filter((c): c is number => c !== null));
        ratios.push(auto / best);
        if (costs[1] !== null) hybridRatios.push(costs[1] / best);
        if (!forwardOnly[0] && costs.some((c, i) => c !== null && forwardOnly[i] && c < auto - 1e-9)) {
          revWorse++;
          const why = autoMessage.split(";")[0];
          revSources.set(why, (revSources.get(why) ?? 0) + 1);
          const p = (o: { x: number; y: number; heading: number }) =>
            `(${o.x}, ${o.y}, ${o.heading.toFixed(4)})`;
          revPairs.push(`${m.name} ${unitName} ${p(q.start)} -> ${p(q.goal)} (AUTO ${auto.toFixed(2)})`);
        }
      }
      lines.push(
        `| ${m.name} | ${unitName} | ${found[0]}/${qs.length} | ${quantile(ratios, 0.5).toFixed(3)} | ${
          quantile(ratios, 0.95).toFixed(3)
        } | ${revWorse}/${ratios.length} | ${quantile(ms, 0.5).toFixed(2)} | ${
          quantile(hybridRatios, 0.5).toFixed(3)
        } / ${quantile(hybridRatios, 0.95).toFixed(3)} / ${quantile(hybridMs, 0.5).toFixed(2)} | ${
          VARIANTS.map((v, i) => `${v.label} ${found[i]}`).join(", ")
        } |`,
      );
    }
  }
  lines.push("");
  lines.push(
    `AUTO answers counted in rev>fwd, by AUTO's message: ${
      [...revSources].map(([k, v]) => `${v} x "${k}"`).join(", ") || "none"
    }${revPairs.length > 0 ? `; pairs: ${revPairs.join("; ")}` : ""}`,
  );
  return lines.join("\n");
}

if (import.meta.main) console.log(await benchQuality(Number(Deno.args[0] ?? 20)));
