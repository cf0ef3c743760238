/**
 * Where a loaded, planned-on map's memory goes, part by part (in-process, one worker's planning state): the
 * tiles, the pass layer, the region tables of the built-in classes (shared by the workers through
 * SharedArrayBuffer), and what a worker builds for itself as it plans (search workspace, jump tables, abstract
 * graph and landmarks, directional and hybrid state). Sizes are the typed arrays reachable from each part
 * (each buffer counted once); per-worker rows are the growth of the process's resident set over each planner's
 * first queries (state kept where no walk reaches it counts too), with walk-based detail rows inside them.
 * The directional tables every worker uses (D-8, D-24 and D-48 of the built-in turning units) are read once into
 * shared memory by the pool's thread and adopted by the workers (service/pool.ts): the same for any map, so they
 * are stated in MB above the table and left out of the per-tile totals. A worker lets
 * go of its query scratch after 1 s idle (planning/scratch.ts): the last rows show what it holds then. The
 * planners are warmed up first, as a worker does before its first job. The per-worker totals are one worker's,
 * in process: a whole server's bytes per tile with N workers are not extrapolated from them but measured on real
 * servers (bench/mapGrowth.ts) at the end (SCALEMEMORY_WORKERS=2,4 by default; "none" leaves them out).
 *
 * @module
 */
import type { PassLayer } from "../src/maps/grid.ts";
import { parseMovingAi } from "../src/maps/movingai.ts";
import { movingAiTerrain } from "../src/maps/terrain.ts";
import { buildPassLayer } from "../src/maps/layer.ts";
import { buildRegionTable } from "../src/maps/regionBuild.ts";
import type { RegionTable } from "../src/maps/regions.ts";
import { builtinClasses, layerBytes, regionBytes, SECTOR_SIZE } from "../src/service/mapLayers.ts";
import { PlanContext } from "../src/planning/context.ts";
import { runPlanTask } from "../src/planning/plan.ts";
import { type PlannerName, planTask } from "../src/planning/task.ts";
import { abstractGraphFor } from "../src/planning/hierarchical.ts";
import { straightJumps } from "../src/search/jumpPointSpace.ts";
import { tableStore } from "../src/service/directionalTables.ts";
import { SHARED_NEIGHBORHOODS, warmTableProfiles, warmUpPlanners } from "../src/service/warmUp.ts";
import { releaseScratch } from "../src/planning/scratch.ts";
import { mapLargeBlocksAlone, trimMalloc } from "../src/service/mallocTrim.ts";
import { BUILTIN_PROFILES } from "../src/units/profiles.ts";
import { longestPair, movingAiText, tiledCity } from "./scaleMaps.ts";

/** Bytes of the typed arrays reachable from `root` whose buffers are not in `seen` (adds them). */
export function reachableBytes(root: unknown, seen: Set<ArrayBufferLike>, depth = 6): number {
  if (root === null || typeof root !== "object" || depth < 0) return 0;
  if (ArrayBuffer.isView(root)) {
    if (seen.has(root.buffer)) return 0;
    seen.add(root.buffer);
    return root.buffer.byteLength;
  }
  let n = 0;
  const values = root instanceof Map ? [...root.values()] : Array.isArray(root) ? root : Object.values(root);
  for (const v of values) n += reachableBytes(v, seen, depth - 1);
  return n;
}

/**
 * Resident bytes after a collection when the runtime allows one (--v8-flags=--expose-gc). Array buffers a
 * collection drops are freed by a background sweeper: wait for it (100 ms) and collect again.
 */
function resident(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  gc?.();
  return Deno.memoryUsage().rss;
}

/** The breakdown for a side x side tiled city map, as markdown. */
export function memoryBreakdown(side: number): string {
  // As the server does at start (src/main.ts), so that freed scratch goes back to the system the same way.
  mapLargeBlocksAlone();
  const tiles = tiledCity(side);
  const n = side * side;
  const grid = parseMovingAi(movingAiText(tiles, side), { maxWidth: side, maxHeight: side, maxTiles: n });
  const layer: PassLayer = buildPassLayer(grid, movingAiTerrain());
  const tables = new Map<number, RegionTable>();
  for (const cls of builtinClasses()) tables.set(cls, buildRegionTable(layer, cls, SECTOR_SIZE));
  const seen = new Set<ArrayBufferLike>([
    grid.tiles.buffer,
    layer.tileCost.buffer,
    layer.clearanceCode.buffer,
  ]);
  seen.add(layer.road.buffer);
  for (const t of tables.values()) reachableBytes(t, seen);
  const rows: [string, number, string][] = [
    ["tiles (1 byte each)", grid.tiles.byteLength, "shared"],
    ["pass layer (cost, clearance, road)", layerBytes(layer), "shared"],
    ...[...tables].map((
      [cls, t],
    ): [string, number, string] => [`region table, class ${cls}`, regionBytes(t), "shared"]),
  ];

  // What the pool does at start: the warm tables once, in shared memory (held once, whatever the workers).
  tableStore.loadShared(warmTableProfiles(SHARED_NEIGHBORHOODS));
  // A worker warms up before its first job (service/worker.ts): the planning code compiled then (several MB of
  // code and heap, the same on any map) is not the map's, so it is not in the growth rows below.
  warmUpPlanners(tableStore);
  resident();
  const external0 = Deno.memoryUsage().external;
  // The same for any map (and any number of workers): reported in MB, never divided by the map's tiles.
  const fixedTables = tableStore.sharedBytes;

  const shared = new Map<string, unknown>([["L", layer]]);
  for (const [cls, t] of tables) shared.set(`L/${cls}`, t);
  const ctx = new PlanContext((key) => shared.get(key), tableStore);
  const pair = longestPair(tiles, side);
  const run = (planner: PlannerName, unitName: "tank" | "agent", far: boolean) => {
    const unit = BUILTIN_PROFILES[unitName];
    const goal = far ? pair.goal : pair.near;
    const task = planTask({
      planner,
      layerKey: "L",
      width: side,
      unit,
      start: { x: pair.start[0] + 0.5, y: pair.start[1] + 0.5, heading: 0 },
      goal: { x: goal[0] + 0.5, y: goal[1] + 0.5 },
    }, { maxMillis: 60_000, maxExpansions: 50_000_000 });
    task.regionKey = `L/${task.clearance}`;
    return runPlanTask(ctx, task, null).status;
  };

  // Per-worker parts, in the order a worker builds them. Typed arrays reachable from the worker's context and
  // caches are counted exactly; the directional and hybrid state sits where no walk reaches it, so it is the growth
  // of the resident set over their first queries (noisy: freed memory is reused). The planners' own growth rows are
  // shown for comparison, not added.
  const grow = (label: string, counted: boolean, fn: () => string[]) => {
    const before = resident();
    const statuses = fn();
    const held = counted ? "per worker (resident growth)" : "resident growth, not added";
    const bytes = Math.max(0, resident() - before);
    rows.push([`${label} (${statuses.join(", ")})`, bytes, held]);
    return bytes;
  };
  grow(
    "GRID, agent + tank, longest pair",
    false,
    () => [run("grid", "agent", true), run("grid", "tank", true)],
  );
  let jumps = 0;
  for (const cls of tables.keys()) jumps += reachableBytes(straightJumps(layer, cls), seen);
  rows.push(["A* workspace", reachableBytes(ctx.workspace, seen), "per worker"]);
  // Built by one worker and published to the others over shared memory (service/pool.ts): held once.
  rows.push(["jump tables, both classes", jumps, "shared (built once)"]);
  // The graphs are built once (by one worker, published to the others: service/pool.ts) before the queries, so
  // the queries' growth is what every worker keeps for itself.
  let graphs = 0;
  for (const t of tables.values()) graphs += reachableBytes(abstractGraphFor(t, layer, 8), seen);
  // The trees are in shared memory backed only where written (per node on first walk, search/abstractGraph.ts):
  // their whole array is in `graphs`; the row counts the nodes' trees the queries below wrote.
  const treeArrays = [...tables.values()].map((t) => abstractGraphFor(t, layer, 8).toShared());
  const unwritten = treeArrays.reduce((n, d) => n + d.treeStep.byteLength, 0);
  const graphRow = rows.push(["", 0, "shared (built once)"]) - 1;
  grow(
    "HIERARCHICAL query scratch (agent + tank, longest pair)",
    true,
    () => [run("hierarchical", "agent", true), run("hierarchical", "tank", true)],
  );
  // Counted by the 4 KB pages holding a written tree (what the system backs), not by the trees' bytes.
  let written = 0, nodes = 0, trees = 0;
  for (const d of treeArrays) {
    const nodeBytes = Math.floor(d.treeStep.byteLength / d.nodeCount);
    const pages = new Set<number>();
    for (let i = 0; i < d.nodeCount; i++) {
      if (d.treeReady[i] === 0) continue;
      trees++;
      for (let b = i * nodeBytes; b < (i + 1) * nodeBytes; b += 4096) pages.add(b >> 12);
      pages.add(((i + 1) * nodeBytes - 1) >> 12);
    }
    written += pages.size * 4096;
    nodes += d.nodeCount;
  }
  rows[graphRow] = [
    `abstract graphs + landmarks, both classes (trees: ${trees} of ${nodes} nodes written by the queries, ` +
    `${(written / 1048576).toFixed(2)} MB of pages)`,
    graphs - unwritten + written,
    "shared (built once)",
  ];
  grow("DIRECTIONAL, tank, ~1000 steps", true, () => [run("directional", "tank", false)]);
  grow("HYBRID, tank, ~1000 steps", true, () => [run("hybrid", "tank", false)]);
  const sharedBytes = rows.filter((r) => r[2].startsWith("shared")).reduce((s, r) => s + r[1], 0);
  const workerBytes = rows.filter((r) => r[2].startsWith("per worker")).reduce((s, r) => s + r[1], 0);
  // The worker's idle release (planning/scratch.ts): the bytes it lets go, and the resident set's fall.
  const beforeRelease = resident();
  const released = releaseScratch(ctx);
  // As the worker does: collect (resident() does), then give malloc's free pages back.
  resident();
  trimMalloc();
  const afterRelease = resident();
  const fall = Math.min(released, Math.max(0, beforeRelease - afterRelease));
  rows.push([
    `idle release: scratch let go (${(released / 1048576).toFixed(1)} MB of arrays)`,
    -fall,
    "resident fall, not added",
  ]);
  // Array buffers are external memory: what the worker still holds in them after the release (the shared jump
  // tables and graphs built meanwhile left out), without the resident set's noise (V8 heap, code, malloc). This,
  // not the resident growth minus its fall (malloc keeps some freed pages for reuse), is what an idle worker keeps.
  const arraysHeld = Deno.memoryUsage().external - external0 - jumps - graphs;
  const idleBytes = Math.max(0, arraysHeld);
  const lines = [
    `Memory by part, ${side}x${side} tiled city map (${n} tiles), one worker's planning state after GRID and ` +
    "HIERARCHICAL queries (agent and tank, longest pair) and DIRECTIONAL and HYBRID (tank, ~1000 steps).",
    "",
    `Fixed part, the same for any map: the directional tables of the built-in turning units (D-8, D-24, D-48), ` +
    `${
      (fixedTables / 1048576).toFixed(1)
    } MB, shared by the workers (not in the rows below; a real server's ` +
    "fixed part, runtime and warmed workers included, is measured by bench/mapGrowth.ts).",
    "",
    "| part | MB | bytes per tile | held |",
    "| --- | ---: | ---: | --- |",
    ...rows.map(([p, b, h]) => `| ${p} | ${(b / 1048576).toFixed(1)} | ${(b / n).toFixed(2)} | ${h} |`),
    `| **shared total** | ${(sharedBytes / 1048576).toFixed(1)} | ${(sharedBytes / n).toFixed(2)} | once |`,
    `| **per-worker peak, right after the queries (until its idle release)** | ${
      (workerBytes / 1048576).toFixed(1)
    } | ${(workerBytes / n).toFixed(2)} | each worker that planned, for ~1 s |`,
    `| **per-worker arrays held when idle (after the release; external memory ${
      (arraysHeld / 1048576).toFixed(1)
    } MB)** | ${(idleBytes / 1048576).toFixed(1)} | ${(idleBytes / n).toFixed(2)} | each worker |`,
    "",
    "In-process figures of one worker; what a whole server keeps with N workers (runtime, V8 heaps, malloc, the " +
    "workers' heaps) is not their sum: it is measured below.",
  ];
  return lines.join("\n");
}

/**
 * The whole server's figure, measured (bench/mapGrowth.ts): a real server per worker count, its settled growth
 * per tile over its fixed part, as markdown.
 */
export async function realServers(side: number, workerCounts: number[]): Promise<string> {
  const { mapGrowth } = await import("./mapGrowth.ts");
  const lines = [
    `Real servers (bench/mapGrowth.ts, one process per row, ${side}x${side} city, the same queries on every ` +
    "worker): bytes per tile = (resident set - the server's fixed part) / tiles, the figure issue 13's 40 is about.",
    "",
    "| workers | fixed part MB | after load B/tile | right after planning B/tile | settled B/tile |",
    "| ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const w of workerCounts) {
    const g = await mapGrowth(side, w);
    const per = (b: number) => ((b - g.fixed) / side / side).toFixed(1);
    lines.push(
      `| ${w} | ${(g.fixed / 1048576).toFixed(1)} | ${per(g.loaded)} | ${per(g.after)} | ${per(g.settled)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.main) {
  const side = Number(Deno.args[0] ?? 1024);
  console.log(memoryBreakdown(side));
  // SCALEMEMORY_WORKERS=none leaves the real servers out.
  const counts = (Deno.env.get("SCALEMEMORY_WORKERS") ?? "2,4").split(",").map(Number).filter((w) => w >= 1);
  if (counts.length > 0) console.log("\n" + await realServers(side, counts));
}
