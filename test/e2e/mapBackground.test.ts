/**
 * Big-map uploads without `prepare` answer once the map is stored with its pass layer; the region tables follow
 * in the background (service/mapTables.ts). Over gRPC on a 2048 x 2048 map: the upload's MapInfo says
 * `preparing`; a Plan sent at once gets either BUDGET naming the region table still being built or the same
 * answer as after preparation (never a wrong one); a Plan with a generous budget waits for the table and is
 * found; once preparation ends GetMap reports the region counts of the table built in-process; a patch sent
 * during preparation waits for the tables and carries them.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { call, startServer, type TestServer } from "../helpers/server.ts";
import { buildPassLayer, clearanceClass } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";

const SIDE = 2048;
/** Rows per chunk (512 KB messages). */
const ROWS_PER_CHUNK = 256;

/** Open ground with 1% of the tiles blocked (seeded); `salt` changes the content (a new version). */
function tiles(salt: number): Uint8Array {
  const out = new Uint8Array(SIDE * SIDE).fill(46);
  let s = 12345 + salt;
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    if (s < 42949673) out[i] = 64;
  }
  // Start and goal corners kept open for the tank's 3 x 3 class.
  for (const [cx, cy] of [[10, 10], [2000, 2000]]) {
    for (let y = cy - 3; y <= cy + 3; y++) out.fill(46, y * SIDE + cx - 3, y * SIDE + cx + 4);
  }
  return out;
}

// deno-lint-ignore no-explicit-any
function putChunks(client: any, id: string, t: Uint8Array, prepare = false): Promise<any> {
  return new Promise((res, rej) => {
    const s = client.PutMapChunks((
      err: grpc.ServiceError | null,
      info: unknown,
    ) => (err ? rej(err) : res(info)));
    s.write({ header: { id, width: SIDE, height: SIDE, format: "TILE_FORMAT_MOVINGAI", prepare } });
    for (let y = 0; y < SIDE; y += ROWS_PER_CHUNK) {
      const tilesOf = t.subarray(y * SIDE, (y + ROWS_PER_CHUNK) * SIDE);
      s.write({ chunk: { x: 0, y, width: SIDE, height: ROWS_PER_CHUNK, tiles: tilesOf } });
    }
    s.end();
  });
}

const plan = (id: string, unit: string, maxMillis: number) => ({
  map: { id },
  planner: "PLANNER_GRID",
  unit: { name: unit },
  start: { x: 10.5, y: 10.5, heading: 0 },
  goal: { x: 2000.5, y: 2000.5 },
  options: { max_millis: maxMillis },
});

/** GetMap until the version is no longer preparing (bounded). */
// deno-lint-ignore no-explicit-any
async function prepared(client: any, id: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const info = await call(client, "GetMap", { map: { id } });
    if (!info.preparing) return info;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`map ${id} still preparing after 30 s`);
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer(["--workers", "1", "--no-demo"]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

describe("background preparation of a big map", () => {
  test(
    "a Plan during it answers BUDGET naming the region table or the right path; after it, the path",
    async () => {
      const info = await putChunks(srv.client, "bg", tiles(0));
      expect(info.preparing).toBe(true);
      expect([info.regions, info.components]).toEqual([0, 0]);
      const during = await call(srv.client, "Plan", plan("bg", "tank", 1));
      const ref = await prepared(srv.client, "bg");
      const after = await call(srv.client, "Plan", plan("bg", "tank", 20_000));
      expect(after.status).toBe("PLAN_STATUS_FOUND");
      if (during.status === "PLAN_STATUS_BUDGET_EXHAUSTED" && /region table/.test(during.message)) {
        expect(during.message).toMatch(
          /region table of clearance class 1\.5 for map "bg" version [0-9a-f]{16} is still being built/,
        );
        expect(during.segments ?? []).toEqual([]);
      } else if (during.status === "PLAN_STATUS_FOUND") {
        expect(during.segments).toEqual(after.segments);
      } else {
        // Only the search's own budget may have run out (1 ms), never a wrong status.
        expect(during.status).toBe("PLAN_STATUS_BUDGET_EXHAUSTED");
      }
      // The counts are those of the region table built here from the same tiles.
      const grid = { width: SIDE, height: SIDE, tiles: tiles(0), terrain: movingAiTerrain() };
      const table = buildRegionTable(buildPassLayer(grid, grid.terrain), clearanceClass(0), ref.sector_size);
      expect([ref.regions, ref.components]).toEqual([table.regionCount, table.componentCount]);
      expect(ref.regions).toBeGreaterThan(0);
    },
    120_000,
  );

  test("a Plan with a generous budget waits for the table it needs and is found", async () => {
    const info = await putChunks(srv.client, "bg2", tiles(1));
    expect(info.preparing).toBe(true);
    const [tank, soldier] = await Promise.all([
      call(srv.client, "Plan", plan("bg2", "tank", 20_000)),
      call(srv.client, "Plan", plan("bg2", "soldier", 20_000)),
    ]);
    expect(tank.status).toBe("PLAN_STATUS_FOUND");
    expect(soldier.status).toBe("PLAN_STATUS_FOUND");
    const again = await call(srv.client, "Plan", plan("bg2", "tank", 20_000));
    expect(again.segments).toEqual(tank.segments);
  }, 120_000);

  test(
    "a patch sent during preparation waits for the tables and carries them to the new version",
    async () => {
      const info = await putChunks(srv.client, "bg3", tiles(2));
      expect(info.preparing).toBe(true);
      const patched = await call(srv.client, "PatchMap", {
        map: { id: "bg3" },
        edits: [{ x: 500, y: 500, width: 2, height: 2, code: 64 }],
      });
      expect(patched.version).not.toBe(info.version);
      expect(patched.preparing).toBe(false);
      expect(patched.regions).toBeGreaterThan(0);
      const found = await call(srv.client, "Plan", plan("bg3", "tank", 20_000));
      expect(found.status).toBe("PLAN_STATUS_FOUND");
    },
    120_000,
  );
});
