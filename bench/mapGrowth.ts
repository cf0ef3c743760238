/**
 * What a map costs a real server, per tile, apart from what any server costs (issue 13's "at most 40 bytes per
 * tile for a loaded and planned-on map, whatever the number of workers"). One server process per (side,
 * workers): first a 16x16 map is uploaded and planned on with the same queries as the big map (GRID and
 * HIERARCHICAL for the agent and the tank on the longest pair, DIRECTIONAL and HYBRID for the tank on a
 * ~1,000-step pair), each query sent once per worker at the same time so that every worker plans it. Its settled
 * resident set is the fixed part (runtime, warmed workers' code and heaps, the shared directional tables, the
 * server's own state): the same for any map, reported in MB, never divided by tiles. Then the tiled city map is
 * uploaded (PutMapChunks) and planned on the same way; per tile = (resident set - fixed part) / tiles, after
 * load, right after the queries (workers still hold their query scratch) and settled (once the map builders'
 * threads have ended, they stop 2 s after the background preparation a query started, then 2.5 s more: a worker
 * lets go of its scratch after 1 s idle, planning/scratch.ts; then until the resident set holds still for 1 s,
 * as for the fixed part). Everything a worker keeps that grows with the map
 * counts. Beside them: the upload's time until its background tables are ready (the map builders' work), and
 * the settled figure read again MAPGROWTH_LATE_MS later: on a loaded machine the idle releases (a worker's at
 * 1 s, the pool thread's collection at 1.5 s, their malloc trims) may run after the settled reading, and a gap
 * between the two columns says the settled one caught them still under way. bench/memoryMap.ts tells where the
 * growth lives.
 *
 * Run: `node_modules/deno/deno run -A bench/mapGrowth.ts [sides=1024,2048,4096] [workers=2,4]`. Environment:
 * MAPGROWTH_ONLY=grid/agent,hybrid/tank,... plans only those queries on the big map ("none": none);
 * MAPGROWTH_SETTLE_MS (default 2500); MAPGROWTH_LATE_MS (default 5000; 0 leaves the late reading out);
 * MAPGROWTH_WARM_SIDE (default 0; see {@link WARM_SIDE}).
 *
 * @module
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, type TestServer } from "../test/helpers/server.ts";
import { longestPair, tiledCity } from "./scaleMaps.ts";
import { putChunks, rssBytes, startScaleServer, whenPrepared } from "./scaleUpload.ts";

/** One query's budget (ms); a hierarchical query that answers BUDGET while its graph is built is asked again. */
const BUDGET_MS = 20_000;
/** Wait after the queries before the settled figure: the workers' idle release (1 s) and its collection. */
const SETTLE_MS = Number(Deno.env.get("MAPGROWTH_SETTLE_MS") ?? 2500);
/** Wait after the settled figure before reading it again (the late column). */
const LATE_MS = Number(Deno.env.get("MAPGROWTH_LATE_MS") ?? 5000);
/**
 * MAPGROWTH_WARM_SIDE=N (default 0: off): the fixed part also loads an N x N city and plans on it (twice, the same
 * queries), so that it holds the code the planners compile on long queries (V8 optimizes what runs hot: ~0.9 MB
 * a worker measured after a 1024^2 map's queries, once per worker whatever the map's size) as well as that map,
 * and the big map's growth is left without both. Keep N below 512 (maps from 512^2 up start the map builders).
 */
const WARM_SIDE = Number(Deno.env.get("MAPGROWTH_WARM_SIDE") ?? 0);
/** Longest wait for the map builders' threads to end (they stop 2 s after their last job: service/mapBuild.ts). */
const BUILDERS_END_MS = 60_000;

/** A settled reading's resident set must hold within this many bytes over {@link STEADY_MS}. */
const STEADY_BYTES = 256 << 10;
/** How long a settled reading's resident set must hold. */
const STEADY_MS = 1000;
/** Longest extra wait for it to hold (a busy machine delays the idle collections). */
const STEADY_MAX_MS = 10_000;

/**
 * The resident set of process `pid` once it holds within {@link STEADY_BYTES} for {@link STEADY_MS} (read every
 * 250 ms, at most {@link STEADY_MAX_MS}): the fixed part and the settled figure are both read after the idle
 * collections (a worker's at 1 s, the pool thread's at 1.5 s, tens of MB of young generation on the pool thread),
 * not while one is under way, which on a loaded machine moved either reading by up to ~20 MB.
 */
async function steadyRss(pid: number): Promise<number> {
  const until = Date.now() + STEADY_MAX_MS;
  const readings = [rssBytes(pid)];
  const span = STEADY_MS / 250;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    readings.push(rssBytes(pid));
    const last = readings.slice(-span - 1);
    if (last.length > span && Math.max(...last) - Math.min(...last) <= STEADY_BYTES) break;
  }
  return readings.at(-1)!;
}

/** Threads of process `pid` (Linux /proc). */
export function threadCount(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).length;
}

/**
 * Waits until process `pid` runs at most `threads` threads (the map builders started for a big map have ended,
 * having finished the background preparation a query started), at most {@link BUILDERS_END_MS}; returns the
 * count then.
 */
async function buildersEnded(pid: number, threads: number): Promise<number> {
  const until = Date.now() + BUILDERS_END_MS;
  while (threadCount(pid) > threads && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return threadCount(pid);
}

/**
 * Plans once, again while it answers BUDGET (up to 5 times: a preparation resumes) or while a HIERARCHICAL answer
 * says the map's abstract graph is still being prepared in the background (up to 300 s): "planned on" includes
 * the graph. Returns the status.
 */
async function plan(
  srv: TestServer,
  mapId: string,
  planner: string,
  unit: string,
  start: [number, number],
  goal: [number, number],
): Promise<string> {
  let status = "";
  const until = Date.now() + 300_000;
  for (let i = 0; i < 5; i++) {
    const r = await call(srv.client, "Plan", {
      map: { id: mapId },
      planner,
      unit: { name: unit },
      start: { x: start[0] + 0.5, y: start[1] + 0.5, heading: 0 },
      goal: { x: goal[0] + 0.5, y: goal[1] + 0.5 },
      options: { max_millis: BUDGET_MS },
    }, { deadline: Date.now() + BUDGET_MS + 60_000 });
    status = String(r.status).replace("PLAN_STATUS_", "").toLowerCase();
    if (/being prepared/.test(String(r.message ?? "")) && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 500));
      i--;
      continue;
    }
    if (status !== "budget") break;
  }
  return status;
}

/** The query set, each query sent `workers` times at once (every worker plans it); returns the statuses. */
async function planAll(
  srv: TestServer,
  mapId: string,
  workers: number,
  pair: { start: [number, number]; goal: [number, number]; near: [number, number] },
): Promise<string[]> {
  const queries: [string, string, [number, number]][] = [
    ["PLANNER_GRID", "agent", pair.goal],
    ["PLANNER_GRID", "tank", pair.goal],
    ["PLANNER_HIERARCHICAL", "agent", pair.goal],
    ["PLANNER_HIERARCHICAL", "tank", pair.goal],
    ["PLANNER_DIRECTIONAL", "tank", pair.near],
    ["PLANNER_HYBRID", "tank", pair.near],
  ];
  const statuses: string[] = [];
  const only = mapId !== "big" ? undefined : Deno.env.get("MAPGROWTH_ONLY") || undefined;
  for (const [planner, unit, goal] of queries) {
    if (
      only !== undefined &&
      !only.split(",").includes(`${planner.replace("PLANNER_", "").toLowerCase()}/${unit}`)
    ) continue;
    const all = await Promise.all(
      Array.from({ length: workers }, () => plan(srv, mapId, planner, unit, pair.start, goal)),
    );
    statuses.push(`${planner.replace("PLANNER_", "").toLowerCase()}/${unit} ${[...new Set(all)].join("+")}`);
  }
  return statuses;
}

/** Figures of one server: side x side map, `workers` workers. */
export interface Growth {
  /** Map side. */
  side: number;
  /** Planner workers. */
  workers: number;
  /** Resident bytes with the 16x16 map loaded and planned on, settled (the fixed part). */
  fixed: number;
  /** Resident bytes after the big map's upload (tables ready). */
  loaded: number;
  /** Right after the queries. */
  after: number;
  /** Settled after the queries. */
  settled: number;
  /** The settled figure read again {@link LATE_MS} later (NaN when LATE_MS is 0). */
  late: number;
  /** Query statuses on the big map. */
  statuses: string[];
  /** From the upload's first chunk until the map's background tables are ready (ms). */
  uploadMs: number;
}

/**
 * Measures one (side, workers); `onStage` is called with the server's pid at each figure ("fixed", "loaded",
 * "after", "settled") and the server, e.g. to read its memory mappings (bench/memoryMap.ts).
 */
export async function mapGrowth(
  side: number,
  workers: number,
  onStage?: (stage: string, pid: number, srv: TestServer) => void,
): Promise<Growth> {
  const tiles = tiledCity(side);
  const pair = longestPair(tiles, side);
  const dir = mkdtempSync(join(tmpdir(), "arcpath-growth-"));
  const srv = await startScaleServer(dir, workers);
  const settle = () => new Promise((r) => setTimeout(r, SETTLE_MS));
  try {
    const pid = srv.proc.pid!;
    await putChunks(srv.client, "tiny", 16, new Uint8Array(256).fill(46));
    await whenPrepared(srv, "tiny");
    // Twice: the first round compiles and sizes what any map needs; the second is the steady state.
    for (let i = 0; i < 2; i++) {
      await planAll(srv, "tiny", workers, { start: [2, 2], goal: [13, 13], near: [12, 3] });
    }
    if (WARM_SIDE > 0) {
      const warm = tiledCity(WARM_SIDE);
      await putChunks(srv.client, "warm", WARM_SIDE, warm);
      await whenPrepared(srv, "warm");
      for (let i = 0; i < 2; i++) await planAll(srv, "warm", workers, longestPair(warm, WARM_SIDE));
    }
    await settle();
    const fixed = await steadyRss(pid);
    const fixedThreads = threadCount(pid);
    onStage?.("fixed", pid, srv);
    const t0 = performance.now();
    await putChunks(srv.client, "big", side, tiles);
    const uploadMs = (await whenPrepared(srv, "big")) - t0;
    const loaded = rssBytes(pid);
    onStage?.("loaded", pid, srv);
    const statuses = await planAll(srv, "big", workers, pair);
    const after = rssBytes(pid);
    onStage?.("after", pid, srv);
    const threads = await buildersEnded(pid, fixedThreads);
    await settle();
    const settled = await steadyRss(pid);
    onStage?.("settled", pid, srv);
    let late = NaN;
    if (LATE_MS > 0) {
      await new Promise((r) => setTimeout(r, LATE_MS));
      late = rssBytes(pid);
    }
    if (threads > fixedThreads) statuses.push(`${threads - fixedThreads} threads more than the fixed part's`);
    return { side, workers, fixed, loaded, after, settled, late, statuses, uploadMs };
  } finally {
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs every (side, workers); returns markdown. */
export async function benchMapGrowth(sides: number[], workerCounts: number[]): Promise<string> {
  const mb = (b: number) => (b / 1048576).toFixed(1);
  const out = [
    "Resident set of a real server (one process per row). Fixed part: 16x16 map loaded and planned on with the " +
    "same queries, settled (MB, the same for any map). Per tile: (resident set - fixed part) / tiles. Queries: " +
    "GRID and HIERARCHICAL (agent, tank; longest pair), DIRECTIONAL and HYBRID (tank, ~1,000 steps), each sent " +
    "once per worker at the same time.",
    "",
    `| side | workers | upload + tables ms | fixed part MB | after load B/tile | right after planning B/tile | settled B/tile | settled + ${LATE_MS} ms B/tile | statuses |`,
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  ];
  const settledGrowth = new Map<number, [number, number][]>();
  for (const side of sides) {
    for (const workers of workerCounts) {
      const g = await mapGrowth(side, workers);
      const n = side * side;
      const per = (b: number) => ((b - g.fixed) / n).toFixed(1);
      out.push(
        `| ${side} | ${workers} | ${g.uploadMs.toFixed(0)} | ${mb(g.fixed)} | ${per(g.loaded)} | ${
          per(g.after)
        } | ${per(g.settled)} | ${Number.isNaN(g.late) ? "-" : per(g.late)} | ${g.statuses.join(", ")} |`,
      );
      console.error(out.at(-1));
      settledGrowth.set(workers, [...(settledGrowth.get(workers) ?? []), [n, g.settled - g.fixed]]);
    }
  }
  // What one more tile costs between two sizes (settled): leaves out what a big map adds once whatever its size
  // (e.g. the map builders' threads, started for maps of 512^2 and more, and their allocator arenas).
  out.push("", "| workers | sides | marginal settled B/tile |", "| ---: | --- | ---: |");
  for (const [workers, pts] of settledGrowth) {
    for (let i = 1; i < pts.length; i++) {
      const [n0, b0] = pts[i - 1], [n1, b1] = pts[i];
      const side = (k: number) => Math.round(Math.sqrt(k));
      out.push(`| ${workers} | ${side(n0)} -> ${side(n1)} | ${((b1 - b0) / (n1 - n0)).toFixed(1)} |`);
    }
  }
  return out.join("\n");
}

if (import.meta.main) {
  const sides = (Deno.args[0] ?? "1024,2048,4096").split(",").map(Number);
  const workers = (Deno.args[1] ?? "2,4").split(",").map(Number);
  console.log(await benchMapGrowth(sides, workers));
}
