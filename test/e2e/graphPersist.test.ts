/**
 * Prepared abstract graphs are kept in the data directory (service/graphFiles.ts) and read back after a restart.
 * Over gRPC on a 256 x 256 map with the background threshold lowered to it (`--background-graph-tiles`): an
 * upload with `prepare` writes the graph file; after a restart the first HIERARCHICAL query is answered from the
 * graph (no "being prepared" note) with the same path as before, and the server says it read the file. A file
 * cut short is dropped, the graph prepared again (the grid search answers meanwhile) and saved again; a map
 * replaced by other tiles has its old version's file removed at the next start. A patch's graph takes the
 * blocks of the regions the patch left alone from the previous version's graph, in memory or, after a restart,
 * from its file.
 */
import { afterAll, describe, expect, test } from "vitest";
import { readdirSync, rmSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { waitForLines, waitForOutput } from "../helpers/waitFor.ts";

const SIDE = 256;
const FLAGS = ["--workers", "2", "--no-demo", "--background-graph-tiles", String(SIDE * SIDE)];

/** A Moving AI map: open ground with walls of rooms (seeded gaps); `salt` changes the content. */
function mapText(salt: number): string {
  const rows: string[] = [];
  let s = 99 + salt;
  for (let y = 0; y < SIDE; y++) {
    let row = "";
    for (let x = 0; x < SIDE; x++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      const wall = (x % 32 === 0 || y % 32 === 0) && s % 7 !== 0;
      row += wall && x > 0 && y > 0 ? "@" : ".";
    }
    rows.push(row);
  }
  return `type octile\nheight ${SIDE}\nwidth ${SIDE}\nmap\n${rows.join("\n")}\n`;
}

const plan = (id: string) => ({
  map: { id },
  planner: "PLANNER_HIERARCHICAL",
  unit: { name: "soldier" },
  start: { x: 3.5, y: 3.5, heading: 0 },
  goal: { x: 250.5, y: 249.5 },
  options: { max_millis: 20_000 },
});

const graphFiles = (dir: string) => {
  try {
    return readdirSync(join(dir, "graphs")).filter((f) => f.endsWith(".graph"));
  } catch {
    return [];
  }
};

async function until<T>(what: string, f: () => Promise<T> | T, ok: (v: T) => boolean): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await f();
    if (ok(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not after 60 s`);
}

const servers: TestServer[] = [];
async function start(dir?: string): Promise<TestServer> {
  const srv = await startServer(FLAGS, dir);
  servers.push(srv);
  return srv;
}
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const s of servers) rmSync(s.dataDir, { recursive: true, force: true });
});

describe("prepared graphs persist in the data directory", () => {
  test("a patched version's graph takes the untouched regions' blocks from the previous graph", async () => {
    const srv = await start();
    await call(srv.client, "PutMap", { id: "patched", movingai: mapText(2), prepare: true });
    const before = await call(srv.client, "Plan", plan("patched"));
    expect(before.stats.planner).toBe("PLANNER_HIERARCHICAL");
    await call(srv.client, "PatchMap", {
      map: { id: "patched" },
      edits: [{ x: 60, y: 70, width: 5, height: 5, tile: "@" }],
    });
    const after = await until(
      "patched graph prepared",
      () => call(srv.client, "Plan", plan("patched")),
      (r) => r.stats.planner === "PLANNER_HIERARCHICAL",
    );
    expect(after.status).toBe("PLAN_STATUS_FOUND");
    expect(after.map_version).not.toBe(before.map_version);
    // The log line of the build may land after the answer it made possible (pino writes asynchronously).
    const line =
      (await waitForLines(srv, /prepared in the background.*reused|reused.*prepared in the background/))
        .at(-1);
    const { regions, reused } = JSON.parse(line!);
    expect(reused).toBeGreaterThan(regions * 0.9);
    expect(reused).toBeLessThan(regions);
  }, 120_000);

  test(
    "after a restart a patched version's graph takes the blocks from the previous version's file",
    async () => {
      const a = await start();
      await call(a.client, "PutMap", { id: "restarted", movingai: mapText(3), prepare: true });
      await until("graph files written", () => graphFiles(a.dataDir), (f) => f.length === 2);
      await a.stop();
      // Nothing of the previous version's graph is in memory now: only its file.
      const b = await start(a.dataDir);
      await call(b.client, "PatchMap", {
        map: { id: "restarted" },
        edits: [{ x: 60, y: 70, width: 5, height: 5, tile: "@" }],
      });
      const after = await until(
        "patched graph prepared",
        () => call(b.client, "Plan", plan("restarted")),
        (r) => r.stats.planner === "PLANNER_HIERARCHICAL",
      );
      expect(after.status).toBe("PLAN_STATUS_FOUND");
      const lines = await waitForLines(b, "prepared in the background");
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) {
        const { regions, reused, keptFile } = JSON.parse(l);
        expect(keptFile).toMatch(/\.graph$/);
        expect(reused).toBeGreaterThan(regions * 0.9);
        expect(reused).toBeLessThan(regions);
      }
    },
    120_000,
  );

  test(
    "patched, restarted before the patch's graph: it takes the blocks from the earlier version's file",
    async () => {
      const a = await start();
      await call(a.client, "PutMap", { id: "early", movingai: mapText(4), prepare: true });
      await until("graph files written", () => graphFiles(a.dataDir), (f) => f.length === 2);
      const v1 = graphFiles(a.dataDir);
      // The patch's own graph is not asked for before the restart.
      await call(a.client, "PatchMap", {
        map: { id: "early" },
        edits: [{ x: 60, y: 70, width: 5, height: 5, tile: "@" }],
      });
      await a.stop();
      // The earlier version is no longer stored; its graph files stay at the start as the map's latest.
      const b = await start(a.dataDir);
      expect(graphFiles(b.dataDir)).toEqual(v1);
      const after = await until(
        "patched graph prepared",
        () => call(b.client, "Plan", plan("early")),
        (r) => r.stats.planner === "PLANNER_HIERARCHICAL",
      );
      expect(after.status).toBe("PLAN_STATUS_FOUND");
      const lines = await waitForLines(b, "prepared in the background");
      expect(lines.length).toBeGreaterThan(0);
      for (const l of lines) {
        const { regions, reused, keptFile } = JSON.parse(l);
        expect(v1).toContain(keptFile);
        expect(reused).toBeGreaterThan(regions * 0.9);
      }
    },
    120_000,
  );

  test("after a restart the first HIERARCHICAL answer comes from the kept graph", async () => {
    const a = await start();
    await call(a.client, "PutMap", { id: "kept", movingai: mapText(0), prepare: true });
    // One file per built-in clearance class (0.5 and 1.5).
    const files = await until("graph files written", () => graphFiles(a.dataDir), (f) => f.length === 2);
    const before = await call(a.client, "Plan", plan("kept"));
    expect(before.status).toBe("PLAN_STATUS_FOUND");
    expect(before.stats.planner).toBe("PLANNER_HIERARCHICAL");
    expect(before.message).toBe("");
    await a.stop();

    const b = await start(a.dataDir);
    const first = await call(b.client, "Plan", plan("kept"));
    expect(first.stats.planner).toBe("PLANNER_HIERARCHICAL");
    expect(first.message).toBe("");
    expect(first.segments).toEqual(before.segments);
    await waitForOutput(b, /abstract graph read from the data directory/);
    expect(b.output()).not.toMatch(/abstract graph prepared in the background/);
    expect(graphFiles(b.dataDir)).toEqual(files);
    await b.stop();

    // A file cut short: dropped, prepared again (the grid search answers meanwhile), saved again.
    for (const f of files) truncateSync(join(a.dataDir, "graphs", f), 4096);
    const c = await start(a.dataDir);
    const meanwhile = await call(c.client, "Plan", plan("kept"));
    expect(meanwhile.status).toBe("PLAN_STATUS_FOUND");
    await waitForOutput(c, /graph file dropped/);
    const later = await until(
      "graph prepared again",
      () => call(c.client, "Plan", plan("kept")),
      (r) => r.stats.planner === "PLANNER_HIERARCHICAL",
    );
    expect(later.segments).toEqual(before.segments);
    await until("graph saved again", () => c.output(), (o) => /abstract graph saved/.test(o));
    expect(files).toContain(graphFiles(c.dataDir)[0]);

    // Other tiles under the same id: the old version's file goes at the next start.
    await call(c.client, "PutMap", { id: "kept", movingai: mapText(1), prepare: true });
    // The old version's two files (class 1.5's still cut short, never read) stay until the next start.
    await until("new graph files written", () => graphFiles(c.dataDir), (f) => f.length === 4);
    await c.stop();
    const d = await start(a.dataDir);
    const left = graphFiles(d.dataDir);
    expect(left.length).toBe(2);
    for (const f of left) expect(files).not.toContain(f);
    const fresh = await call(d.client, "Plan", plan("kept"));
    expect(fresh.stats.planner).toBe("PLANNER_HIERARCHICAL");
    expect(fresh.message).toBe("");
  }, 180_000);
});
