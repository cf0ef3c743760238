/**
 * A mixed workload for soak runs, shared by the bounded soak test (test/e2e/limitsLoad.test.ts) and the long one
 * (bench/soak.ts, `--only soak`): plan loops on two maps, a patcher toggling a wall across the streams' paths,
 * streams following those paths, ephemeral maps put and deleted, with the server's resident memory sampled.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { walledRoomText as field } from "./movingai.ts";
import { call, type TestServer } from "./server.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** What a soak run measured. */
export interface SoakResult {
  /** Seconds run. */
  seconds: number;
  /** Calls answered OK / failed, by kind. */
  plans: number;
  patches: number;
  puts: number;
  failures: number;
  /** Stream updates received. */
  updates: number;
  /** RSS samples in MB, one a second. */
  rss: number[];
  /** RSS trend over the second half, MB per minute (least squares). */
  slopeMbPerMin: number;
}

/** Resident memory of a process in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Least-squares slope of ys over their index (per sample). */
function slope(ys: number[]): number {
  const n = ys.length;
  if (n < 2) return 0;
  const mx = (n - 1) / 2, my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0, den = 0;
  for (let i = 0; i < n; i++) {
    num += (i - mx) * (ys[i] - my);
    den += (i - mx) ** 2;
  }
  return num / den;
}

/** Runs the mixed workload against `srv` for `seconds`. */
export async function soak(srv: TestServer, seconds: number): Promise<SoakResult> {
  const r: SoakResult = {
    seconds,
    plans: 0,
    patches: 0,
    puts: 0,
    failures: 0,
    updates: 0,
    rss: [],
    slopeMbPerMin: 0,
  };
  const c = srv.client;
  await call(c, "PutMap", { id: "soak", movingai: field(120, 40) });
  const end = Date.now() + seconds * 1000;
  const ok = (k: "plans" | "patches" | "puts") => () => void r[k]++;
  const fail = () => void r.failures++;
  const planner = ["PLANNER_GRID", "PLANNER_SMOOTH", "PLANNER_HYBRID", "PLANNER_AUTO"];
  const planLoop = async (k: number) => {
    for (let i = 0; Date.now() < end; i++) {
      await call(c, "Plan", {
        map: { id: "soak" },
        start: { x: 2.5 + (i % 5), y: 2.5 + (k % 30) },
        goal: { x: 115.5 - (i % 7), y: 36.5 - (i % 20) },
        planner: planner[(i + k) % planner.length],
        unit: { name: (i + k) % 2 ? "tank" : "soldier" },
      }).then(ok("plans"), fail);
    }
  };
  const patchLoop = async () => {
    for (let i = 0; Date.now() < end; i++) {
      const gap = i % 2 ? 2 : 37;
      await call(c, "PatchMap", {
        map: { id: "soak" },
        edits: [{ x: 60, y: 1, width: 1, height: 38, tile: "@" }, {
          x: 60,
          y: gap,
          width: 1,
          height: 1,
          tile: ".",
        }],
      }).then(ok("patches"), fail);
      await new Promise((res) => setTimeout(res, 50));
    }
  };
  const putLoop = async () => {
    for (let i = 0; Date.now() < end; i++) {
      const id = `eph${i % 20}`;
      await call(c, "PutMap", { id, movingai: field(64 + (i % 5) * 16, 64), ephemeral: i % 2 === 0 })
        .then(ok("puts"), fail);
      if (i % 3 === 0) await call(c, "DeleteMap", { map: { id } }).catch(fail);
    }
  };
  const streamLoop = async (k: number) => {
    while (Date.now() < end) {
      // Each stream lives ~5 s, then a new one opens: streams come and go through the run.
      await new Promise<void>((res) => {
        const s = c.Stream();
        s.on("data", () => void r.updates++);
        s.on("error", () => res());
        s.on("end", () => res());
        s.write({
          plan: {
            map: { id: "soak" },
            start: { x: 3.5, y: 5.5 + k * 3 },
            goal: { x: 115.5, y: 5.5 + k * 3 },
            planner: "PLANNER_SMOOTH",
          },
        });
        setTimeout(() => s.end(), Math.min(5000, Math.max(0, end - Date.now())));
      });
    }
  };
  const sampler = setInterval(() => r.rss.push(rssMb(srv.proc.pid!)), 1000);
  await Promise.all([
    planLoop(0),
    planLoop(1),
    planLoop(2),
    patchLoop(),
    putLoop(),
    ...[0, 1, 2, 3, 4].map(streamLoop),
  ]);
  clearInterval(sampler);
  r.slopeMbPerMin = slope(r.rss.slice(Math.floor(r.rss.length / 2))) * 60;
  return r;
}

/** One line for logs and the README. */
export function soakLine(r: SoakResult): string {
  const q = [...r.rss].sort((a, b) => a - b);
  return `${r.seconds} s: ${r.plans} plans, ${r.patches} patches, ${r.puts} puts, ${r.updates} stream updates, ` +
    `${r.failures} failures; RSS first ${r.rss[0]?.toFixed(0)} MB, median ${
      q[q.length >> 1]?.toFixed(0)
    } MB, ` +
    `max ${q[q.length - 1]?.toFixed(0)} MB, last ${r.rss[r.rss.length - 1]?.toFixed(0)} MB; ` +
    `second-half trend ${r.slopeMbPerMin.toFixed(1)} MB/min`;
}
