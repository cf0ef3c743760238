import { describe, expect, test } from "vitest";
import { regionIndex } from "../helpers/regionIndex.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type PassLayer, tileClearance } from "../../src/maps/grid.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, rawTerrain } from "../../src/maps/terrain.ts";
import { buildPassLayer, updatePassLayer } from "../../src/maps/layer.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { updateRegionTable } from "../../src/maps/regionUpdate.ts";
import {
  componentOfTile,
  nearestOpenTileInComponent,
  type RegionTable,
  sameComponent,
} from "../../src/maps/regions.ts";
import { rng } from "../helpers/rng.ts";

const DATA = resolve(process.cwd(), "../shared/data/movingai");
const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };
const SHARED_MAPS = [
  "arena.map",
  "AR0011SR.map",
  "Aftershock.map",
  "maze512-1-0.map",
  "8room_000.map",
  "random512-10-0.map",
  "Berlin_0_256.map",
];

/**
 * Reference labelling, written independently: BFS over the literal movement rule (8 neighbours, a diagonal
 * step needs both orthogonal neighbours open). Returns a label per tile (-1 closed) and the label count.
 */
function referenceLabels(layer: PassLayer, cls: number): { labels: Int32Array; count: number } {
  const { width, height } = layer;
  const open = (x: number, y: number) =>
    x >= 0 && y >= 0 && x < width && y < height && layer.tileCost[y * width + x] > 0 &&
    tileClearance(layer, y * width + x) >= cls;
  const labels = new Int32Array(width * height).fill(-1);
  let count = 0;
  const queue: number[] = [];
  for (let start = 0; start < labels.length; start++) {
    if (labels[start] !== -1 || !open(start % width, Math.floor(start / width))) continue;
    labels[start] = count;
    queue.length = 0;
    queue.push(start);
    for (let head = 0; head < queue.length; head++) {
      const t = queue[head];
      const x = t % width, y = Math.floor(t / width);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if ((dx === 0 && dy === 0) || !open(x + dx, y + dy)) continue;
          if (dx !== 0 && dy !== 0 && !(open(x + dx, y) && open(x, y + dy))) continue;
          const u = (y + dy) * width + x + dx;
          if (labels[u] === -1) {
            labels[u] = count;
            queue.push(u);
          }
        }
      }
    }
    count++;
  }
  return { labels, count };
}

/** Checks that the table's components induce the same partition as the reference labels. */
function expectSamePartition(table: RegionTable, labels: Int32Array, count: number): void {
  expect(table.componentCount).toBe(count);
  const toRef = new Int32Array(table.componentCount).fill(-1);
  const fromRef = new Int32Array(count).fill(-1);
  let mismatches = 0;
  for (let t = 0; t < labels.length; t++) {
    const c = componentOfTile(table, t);
    const ref = labels[t];
    if ((c < 0) !== (ref < 0)) {
      mismatches++;
      continue;
    }
    if (c < 0) continue;
    if (toRef[c] === -1) toRef[c] = ref;
    if (fromRef[ref] === -1) fromRef[ref] = c;
    if (toRef[c] !== ref || fromRef[ref] !== c) mismatches++;
  }
  expect(mismatches).toBe(0);
}

/** Structural invariants of a table. */
function checkInvariants(table: RegionTable): void {
  const { width, sectorSize, sectorsX } = table;
  const regionOf = regionIndex(table);
  const sectorOfTile = (t: number) =>
    Math.floor(Math.floor(t / width) / sectorSize) * sectorsX + Math.floor((t % width) / sectorSize);
  const tileCount = new Int32Array(table.regionCount);
  let open = 0;
  for (let t = 0; t < regionOf.length; t++) {
    const r = regionOf[t];
    if (r < 0) continue;
    open++;
    tileCount[r]++;
    expect(table.regionSector[r]).toBe(sectorOfTile(t));
  }
  expect(open).toBe(table.openTileCount);
  expect(Array.from(tileCount)).toEqual(Array.from(table.regionTileCount));
  for (let r = 0; r < table.regionCount; r++) {
    expect(regionOf[table.regionTile[r]]).toBe(r);
    const s = table.regionSector[r];
    expect(r >= table.sectorRegionStart[s] && r < table.sectorRegionStart[s + 1]).toBe(true);
  }
  // Edges are symmetric, sorted, and carry entrances of their pair.
  for (let r = 0; r < table.regionCount; r++) {
    for (let e = table.edgeStart[r]; e < table.edgeStart[r + 1]; e++) {
      const s = table.edgeTarget[e];
      if (e > table.edgeStart[r]) expect(table.edgeTarget[e - 1]).toBeLessThan(s);
      let back = 0;
      for (let f = table.edgeStart[s]; f < table.edgeStart[s + 1]; f++) if (table.edgeTarget[f] === r) back++;
      expect(back).toBe(1);
      expect(table.edgeEntranceCount[e]).toBeGreaterThan(0);
      for (
        let k = table.edgeEntranceStart[e];
        k < table.edgeEntranceStart[e] + table.edgeEntranceCount[e];
        k++
      ) {
        expect(table.entranceRegionA[k]).toBe(Math.min(r, s));
        expect(table.entranceRegionB[k]).toBe(Math.max(r, s));
      }
    }
  }
  for (let k = 0; k < table.entranceCount; k++) {
    const a = table.entranceTileA[k], b = table.entranceTileB[k];
    expect(b - a === 1 || b - a === width).toBe(true);
    expect(regionOf[a]).toBe(table.entranceRegionA[k]);
    expect(regionOf[b]).toBe(table.entranceRegionB[k]);
    expect(sectorOfTile(a)).not.toBe(sectorOfTile(b));
    expect(table.entranceLength[k]).toBeGreaterThan(0);
  }
}

function loadLayer(name: string): PassLayer {
  const grid = parseMovingAi(readFileSync(resolve(DATA, name), "latin1"), LIMITS);
  return buildPassLayer(grid, movingAiTerrain());
}

describe("region tables on the shared maps agree with a BFS labelling", () => {
  for (const name of SHARED_MAPS) {
    test(name, () => {
      const layer = loadLayer(name);
      for (const cls of [0.5, 1.5]) {
        const table = buildRegionTable(layer, cls);
        const { labels, count } = referenceLabels(layer, cls);
        expectSamePartition(table, labels, count);
        const r = rng(name.length * 100 + cls * 10);
        const n = labels.length;
        let sameSeen = 0;
        for (let i = 0; i < 3000; i++) {
          const a = Math.floor(r() * n), b = Math.floor(r() * n);
          const expected = labels[a] >= 0 && labels[a] === labels[b];
          if (expected) sameSeen++;
          expect(sameComponent(table, a, b)).toBe(expected);
        }
        if (cls === 0.5) expect(sameSeen).toBeGreaterThan(0);
        if (name === "arena.map" || name === "Berlin_0_256.map") checkInvariants(table);
        expect(table.regionLocal.buffer).toBeInstanceOf(SharedArrayBuffer);
        expect(table.regionLocal).toBeInstanceOf(Uint8Array);
        expect(table.edgeTarget.buffer).toBeInstanceOf(SharedArrayBuffer);
      }
    });
  }
});

/** Builds a raw layer from rows of '#' (blocked) and '.' (open). */
function layerFromRows(rows: string[]): PassLayer {
  const width = rows[0].length, height = rows.length;
  const tiles = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      tiles[y * width + x] = rows[y][x] === "#" ? 1 : 0;
    }
  }
  return buildPassLayer({ width, height, tiles }, rawTerrain());
}

describe("clearance classes and hand-made maps", () => {
  test("a one-tile gap joins two rooms for class 0.5 but not for class 1.5", () => {
    const rows = [
      "#################",
      "#......#........#",
      "#......#........#",
      "#......#........#",
      "#...............#",
      "#......#........#",
      "#......#........#",
      "#################",
    ];
    const layer = layerFromRows(rows);
    const left = 2 * 17 + 3, right = 3 * 17 + 12;
    for (const size of [4, 16]) {
      const small = buildRegionTable(layer, 0.5, size);
      expect(sameComponent(small, left, right)).toBe(true);
      expect(small.componentCount).toBe(1);
      const large = buildRegionTable(layer, 1.5, size);
      expect(componentOfTile(large, left)).toBeGreaterThanOrEqual(0);
      expect(componentOfTile(large, right)).toBeGreaterThanOrEqual(0);
      expect(sameComponent(large, left, right)).toBe(false);
      expect(large.componentCount).toBe(2);
      expect(componentOfTile(large, 4 * 17 + 7)).toBe(-1);
      checkInvariants(small);
      checkInvariants(large);
    }
  });

  test("degenerate maps: all blocked, single tile, class above every clearance", () => {
    const blocked = layerFromRows(["###", "###"]);
    const none = buildRegionTable(blocked, 0.5);
    expect([none.regionCount, none.componentCount, none.openTileCount, none.entranceCount]).toEqual([
      0,
      0,
      0,
      0,
    ]);
    expect(sameComponent(none, 0, 0)).toBe(false);
    expect(componentOfTile(none, 4)).toBe(-1);
    expect(nearestOpenTileInComponent(none, blocked, 0, 1, 1)).toBe(-1);
    const single = buildRegionTable(layerFromRows(["."]), 0.5);
    expect([single.regionCount, single.componentCount]).toEqual([1, 1]);
    expect(sameComponent(single, 0, 0)).toBe(true);
    const open = layerFromRows(Array(5).fill("....."));
    expect(buildRegionTable(open, Infinity).regionCount).toBe(0);
    expect(buildRegionTable(open, 2.5).openTileCount).toBe(1);
  });

  test("diagonal contact without an orthogonal link does not connect (no corner cutting)", () => {
    const layer = layerFromRows([
      "..#",
      "..#",
      "##.",
    ]);
    const table = buildRegionTable(layer, 0.5, 2);
    expect(sameComponent(table, 0, 8)).toBe(false);
    expect(sameComponent(table, 0, 4)).toBe(true);
    expect(table.componentCount).toBe(2);
  });

  test("regions stay inside sectors and are linked by entrances", () => {
    // An open 8x8 map with sector size 4: 4 sectors, 4 regions, one entrance per shared border.
    const layer = layerFromRows(Array(8).fill("........"));
    const table = buildRegionTable(layer, 0.5, 4);
    expect(table.regionCount).toBe(4);
    expect(table.componentCount).toBe(1);
    expect(table.entranceCount).toBe(4);
    for (let k = 0; k < 4; k++) expect(table.entranceLength[k]).toBe(4);
    // The representative crossing pair sits at the run's middle: rows/columns 0..3 -> index 1.
    expect(table.entranceTileA[0]).toBe(1 * 8 + 3);
    expect(table.entranceTileB[0]).toBe(1 * 8 + 4);
    checkInvariants(table);
    // A wall splitting a border into two runs gives two entrances for the same region pair.
    const split = layerFromRows([
      "........",
      "........",
      "...##...",
      "........",
    ]);
    const splitTable = buildRegionTable(split, 0.5, 4);
    expect(splitTable.regionCount).toBe(2);
    expect(splitTable.entranceCount).toBe(2);
    expect(splitTable.edgeEntranceCount[0]).toBe(2);
    checkInvariants(splitTable);
  });
});

describe("nearestOpenTileInComponent", () => {
  test("matches a brute-force search", () => {
    const layer = loadLayer("Berlin_0_256.map");
    const table = buildRegionTable(layer, 0.5);
    const r = rng(3);
    const { width, height } = layer;
    for (let i = 0; i < 40; i++) {
      const start = table.regionTile[Math.floor(r() * table.regionCount)];
      const component = componentOfTile(table, start);
      const gx = r() * (width + 20) - 10, gy = r() * (height + 20) - 10;
      let best = -1, bestSq = Infinity;
      for (let t = 0; t < width * height; t++) {
        if (componentOfTile(table, t) !== component) continue;
        const dx = (t % width) + 0.5 - gx, dy = Math.floor(t / width) + 0.5 - gy;
        if (dx * dx + dy * dy < bestSq) {
          bestSq = dx * dx + dy * dy;
          best = t;
        }
      }
      expect(nearestOpenTileInComponent(table, layer, component, gx, gy)).toBe(best);
    }
    expect(nearestOpenTileInComponent(table, layer, table.componentCount + 5, 3, 3)).toBe(-1);
  });
});

describe("incremental updates", () => {
  test("random patches on a random 128x128 map: incremental equals full rebuild", () => {
    const r = rng(99);
    const width = 128, height = 128;
    const tiles = new Uint8Array(width * height);
    for (let i = 0; i < 900; i++) {
      const x0 = Math.floor(r() * width), y0 = Math.floor(r() * height);
      const w = 1 + Math.floor(r() * 4), h = 1 + Math.floor(r() * 4);
      for (let y = y0; y < Math.min(height, y0 + h); y++) {
        tiles.fill(1, y * width + x0, y * width + Math.min(width, x0 + w));
      }
    }
    const terrain = rawTerrain();
    let layer = buildPassLayer({ width, height, tiles }, terrain);
    const classes = [0.5, 1.5, Math.hypot(1.5, 1.5)];
    let tables = classes.map((cls) => buildRegionTable(layer, cls, 16));
    let componentChanges = 0;
    for (let step = 0; step < 60; step++) {
      const x0 = Math.floor(r() * width), y0 = Math.floor(r() * height);
      const x1 = Math.min(width, x0 + 1 + Math.floor(r() * (step % 3 === 0 ? 24 : 6)));
      const y1 = Math.min(height, y0 + 1 + Math.floor(r() * 6));
      const value = r() < 0.6 ? 1 : 0;
      for (let y = y0; y < y1; y++) tiles.fill(value, y * width + x0, y * width + x1);
      const update = updatePassLayer(layer, { width, height, tiles }, terrain, x0, y0, x1, y1);
      const full = buildPassLayer({ width, height, tiles }, terrain);
      expect(Array.from(update.layer.clearanceCode)).toEqual(Array.from(full.clearanceCode));
      const next = tables.map((old, i) => {
        const snapshot = old.regionLocal.slice();
        const oldComponents = old.componentCount;
        // Alternate the two documented ways of naming the window.
        const w = step % 2 === 0 ? { x0, y0, x1, y1 } : update.changed;
        const table = updateRegionTable(old, update.layer, w.x0, w.y0, w.x1, w.y1);
        expect(Array.from(old.regionLocal)).toEqual(Array.from(snapshot));
        const rebuilt = buildRegionTable(full, classes[i], 16);
        const { labels, count } = referenceLabels(full, classes[i]);
        expectSamePartition(table, labels, count);
        expect(table.regionCount).toBe(rebuilt.regionCount);
        expect(Array.from(table.regionLocal)).toEqual(Array.from(rebuilt.regionLocal));
        expect(Array.from(regionIndex(table))).toEqual(Array.from(regionIndex(rebuilt)));
        expect(Array.from(table.edgeTarget)).toEqual(Array.from(rebuilt.edgeTarget));
        expect(Array.from(table.entranceTileA)).toEqual(Array.from(rebuilt.entranceTileA));
        if (table.componentCount !== oldComponents) componentChanges++;
        return table;
      });
      layer = update.layer;
      tables = next;
    }
    // The patches really changed connectivity along the way (so the comparison had something to check).
    expect(componentChanges).toBeGreaterThan(0);
    checkInvariants(tables[0]);
  }, 60_000);
});
