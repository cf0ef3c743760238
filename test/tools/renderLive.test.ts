/**
 * GetMap with tiles over gRPC (whole map, a window, a window clipped at the edge, a window outside the map),
 * and the render tool drawing a live server's map and plan (`--server`, through the viewer's HTTP API) with a
 * crop, tile coordinates and a legend.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { call, callError, ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { main } from "../../src/tools/render.ts";

let srv: TestServer;
let http = "";

beforeAll(async () => {
  srv = await startServer(["--http", "127.0.0.1:0"]);
  http = `127.0.0.1:${/ARCPATH_HTTP_READY port=(\d+)/.exec(srv.output())![1]}`;
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

/** The yard map's text rows (row 0 first). */
function yardRows(): string[] {
  const lines = readFileSync(join(ROOT, "demo/maps/yard.map"), "utf8").split("\n");
  return lines.slice(lines.indexOf("map") + 1).filter((l) => l.length > 0);
}

describe("GetMap include_tiles", () => {
  test("without include_tiles no tiles; with it the whole map, byte for byte", async () => {
    const plain = await call(srv.client, "GetMap", { map: { id: "yard" } });
    expect(plain.tiles).toBeNull();
    const full = await call(srv.client, "GetMap", { map: { id: "yard" }, include_tiles: true });
    expect([full.tiles.width, full.tiles.height, full.tiles_x, full.tiles_y]).toEqual([64, 64, 0, 0]);
    expect(Buffer.from(full.tiles.tiles).toString("latin1")).toBe(yardRows().join(""));
  });

  test("a window, and one clipped at the map's edge (0 = to the edge)", async () => {
    const rows = yardRows();
    const w = await call(srv.client, "GetMap", {
      map: { id: "yard" },
      include_tiles: true,
      window: { x: 20, y: 3, width: 5, height: 2 },
    });
    expect([w.tiles.width, w.tiles.height, w.tiles_x, w.tiles_y]).toEqual([5, 2, 20, 3]);
    expect(Buffer.from(w.tiles.tiles).toString("latin1")).toBe(rows[3].slice(20, 25) + rows[4].slice(20, 25));
    const edge = await call(srv.client, "GetMap", {
      map: { id: "yard" },
      include_tiles: true,
      window: { x: 60, y: 62, width: 10, height: 0 },
    });
    expect([edge.tiles.width, edge.tiles.height]).toEqual([4, 2]);
  });

  test("a window outside the map is INVALID_ARGUMENT naming the field", async () => {
    const e = await callError(srv.client, "GetMap", {
      map: { id: "yard" },
      include_tiles: true,
      window: { x: 64, y: 0 },
    });
    expect(e.code).toBe(3);
    expect(e.details).toMatch(/^window: starts at \(64, 0\), outside the 64 x 64 map/);
  });
});

describe("render --server", () => {
  test("draws the server's tiles in the crop, its plan, coordinates and a legend", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "arcpath-render-")), "live.svg");
    await main([
      "--server",
      http,
      "--map",
      "yard",
      "--unit",
      "tank",
      "--planner",
      "hybrid",
      "--from",
      "27.5,4.5,0",
      "--to",
      "55.5,40.5",
      "--crop",
      "20,0,44,48",
      "--out",
      out,
    ]);
    const svg = readFileSync(out, "utf8");
    const plan = await call(srv.client, "Plan", {
      map: { id: "yard" },
      unit: { name: "tank" },
      start: { x: 27.5, y: 4.5, heading: 0 },
      goal: { x: 55.5, y: 40.5 },
      planner: "PLANNER_HYBRID",
    });
    expect(svg.match(/class="segment /g)?.length).toBe(plan.segments.length);
    // The crop: the map background covers exactly the window, in map coordinates.
    expect(svg).toContain(`<rect x="20" y="0" width="44" height="48" fill="#f7f5ef"/>`);
    // Blocked runs of the window only (yard row 0 is wall: one run from x 20 to 63).
    expect(svg).toContain(`<rect x="20" y="0" width="44" height="1"/>`);
    expect(svg).toMatch(/class="coordinates"[\s\S]*>40<\/text>/);
    expect(svg).toContain(">swept footprint</text>");
  });

  test("an unknown map is the server's error, named", async () => {
    await expect(main(["--server", http, "--map", "nope", "--out", "/dev/null"])).rejects.toThrow(
      /NOT_FOUND: .*nope/,
    );
  });
});
