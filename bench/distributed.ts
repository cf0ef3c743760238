/**
 * Distributed mode on this machine: what the shared Redis store costs a replica against the local data
 * directory (Plan latency with one request in flight, PatchMap latency), and Plan throughput through nginx
 * (deploy/nginx/arcpath.conf, round-robin) with 1, 2 and 3 replicas. On a 2-core machine more replicas cannot
 * add throughput (the cores are shared); the figures show the balancer's and the store's overhead instead.
 *
 * Usage: deno run -A bench/distributed.ts [--seconds N]   (needs redis-server and nginx: apt-get install -y
 * redis-server nginx; installed when missing and root)
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { loadPathfinder } from "../src/server/proto.ts";
import { medianP95, ROOT, startBenchServer, unary } from "./server.ts";
import { startNginx, startRedis } from "../test/helpers/redis.ts";
import type { TestServer } from "../test/helpers/server.ts";

const secIdx = Deno.args.indexOf("--seconds");
const SECONDS = secIdx >= 0 ? Number(Deno.args[secIdx + 1]) : 3;

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

/** Runs `fn` with `inFlight` concurrent loops for SECONDS; calls per second. */
async function closedLoop(inFlight: number, fn: () => Promise<unknown>): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (performance.now() < end) {
      await fn();
      done++;
    }
  }));
  return done / ((performance.now() - t0) / 1000);
}

/** Latencies (ms) of `n` sequential calls. */
async function latencies(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn(i);
    out.push(performance.now() - t0);
  }
  return out;
}

const fmt = (xs: number[]) => {
  const { median, p95 } = medianP95(xs);
  return `${median.toFixed(2)} / ${p95.toFixed(2)}`;
};

const redis = await startRedis();
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

  console.log("\n### Distributed mode: the store's cost per replica (arena 49x49, PLANNER_SMOOTH)\n");
  console.log(
    "| call, one in flight | local data directory: median / p95 ms | Redis store: median / p95 ms |",
  );
  console.log("| --- | --- | --- |");
  const planLocal = await latencies(300, () => unary(local.client, "Plan", planReq()));
  const planRedis = await latencies(300, () => unary(replicas[1].client, "Plan", planReq()));
  console.log(`| Plan | ${fmt(planLocal)} | ${fmt(planRedis)} |`);
  const edit = (i: number) => ({ x: 1 + (i % 47), y: 3, tile: i % 2 ? "." : "T" });
  const patchLocal = await latencies(
    40,
    (i) => unary(local.client, "PatchMap", { map: { id: "patched" }, edits: [edit(i)] }),
  );
  const patchRedis = await latencies(
    40,
    (i) => unary(replicas[2].client, "PatchMap", { map: { id: "patched" }, edits: [edit(i)] }),
  );
  console.log(
    `| PatchMap (both fsync: file + dir / Redis AOF always) | ${fmt(patchLocal)} | ${fmt(patchRedis)} |`,
  );

  console.log(`\n### Plan throughput through nginx (round-robin), 16 in flight, ${SECONDS} s each\n`);
  console.log("| replicas behind nginx | plans/s | direct to one replica, plans/s |");
  console.log("| --- | --- | --- |");
  const direct = await closedLoop(16, () => unary(replicas[0].client, "Plan", planReq()));
  const { Client } = loadPathfinder();
  for (const n of [1, 2, 3]) {
    const nginx = await startNginx(ROOT, replicas.slice(0, n).map((s) => s.port));
    if (!nginx) {
      console.log("| (nginx not installed: apt-get install -y nginx) | | |");
      break;
    }
    const client = new Client(`127.0.0.1:${nginx.rrPort}`, grpc.credentials.createInsecure());
    try {
      for (let i = 0; i < 20; i++) await unary(client, "Plan", planReq());
      const rate = await closedLoop(16, () => unary(client, "Plan", planReq()));
      console.log(`| ${n} | ${rate.toFixed(0)} | ${n === 1 ? direct.toFixed(0) : ""} |`);
    } finally {
      client.close();
      nginx.stop();
    }
  }
  console.log(`\n(${navigator.hardwareConcurrency} cores; each replica runs one worker per core.)`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
  await redis.kill();
}
Deno.exit(0);
