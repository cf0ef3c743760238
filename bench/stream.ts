/**
 * Stream benchmarks over real gRPC: time to the first and the refined update on long queries, and replans per
 * second while patches land on a map many streams are following, and long tank streams (DIRECTIONAL, HYBRID,
 * AUTO): their first update (drivable or not) and last against one Plan of the same query (issue 13 item 1).
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { medianP95, ROOT, startBenchServer, unary } from "./server.ts";
import { walledRoomText as field } from "../test/helpers/movingai.ts";
import { tiledRoomRows } from "../test/helpers/tiledMap.ts";
import { stairsMap } from "../test/helpers/stairs.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Measures and returns markdown tables. */
export async function benchStream(seconds = 5): Promise<string> {
  const srv = await startBenchServer();
  const out: string[] = [];
  try {
    // 1. Time to first and refined update on the longest Aftershock queries (first: hierarchical, refined: smooth).
    const shared = join(ROOT, "../shared/data/movingai");
    await unary(srv.client, "PutMap", {
      id: "aftershock",
      movingai: readFileSync(join(shared, "Aftershock.map"), "utf8"),
    });
    const qs = readFileSync(join(shared, "Aftershock.map.scen"), "utf8").trim().split("\n").slice(1)
      .map((l) => l.split(/\s+/).map(Number)).sort((a, b) => b[8] - a[8]).slice(0, 20);
    const first: number[] = [], refined: number[] = [];
    let firstPlanner = "";
    // The first query twice: the first run warms up (JIT, region distances), and is dropped.
    for (const q of [qs[0], ...qs]) {
      const t0 = performance.now();
      const times = await new Promise<number[]>((resolve, reject) => {
        const st = srv.client.Stream();
        const t: number[] = [];
        st.on("data", (u: Any) => {
          t.push(performance.now() - t0);
          if (u.kind === "UPDATE_KIND_INITIAL") firstPlanner = u.plan.stats.planner;
          if (t.length === 2) st.end();
        });
        st.on("end", () => resolve(t));
        st.on("error", reject);
        st.write({
          plan: {
            map: { id: "aftershock" },
            start: { x: q[4] + 0.5, y: q[5] + 0.5 },
            goal: { x: q[6] + 0.5, y: q[7] + 0.5 },
            planner: "PLANNER_SMOOTH",
          },
        });
      });
      first.push(times[0]);
      refined.push(times[1]);
    }
    const f = medianP95(first.slice(1)), r = medianP95(refined.slice(1));
    out.push(
      "| stream, 20 longest Aftershock queries | median ms | p95 ms |",
      "|---|---:|---:|",
      `| first update (${firstPlanner}) | ${f.median.toFixed(1)} | ${f.p95.toFixed(1)} |`,
      `| refined update (PLANNER_SMOOTH) | ${r.median.toFixed(1)} | ${r.p95.toFixed(1)} |`,
      "",
    );

    // 1b. Long tank streams (issue 13 item 1): the first update, the last, and the peer, one Plan of the same
    // request, in the same run; quality: the final path's cost over the Plan's.
    out.push(await tankPrefix(srv.client));

    // 2. Replans per second: 100 streams cross a 128x128 field; walls appear and vanish across their paths.
    const w = 128, h = 128, n = 100;
    await unary(srv.client, "PutMap", { id: "field", movingai: field(w, h) });
    let replans = 0, partial = 0;
    const streams = Array.from({ length: n }, (_, i) => {
      const st = srv.client.Stream();
      st.on("data", (u: Any) => {
        if (u.kind === "UPDATE_KIND_REPLANNED") {
          replans++;
          if (u.replace_from_segment >= 0) partial++;
        }
      });
      st.on("error", () => {});
      st.write({
        plan: {
          map: { id: "field" },
          start: { x: 3.5, y: 3.5 + i },
          goal: { x: 124.5, y: 124.5 - i },
          planner: "PLANNER_GRID",
        },
      });
      return st;
    });
    await new Promise((res) => setTimeout(res, 1000));
    replans = 0;
    partial = 0;
    const patchMs: number[] = [];
    const end = performance.now() + seconds * 1000;
    let k = 0;
    while (performance.now() < end) {
      const x = 40 + (k * 13) % 48, y = 10 + (k * 29) % 100;
      const t0 = performance.now();
      await unary(srv.client, "PatchMap", {
        map: { id: "field" },
        edits: [{ x, y, width: 1, height: 8, tile: k % 2 === 0 ? "@" : "." }],
      });
      patchMs.push(performance.now() - t0);
      k++;
    }
    await new Promise((res) => setTimeout(res, 1000));
    const p = medianP95(patchMs);
    out.push(
      `| patch load: ${n} streams on a ${w}x${h} map, ${seconds} s | value |`,
      "|---|---:|",
      `| patches applied | ${k} (${(k / seconds).toFixed(0)}/s) |`,
      `| PatchMap latency median / p95 | ${p.median.toFixed(2)} / ${p.p95.toFixed(2)} ms |`,
      `| replanned updates delivered | ${replans} (${(replans / seconds).toFixed(0)}/s) |`,
      `| of which replace the rest of the path (partial) | ${partial} |`,
    );
    for (const st of streams) st.end();
  } finally {
    srv.stop();
  }
  return out.join("\n");
}

/**
 * True when wire segments are drivable by a unit of turning radius `r`: every curvature within 1/r and every
 * joint continuous in position and heading (a grid path's corners are turns in place: not drivable).
 */
function drivable(segs: Any[], r: number): boolean {
  const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i],
      k = s.curvature ?? 0,
      d = s.direction ?? 1,
      h0 = s.start.heading ?? 0,
      len = s.length ?? 0;
    if (Math.abs(k) > 1 / r + 1e-9) return false;
    if (i + 1 === segs.length) break;
    const h = h0 + d * k * len;
    const x = k === 0
      ? (s.start.x ?? 0) + d * len * Math.cos(h0)
      : (s.start.x ?? 0) + (Math.sin(h) - Math.sin(h0)) / k;
    const y = k === 0
      ? (s.start.y ?? 0) + d * len * Math.sin(h0)
      : (s.start.y ?? 0) - (Math.cos(h) - Math.cos(h0)) / k;
    const n = segs[i + 1].start;
    if (Math.hypot(x - (n.x ?? 0), y - (n.y ?? 0)) > 1e-3 || Math.abs(wrap(h - (n.heading ?? 0))) > 1e-3) {
      return false;
    }
  }
  return true;
}

/**
 * Long tank streams on tiled room maps, for DIRECTIONAL, HYBRID and AUTO (issue 13 item 1): time to the first
 * update (is it drivable, whose is it) and to the last, against one Plan of the same request in the same run
 * (the peer); quality: the stream's final path cost over the Plan's. A stream's last update is the one after
 * which it stays quiet for {@link QUIET_MS}.
 */
async function tankPrefix(client: Any): Promise<string> {
  const maps = [
    {
      id: "rooms52x1",
      rows: tiledRoomRows(52, 1),
      start: { x: 16.5, y: 16.5, heading: 0 },
      goal: { x: 1647.5, y: 20.5 },
    },
    {
      id: "rooms32x32",
      rows: tiledRoomRows(32, 32),
      start: { x: 16.5, y: 16.5, heading: 0 },
      goal: { x: 1007.5, y: 1007.5 },
    },
    // A staircase the hybrid's curve fit cannot follow (its later steps and DIRECTIONAL can).
    { id: "stairs", ...stairsMap(3, 6, 30, 320) },
  ];
  const r = 1.5; // the tank's turning radius (src/units/profiles.ts)
  const lines = [
    "| long tank stream, 5 runs (medians) | first update | first drivable | first ms | last ms | Plan ms (peer) | " +
    "first / Plan | last cost / Plan cost |",
    "|---|---|---|---:|---:|---:|---:|---:|",
  ];
  for (const m of maps) {
    const text = `type octile\nheight ${m.rows.length}\nwidth ${m.rows[0].length}\nmap\n${
      m.rows.join("\n")
    }\n`;
    await unary(client, "PutMap", { id: m.id, movingai: text });
    for (const planner of ["PLANNER_DIRECTIONAL", "PLANNER_HYBRID", "PLANNER_AUTO"]) {
      const req = { map: { id: m.id }, unit: { name: "tank" }, start: m.start, goal: m.goal, planner };
      const first: number[] = [], last: number[] = [], plan: number[] = [], ratio: number[] = [];
      let what = "", ok = true;
      // One warm-up round (tables, JIT), dropped.
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        const us = await new Promise<{ t: number; u: Any }[]>((resolve, reject) => {
          const st = client.Stream();
          const got: { t: number; u: Any }[] = [];
          let quiet: ReturnType<typeof setTimeout> | undefined;
          st.on("data", (u: Any) => {
            got.push({ t: performance.now() - t0, u });
            clearTimeout(quiet);
            quiet = setTimeout(() => st.end(), QUIET_MS);
          });
          st.on("end", () => resolve(got));
          st.on("error", reject);
          st.write({ plan: req });
        });
        const t1 = performance.now();
        const p = await unary(client, "Plan", req);
        const tp = performance.now() - t1;
        if (i === 0) continue;
        const u0 = us[0].u;
        what = `${u0.plan.status.replace("PLAN_STATUS_", "")} ${
          u0.plan.stats.planner.replace("PLANNER_", "")
        }`;
        ok &&= drivable(u0.plan.segments, r);
        // The final path's cost: a whole path's, or the prefix's plus the appended parts'.
        let cost = 0;
        for (const { u } of us) cost = u.replace_from_segment >= 0 ? cost + u.plan.cost : u.plan.cost;
        first.push(us[0].t);
        last.push(us[us.length - 1].t);
        plan.push(tp);
        ratio.push(cost / p.cost);
      }
      const med = (xs: number[]) => medianP95(xs).median;
      lines.push(
        `| ${m.id} (${m.rows[0].length}x${m.rows.length}) ${planner.replace("PLANNER_", "")} | ${what} | ` +
          `${ok ? "yes" : "no"} | ${med(first).toFixed(1)} | ${med(last).toFixed(1)} | ${
            med(plan).toFixed(1)
          } | ` +
          `${(med(first) / med(plan)).toFixed(2)} | ${med(ratio).toFixed(3)} |`,
      );
    }
  }
  return lines.join("\n") + "\n";
}

/** Quiet time after which a stream's last update is taken as its last (its first updates come within it). */
const QUIET_MS = 800;

if (import.meta.main) console.log(await benchStream());
