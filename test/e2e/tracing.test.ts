/**
 * OpenTelemetry traces (--otel-exporter otlp) over real gRPC, collected by a tiny OTLP/HTTP receiver in the test:
 * a Plan that runs on the pool is a server span with `queue` and `worker` children in the same trace; an
 * inline plan and an error have their RPC span only, the error with an error status; tracing is off by default.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createServer, type Server } from "node:http";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
let srv: TestServer;
let collector: Server;
const spans: Any[] = [];

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      for (const rs of JSON.parse(body).resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          spans.push(...ss.spans.map((s: Any) => ({ ...s, resource: rs.resource })));
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const port = await new Promise<number>((r) =>
    collector.listen(0, "127.0.0.1", () => r((collector.address() as Any).port))
  );
  srv = await startServer([
    "--otel-exporter",
    "otlp",
    "--otel-endpoint",
    `http://127.0.0.1:${port}/v1/traces`,
  ]);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
  collector?.close();
});

const attr = (s: Any, key: string) => {
  const v = s.attributes.find((a: Any) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? Number(v.intValue) : undefined);
};

/** Waits for `pred` (the assertions after it say what was missing); the exporter sends a batch every second. */
async function until(pred: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
}

describe("traces", () => {
  test(
    "a pooled Plan is an RPC span with queue and worker children; inline plans and errors have their own",
    async () => {
      expect(srv.output()).toMatch(/"tracing":"otlp"/);
      // Far apart on arena for the jeep: past the inline lane, so it runs on a worker.
      const pooled = await call(srv.client, "Plan", {
        map: { id: "arena" },
        start: { x: 3.5, y: 3.5, heading: 0 },
        goal: { x: 45.5, y: 45.5 },
        planner: "PLANNER_HYBRID",
        unit: { name: "jeep" },
      });
      expect(pooled.status).toBe("PLAN_STATUS_FOUND");
      await call(srv.client, "Plan", {
        map: { id: "arena" },
        start: { x: 2.5, y: 2.5 },
        goal: { x: 8.5, y: 6.5 },
        planner: "PLANNER_GRID",
      });
      expect((await callError(srv.client, "GetMap", { map: { id: "nope" } })).code).toBe(5);
      await until(() =>
        spans.filter((s) => s.name === "arcpath.v1.Pathfinder/Plan").length >= 2 &&
        spans.some((s) => s.name === "arcpath.v1.Pathfinder/GetMap") &&
        spans.some((s) => s.name === "queue") && spans.some((s) => s.name === "worker")
      );

      const plans = spans.filter((s) => s.name === "arcpath.v1.Pathfinder/Plan");
      expect(plans.length).toBe(2);
      const hybridRpc = plans.find((s) => attr(s, "arcpath.planner") === "hybrid")!;
      const gridRpc = plans.find((s) => attr(s, "arcpath.planner") === "grid")!;
      expect(hybridRpc.kind).toBe(2); // SERVER
      expect(attr(hybridRpc, "rpc.grpc.status_code")).toBe(0);
      expect(attr(hybridRpc, "arcpath.map")).toBe("arena");
      expect(hybridRpc.resource.attributes.find((a: Any) => a.key === "service.name").value.stringValue).toBe(
        "arcpath",
      );
      const children = (p: Any) =>
        spans.filter((s) => s.parentSpanId === p.spanId && s.traceId === p.traceId);
      const kids = children(hybridRpc);
      const queue = kids.find((s) => s.name === "queue");
      const worker = kids.find((s) => s.name === "worker");
      expect(queue, "queue span under the pooled Plan").toBeDefined();
      expect(worker, "worker span under the pooled Plan").toBeDefined();
      expect(attr(worker, "arcpath.planner")).toBe("hybrid");
      expect(attr(worker, "arcpath.plan_status")).toBe("found");
      // Queue, then worker, both within the RPC.
      const t = (s: Any, k: string) => BigInt(s[k]);
      expect(t(queue, "endTimeUnixNano") <= t(worker, "startTimeUnixNano") + 1_000_000n).toBe(true);
      expect(t(hybridRpc, "startTimeUnixNano") <= t(queue, "startTimeUnixNano")).toBe(true);
      // The RPC span's times are whole milliseconds (its start here is always a whole ms from the others'): allow
      // the same 1 ms as above, or a worker ending in the RPC's last millisecond fails (1 run in 3).
      expect(t(worker, "endTimeUnixNano") <= t(hybridRpc, "endTimeUnixNano") + 1_000_000n).toBe(true);
      // The inline grid plan never reached the pool.
      expect(children(gridRpc)).toEqual([]);
      const get = spans.find((s) => s.name === "arcpath.v1.Pathfinder/GetMap");
      expect(attr(get, "rpc.grpc.status_code")).toBe(5);
      expect(get.status.code).toBe(2); // ERROR
    },
    60_000,
  );

  test("off by default", async () => {
    const plain = await startServer(["--no-demo"]);
    try {
      expect(plain.output()).toMatch(/"tracing":"none"/);
    } finally {
      await plain.stop();
    }
  }, 60_000);
});
