/**
 * End-to-end over real gRPC: chunked uploads (PutMapChunks). A tiled upload equals a single PutMap (same
 * version, same plans); the size limits are flags whose errors name them; bad chunk streams are refused naming
 * the chunk; the `prepare` option answers after the workers built their tables; a tiled upload persists
 * atomically (a restart on the same data directory serves the same version).
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import * as grpc from "@grpc/grpc-js";
import { call, callError, startServer, type TestServer } from "../helpers/server.ts";
import { waitForOutput } from "../helpers/waitFor.ts";

const W = 96;
const H = 80;

/** A deterministic map: open ground, pillars on a lattice, a wall with two doors. */
function mapRows(): string[] {
  const rows: string[] = [];
  for (let y = 0; y < H; y++) {
    let row = "";
    for (let x = 0; x < W; x++) {
      const pillar = x % 12 === 5 && y % 10 === 4;
      const wall = x === 48 && !(y >= 10 && y <= 14) && !(y >= 60 && y <= 66);
      row += pillar || wall ? "@" : ".";
    }
    rows.push(row);
  }
  return rows;
}
const ROWS = mapRows();
const TEXT = `type octile\nheight ${H}\nwidth ${W}\nmap\n${ROWS.join("\n")}\n`;

/** The rectangle [x0, x0 + w) x [y0, y0 + h) of the map as chunk bytes. */
function rect(x0: number, y0: number, w: number, h: number) {
  const tiles = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) tiles[y * w + x] = ROWS[y0 + y].charCodeAt(x0 + x);
  }
  return { chunk: { x: x0, y: y0, width: w, height: h, tiles } };
}

/** Tiles of `tile` x `tile` covering the map (edges narrower). */
function tiling(tile: number) {
  const out = [];
  for (let y = 0; y < H; y += tile) {
    for (let x = 0; x < W; x += tile) out.push(rect(x, y, Math.min(tile, W - x), Math.min(tile, H - y)));
  }
  return out;
}

// deno-lint-ignore no-explicit-any
function putChunks(client: any, messages: unknown[]): Promise<any> {
  return new Promise((res, rej) => {
    const stream = client.PutMapChunks((
      err: grpc.ServiceError | null,
      info: unknown,
    ) => (err ? rej(err) : res(info)));
    for (const m of messages) stream.write(m);
    stream.end();
  });
}

// deno-lint-ignore no-explicit-any
async function chunksError(client: any, messages: unknown[]): Promise<grpc.ServiceError> {
  try {
    await putChunks(client, messages);
  } catch (e) {
    return e as grpc.ServiceError;
  }
  throw new Error("PutMapChunks succeeded but an error was expected");
}

const header = (id: string, extra: object = {}) => ({
  header: { id, width: W, height: H, format: "TILE_FORMAT_MOVINGAI", ...extra },
});

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer([
    "--workers",
    "2",
    "--no-demo",
    "--max-map-side",
    "100",
    "--max-map-tiles",
    "9000",
  ]);
}, 120_000);
afterAll(async () => {
  await srv?.stop();
});

const plans = [
  { planner: "PLANNER_GRID", unit: { name: "agent" } },
  { planner: "PLANNER_HIERARCHICAL", unit: { name: "agent" } },
  { planner: "PLANNER_HYBRID", unit: { name: "tank" } },
];

describe("PutMapChunks", () => {
  test("a tiled upload equals a single PutMap: same version, same plans", async () => {
    const single = await call(srv.client, "PutMap", { id: "single", movingai: TEXT });
    const tiled = await putChunks(srv.client, [header("tiled"), ...tiling(32)]);
    // Another tiling (rows of 7) gives the same content too.
    const rows = [];
    for (let y = 0; y < H; y += 7) rows.push(rect(0, y, W, Math.min(7, H - y)));
    const striped = await putChunks(srv.client, [header("striped"), ...rows.reverse()]);
    expect(tiled.version).toBe(single.version);
    expect(striped.version).toBe(single.version);
    expect([tiled.width, tiled.height, tiled.regions, tiled.components]).toEqual(
      [single.width, single.height, single.regions, single.components],
    );
    for (const p of plans) {
      const req = (id: string) => ({
        map: { id },
        ...p,
        start: { x: 3.5, y: 40.5, heading: 0 },
        goal: { x: 90.5, y: 12.5 },
      });
      const a = await call(srv.client, "Plan", req("single"));
      const b = await call(srv.client, "Plan", req("tiled"));
      expect(a.status, p.planner).toBe("PLAN_STATUS_FOUND");
      expect(b.status).toBe(a.status);
      expect(b.length).toBeCloseTo(a.length, 9);
      expect(b.segments).toEqual(a.segments);
    }
  });

  test("the raw format with terrain overrides equals PutMap raw", async () => {
    const tiles = new Uint8Array(W * H);
    for (let i = 0; i < tiles.length; i++) tiles[i] = i % 37 === 0 ? 2 : i % 11 === 0 ? 1 : 0;
    const terrain = [{ code: 1, cost: 3 }];
    const single = await call(srv.client, "PutMap", {
      id: "raw1",
      raw: { width: W, height: H, tiles },
      terrain,
    });
    const chunks = [0, 40].map((y0) => ({
      chunk: { x: 0, y: y0, width: W, height: 40, tiles: tiles.subarray(y0 * W, (y0 + 40) * W) },
    }));
    const tiled = await putChunks(srv.client, [
      { header: { id: "raw2", width: W, height: H, terrain } },
      ...chunks,
    ]);
    expect(tiled.version).toBe(single.version);
  });

  test("limits are flags, and their errors name them", async () => {
    const side = await chunksError(srv.client, [{ header: { id: "big", width: 101, height: 10 } }]);
    expect(side.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(side.details).toMatch(/header: width 101 exceeds the limit 100 \(server flag --max-map-side\)/);
    const tiles = await chunksError(srv.client, [{ header: { id: "big", width: 100, height: 100 } }]);
    expect(tiles.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(tiles.details).toMatch(/10000 tiles exceeds the limit 9000 \(server flag --max-map-tiles\)/);
    // PutMap names the same flags.
    const put = await callError(srv.client, "PutMap", {
      id: "big",
      raw: { width: 100, height: 100, tiles: new Uint8Array(10000) },
    });
    expect(put.details).toMatch(/--max-map-tiles/);
  });

  test("uploads being assembled are bounded (twice --max-map-tiles); a cancelled one gives its share back", async () => {
    const open = [0, 1].map(() => {
      const s = srv.client.PutMapChunks(() => {});
      s.write({ header: { id: "held", width: 90, height: 100 } }); // 9000 tiles each: the bound is 18000
      return s;
    });
    const small = () => [{ header: { id: "small", width: 10, height: 10, ephemeral: true } }, {
      chunk: { x: 0, y: 0, width: 10, height: 10, tiles: new Uint8Array(100) },
    }];
    // Until the server has read both held headers, a small upload may still fit.
    let refused: grpc.ServiceError | null = null;
    for (let i = 0; i < 100 && !refused; i++) {
      try {
        await putChunks(srv.client, small());
        await new Promise((r) => setTimeout(r, 50));
      } catch (e) {
        refused = e as grpc.ServiceError;
      }
    }
    expect(refused?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(refused?.details).toMatch(
      /^header: 18000 tiles of chunked uploads are already being assembled.*--max-map-tiles/,
    );
    for (const s of open) s.cancel();
    let ok = null;
    for (let i = 0; i < 100 && !ok; i++) {
      ok = await putChunks(srv.client, small()).catch(() => null);
      if (!ok) await new Promise((r) => setTimeout(r, 50));
    }
    expect(ok?.width).toBe(10);
  });

  test("bad chunk streams are refused naming the chunk, and no map is made", async () => {
    const cases: [unknown[], RegExp][] = [
      [[rect(0, 0, 8, 8)], /^header: the first message of PutMapChunks must be the header/],
      [[header("bad"), rect(0, 0, 32, 32), rect(16, 16, 32, 32)], /^chunk\[1\]: chunks may not overlap/],
      [[header("bad"), ...tiling(32).slice(1)], /^chunk: the chunks must cover the whole map; tile \(0, 0\)/],
      [
        [header("bad"), rect(80, 0, 16, 8), { chunk: { x: 90, y: 0, width: 8, height: 1 } }],
        /^chunk\[1\]\.x/,
      ],
      [
        [header("bad"), { chunk: { x: 0, y: 0, width: 2, height: 2, tiles: new Uint8Array(3) } }],
        /^chunk\[0\]\.tiles: must hold width \* height = 4/,
      ],
      [
        [header("bad"), { chunk: { x: 0, y: 0, width: 1, height: 1, tiles: new Uint8Array([7]) } }],
        /^chunk\[0\]\.tiles: Moving AI tiles must be printable ASCII/,
      ],
      [[header("bad"), header("bad")], /^chunk\[0\]: after the header every message must be a chunk/],
      [[{ header: { id: "bad", width: 0, height: 4 } }], /^header\.width: must be a positive integer/],
    ];
    for (const [messages, message] of cases) {
      const e = await chunksError(srv.client, messages);
      expect(e.code, String(message)).toBe(grpc.status.INVALID_ARGUMENT);
      expect(e.details).toMatch(message);
    }
    expect((await callError(srv.client, "GetMap", { map: { id: "bad" } })).code).toBe(grpc.status.NOT_FOUND);
  });

  test("prepare: the upload answers once the workers built their tables; plans work after it", async () => {
    const info = await putChunks(srv.client, [header("prepared", { prepare: true }), ...tiling(48)]);
    // The workers' tables are counted in the map memory budget (two workers, two classes: graphs and jump tables).
    // The access line is written asynchronously (pino), after the answer: wait for it.
    await waitForOutput(srv, /"method":"PutMapChunks"[^\n]*"prepare_ms":\d+,"prepare_bytes":[1-9]\d{4,}/);
    const single = await call(srv.client, "PutMap", { id: "prepared2", movingai: TEXT, prepare: true });
    expect(single.version).toBe(info.version);
    await waitForOutput(srv, /"method":"PutMap"[^\n]*"prepare_ms":\d+/);
    const res = await call(srv.client, "Plan", {
      map: { id: "prepared" },
      planner: "PLANNER_HIERARCHICAL",
      start: { x: 3.5, y: 40.5 },
      goal: { x: 90.5, y: 70.5 },
    });
    expect(res.status).toBe("PLAN_STATUS_FOUND");
  });

  test("a tiled upload persists: after a restart the map is there at the same version", async () => {
    const info = await putChunks(srv.client, [header("kept"), ...tiling(40)]);
    const dir = srv.dataDir;
    await srv.stop();
    srv = await startServer(["--workers", "1", "--no-demo"], dir);
    const again = await call(srv.client, "GetMap", { map: { id: "kept" } });
    expect(again.version).toBe(info.version);
    const single = await call(srv.client, "PutMap", { id: "kept2", movingai: TEXT, ephemeral: true });
    expect(single.version).toBe(info.version);
  }, 60_000);
});
