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
import { scenarioSpecs } from "./directional.ts";

/** Runs `fn` with `inFlight` concurrent loops for `seconds`; returns completed calls per second. */
async function closedLoop(inFlight: number, seconds: number, fn: () => Promise<unknown>): Promise<number> {
  return (await timedLoop(inFlight, seconds, fn)).rate;
}

/** {@link closedLoop} with the number of calls too. */
async function timedLoop(inFlight: number, seconds: number, fn: () => Promise<unknown>) {
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
  return { rate: done / ((performance.now() - t0) / 1000), calls: done };
}

/**
 * CPU milliseconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. On a shared
 * machine a call's CPU cost moves far less with the neighbours' load than its throughput does.
 */
function cpuMillis(pid: number | undefined): number | null {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks (USER_HZ = 100 on Linux)
  } catch {
    return null;
  }
}

/** One slice of `fn` at `inFlight`: calls per second and the server's CPU microseconds per call. */
async function slice(pid: number | undefined, inFlight: number, fn: () => Promise<unknown>) {
  const c0 = cpuMillis(pid);
  const { rate, calls } = await timedLoop(inFlight, 1, fn);
  const c1 = cpuMillis(pid);
  return { rate, cpu: c0 === null || c1 === null || calls === 0 ? NaN : (c1 - c0) * 1000 / calls };
}

/**
 * What a client sees of the turning-radius cost: Plan latency over gRPC, one request in flight, PLANNER_HYBRID
 * vs PLANNER_SMOOTH for the tank on the yard demo map (random pairs 10-40 tiles apart with room for the tank),
 * the two planners alternating query by query.
 */
// deno-lint-ignore no-explicit-any
async function turningLatency(client: any): Promise<string> {
  const text = readFileSync(join(ROOT, "demo/maps/yard.map"), "utf8").split(/\r?\n/);
  const rowsStart = text.indexOf("map") + 1;
  const grid = text.slice(rowsStart, rowsStart + 64);
  let seed = 5;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Open tiles with two tiles of open ground around them (the tank's radius is 0.9).
  const open = (x: number, y: number) => {
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++) if (grid[y + dy]?.[x + dx] !== ".") return false;
    }
    return true;
  };
  const pick = () => {
    for (;;) {
      const x = Math.floor(next() * 64), y = Math.floor(next() * 64);
      if (open(x, y)) return { x: x + 0.5, y: y + 0.5 };
    }
  };
  const pairs: { start: { x: number; y: number; heading: number }; goal: { x: number; y: number } }[] = [];
  while (pairs.length < 60) {
    const a = pick(), b = pick();
    const d = Math.hypot(a.x - b.x, a.y - b.y);
    if (d >= 10 && d <= 40) pairs.push({ start: { ...a, heading: next() * 6.28 - 3.14 }, goal: b });
  }
  const once = (planner: string, q: (typeof pairs)[number]) =>
    new Promise<number>((res, rej) => {
      const t0 = performance.now();
      client.Plan(
        { map: { id: "yard" }, unit: { name: "tank" }, start: q.start, goal: q.goal, planner },
        (e: unknown) => (e ? rej(e) : res(performance.now() - t0)),
      );
    });
  const ms: Record<string, number[]> = { PLANNER_SMOOTH: [], PLANNER_HYBRID: [], PLANNER_AUTO: [] };
  for (let round = 0; round < 6; round++) {
    for (const q of pairs) {
      for (const planner of Object.keys(ms)) {
        const t = await once(planner, q);
        if (round > 0) ms[planner].push(t); // round 0 warms the workers' JIT and tables
      }
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)];
  const s = ms.PLANNER_SMOOTH, h = ms.PLANNER_HYBRID, a = ms.PLANNER_AUTO;
  return [
    "| Plan over gRPC, tank on yard, 1 in flight | median ms | p95 ms |",
    "|---|---:|---:|",
    `| PLANNER_SMOOTH | ${median(s).toFixed(3)} | ${p95(s).toFixed(3)} |`,
    `| PLANNER_HYBRID | ${median(h).toFixed(3)} | ${p95(h).toFixed(3)} |`,
    `| PLANNER_AUTO (hybrid + portfolio) | ${median(a).toFixed(3)} | ${p95(a).toFixed(3)} |`,
    "",
    `Hybrid / smooth median latency: ${
      (median(h) / median(s)).toFixed(2)
    } (${pairs.length} pairs 10-40 tiles ` +
    `apart, 5 timed rounds, planners alternating).`,
  ].join("\n");
}

/**
 * Issue 4's scenario sets (bench/directional.ts) as a client sees them: each map uploaded, then every query
 * planned over gRPC with PLANNER_SMOOTH and PLANNER_HYBRID alternating, one request in flight; median latency
 * per set and planner.
 */
// deno-lint-ignore no-explicit-any
async function scenarioLatency(client: any): Promise<string> {
  const call = (method: string, req: unknown) =>
    new Promise<unknown>((res, rej) =>
      client[method](req, (e: unknown, r: unknown) => (e ? rej(e) : res(r)))
    );
  const rows = [
    "| scenario set over gRPC, 1 in flight | smooth median ms | hybrid median ms | hybrid / smooth | " +
    "auto median ms |",
    "|---|---:|---:|---:|---:|",
  ];
  let refused = 0;
  for (const [i, sc] of scenarioSpecs().entries()) {
    const id = `scenario-${i}`;
    const text = `type octile\nheight ${sc.rows.length}\nwidth ${sc.rows[0].length}\nmap\n${
      sc.rows.join("\n")
    }\n`;
    await call("PutMap", { id, movingai: text });
    const plan = (q: (typeof sc.queries)[number], planner: string) =>
      call("Plan", {
        map: { id },
        unit: { name: sc.unit },
        start: q.start,
        goal: { ...q.goal, tolerance: 0.5, heading_tolerance: 0.2 },
        planner,
      });
    // Queries the service refuses (a start too close to a wall for the unit) are left out.
    const valid = [];
    for (const q of sc.queries) {
      if (await plan(q, "PLANNER_SMOOTH").then(() => true, () => false)) valid.push(q);
    }
    refused += sc.queries.length - valid.length;
    const ms: Record<string, number[]> = { PLANNER_SMOOTH: [], PLANNER_HYBRID: [], PLANNER_AUTO: [] };
    for (let round = 0; round < 6; round++) {
      for (const q of valid) {
        for (const planner of Object.keys(ms)) {
          const t0 = performance.now();
          await plan(q, planner);
          if (round > 0) ms[planner].push(performance.now() - t0); // round 0 warms the JIT and the tables
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const s = median(ms.PLANNER_SMOOTH), h = median(ms.PLANNER_HYBRID), a = median(ms.PLANNER_AUTO);
    rows.push(
      `| ${sc.name} (${sc.unit}) | ${s.toFixed(3)} | ${h.toFixed(3)} | ${(h / s).toFixed(2)} | ${
        a.toFixed(3)
      } |`,
    );
  }
  return rows.join("\n") +
    `\n\n(5 timed rounds over each set's queries, planners alternating query by query; ${refused} queries ` +
    "whose start the service refuses for the unit left out.)";
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
    const rows = [
      "| in flight | empty RPC req/s | Plan req/s | Plan / empty | server CPU us/call: empty | Plan |",
      "|---:|---:|---:|---:|---:|---:|",
    ];
    const pid = srv.proc.pid;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    for (const n of [1, 16, 64]) {
      // Alternate one-second slices of each so background noise hits both alike.
      let e = 0, p = 0;
      const ec: number[] = [], pc: number[] = [];
      for (let k = 0; k < seconds; k++) {
        const es = await slice(pid, n, empty), ps = await slice(pid, n, plan);
        e += es.rate / seconds;
        p += ps.rate / seconds;
        ec.push(es.cpu);
        pc.push(ps.cpu);
      }
      rows.push(
        `| ${n} | ${e.toFixed(0)} | ${p.toFixed(0)} | ${(100 * p / e).toFixed(0)}% | ${
          median(ec).toFixed(0)
        } | ${median(pc).toFixed(0)} |`,
      );
    }
    health.close();
    return rows.join("\n") +
      `\n\nSmall queries: the first 40 arena.map.scen queries (path lengths 1-~8), PLANNER_GRID; empty RPC = ` +
      `grpc.health.v1.Health/Check; client and server on the same 2-core machine; ${seconds} alternating 1 s slices per cell; ` +
      "server CPU per call: the server process's user + system time over each slice (all its threads), median of " +
      "the slices (Linux /proc; 10 ms ticks)." +
      "\n\n" + await turningLatency(client) + "\n\n" + await scenarioLatency(client);
  } finally {
    srv.stop();
  }
}

if (import.meta.main) console.log(await benchE2e());
