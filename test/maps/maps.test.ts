import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { MAX_CLEARANCE, type PassLayer, type TerrainTable, tileClearance } from "../../src/maps/grid.ts";
import { clearanceValues } from "../helpers/clearanceCodes.ts";
import { MapInputError, MapLimitError } from "../../src/maps/errors.ts";
import { formatMovingAi, parseMovingAi, rawGrid } from "../../src/maps/movingai.ts";
import {
  movingAiTerrain,
  rawTerrain,
  terrainEntries,
  terrainKey,
  withOverrides,
} from "../../src/maps/terrain.ts";
import { mapVersion } from "../../src/maps/version.ts";
import { buildPassLayer, clearanceClass, updatePassLayer } from "../../src/maps/layer.ts";
import { rng } from "../helpers/rng.ts";

const DATA = resolve(process.cwd(), "../shared/data/movingai");
const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const SHARED_MAPS: [string, number, number][] = [
  ["arena.map", 49, 49],
  ["AR0011SR.map", 512, 512],
  ["Aftershock.map", 512, 512],
  ["maze512-1-0.map", 512, 512],
  ["8room_000.map", 512, 512],
  ["random512-10-0.map", 512, 512],
  ["Berlin_0_256.map", 256, 256],
];

function readMap(name: string): string {
  return readFileSync(resolve(DATA, name), "latin1");
}

/** Expects `fn` to throw an error of `cls` whose message contains every fragment; returns it. */
function expectError<E extends Error>(
  fn: () => unknown,
  cls: new (...args: never[]) => E,
  ...fragments: string[]
): E {
  let caught: unknown = undefined;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(cls);
  for (const fragment of fragments) expect((caught as Error).message).toContain(fragment);
  return caught as E;
}

describe("parseMovingAi on the shared maps", () => {
  for (const [name, width, height] of SHARED_MAPS) {
    test(name, () => {
      const text = readMap(name);
      const grid = parseMovingAi(text, LIMITS);
      expect(grid.width).toBe(width);
      expect(grid.height).toBe(height);
      expect(grid.tiles.length).toBe(width * height);
      expect(grid.tiles.buffer).toBeInstanceOf(SharedArrayBuffer);
      // Independent count: the rows are the last `height` non-empty lines of the text.
      const rows = text.split(/\r?\n/).filter((line) => line.length > 0).slice(-height);
      const body = rows.join("");
      for (const ch of ".@TGOSW") {
        const expected = body.split(ch).length - 1;
        let counted = 0;
        for (const code of grid.tiles) if (code === ch.charCodeAt(0)) counted++;
        expect(counted, `count of ${ch}`).toBe(expected);
      }
      // Spot check: tile (x, y) is row y, column x.
      const r = rng(width * 31 + height);
      for (let i = 0; i < 50; i++) {
        const x = Math.floor(r() * width), y = Math.floor(r() * height);
        expect(grid.tiles[y * width + x]).toBe(rows[y].charCodeAt(x));
      }
    });
  }

  test("the Berlin map really uses CRLF", () => {
    expect(readMap("Berlin_0_256.map")).toContain("\r\n");
  });

  test("format(parse(text)) reproduces the LF files byte for byte", () => {
    for (const name of ["arena.map", "maze512-1-0.map"]) {
      const text = readMap(name);
      expect(formatMovingAi(parseMovingAi(text, LIMITS))).toBe(text);
    }
  });
});

describe("parseMovingAi input checks", () => {
  const ok = "type octile\nheight 2\nwidth 3\nmap\n.@.\nT..\n";

  test("accepts a small map, CRLF, other header order and type word, trailing blank lines", () => {
    const grid = parseMovingAi(ok, LIMITS);
    expect([grid.width, grid.height]).toEqual([3, 2]);
    expect(Array.from(grid.tiles)).toEqual([46, 64, 46, 84, 46, 46]);
    const crlf = parseMovingAi(ok.replaceAll("\n", "\r\n"), LIMITS);
    expect(Array.from(crlf.tiles)).toEqual(Array.from(grid.tiles));
    const reordered = parseMovingAi("width 3\ntype tile\nheight 2\nmap\n.@.\nT..\n\n\n", LIMITS);
    expect(Array.from(reordered.tiles)).toEqual(Array.from(grid.tiles));
    const noFinalNewline = parseMovingAi(ok.slice(0, -1), LIMITS);
    expect(noFinalNewline.height).toBe(2);
  });

  test("missing headers", () => {
    expect(
      expectError(
        () => parseMovingAi("type octile\nheight 2\nmap\n...\n...\n", LIMITS),
        MapInputError,
        "width",
      ).field,
    )
      .toBe("width");
    expect(
      expectError(
        () => parseMovingAi("type octile\nwidth 3\nmap\n...\n...\n", LIMITS),
        MapInputError,
        "height",
      ).field,
    )
      .toBe("height");
    expect(
      expectError(() => parseMovingAi("height 2\nwidth 3\nmap\n...\n...\n", LIMITS), MapInputError, "type")
        .field,
    )
      .toBe("type");
    expectError(() => parseMovingAi("type octile\nheight 2\nwidth 3\n", LIMITS), MapInputError, "map");
    expectError(() => parseMovingAi("", LIMITS), MapInputError, "missing");
  });

  test("unknown or duplicate header lines name the line", () => {
    expectError(
      () => parseMovingAi("type octile\nheight 2\ncolour red\nwidth 3\nmap\n", LIMITS),
      MapInputError,
      "line 3",
    );
    expectError(
      () => parseMovingAi("type octile\nheight 2\nheight 2\nwidth 3\nmap\n", LIMITS),
      MapInputError,
      "line 3",
      "duplicate",
    );
  });

  test("non-integer or zero sizes", () => {
    const e = expectError(
      () => parseMovingAi("type octile\nheight 2.5\nwidth 3\nmap\n", LIMITS),
      MapInputError,
      "line 2",
      "height",
    );
    expect(e.field).toBe("height");
    expectError(
      () => parseMovingAi("type octile\nheight 2\nwidth abc\nmap\n", LIMITS),
      MapInputError,
      "line 3",
      "width",
    );
    expectError(
      () => parseMovingAi("type octile\nheight 2\nwidth -3\nmap\n", LIMITS),
      MapInputError,
      "line 3",
    );
    expectError(
      () => parseMovingAi("type octile\nheight 0\nwidth 3\nmap\n", LIMITS),
      MapInputError,
      "line 2",
      "height",
    );
    expectError(() => parseMovingAi("type octile\nheight 2\nwidth 0\nmap\n", LIMITS), MapInputError, "width");
  });

  test("row count and row length", () => {
    expectError(
      () => parseMovingAi("type octile\nheight 3\nwidth 3\nmap\n...\n...\n", LIMITS),
      MapInputError,
      "too few rows",
      "expected 3, got 2",
    );
    expectError(() => parseMovingAi(ok + "...\n", LIMITS), MapInputError, "line 7", "too many rows");
    const e = expectError(
      () => parseMovingAi("type octile\nheight 2\nwidth 3\nmap\n...\n....\n", LIMITS),
      MapInputError,
      "line 6",
      "4 characters",
      "width 3",
    );
    expect(e.field).toBe("line 6");
    expectError(
      () => parseMovingAi("type octile\nheight 2\nwidth 3\nmap\n..\n...\n", LIMITS),
      MapInputError,
      "line 5",
    );
  });

  test("control and non-ASCII characters name line and column", () => {
    expectError(
      () => parseMovingAi("type octile\nheight 2\nwidth 3\nmap\n...\n.\t.\n", LIMITS),
      MapInputError,
      "line 6",
      "column 2",
      "U+0009",
    );
    expectError(
      () => parseMovingAi("type octile\nheight 2\nwidth 3\nmap\n..\u00e9\n...\n", LIMITS),
      MapInputError,
      "line 5",
      "column 3",
      "U+00E9",
    );
    expectError(
      () => parseMovingAi("type octile\nheight 1\nwidth 2\nmap\n.\r.\n", LIMITS),
      MapInputError,
      "line 5",
    );
  });

  test("size limits raise MapLimitError, not MapInputError", () => {
    const big = "type octile\nheight 2\nwidth 5000\nmap\n";
    const e = expectError(
      () => parseMovingAi(big, LIMITS),
      MapLimitError,
      "movingai: width 5000 exceeds the limit 4096",
    );
    expect(e).not.toBeInstanceOf(MapInputError);
    expect(e.field).toBe("width");
    expect(
      expectError(
        () => parseMovingAi("type octile\nheight 9000\nwidth 5\nmap\n", LIMITS),
        MapLimitError,
        "height 9000",
      ).field,
    )
      .toBe("height");
    const tight = { maxWidth: 100, maxHeight: 100, maxTiles: 50 };
    expect(
      expectError(
        () => parseMovingAi("type octile\nheight 10\nwidth 10\nmap\n", tight),
        MapLimitError,
        "100",
        "50",
      ).field,
    )
      .toBe("tiles");
  });
});

describe("rawGrid and formatMovingAi", () => {
  test("rawGrid validates and copies into shared memory", () => {
    const bytes = new Uint8Array([0, 1, 2, 3, 4, 5]);
    const grid = rawGrid(3, 2, bytes, LIMITS);
    expect(Array.from(grid.tiles)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(grid.tiles.buffer).toBeInstanceOf(SharedArrayBuffer);
    bytes[0] = 9;
    expect(grid.tiles[0]).toBe(0);
    expectError(() => rawGrid(3, 2, new Uint8Array(5), LIMITS), MapInputError, "5 bytes", "6");
    expect(expectError(() => rawGrid(0, 2, new Uint8Array(0), LIMITS), MapInputError, "width").field).toBe(
      "width",
    );
    expectError(() => rawGrid(2, 1.5, new Uint8Array(3), LIMITS), MapInputError, "height");
    expect(
      expectError(
        () => rawGrid(5000, 1, new Uint8Array(5000), LIMITS),
        MapLimitError,
        "raw: width 5000 exceeds the limit 4096",
      ).field,
    )
      .toBe("width");
  });

  test("round trip of random printable grids", () => {
    const r = rng(7);
    for (let i = 0; i < 20; i++) {
      const width = 1 + Math.floor(r() * 40), height = 1 + Math.floor(r() * 40);
      const tiles = new Uint8Array(width * height);
      for (let t = 0; t < tiles.length; t++) tiles[t] = 0x20 + Math.floor(r() * 95);
      const text = formatMovingAi({ width, height, tiles });
      const parsed = parseMovingAi(text, LIMITS);
      expect([parsed.width, parsed.height]).toEqual([width, height]);
      expect(Array.from(parsed.tiles)).toEqual(Array.from(tiles));
      expect(formatMovingAi(parsed)).toBe(text);
    }
  });

  test("formatMovingAi refuses non-printable codes", () => {
    expectError(
      () => formatMovingAi({ width: 2, height: 1, tiles: new Uint8Array([46, 0]) }),
      MapInputError,
      "(1, 0)",
    );
  });
});

describe("terrain tables", () => {
  const code = (ch: string) => ch.charCodeAt(0);

  test("Moving AI and raw defaults", () => {
    const table = movingAiTerrain();
    for (const ch of ".GS") {
      expect(table.impassable[code(ch)]).toBe(0);
      expect(table.cost[code(ch)]).toBe(1);
    }
    for (const ch of "@OTW#x ") expect(table.impassable[code(ch)]).toBe(1);
    let passable = 0;
    for (let c = 0; c < 256; c++) if (!table.impassable[c]) passable++;
    expect(passable).toBe(3);
    const raw = rawTerrain();
    expect(raw.impassable[0]).toBe(0);
    expect(raw.cost[0]).toBe(1);
    for (let c = 1; c < 256; c++) expect(raw.impassable[c]).toBe(1);
    expect(table.cost.buffer).toBeInstanceOf(SharedArrayBuffer);
  });

  test("withOverrides applies entries in order and leaves the base alone", () => {
    const base = movingAiTerrain();
    const table = withOverrides(base, [
      { code: code("W"), cost: 3, impassable: false, road: false },
      { code: code("."), cost: 1, impassable: false, road: true },
      { code: code("W"), cost: 2, impassable: false, road: false },
      { code: code("S"), cost: 0, impassable: true, road: false },
    ]);
    expect(table.cost[code("W")]).toBe(2);
    expect(table.impassable[code("W")]).toBe(0);
    expect(table.road[code(".")]).toBe(1);
    expect(table.impassable[code("S")]).toBe(1);
    expect(base.impassable[code("W")]).toBe(1);
    expect(base.road[code(".")]).toBe(0);
    expect(base.impassable[code("S")]).toBe(0);
  });

  test("withOverrides validation names the entry and field", () => {
    const base = rawTerrain();
    const good = { code: 1, cost: 1, impassable: false, road: false };
    const e = expectError(
      () => withOverrides(base, [good, good, { code: 2, cost: 0.5, impassable: false, road: false }]),
      MapInputError,
      "terrain[2].cost: must be >= 1, got 0.5",
    );
    expect(e.field).toBe("terrain[2].cost");
    expectError(() => withOverrides(base, [{ ...good, cost: NaN }]), MapInputError, "terrain[0].cost");
    expectError(() => withOverrides(base, [{ ...good, cost: Infinity }]), MapInputError, "terrain[0].cost");
    expect(
      expectError(() => withOverrides(base, [{ ...good, code: 256 }]), MapInputError, "terrain[0].code")
        .field,
    )
      .toBe("terrain[0].code");
    expectError(() => withOverrides(base, [good, { ...good, code: -1 }]), MapInputError, "terrain[1].code");
    expectError(() => withOverrides(base, [{ ...good, code: 1.5 }]), MapInputError, "terrain[0].code");
    // An impassable entry's cost is ignored.
    expect(withOverrides(base, [{ code: 3, cost: 0, impassable: true, road: false }]).impassable[3]).toBe(1);
  });

  test("terrainKey depends on content only", () => {
    const a = movingAiTerrain();
    const b = withOverrides(rawTerrain(), [
      { code: 0, cost: 1, impassable: true, road: false },
      { code: code("."), cost: 1, impassable: false, road: false },
      { code: code("G"), cost: 1, impassable: false, road: false },
      { code: code("S"), cost: 1, impassable: false, road: false },
    ]);
    expect(terrainKey(a)).toBe(terrainKey(b));
    expect(terrainKey(a)).toMatch(/^[0-9a-f]{16}$/);
    const keys = new Set([
      terrainKey(a),
      terrainKey(withOverrides(a, [{ code: code("S"), cost: 3, impassable: false, road: false }])),
      terrainKey(withOverrides(a, [{ code: code("S"), cost: 1, impassable: false, road: true }])),
      terrainKey(withOverrides(a, [{ code: code("S"), cost: 1, impassable: true, road: false }])),
      terrainKey(rawTerrain()),
    ]);
    expect(keys.size).toBe(5);
    // Cost of an impassable code does not count.
    const t1 = withOverrides(a, [{ code: 7, cost: 5, impassable: true, road: false }]);
    expect(terrainKey(t1)).toBe(terrainKey(a));
  });

  test("terrainEntries lists passable and road codes", () => {
    expect(terrainEntries(movingAiTerrain())).toEqual([
      { code: code("."), cost: 1, impassable: false, road: false },
      { code: code("G"), cost: 1, impassable: false, road: false },
      { code: code("S"), cost: 1, impassable: false, road: false },
    ]);
    const table = withOverrides(rawTerrain(), [
      { code: 9, cost: 2.5, impassable: false, road: true },
      { code: 4, cost: 1, impassable: true, road: true },
    ]);
    expect(terrainEntries(table)).toEqual([
      { code: 0, cost: 1, impassable: false, road: false },
      { code: 4, cost: 1, impassable: true, road: true },
      { code: 9, cost: 2.5, impassable: false, road: true },
    ]);
    // The entries rebuild the same table from an all-impassable start.
    const allBlocked = withOverrides(rawTerrain(), [{ code: 0, cost: 1, impassable: true, road: false }]);
    expect(terrainKey(withOverrides(allBlocked, terrainEntries(table)))).toBe(terrainKey(table));
  });
});

describe("mapVersion", () => {
  test("same content, same version; any change, another version", () => {
    const text = readMap("arena.map");
    const a = parseMovingAi(text, LIMITS);
    const b = parseMovingAi(text, LIMITS);
    const terrain = movingAiTerrain();
    const va = mapVersion(a.tiles, a.width, a.height, terrain);
    expect(va).toMatch(/^[0-9a-f]{16}$/);
    expect(mapVersion(b.tiles, b.width, b.height, movingAiTerrain())).toBe(va);
    const versions = new Set([va]);
    for (const t of [0, 1000, a.tiles.length - 1]) {
      const copy = a.tiles.slice();
      copy[t] = copy[t] === 46 ? 64 : 46;
      versions.add(mapVersion(copy, a.width, a.height, terrain));
    }
    versions.add(
      mapVersion(
        a.tiles,
        a.width,
        a.height,
        withOverrides(terrain, [{ code: 84, cost: 2, impassable: false, road: false }]),
      ),
    );
    expect(versions.size).toBe(5);
    const tiles = new Uint8Array(6);
    expect(mapVersion(tiles, 2, 3, terrain)).not.toBe(mapVersion(tiles, 3, 2, terrain));
  });
});

// ---------------------------------------------------------------------------------------------------------
// Clearance

/** Brute-force clearance: nearest blocked tile square or outside tile, capped, rounded to float32. */
function bruteClearance(
  width: number,
  height: number,
  blocked: (x: number, y: number) => boolean,
): Float32Array {
  const f = (k: number) => Math.max(0, Math.abs(k) - 0.5);
  const blockedTiles: [number, number][] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) if (blocked(x, y)) blockedTiles.push([x, y]);
  }
  const out = new Float32Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (blocked(x, y)) continue;
      // The nearest outside tile is straight across the nearest border.
      let best = Math.min(f(x + 1), f(width - x), f(y + 1), f(height - y));
      for (const [bx, by] of blockedTiles) best = Math.min(best, Math.hypot(f(bx - x), f(by - y)));
      out[y * width + x] = Math.min(best, MAX_CLEARANCE);
    }
  }
  return out;
}

/** A raw grid (code 0 open, 1 blocked) with blobs of obstacles. */
function randomRawGrid(r: () => number, width: number, height: number, density: number): Uint8Array {
  const tiles = new Uint8Array(width * height);
  const blobs = Math.floor(width * height * density / 6);
  for (let i = 0; i < blobs; i++) {
    const x0 = Math.floor(r() * width), y0 = Math.floor(r() * height);
    const w = 1 + Math.floor(r() * 3), h = 1 + Math.floor(r() * 3);
    for (let y = y0; y < Math.min(height, y0 + h); y++) {
      for (let x = x0; x < Math.min(width, x0 + w); x++) tiles[y * width + x] = 1;
    }
  }
  return tiles;
}

function layerOf(
  width: number,
  height: number,
  tiles: Uint8Array,
  terrain: TerrainTable = rawTerrain(),
): PassLayer {
  return buildPassLayer({ width, height, tiles }, terrain);
}

describe("buildPassLayer", () => {
  test("clearance equals the brute force on random maps", () => {
    const r = rng(42);
    const sizes = [[1, 1], [1, 7], [9, 1], [2, 2], [13, 11], [40, 40], [45, 38], [70, 20]];
    for (let i = 0; i < 30; i++) {
      const [width, height] = i < sizes.length
        ? sizes[i]
        : [1 + Math.floor(r() * 60), 1 + Math.floor(r() * 60)];
      const density = [0, 0.02, 0.1, 0.3, 0.6][i % 5];
      const tiles = randomRawGrid(r, width, height, density);
      const layer = layerOf(width, height, tiles);
      const expected = bruteClearance(width, height, (x, y) => tiles[y * width + x] !== 0);
      expect(Array.from(clearanceValues(layer)), `map ${i} (${width}x${height})`).toEqual(
        Array.from(expected),
      );
    }
  });

  test("cap, border and blocked values", () => {
    const layer = layerOf(50, 50, new Uint8Array(2500));
    expect(tileClearance(layer, 0)).toBe(0.5);
    expect(tileClearance(layer, 25 * 50 + 25)).toBe(MAX_CLEARANCE);
    expect(tileClearance(layer, 2 * 50 + 1)).toBe(1.5);
    const tiles = new Uint8Array(2500);
    tiles[10 * 50 + 10] = 1;
    const one = layerOf(50, 50, tiles);
    expect(tileClearance(one, 10 * 50 + 10)).toBe(0);
    expect(one.tileCost[10 * 50 + 10]).toBe(0);
    expect(tileClearance(one, 11 * 50 + 11)).toBe(Math.fround(Math.SQRT1_2));
    expect(tileClearance(one, 10 * 50 + 12)).toBe(1.5);
  });

  test("clearance equals the brute force on a crop of a shared map", () => {
    const grid = parseMovingAi(readMap("AR0011SR.map"), LIMITS);
    const x0 = 200, y0 = 150, w = 72, h = 64;
    const crop = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) crop[y * w + x] = grid.tiles[(y0 + y) * grid.width + x0 + x];
    }
    const terrain = movingAiTerrain();
    const layer = layerOf(w, h, crop, terrain);
    const expected = bruteClearance(w, h, (x, y) => terrain.impassable[crop[y * w + x]] !== 0);
    let blocked = 0;
    for (const c of crop) if (terrain.impassable[c]) blocked++;
    expect(blocked).toBeGreaterThan(0);
    expect(Array.from(clearanceValues(layer))).toEqual(Array.from(expected));
  });

  test("tileCost, road and minCost follow the terrain table", () => {
    const terrain = withOverrides(rawTerrain(), [
      { code: 2, cost: 3, impassable: false, road: false },
      { code: 3, cost: 1.5, impassable: false, road: true },
    ]);
    const layer = layerOf(4, 1, new Uint8Array([0, 1, 2, 3]), terrain);
    expect(Array.from(layer.tileCost)).toEqual([1, 0, 3, 1.5]);
    expect(Array.from(layer.road)).toEqual([0, 0, 0, 1]);
    expect(layer.minCost).toBe(1);
    const expensive = withOverrides(terrain, [{ code: 0, cost: 2, impassable: false, road: false }]);
    expect(layerOf(4, 1, new Uint8Array([0, 1, 2, 3]), expensive).minCost).toBe(1.5);
    expect(layer.tileCost.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(layer.clearanceCode.buffer).toBeInstanceOf(SharedArrayBuffer);
  });
});

describe("updatePassLayer", () => {
  test("matches a full rebuild after random patches and leaves the old layer unchanged", () => {
    const r = rng(5);
    const width = 96, height = 80;
    const tiles = randomRawGrid(r, width, height, 0.15);
    let layer = layerOf(width, height, tiles);
    for (let step = 0; step < 40; step++) {
      const x0 = Math.floor(r() * width), y0 = Math.floor(r() * height);
      const x1 = Math.min(width, x0 + 1 + Math.floor(r() * 8)),
        y1 = Math.min(height, y0 + 1 + Math.floor(r() * 8));
      const value = r() < 0.5 ? 1 : 0;
      for (let y = y0; y < y1; y++) tiles.fill(value, y * width + x0, y * width + x1);
      const before = layer.clearanceCode.slice();
      const { layer: next, changed } = updatePassLayer(
        layer,
        { width, height, tiles },
        rawTerrain(),
        x0,
        y0,
        x1,
        y1,
      );
      const full = layerOf(width, height, tiles);
      expect(Array.from(next.clearanceCode)).toEqual(Array.from(full.clearanceCode));
      expect(Array.from(next.tileCost)).toEqual(Array.from(full.tileCost));
      expect(Array.from(layer.clearanceCode)).toEqual(Array.from(before));
      expect(next.clearanceCode.buffer).not.toBe(layer.clearanceCode.buffer);
      // Every differing tile lies in the reported window.
      for (let t = 0; t < width * height; t++) {
        if (tileClearance(next, t) !== tileClearance(layer, t) || next.tileCost[t] !== layer.tileCost[t]) {
          const x = t % width, y = Math.floor(t / width);
          expect(x >= changed.x0 && x < changed.x1 && y >= changed.y0 && y < changed.y1).toBe(true);
        }
      }
      layer = next;
    }
  });
});

describe("clearanceClass", () => {
  test("canonical values", () => {
    expect(clearanceClass(0)).toBe(0.5);
    expect(clearanceClass(0.3)).toBe(0.5);
    expect(clearanceClass(0.5)).toBe(0.5);
    expect(clearanceClass(0.6)).toBe(Math.fround(Math.SQRT1_2));
    expect(clearanceClass(0.75)).toBe(1.5);
    expect(clearanceClass(1.5)).toBe(1.5);
    expect(clearanceClass(1.51)).toBe(Math.fround(Math.hypot(0.5, 1.5)));
    expect(clearanceClass(MAX_CLEARANCE)).toBe(MAX_CLEARANCE);
    expect(clearanceClass(MAX_CLEARANCE + 0.1)).toBe(Infinity);
  });

  test("clearance >= class selects exactly the tiles whose true clearance is >= radius", () => {
    const r = rng(11);
    const width = 60, height = 50;
    const tiles = randomRawGrid(r, width, height, 0.08);
    const layer = layerOf(width, height, tiles);
    // True (float64, uncapped-by-rounding) clearances from the same brute force before float32 rounding.
    const f = (k: number) => Math.max(0, Math.abs(k) - 0.5);
    const exact = new Float64Array(width * height);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (tiles[y * width + x]) continue;
        let best = Math.min(f(x + 1), f(width - x), f(y + 1), f(height - y));
        for (let by = 0; by < height; by++) {
          for (let bx = 0; bx < width; bx++) {
            if (tiles[by * width + bx]) best = Math.min(best, Math.hypot(f(bx - x), f(by - y)));
          }
        }
        exact[y * width + x] = best;
      }
    }
    for (let i = 0; i < 200; i++) {
      const radius = 0.5 + r() * 8;
      const cls = clearanceClass(radius);
      expect(cls).toBeGreaterThanOrEqual(Math.fround(radius) - 1e-6);
      const byClass: number[] = [], byRadius: number[] = [];
      for (let t = 0; t < exact.length; t++) {
        if (tiles[t]) continue;
        if (tileClearance(layer, t) >= cls) byClass.push(t);
        if (exact[t] >= radius) byRadius.push(t);
      }
      expect(byClass, `radius ${radius}`).toEqual(byRadius);
    }
  });
});

describe("road flags only where the terrain has a road code", () => {
  const code = (c: string) => c.charCodeAt(0);
  const text = ["type octile", "height 3", "width 4", "map", "..W.", ".@..", "...."].join("\n");
  const limits = { maxWidth: 64, maxHeight: 64, maxTiles: 4096 };

  test("a roadless table's layer holds one zero road byte; a road table's a byte a tile; edits keep both", () => {
    const grid = parseMovingAi(text, limits);
    const plain = buildPassLayer(grid, movingAiTerrain());
    expect(plain.road.length).toBe(1);
    expect(plain.road[0]).toBe(0);
    const roads = withOverrides(movingAiTerrain(), [{
      code: code("W"),
      cost: 1,
      impassable: false,
      road: true,
    }]);
    const layer = buildPassLayer(grid, roads);
    expect(layer.road.length).toBe(12);
    expect(Array.from(layer.road).map((r, t) => r === 1 ? t : -1).filter((t) => t >= 0)).toEqual([2]);
    // An edit turns tile 5 ('@') into road: flags follow on the road layer, the plain one stays one byte.
    grid.tiles[5] = code("W");
    const edited = updatePassLayer(layer, grid, roads, 1, 1, 2, 2).layer;
    expect(Array.from(edited.road).map((r, t) => r === 1 ? t : -1).filter((t) => t >= 0)).toEqual([2, 5]);
    expect(updatePassLayer(plain, grid, movingAiTerrain(), 1, 1, 2, 2).layer.road.length).toBe(1);
    // A layer updated under another table's road codes is refused, naming why.
    expect(() => updatePassLayer(plain, grid, roads, 1, 1, 2, 2)).toThrow(/road codes differ/);
  });
});
