/**
 * `/metrics` (--metrics-listen) scraped before and after load over real gRPC: per-RPC latency by method and
 * code, errors by code, per-planner latency, queue wait, stream updates and open streams, map cache bytes and
 * evictions each change as the load says they must; per tenant with authentication.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { callError, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let metricsPort = 0;
const TOKEN = "metrics-test-token";

beforeAll(async () => {
  const tokens = join(mkdtempSync(join(tmpdir(), "arcpath-metrics-")), "tokens.txt");
  writeFileSync(tokens, `${TOKEN} acme\n`);
  srv = await startServer([
    "--metrics-listen",
    "127.0.0.1:0",
    "--map-memory-mb",
    "4",
    "--auth-tokens",
    tokens,
  ]);
  metricsPort = Number(/ARCPATH_METRICS_READY port=(\d+)/.exec(srv.output())![1]);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

/** Scrapes /metrics into a map from `name{labels}` to value. */
async function scrape(): Promise<Map<string, number>> {
  const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/text\/plain/);
  const out = new Map<string, number>();
  for (const line of (await res.text()).split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const i = line.lastIndexOf(" ");
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

/** The sum of the series named `name` whose labels contain every `want` (`k="v"`). */
function value(m: Map<string, number>, name: string, ...want: string[]): number {
  let sum = 0;
  for (const [k, v] of m) {
    const base = k.includes("{") ? k.slice(0, k.indexOf("{")) : k;
    if (base === name && want.every((w) => k.includes(w))) sum += v;
  }
  return sum;
}

/** A call with the token. */
function authed(method: string, req: unknown): Promise<unknown> {
  return new Promise((res, rej) =>
    srv.client[method](req, md(), (e: unknown, v: unknown) => (e ? rej(e) : res(v)))
  );
}

const md = () => {
  const m = new grpc.Metadata();
  m.set("authorization", `Bearer ${TOKEN}`);
  return m;
};

describe("/metrics", () => {
  test("other paths are 404", async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/`);
    expect(res.status).toBe(404);
    await res.body?.cancel();
  });

  test("the named series change under load", async () => {
    const before = await scrape();
    expect(value(before, "arcpath_workers")).toBeGreaterThan(0);

    // Plans: inline grid ones and pool hybrid ones (far apart, so past the inline lane).
    for (let i = 0; i < 4; i++) {
      await authed("Plan", {
        map: { id: "arena" },
        start: { x: 2.5, y: 2.5 + i },
        goal: { x: 8.5, y: 6.5 },
        planner: "PLANNER_GRID",
      });
    }
    const hybrid = (i: number) =>
      new Promise((res, rej) =>
        srv.client.Plan(
          {
            map: { id: "arena" },
            start: { x: 3.5, y: 3.5 + i, heading: 0 },
            goal: { x: 45.5, y: 45.5 },
            planner: "PLANNER_HYBRID",
            unit: { name: "jeep" },
          },
          md(),
          (e: unknown, v: unknown) => (e ? rej(e) : res(v)),
        )
      );
    await Promise.all([0, 1, 2].map(hybrid));
    // Errors: unknown map (NOT_FOUND) and a missing token (UNAUTHENTICATED).
    const nf = await new Promise<grpc.ServiceError>((res) =>
      srv.client.GetMap({ map: { id: "nope" } }, md(), (e: grpc.ServiceError) => res(e))
    );
    expect(nf.code).toBe(grpc.status.NOT_FOUND);
    expect((await callError(srv.client, "ListMaps", {})).code).toBe(grpc.status.UNAUTHENTICATED);
    // A stream: open (initial update), then ended.
    const st = srv.client.Stream(md());
    await new Promise<void>((res) => {
      st.on("data", () => res());
      st.on("error", () => res());
      st.write({ plan: { map: { id: "arena" }, start: { x: 2.5, y: 2.5 }, goal: { x: 8.5, y: 6.5 } } });
    });
    const during = await scrape();
    expect(value(during, "arcpath_streams_open")).toBe(1);
    st.end();
    st.on("error", () => {});
    // Maps past the 4 MB budget: uploads evict older versions.
    const rows = Array.from({ length: 300 }, () => ".".repeat(300)).join("\n");
    for (let i = 0; i < 8; i++) {
      await new Promise((res, rej) =>
        srv.client.PutMap(
          { id: `big${i}`, movingai: `type octile\nheight 300\nwidth 300\nmap\n${rows}\n` },
          md(),
          (e: unknown, v: unknown) => (e ? rej(e) : res(v)),
        )
      );
    }
    // The stream's end reaches the server some time after st.end() on a loaded machine: scrape until it has
    // (30 s at most; the assertions below say what was missing).
    const streamsDone = (m: Map<string, number>) =>
      value(m, "arcpath_streams_open") === 0 &&
      value(m, "arcpath_rpc_duration_seconds_count", 'method="Stream"') >
        value(before, "arcpath_rpc_duration_seconds_count", 'method="Stream"');
    let after = await scrape();
    for (let i = 0; i < 150 && !streamsDone(after); i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = await scrape();
    }

    const delta = (name: string, ...labels: string[]) =>
      value(after, name, ...labels) - value(before, name, ...labels);
    expect(delta("arcpath_rpc_duration_seconds_count", 'method="Plan"', 'code="OK"', 'tenant="acme"')).toBe(
      7,
    );
    expect(delta("arcpath_rpc_duration_seconds_count", 'method="PutMap"', 'code="OK"')).toBe(8);
    expect(delta("arcpath_rpc_errors_total", 'method="GetMap"', 'code="NOT_FOUND"', 'tenant="acme"')).toBe(1);
    expect(delta("arcpath_rpc_errors_total", 'method="ListMaps"', 'code="UNAUTHENTICATED"')).toBe(1);
    expect(delta("arcpath_rpc_errors_total", 'method="Plan"')).toBe(0);
    expect(delta("arcpath_planner_duration_seconds_count", 'planner="grid"')).toBe(4);
    expect(delta("arcpath_planner_duration_seconds_count", 'planner="hybrid"')).toBe(3);
    expect(delta("arcpath_queue_wait_seconds_count")).toBeGreaterThanOrEqual(3);
    expect(delta("arcpath_stream_updates_total", 'kind="INITIAL"')).toBe(1);
    expect(delta("arcpath_map_cache_evictions_total")).toBeGreaterThan(0);
    expect(value(after, "arcpath_map_cache_bytes")).toBeGreaterThan(0);
    expect(value(after, "arcpath_map_cache_bytes")).toBeLessThanOrEqual(4 * 1024 * 1024 * 1.5);
    expect(value(after, "arcpath_streams_open")).toBe(0);
    expect(value(after, "arcpath_queue_depth")).toBe(0);
    // The stream's whole life is one observation when it ends.
    expect(delta("arcpath_rpc_duration_seconds_count", 'method="Stream"')).toBe(1);
  }, 120_000);
});
