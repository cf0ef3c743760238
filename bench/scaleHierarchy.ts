/**
 * The first HIERARCHICAL query on a big map, with and without `prepare` (issue 13): for each side a fresh server
 * (2 workers) gets the scale bench's tiled city map; once its region tables are built, HIERARCHICAL plans the
 * tank's longest connected pair (first: the abstract graph is not ready, so the grid search answers while the map
 * builders prepare it), then GRID the same pair; then a cheap HIERARCHICAL query is repeated until the graph
 * answers ("graph ready": seconds from the first query); then HIERARCHICAL warm (median of 3) beside GRID's length.
 * A copy with one blocked tile recoded ('@' -> 'T': the same terrain, another content hash, so nothing kept from
 * the first upload is reused) uploaded with `prepare` gives the upload's time (region tables, both classes'
 * graphs and jump tables) and the first and warm HIERARCHICAL queries on that copy. Then the server is restarted
 * on the same data directory and HIERARCHICAL asked at once on the prepared copy ("after a restart": answered
 * from the graph kept in the data directory, or by the grid search while the graph is prepared again). Last, the
 * first map (not asked since the restart, so its graph is only in its file) gets a 5x5 wall by PatchMap: seconds
 * until its region tables, then until the patched version's graph answers (taking the untouched regions' blocks
 * from the previous version's file), and HIERARCHICAL's length beside GRID's on the patched map.
 *
 * Run: `node_modules/deno/deno run -A bench/scaleHierarchy.ts` (SH_SIDES=4096,8192 by default; SH_PREPARE=0
 * leaves out the prepared copy).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, type TestServer } from "../test/helpers/server.ts";
import { longestPair, tiledCity } from "./scaleMaps.ts";
import { putChunks, startScaleServer } from "./scaleUpload.ts";

const SIDES = (Deno.env.get("SH_SIDES") ?? "4096,8192").split(",").map(Number);
const PREPARE = Deno.env.get("SH_PREPARE") !== "0";
/** Each query's budget (ms). */
const BUDGET_MS = 20_000;

interface Answer {
  ms: number;
  status: string;
  planner: string;
  length: number;
  message: string;
}

async function plan(
  srv: TestServer,
  planner: string,
  mapId: string,
  start: [number, number],
  goal: [number, number],
): Promise<Answer> {
  const t0 = performance.now();
  const r = await call(srv.client, "Plan", {
    map: { id: mapId },
    planner,
    unit: { name: "tank" },
    start: { x: start[0] + 0.5, y: start[1] + 0.5, heading: 0 },
    goal: { x: goal[0] + 0.5, y: goal[1] + 0.5 },
    options: { max_millis: BUDGET_MS },
  }, { deadline: Date.now() + BUDGET_MS + 60_000 });
  return {
    ms: performance.now() - t0,
    status: String(r.status).replace("PLAN_STATUS_", "").toLowerCase() +
      (r.stats?.from_region_table ? " (region table)" : ""),
    planner: String(r.stats?.planner ?? "").replace("PLANNER_", ""),
    length: r.length,
    message: String(r.message ?? ""),
  };
}

async function tablesReady(srv: TestServer, mapId: string): Promise<void> {
  for (let i = 0; i < 12000; i++) {
    const info = await call(srv.client, "GetMap", { map: { id: mapId } });
    if (!info.preparing) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`map ${mapId} still preparing after 10 min`);
}

const f1 = (x: number) => x.toFixed(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** Runs the benchmark; returns markdown. */
export async function benchScaleHierarchy(): Promise<string> {
  const out = [
    `Tank, longest connected pair, 2 workers, budget ${BUDGET_MS} ms a query. "answered by" is stats.planner; ` +
    "length ratio = HIERARCHICAL length / GRID length of the same run.",
    "",
    "| side | map | query | ms | status | answered by | length | length / GRID |",
    "| ---: | --- | --- | ---: | --- | --- | ---: | ---: |",
  ];
  for (const side of SIDES) {
    const tiles = tiledCity(side);
    const pair = longestPair(tiles, side);
    const dir = mkdtempSync(join(tmpdir(), "arcpath-sh-"));
    let srv = await startScaleServer(dir);
    const row = (map: string, query: string, a: Answer, grid: number, ms = a.ms) =>
      out.push(
        `| ${side} | ${map} | ${query} | ${f1(ms)} | ${a.status} | ${a.planner} | ${f1(a.length)} | ` +
          `${grid > 0 && a.length > 0 ? (a.length / grid).toFixed(4) : "-"} |`,
      );
    try {
      const t0 = performance.now();
      await putChunks(srv.client, "big", side, tiles);
      const uploadMs = performance.now() - t0;
      await tablesReady(srv, "big");
      const tablesMs = performance.now() - t0;
      const first = await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.goal);
      const firstAt = performance.now() - first.ms;
      const grid = await plan(srv, "PLANNER_GRID", "big", pair.start, pair.goal);
      const gridWarm = await plan(srv, "PLANNER_GRID", "big", pair.start, pair.goal);
      // Until the graph answers: a cheap HIERARCHICAL query (the 4-step pair) once a second.
      let readyMs = NaN;
      for (let i = 0; i < 1800; i++) {
        const probe = await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.short);
        if (probe.planner === "HIERARCHICAL") {
          readyMs = performance.now() - firstAt;
          break;
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      const afterReady = await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.goal);
      const warm: Answer[] = [];
      for (let i = 0; i < 3; i++) {
        warm.push(await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.goal));
      }
      const g = grid.length;
      out.push(
        `| ${side} | upload | (${f1(uploadMs)} ms; region tables ready ${f1(tablesMs)} ms) | | | | | |`,
      );
      row("no prepare", "HIERARCHICAL first", first, g);
      row("no prepare", "GRID first", grid, g);
      row("no prepare", "GRID warm", gridWarm, g);
      out.push(`| ${side} | no prepare | graph ready after the first query | ${f1(readyMs)} | | | | |`);
      row("no prepare", "HIERARCHICAL first on the graph", afterReady, g);
      row("no prepare", "HIERARCHICAL warm (median of 3)", warm[1], g, median(warm.map((w) => w.ms)));
      if (first.message) {
        out.push(`| ${side} | | first's message: ${first.message.slice(0, 140)} | | | | | |`);
      }
      if (PREPARE) {
        const p0 = performance.now();
        const copy = tiles.slice();
        copy[copy.indexOf(64)] = 84;
        await putChunks(srv.client, "prepared", side, copy, true);
        const prepMs = performance.now() - p0;
        out.push(`| ${side} | prepare | upload with prepare | ${f1(prepMs)} | | | | |`);
        const pFirst = await plan(srv, "PLANNER_HIERARCHICAL", "prepared", pair.start, pair.goal);
        const pWarm: Answer[] = [];
        for (let i = 0; i < 3; i++) {
          pWarm.push(await plan(srv, "PLANNER_HIERARCHICAL", "prepared", pair.start, pair.goal));
        }
        row("prepare", "HIERARCHICAL first", pFirst, g);
        row("prepare", "HIERARCHICAL warm (median of 3)", pWarm[1], g, median(pWarm.map((w) => w.ms)));
        await srv.stop();
        const r0 = performance.now();
        srv = await startScaleServer(dir);
        await tablesReady(srv, "prepared");
        const restartMs = performance.now() - r0;
        const rFirst = await plan(srv, "PLANNER_HIERARCHICAL", "prepared", pair.start, pair.goal);
        out.push(`| ${side} | restart | server start and region tables ready | ${f1(restartMs)} | | | | |`);
        row("restart", "HIERARCHICAL first after a restart", rFirst, g);
        // A patch of the first map, whose graph is only in its file now (not asked since the restart).
        const q0 = performance.now();
        await call(srv.client, "PatchMap", {
          map: { id: "big" },
          edits: [{ x: side >> 1, y: side >> 1, width: 5, height: 5, tile: "@" }],
        });
        await tablesReady(srv, "big");
        const patchTablesMs = performance.now() - q0;
        const patchFirst = await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.goal);
        const patchAt = performance.now() - patchFirst.ms;
        let patchReadyMs = NaN;
        for (let i = 0; i < 1800; i++) {
          const probe = await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.short);
          if (probe.planner === "HIERARCHICAL") {
            patchReadyMs = performance.now() - patchAt;
            break;
          }
          await new Promise((r) => setTimeout(r, 250));
        }
        const patchWarm = await plan(srv, "PLANNER_HIERARCHICAL", "big", pair.start, pair.goal);
        const patchGrid = await plan(srv, "PLANNER_GRID", "big", pair.start, pair.goal);
        out.push(
          `| ${side} | patch after restart | 5x5 wall: PatchMap and region tables ready | ${
            f1(patchTablesMs)
          } | | | | |`,
        );
        out.push(
          `| ${side} | patch after restart | graph ready after the first query | ${
            f1(patchReadyMs)
          } | | | | |`,
        );
        row("patch after restart", "HIERARCHICAL on the graph", patchWarm, patchGrid.length);
      }
      console.error(`side ${side} done`);
    } catch (e) {
      // The server's last words (a crash, memory) beside the error.
      console.error(srv.output().slice(-4000));
      throw e;
    } finally {
      await srv.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out.join("\n");
}

if (import.meta.main) console.log(await benchScaleHierarchy());
