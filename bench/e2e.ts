/**
 * End-to-end throughput: a real server process on loopback, `Plan` at 1, 16 and 64 requests in flight on small
 * queries (the arena demo map's short benchmark queries), next to an empty RPC (the standard health Check) on the
 * same server in the same run.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { ROOT, startBenchServer } from "./server.ts";

/** Runs `fn` with `inFlight` concurrent loops for `seconds`; returns completed calls per second. */
async function closedLoop(inFlight: number, seconds: number, fn: () => Promise<unknown>): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  const loop = async () => {
    while (performance.now() < end) {
      await fn();
      done++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, loop));
  return done / ((performance.now() - t0) / 1000);
}

/** Measures and returns a markdown table. */
export async function benchE2e(seconds = 4): Promise<string> {
  const srv = await startBenchServer();
  try {
    const client = srv.client;
    const hdef = protoLoader.loadSync(
      join(ROOT, "node_modules/grpc-health-check/proto/health/v1/health.proto"),
    );
    // deno-lint-ignore no-explicit-any
    const hpkg = grpc.loadPackageDefinition(hdef) as any;
    const health = new hpkg.grpc.health.v1.Health(`127.0.0.1:${srv.port}`, grpc.credentials.createInsecure());
    const scen = readFileSync(join(ROOT, "../shared/data/movingai/arena.map.scen"), "utf8").trim().split("\n")
      .slice(1, 41).map((l) => l.split(/\s+/).map(Number));
    let qi = 0;
    const plan = () =>
      new Promise((res, rej) => {
        const q = scen[qi++ % scen.length];
        client.Plan({
          map: { id: "arena" },
          start: { x: q[4] + 0.5, y: q[5] + 0.5 },
          goal: { x: q[6] + 0.5, y: q[7] + 0.5 },
          planner: "PLANNER_GRID",
        }, (e: unknown, r: unknown) => (e ? rej(e) : res(r)));
      });
    const empty = () =>
      new Promise((res, rej) =>
        health.Check({ service: "" }, (e: unknown, r: unknown) => (e ? rej(e) : res(r)))
      );
    // Warm up both paths (JIT, worker shares).
    await closedLoop(8, 1, plan);
    await closedLoop(8, 1, empty);
    const rows = ["| in flight | empty RPC req/s | Plan req/s | Plan / empty |", "|---:|---:|---:|---:|"];
    for (const n of [1, 16, 64]) {
      // Alternate one-second slices of each so background noise hits both alike.
      let e = 0, p = 0;
      for (let slice = 0; slice < seconds; slice++) {
        e += await closedLoop(n, 1, empty) / seconds;
        p += await closedLoop(n, 1, plan) / seconds;
      }
      rows.push(`| ${n} | ${e.toFixed(0)} | ${p.toFixed(0)} | ${(100 * p / e).toFixed(0)}% |`);
    }
    health.close();
    return rows.join("\n") +
      `\n\nSmall queries: the first 40 arena.map.scen queries (path lengths 1-~8), PLANNER_GRID; empty RPC = ` +
      `grpc.health.v1.Health/Check; client and server on the same 2-core machine; ${seconds} alternating 1 s slices per cell.`;
  } finally {
    srv.stop();
  }
}

if (import.meta.main) console.log(await benchE2e());
