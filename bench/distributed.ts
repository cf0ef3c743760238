/**
 * Distributed mode on this machine: what the shared Redis store costs a replica against the local data
 * directory (Plan latency with one request in flight, PatchMap latency), and Plan throughput through nginx
 * (deploy/nginx/arcpath.conf, round-robin) with 1, 2 and 3 replicas. On a 2-core machine more replicas cannot
 * add throughput (the cores are shared); the figures show the balancer's and the store's overhead instead.
 *
 * The machine is shared, so the targets are measured interleaved (Plan and PatchMap latencies call by call,
 * throughput in six rounds over every target, medians), and each throughput row also gives the CPU the
 * replicas (and nginx and Redis) spent per Plan, read from /proc: the figure a capacity model sizes a cluster
 * with (plans/s per core = 1000 / CPU ms per Plan), and the share of Plans answered FOUND beside it (the
 * quality check: the same queries must keep finding their paths).
 *
 * Usage: deno task bench --only distributed [--seconds N], or deno run -A bench/distributed.ts [--seconds N]
 * (needs redis-server and nginx: apt-get install -y redis-server nginx; installed when missing and root)
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../src/server/proto.ts";
import { medianP95, ROOT, startBenchServer, unary } from "./server.ts";
import { startNginx, startRedis } from "../test/helpers/redis.ts";
import { readFile } from "node:fs/promises";
import type { TestServer } from "../test/helpers/server.ts";

const ARENA = readFileSync(join(ROOT, "demo/maps/arena.map"), "utf8");

/** Seeded random passable start/goal pairs on the arena map, 10+ tiles apart. */
function queries(n: number): { start: { x: number; y: number }; goal: { x: number; y: number } }[] {
  const lines = ARENA.split(/\r?\n/);
  const rows = lines.slice(lines.indexOf("map") + 1, lines.indexOf("map") + 50);
  const free: [number, number][] = [];
  rows.forEach((r, y) => [...r].forEach((ch, x) => ch === "." && free.push([x, y])));
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const out = [];
  while (out.length < n) {
    const a = free[Math.floor(rnd() * free.length)];
    const b = free[Math.floor(rnd() * free.length)];
    if (Math.hypot(a[0] - b[0], a[1] - b[1]) < 10) continue;
    out.push({ start: { x: a[0] + 0.5, y: a[1] + 0.5 }, goal: { x: b[0] + 0.5, y: b[1] + 0.5 } });
  }
  return out;
}
const QS = queries(200);
let qi = 0;
const planReq = () => ({ map: { id: "bench" }, ...QS[qi++ % QS.length], planner: "PLANNER_SMOOTH" });

/**
 * CPU milliseconds (user + system, every thread) a process and its live children (nginx's workers) have used
 * so far; 0 if unknown.
 */
async function cpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 (utime, stime), in clock ticks of 10 ms (CLK_TCK 100 on Linux).
    const own = (Number(f[11]) + Number(f[12])) * 10;
    const children = (await readFile(`/proc/${pid}/task/${pid}/children`, "utf8")).trim();
    const kids = children === "" ? [] : children.split(/\s+/).map(Number);
    return own + (await Promise.all(kids.map(cpuMs))).reduce((x, y) => x + y, 0);
  } catch {
    return 0;
  }
}

/** What a closed loop measured. */
interface Loop {
  /** Plans per second. */
  rate: number;
  /** Share of answers that were FOUND. */
  found: number;
  /** CPU ms per Plan of the `pids` measured (replicas), of `extra` (the balancer) and of Redis. */
  cpuPerPlan: number;
  extraCpuPerPlan: number;
  redisCpuPerPlan: number;
}

/** The Redis server measured beside the replicas (set once started). */
let redisPid: () => number | undefined = () => undefined;

/** Runs Plans with `inFlight` concurrent loops for `seconds`, measuring the CPU of `pids` and `extra`. */
async function closedLoop(
  seconds: number,
  inFlight: number,
  // deno-lint-ignore no-explicit-any
  fn: () => Promise<any>,
  pids: (number | undefined)[],
  extra?: number,
): Promise<Loop> {
  const sum = async (ps: (number | undefined)[]) =>
    (await Promise.all(ps.map(cpuMs))).reduce((x, y) => x + y, 0);
  const [c0, e0, r0] = [await sum(pids), await cpuMs(extra), await cpuMs(redisPid())];
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let found = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < end) {
      const r = await fn();
      done++;
      if (r.status === "PLAN_STATUS_FOUND") found++;
    }
  }));
  const rate = done / ((performance.now() - t0) / 1000);
  const [c1, e1, r1] = [await sum(pids), await cpuMs(extra), await cpuMs(redisPid())];
  return {
    rate,
    found: found / done,
    cpuPerPlan: (c1 - c0) / done,
    extraCpuPerPlan: (e1 - e0) / done,
    redisCpuPerPlan: (r1 - r0) / done,
  };
}

/** A throughput target: how to send one Plan, whose CPU to count (replicas; `extra`: the balancer). */
interface Target {
  name: string;
  // deno-lint-ignore no-explicit-any
  plan: () => Promise<any>;
  pids: (number | undefined)[];
  extra?: number;
}

/**
 * Closed loops over every target in turn, `rounds` times (`seconds` per target in all): the machine's other
 * load falls on every target alike. Per target the median over rounds of each figure.
 */
async function alternate(seconds: number, targets: Target[], rounds = 6): Promise<Loop[]> {
  const runs: Loop[][] = targets.map(() => []);
  // A round to warm up (JIT, connections), not counted.
  for (const t of targets) await closedLoop(0.5, 16, t.plan, t.pids, t.extra);
  for (let r = 0; r < rounds; r++) {
    for (const [i, t] of targets.entries()) {
      runs[i].push(await closedLoop(seconds / rounds, 16, t.plan, t.pids, t.extra));
    }
  }
  const med = (xs: number[]) => medianP95(xs).median;
  return runs.map((ls) => ({
    rate: med(ls.map((l) => l.rate)),
    found: med(ls.map((l) => l.found)),
    cpuPerPlan: med(ls.map((l) => l.cpuPerPlan)),
    extraCpuPerPlan: med(ls.map((l) => l.extraCpuPerPlan)),
    redisCpuPerPlan: med(ls.map((l) => l.redisCpuPerPlan)),
  }));
}

/** Latencies (ms) of `n` calls to each of `fns`, interleaved (call i of each, then call i + 1). */
async function latencies(n: number, fns: ((i: number) => Promise<unknown>)[]): Promise<number[][]> {
  const out: number[][] = fns.map(() => []);
  for (let i = 0; i < n; i++) {
    for (const [k, fn] of fns.entries()) {
      const t0 = performance.now();
      await fn(i);
      out[k].push(performance.now() - t0);
    }
  }
  return out;
}

const fmt = (xs: number[]) => {
  const { median, p95 } = medianP95(xs);
  return `${median.toFixed(2)} / ${p95.toFixed(2)}`;
};

/** The distributed benchmark as markdown tables; `seconds` per throughput measurement. */
export async function benchDistributed(seconds = 3): Promise<string> {
  const out: string[] = [];
  const redis = await startRedis();
  redisPid = () => redis.pid;
  const servers: TestServer[] = [];
  try {
    const local = await startBenchServer(["--no-demo"]);
    servers.push(local);
    const replicas = await Promise.all(
      [0, 1, 2].map(() => startBenchServer(["--no-demo", "--store", redis.url])),
    );
    servers.push(...replicas);
    await unary(local.client, "PutMap", { id: "bench", movingai: ARENA });
    await unary(replicas[0].client, "PutMap", { id: "bench", movingai: ARENA });
    // Patches go to a map of their own (the plans' map stays as it is).
    await unary(local.client, "PutMap", { id: "patched", movingai: ARENA });
    await unary(replicas[0].client, "PutMap", { id: "patched", movingai: ARENA });
    // Warm every process (workers, layers).
    for (const s of servers) for (let i = 0; i < 50; i++) await unary(s.client, "Plan", planReq());

    out.push("### Distributed mode: the store's cost per replica (arena 49x49, PLANNER_SMOOTH)\n");
    out.push(
      "| call, one in flight | local data directory: median / p95 ms | Redis store: median / p95 ms |",
    );
    out.push("| --- | --- | --- |");
    const [planLocal, planRedis] = await latencies(300, [
      () => unary(local.client, "Plan", planReq()),
      () => unary(replicas[1].client, "Plan", planReq()),
    ]);
    out.push(`| Plan | ${fmt(planLocal)} | ${fmt(planRedis)} |`);
    const edit = (i: number) => ({ x: 1 + (i % 47), y: 3, tile: i % 2 ? "." : "T" });
    const [patchLocal, patchRedis] = await latencies(40, [
      (i) => unary(local.client, "PatchMap", { map: { id: "patched" }, edits: [edit(i)] }),
      (i) => unary(replicas[2].client, "PatchMap", { map: { id: "patched" }, edits: [edit(i)] }),
    ]);
    out.push(
      `| PatchMap (both fsync: file + dir / Redis AOF always) | ${fmt(patchLocal)} | ${fmt(patchRedis)} |`,
    );

    out.push(
      `\n### Plan throughput, 16 in flight, ${seconds} s per target in 6 interleaved rounds (medians), ` +
        `with the CPU spent per Plan\n`,
    );
    out.push(
      "| target | plans/s | FOUND | replicas' CPU ms / Plan | nginx CPU ms / Plan | Redis CPU ms / Plan | " +
        "plans/s per replica core |",
    );
    out.push("| --- | --- | --- | --- | --- | --- | --- |");
    const row = (name: string, l: Loop, balancer: boolean) =>
      out.push(
        `| ${name} | ${l.rate.toFixed(0)} | ${(100 * l.found).toFixed(1)} % | ${l.cpuPerPlan.toFixed(3)} | ${
          balancer ? l.extraCpuPerPlan.toFixed(3) : "-"
        } | ${l.redisCpuPerPlan.toFixed(3)} | ${l.cpuPerPlan > 0 ? (1000 / l.cpuPerPlan).toFixed(0) : "?"} |`,
      );
    const plan = (c: unknown) => () => unary(c, "Plan", planReq());
    const targets: Target[] = [
      {
        name: "one process, local data directory (direct)",
        plan: plan(local.client),
        pids: [local.proc.pid],
      },
      { name: "one replica on Redis (direct)", plan: plan(replicas[0].client), pids: [replicas[0].proc.pid] },
    ];
    const { Client } = loadPathfinder();
    const balancers: { close(): void }[] = [];
    try {
      for (const n of [1, 2, 3]) {
        const nginx = await startNginx(ROOT, replicas.slice(0, n).map((s) => s.port));
        if (!nginx) {
          out.push("| (nginx not installed: apt-get install -y nginx) | | | | | | |");
          break;
        }
        const client = new Client(`127.0.0.1:${nginx.rrPort}`, grpc.credentials.createInsecure());
        balancers.push({ close: () => (client.close(), nginx.stop()) });
        targets.push({
          name: `${n} replica${n > 1 ? "s" : ""} on Redis behind nginx`,
          plan: plan(client),
          pids: replicas.slice(0, n).map((s) => s.proc.pid),
          extra: nginx.pid,
        });
      }
      const loops = await alternate(seconds, targets);
      targets.forEach((t, i) => row(t.name, loops[i], t.extra !== undefined));
    } finally {
      for (const b of balancers) b.close();
    }
    out.push(`\n(${navigator.hardwareConcurrency} cores; each replica runs one worker per core.)`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await redis.kill();
  }
  return out.join("\n");
}

if (import.meta.main) {
  const secIdx = Deno.args.indexOf("--seconds");
  console.log(await benchDistributed(secIdx >= 0 ? Number(Deno.args[secIdx + 1]) : 3));
  Deno.exit(0);
}
