/**
 * Jump tables of a big map built in the background after upload (service/mapJumps.ts), over gRPC. The threshold
 * is lowered (`--background-jump-tiles`) so a 256 x 256 map counts as big, and the build is held back
 * (`--test-jump-build-delay-ms`, a test hook) so the first query surely runs while the tables build: GRID
 * answers FOUND at once by plain A* (its message says so) with the optimal length, and once the tables are
 * published later queries use them (no note, the same length, fewer expansions). A curve planner meanwhile
 * waits for the tables within its budget and answers found.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { tiledRoomRows } from "../helpers/tiledMap.ts";
import { waitForOutput } from "../helpers/waitFor.ts";

const rows = tiledRoomRows(8, 8); // 256 x 256
const start = { x: 16.5, y: 16.5, heading: 0 }, goal = { x: 239.5, y: 243.5 };

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer([
    "--no-demo",
    "--workers",
    "2",
    "--background-jump-tiles",
    "4096",
    "--test-jump-build-delay-ms",
    "2000",
  ]);
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

const grid = (id: string) =>
  call(srv.client, "Plan", {
    map: { id },
    unit: { name: "soldier" },
    start,
    goal,
    planner: "PLANNER_GRID",
    options: { max_millis: 30_000 },
  });

describe("jump tables built in the background", () => {
  test("GRID answers by plain A* while they build, then uses them; same optimal length", async () => {
    const text = `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;
    await call(srv.client, "PutMap", { id: "rooms", movingai: text });
    const during = await grid("rooms");
    expect(during.status).toBe("PLAN_STATUS_FOUND");
    expect(during.message).toMatch(/jump tables of class [\d.]+ are being built in the background.*plain/);
    // Poll (bounded) until an answer comes from the published tables.
    let after = during;
    for (let i = 0; i < 120 && /jump tables/.test(after.message); i++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await grid("rooms");
    }
    expect(after.message).not.toMatch(/jump tables/);
    expect(after.status).toBe("PLAN_STATUS_FOUND");
    // Both optimal: plain A* and jump points find the same length; jump points expand far fewer nodes.
    expect(after.length).toBeCloseTo(during.length, 6);
    expect(Number(after.stats.expansions)).toBeLessThan(Number(during.stats.expansions));
    await waitForOutput(srv, /jump tables built in the background/);
  }, 60_000);

  test("a curve planner waits for the tables within its budget and answers found", async () => {
    const text = `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;
    // One tile changed: a new version, whose tables are not built yet.
    const other = [...rows];
    other[5] = other[5].slice(0, 5) + "@" + other[5].slice(6);
    await call(srv.client, "PutMap", {
      id: "rooms2",
      movingai: text.replace(rows.join("\n"), other.join("\n")),
    });
    const res = await call(srv.client, "Plan", {
      map: { id: "rooms2" },
      unit: { name: "tank" },
      start,
      goal,
      planner: "PLANNER_HYBRID",
      options: { max_millis: 30_000 },
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expect(res.message).not.toMatch(/jump tables/);
  }, 60_000);

  test("an upload with prepare waits for the builders' tables: no worker builds a second copy", async () => {
    // Log lines of rooms3's builds (its layer key starts with the map id).
    const lines = (published: boolean) =>
      srv.output().split("\n").filter((l) =>
        l.includes('"layer":"rooms3@') && l.includes(`"published":${published}`) &&
        l.includes("jump tables built in the background")
      ).length;

    const other = [...rows];
    other[6] = other[6].slice(0, 6) + "@" + other[6].slice(7);
    const text = `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${other.join("\n")}\n`;
    await call(srv.client, "PutMap", { id: "rooms3", movingai: text, prepare: true });
    // Both built-in classes' tables came from the builders (held back 2 s by the test hook) and were published;
    // a worker's own build during the preparation would have been published first (theirs then refused).
    // Their log lines may land after the answer (pino writes asynchronously).
    await waitForOutput(srv, () => lines(true) >= 2, undefined, "rooms3's two published builds");
    expect(lines(true)).toBe(2);
    expect(lines(false)).toBe(0);
    const res = await grid("rooms3");
    expect(res.status).toBe("PLAN_STATUS_FOUND");
    expect(res.message).not.toMatch(/jump tables/);
  }, 60_000);
});
