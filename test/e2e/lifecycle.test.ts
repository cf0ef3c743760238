/**
 * End-to-end over real gRPC: persistence across restart, cancellation and deadlines stop the search, a crashed
 * worker is replaced, the queue is bounded, health and reflection are served.
 */
import { afterAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { call, callError, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { waitForOutput } from "../helpers/waitFor.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

async function server(args: string[] = [], dataDir?: string) {
  const s = await startServer(args, dataDir);
  servers.push(s);
  return s;
}

/**
 * A map that makes A* work hard: a large open field and a long wall with one gap at the far end, the goal just
 * behind the wall. The heuristic pulls the search into the wall's pocket first. A sprinkle of costlier 'G'
 * terrain (see TRAP_TERRAIN) makes costs non-uniform, so the search is tile by tile (no jump points).
 */
function trapMap(size: number): string {
  const rows: string[] = [];
  for (let y = 0; y < size; y++) {
    let row = "";
    for (let x = 0; x < size; x++) {
      // A pocket around the goal, open only at the bottom: x = size - 40 from row 2 down to size - 3.
      const wall = (x === size - 40 && y >= 2 && y < size - 2) || (y === 2 && x >= size - 40);
      row += wall ? "@" : (x * 7 + y * 13) % 97 === 0 ? "G" : ".";
    }
    rows.push(row);
  }
  return `type octile\nheight ${size}\nwidth ${size}\nmap\n${rows.join("\n")}\n`;
}
/** 'G' costs 2 on the trap map. */
const TRAP_TERRAIN = [{ code: "G".charCodeAt(0), cost: 2, impassable: false, road: false }];
const trapPlan = (size: number) => ({
  map: { id: "trap" },
  start: { x: 1.5, y: size / 2 },
  goal: { x: size - 20, y: size / 2 },
  planner: "PLANNER_GRID",
});

describe("persistence", () => {
  test("an uploaded map survives a restart, written atomically", async () => {
    const a = await server(["--no-demo"]);
    const text = "type octile\nheight 3\nwidth 4\nmap\n....\n.@@.\n....\n";
    const info = await call(a.client, "PutMap", { id: "keep-me", movingai: text });
    await a.stop();
    const files = readdirSync(join(a.dataDir, "maps"));
    expect(files).toEqual(["keep-me.json"]); // no temporary file left behind
    const b = await server(["--no-demo"], a.dataDir);
    const again = await call(b.client, "GetMap", { map: { id: "keep-me" } });
    expect(again.version).toBe(info.version);
    expect([again.width, again.height]).toEqual([4, 3]);
    const res = await call(b.client, "Plan", {
      map: { id: "keep-me" },
      start: { x: 0.5, y: 1.5 },
      goal: { x: 3.5, y: 1.5 },
      planner: "PLANNER_GRID",
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    // Around the wall: no corner cutting, so up, three steps across, down.
    expect(res.length).toBeCloseTo(5, 9);
    // Delete removes the file too.
    expect((await call(b.client, "DeleteMap", { map: { id: "keep-me" } })).deleted).toBe(true);
    expect(existsSync(join(a.dataDir, "maps", "keep-me.json"))).toBe(false);
    const err = await callError(b.client, "GetMap", { map: { id: "keep-me" } });
    expect(err.code).toBe(grpc.status.NOT_FOUND);
  }, 120_000);
});

describe("cancellation, deadlines, crashes, queue", () => {
  const size = 2000;

  test("a deadline and a client cancel stop the running search", async () => {
    const s = await server(["--no-demo", "--workers", "1"]);
    await call(s.client, "PutMap", { id: "trap", movingai: trapMap(size), terrain: TRAP_TERRAIN });
    // The full search, for reference.
    const t0 = Date.now();
    const full = await call(s.client, "Plan", trapPlan(size));
    // Stop well inside the search's own run time, but late enough (on a loaded machine) that the request has
    // reached the worker: a deadline that expires in the queue stops no search and logs no stop.
    const stopAfterMs = Math.max(30, Math.min(300, Math.floor((Date.now() - t0) / 4)));
    expect(full.status).toBe("PLAN_STATUS_FOUND");
    const fullExpansions = full.stats.expansions;
    expect(fullExpansions).toBeGreaterThan(1_000_000);

    const err = await callError(s.client, "Plan", trapPlan(size), { deadline: Date.now() + stopAfterMs });
    expect(err.code).toBe(grpc.status.DEADLINE_EXCEEDED);

    const cancelled = await new Promise<grpc.ServiceError>((resolve) => {
      const c = s.client.Plan(trapPlan(size), (e: grpc.ServiceError) => resolve(e));
      setTimeout(() => c.cancel(), stopAfterMs);
    });
    expect(cancelled.code).toBe(grpc.status.CANCELLED);

    // The worker reports each stopped search: cancelled with fewer expansions than the full search.
    let stops: { status: string; expansions: number; stoppedAfterMs: number }[] = [];
    for (let i = 0; i < 600 && stops.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      stops = s.output().split("\n").filter((l) => l.includes("search stopped after cancel")).map((l) =>
        JSON.parse(l)
      );
    }
    expect(stops.length).toBe(2);
    for (const st of stops) {
      expect(st.status).toBe("cancelled");
      expect(st.expansions).toBeLessThan(fullExpansions);
    }
    // And the single worker is free again for the next request.
    const next = await call(s.client, "Plan", { ...trapPlan(size), goal: { x: 10.5, y: size / 2 } });
    expect(next.status).toBe("PLAN_STATUS_FOUND");
  }, 300_000);

  test(
    "a crashed worker is replaced; its request fails with INTERNAL and later requests succeed",
    async () => {
      const s = await server(["--workers", "2"]);
      const good = {
        map: { id: "arena" },
        start: { x: 1.5, y: 11.5 },
        goal: { x: 4.5, y: 12.5 },
        planner: "PLANNER_GRID",
      };
      for (let round = 0; round < 3; round++) {
        const err = await callError(s.client, "Plan", { ...good, unit: { name: "__crash__" } });
        expect(err.code).toBe(grpc.status.INTERNAL);
        expect(err.details).toMatch(/crash/);
        const results = await Promise.all([0, 1, 2, 3].map(() => call(s.client, "Plan", good)));
        for (const r of results) expect(r.status).toBe("PLAN_STATUS_FOUND");
      }
      await waitForOutput(s, /worker crashed; replacing it/);
    },
    120_000,
  );

  test("past the bounded queue, RESOURCE_EXHAUSTED", async () => {
    // A queued plan may wait long on a loaded machine; only the queue bound may refuse here, not the wait bound.
    const s = await server(["--no-demo", "--workers", "1", "--queue", "1", "--max-queue-wait-ms", "600000"]);
    await call(s.client, "PutMap", { id: "trap", movingai: trapMap(size), terrain: TRAP_TERRAIN });
    const outcomes = await Promise.allSettled([0, 1, 2, 3].map(() => call(s.client, "Plan", trapPlan(size))));
    const exhausted = outcomes.filter((o) =>
      o.status === "rejected" && (o.reason as grpc.ServiceError).code === grpc.status.RESOURCE_EXHAUSTED
    );
    const found = outcomes.filter((o) => o.status === "fulfilled");
    expect(exhausted.length).toBeGreaterThanOrEqual(1);
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect((exhausted[0] as PromiseRejectedResult).reason.details).toMatch(/queue/);
  }, 300_000);
});

describe("health and reflection", () => {
  test("standard health service answers SERVING", async () => {
    const s = await server();
    const def = protoLoader.loadSync(
      join(ROOT, "node_modules/grpc-health-check/proto/health/v1/health.proto"),
      {
        keepCase: true,
      },
    );
    // deno-lint-ignore no-explicit-any
    const pkg = grpc.loadPackageDefinition(def) as any;
    const health = new pkg.grpc.health.v1.Health(`127.0.0.1:${s.port}`, grpc.credentials.createInsecure());
    const res = await call(health, "Check", { service: "arcpath.v1.Pathfinder" });
    // SERVING is 1 in grpc.health.v1.HealthCheckResponse.ServingStatus (the loader may give the number).
    expect(["SERVING", 1]).toContain(res.status);
    health.close();

    const rdef = protoLoader.loadSync(
      join(ROOT, "node_modules/@grpc/reflection/build/proto/grpc/reflection/v1alpha/reflection.proto"),
      { keepCase: true },
    );
    // deno-lint-ignore no-explicit-any
    const rpkg = grpc.loadPackageDefinition(rdef) as any;
    const refl = new rpkg.grpc.reflection.v1alpha.ServerReflection(
      `127.0.0.1:${s.port}`,
      grpc.credentials.createInsecure(),
    );
    const services = await new Promise<string[]>((resolve, reject) => {
      const st = refl.ServerReflectionInfo();
      st.on("data", (m: { list_services_response?: { service: { name: string }[] } }) => {
        resolve((m.list_services_response?.service ?? []).map((x) => x.name));
        st.end();
      });
      st.on("error", reject);
      st.write({ list_services: "" });
    });
    expect(services).toContain("arcpath.v1.Pathfinder");
    refl.close();
  }, 120_000);
});
