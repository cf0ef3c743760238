/**
 * `deno task bench --only scale`: big maps over gRPC to a real server process (2 workers). For each side
 * (512 ... 8192) a fresh server gets a tiled city map (Berlin_0_256 mirrored, 1% random obstacles) by
 * PutMapChunks. The upload answers once the map is stored with its pass layer; its region tables follow in the
 * background ("tables ready": GetMap no longer says `preparing`), and a GRID query sent at once ("GRID at once")
 * waits for the table it needs within its budget or answers BUDGET naming it. Then GRID, HYBRID and DIRECTIONAL,
 * and last HIERARCHICAL (whose first query starts the graph's background preparation), plan for a tank between the
 * longest connected pair (and a ~1,000-step pair; DIRECTIONAL also 4 steps), first (cold) and warm; up to 2048^2 the map is uploaded again with `prepare`, and the first
 * HIERARCHICAL, GRID, HYBRID and DIRECTIONAL queries on that copy are timed (the curve planners' corridors then
 * follow the hierarchical route). Reported: upload time, server RSS after load and after planning
 * (bytes per tile, over the idle server's RSS), query times beside status and path length.
 * A second table breaks memory down by part (in-process, 1024^2).
 *
 * Run alone: `node_modules/deno/deno run -A bench/main.ts --only scale` (SCALE_SIDES=512,1024 to choose sizes;
 * SCALE_QUERIES=0 leaves out the turning-unit section, SCALE_MEMORY=0 the in-process breakdown).
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { call, type TestServer } from "../test/helpers/server.ts";
import { longestPair, tiledCity } from "./scaleMaps.ts";
import { putChunks, rssBytes, startScaleServer, whenPrepared } from "./scaleUpload.ts";
import { benchScaleQueries } from "./scaleQueries.ts";

const SIDES = (Deno.env.get("SCALE_SIDES") ?? "512,1024,2048,4096,8192").split(",").map(Number);
const PLANNERS = ["PLANNER_GRID", "PLANNER_HIERARCHICAL", "PLANNER_HYBRID", "PLANNER_DIRECTIONAL"];
/**
 * Time budget of one query (ms): the service's default (30 s, src/main.ts) unless SCALE_BUDGET_MS says otherwise
 * (0 = the default). A fixed 2.5 s here made every planner's first query on the longest 4096^2/8192^2 pairs
 * answer BUDGET (the first pays table builds) and measured that cut instead of what a client gets.
 */
const BUDGET_MS = Number(Deno.env.get("SCALE_BUDGET_MS") ?? 0);
/** What the budget is, for the table's note. */
const BUDGET_NOTE = BUDGET_MS > 0 ? `${BUDGET_MS} ms` : "the service's default (30 s)";
/**
 * Largest side also uploaded with `prepare` (a second copy of the map in the server; every worker prepares both
 * classes: ~30 s at 4096^2 here, too long for this section); SCALE_PREPARE_MAX=8192 raises it. The prepared
 * map is then asked HIERARCHICAL and GRID (tank, class 1.5) and GRID for the soldier (class 0.5).
 */
const PREPARE_MAX_SIDE = Number(Deno.env.get("SCALE_PREPARE_MAX") ?? 2048);
/** Bytes per upload chunk, about (whole rows): smaller chunks stream faster than a few big ones. */

interface Query {
  ms: number;
  status: string;
  message: string;
  length: number;
  expansions: number;
}

async function plan(
  srv: TestServer,
  planner: string,
  mapId: string,
  start: [number, number],
  goal: [number, number],
  unit = "tank",
): Promise<Query> {
  const t0 = performance.now();
  try {
    const r = await call(srv.client, "Plan", {
      map: { id: mapId },
      planner,
      unit: { name: unit },
      start: { x: start[0] + 0.5, y: start[1] + 0.5, heading: 0 },
      goal: { x: goal[0] + 0.5, y: goal[1] + 0.5 },
      options: BUDGET_MS > 0 ? { max_millis: BUDGET_MS } : {},
    }, { deadline: Date.now() + (BUDGET_MS || 30_000) + 60_000 });
    const status = String(r.status).replace("PLAN_STATUS_", "").toLowerCase();
    return {
      ms: performance.now() - t0,
      status,
      message: String(r.message ?? ""),
      length: r.length,
      expansions: Number(r.stats?.expansions ?? 0),
    };
  } catch (e) {
    return {
      ms: performance.now() - t0,
      status: `error ${(e as Error).message.slice(0, 60)}`,
      message: "",
      length: 0,
      expansions: 0,
    };
  }
}

const mb = (b: number) => (b / 1048576).toFixed(0);
/** What a found answer's message says about a stand-in (tables still being built), in brief. */
function note(q: Query): string {
  if (/jump tables/.test(q.message)) return " (plain A*: jump tables building)";
  if (/abstract graph .* being prepared/.test(q.message)) return " (grid: graph preparing)";
  if (/corridor: the hierarchical route/.test(q.message)) return " (hierarchical corridor)";
  return "";
}
const f1 = (x: number) => x.toFixed(1);

/** Runs the benchmark; returns markdown. */
export async function benchScale(): Promise<string> {
  const out: string[] = [
    `Tank (radius 0.9, turning radius 1.5), 2 workers, each query's budget ${BUDGET_NOTE}; first = the first ` +
    "query of that planner on the map (pays lazily built tables), warm = the faster of 2 repeats. RSS of the " +
    "server process; per tile = (RSS - idle RSS) / tiles. Quality = length / GRID's length on the same pair and " +
    "map in the same run (GRID: the optimal 8-connected tile path for the tank's clearance class; a curve " +
    "planner may go below 1 by cutting corners any-angle, and pays for turning radius above it).",
    "",
    "| side | tiles | upload ms (tables ready) | RSS idle MB | after load MB (B/tile) | after planning MB (B/tile) | pair steps | planner | first ms | warm ms | status | length | quality | expansions |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |",
  ];
  for (const side of SIDES) {
    const sideStart = performance.now();
    const tiles = tiledCity(side);
    const pair = longestPair(tiles, side);
    const dir = mkdtempSync(join(tmpdir(), "arcpath-scale-"));
    const srv = await startScaleServer(dir);
    try {
      const pid = srv.proc.pid!;
      // Idle = after the workers' warm-up and one plan of each planner on a tiny map (code compiled), so the
      // figures below are the big map's own.
      await putChunks(srv.client, "tiny", 16, new Uint8Array(256).fill(46));
      for (const planner of PLANNERS) await plan(srv, planner, "tiny", [2, 2], [12, 12]);
      const idle = rssBytes(pid);
      const t0 = performance.now();
      await putChunks(srv.client, "big", side, tiles);
      const uploadMs = performance.now() - t0;
      // Maps >= 512^2 answer once stored with their pass layer; region tables follow in the background. A
      // query sent at once waits for the table it needs within its budget, else answers BUDGET naming it.
      // Also a ~1,000-step GRID query at once: answered by plain A* while the jump tables build (mapJumps.ts).
      const [atOnce, ready, nearAtOnce] = await Promise.all([
        plan(srv, "PLANNER_GRID", "big", pair.start, pair.goal),
        whenPrepared(srv, "big"),
        plan(srv, "PLANNER_GRID", "big", pair.start, pair.near),
      ]);
      const readyMs = ready - t0;
      const loaded = rssBytes(pid);
      const n = side * side;
      const gridLength = new Map<string, number>();
      const rows: string[][] = [[
        String(pair.steps),
        "GRID at once",
        f1(atOnce.ms),
        "-",
        `${atOnce.status}${/region table/.test(atOnce.message) ? " (region table)" : ""}${note(atOnce)}`,
        f1(atOnce.length),
        "-",
        String(atOnce.expansions),
      ], [
        "~1000",
        "GRID at once",
        f1(nearAtOnce.ms),
        "-",
        `${nearAtOnce.status}${note(nearAtOnce)}`,
        f1(nearAtOnce.length),
        "-",
        String(nearAtOnce.expansions),
      ]];
      // Every planner on the longest pair: DIRECTIONAL refines the 8-connected route's corridor there (S5).
      const pairs: [string, [number, number], string[]][] = [
        ["longest", pair.goal, PLANNERS],
        ["~1000", pair.near, PLANNERS],
        ["4 steps", pair.short, ["PLANNER_DIRECTIONAL"]],
      ];
      const measure = async (
        label: string,
        mapId: string,
        planner: string,
        goal: [number, number],
        unit = "tank",
      ) => {
        const first = await plan(srv, planner, mapId, pair.start, goal, unit);
        const warm: Query[] = [];
        // A first query that ran out of budget is not repeated (it would only spend the budget again).
        if (first.status === "found") {
          for (let i = 0; i < 2; i++) warm.push(await plan(srv, planner, mapId, pair.start, goal, unit));
        }
        const warmMs = warm.length ? warm.map((q) => q.ms).sort((a, b) => a - b)[0] : NaN;
        // GRID runs first on each pair: the others' lengths are set against its optimal grid length.
        const key = `${goal}|${unit}`; // the prepared copy has the same passable tiles
        if (planner === "PLANNER_GRID" && first.status === "found") gridLength.set(key, first.length);
        const ref = gridLength.get(key);
        rows.push([
          label === "longest" ? String(pair.steps) : `${label}`,
          planner.replace("PLANNER_", ""),
          f1(first.ms),
          Number.isNaN(warmMs) ? "-" : f1(warmMs),
          `${first.status}${note(first)}`,
          f1(first.length),
          ref && first.status === "found" ? (first.length / ref).toFixed(4) : "-",
          String(first.expansions),
        ]);
      };
      // HIERARCHICAL last: its first query on a big map starts the abstract graph's preparation in the
      // background, which would otherwise share the two cores with the curve planners timed after it.
      const hierarchicalLast = (planner: string) => planner === "PLANNER_HIERARCHICAL";
      for (const last of [false, true]) {
        for (const [label, goal, planners] of pairs) {
          for (const planner of planners) {
            if (hierarchicalLast(planner) === last) await measure(label, "big", planner, goal);
          }
        }
      }
      const planned = rssBytes(pid);
      // The same map uploaded with prepare (up to 4096^2: a second copy in memory): what the first
      // HIERARCHICAL query costs once the upload built the tables. One blocked tile is recoded ('@' -> 'T',
      // the same terrain): another content hash, so no graph kept in the data directory from the first copy is
      // read instead of prepared.
      if (side <= PREPARE_MAX_SIDE) {
        const copy = tiles.slice();
        copy[copy.indexOf(64)] = 84;
        const t1 = performance.now();
        await putChunks(srv.client, "prepared", side, copy, true);
        const ms = performance.now() - t1;
        const label = `prepared (upload ${f1(ms)} ms)`;
        await measure(label, "prepared", "PLANNER_HIERARCHICAL", pair.goal);
        // GRID's jump tables are prepared too (both classes: tank 1.5, soldier 0.5): no first query builds them.
        await measure(label, "prepared", "PLANNER_GRID", pair.goal);
        await measure(`${label}, soldier`, "prepared", "PLANNER_GRID", pair.goal, "soldier");
        // The curve planners' long corridors follow the prepared graph's route (planning/corridorRoute.ts).
        await measure(label, "prepared", "PLANNER_HYBRID", pair.goal);
        await measure(label, "prepared", "PLANNER_DIRECTIONAL", pair.goal);
      }
      for (const [i, r] of rows.entries()) {
        const head = i === 0
          ? [
            String(side),
            String(n),
            `${f1(uploadMs)} (${f1(readyMs)})`,
            mb(idle),
            `${mb(loaded)} (${f1((loaded - idle) / n)})`,
            `${mb(planned)} (${f1((planned - idle) / n)})`,
          ]
          : ["", "", "", "", "", ""];
        out.push(`| ${[...head, ...r].join(" | ")} |`);
      }
    } finally {
      await srv.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    console.error(`scale ${side}^2: ${((performance.now() - sideStart) / 1000).toFixed(1)} s`);
  }
  // In its own process with collections on call, so the resident-set growth per part is not garbage.
  if (Deno.env.get("SCALE_MEMORY") !== "0") {
    const mem = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--expose-gc",
        new URL("./scaleMemory.ts", import.meta.url).pathname,
        "1024",
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    out.push("", new TextDecoder().decode(mem.stdout).trim());
  }
  // Turning-unit planner timings at scale (bench/scaleQueries.ts, another engineer's section).
  // SCALE_QUERIES=0 leaves it out (iterating on the sections above).
  if (Deno.env.get("SCALE_QUERIES") !== "0") {
    out.push("", "### Turning units at scale (bench/scaleQueries.ts)", "", await benchScaleQueries());
  }
  return out.join("\n");
}

if (import.meta.main) console.log(await benchScale());
