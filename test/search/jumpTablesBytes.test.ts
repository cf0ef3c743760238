/**
 * The one-byte jump tables decode to exactly the distances of a plain Int32 sweep over a separate open mask (the
 * tables before they were compacted), cell by cell, blocked cells included, on the shared Moving AI maps for both
 * built-in clearance classes and on an open field whose runs are several bytes long; and the east table's
 * BLOCKED entries are exactly the mask's closed cells (the open test that replaced the mask).
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, rawTerrain } from "../../src/maps/terrain.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import {
  BLOCKED,
  eastDistance,
  jumpDistance,
  LONG_RUN,
  openMask,
  straightJumps,
} from "../../src/search/jumpTables.ts";
import { mapNames, mapText } from "../helpers/movingai.ts";

/** The tables as they were built before compaction: one Int32 per cell, a straight sweep per line. */
function referenceTables(layer: PassLayer, r: number) {
  const open = openMask(layer, r);
  const pw = layer.width + 2, ph = layer.height + 2;
  const make = (step: number, side: number) => {
    const dist = new Int32Array(pw * ph);
    const lines: [number, number][] = []; // (last cell, count) of each scan line
    if (Math.abs(step) === 1) {
      for (let y = 1; y < ph - 1; y++) lines.push([step > 0 ? y * pw + pw - 2 : y * pw + 1, pw - 2]);
    } else {
      for (let x = 1; x < pw - 1; x++) lines.push([step > 0 ? (ph - 2) * pw + x : pw + x, ph - 2]);
    }
    for (const [last, count] of lines) {
      for (let i = 0, q = last; i < count; i++, q -= step) {
        const next = q + step;
        if (open[next] !== 1) dist[q] = 0;
        else if (
          (open[next + side] === 1 && open[q + side] === 0) ||
          (open[next - side] === 1 && open[q - side] === 0)
        ) dist[q] = 1;
        else dist[q] = dist[next] > 0 ? dist[next] + 1 : dist[next] - 1;
      }
    }
    return dist;
  };
  return { east: make(1, pw), west: make(-1, pw), south: make(pw, 1), north: make(-pw, 1), pw };
}

/**
 * Cells where the byte tables decode to something else than the reference, cells whose open test (east table
 * BLOCKED or not, padding included) differs from the mask, how many long entries, and how many blocked cells.
 */
function compare(
  layer: PassLayer,
  r: number,
): { wrong: number; long: number; openWrong: number; blocked: number } {
  const ref = referenceTables(layer, r);
  const got = straightJumps(layer, r);
  const mask = openMask(layer, r);
  let wrong = 0, long = 0, openWrong = 0, blocked = 0;
  const pw = ref.pw;
  for (let p = 0; p < mask.length; p++) if ((got.east[p] !== BLOCKED) !== (mask[p] === 1)) openWrong++;
  for (const [name, step] of [["east", 1], ["west", -1], ["south", pw], ["north", -pw]] as const) {
    const a = ref[name], b = got[name];
    for (let p = pw; p < a.length - pw; p++) {
      const x = p % pw;
      if (x === 0 || x === pw - 1) continue;
      if (b[p] === LONG_RUN) long++;
      if (name === "east" && mask[p] === 0) blocked++;
      const d = name === "east" ? eastDistance(b, p, pw) : jumpDistance(b, p, step);
      if (d !== a[p]) wrong++;
    }
  }
  return { wrong, long, openWrong, blocked };
}

describe("one-byte jump tables", () => {
  for (const name of mapNames()) {
    test(`${name}: every cell decodes to the Int32 sweep's distance (classes 0.5 and 1.5)`, () => {
      const grid = parseMovingAi(mapText(name), { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
      const layer = buildPassLayer(grid, movingAiTerrain());
      for (const r of [0.5, 1.5]) {
        const c = compare(layer, r);
        expect(c.blocked).toBeGreaterThan(0);
        expect(c.openWrong).toBe(0);
        expect(c.wrong).toBe(0);
      }
    });
  }

  test("an open field with pillars: runs of several bytes decode exactly", () => {
    const width = 700, height = 600;
    const tiles = new Uint8Array(width * height);
    for (let i = 0; i < 40; i++) tiles[((i * 7919) % height) * width + ((i * 104729) % width)] = 1;
    const layer = buildPassLayer({ width, height, tiles }, rawTerrain());
    const { wrong, long, openWrong } = compare(layer, 0.5);
    expect(long).toBeGreaterThan(100_000);
    expect(openWrong).toBe(0);
    expect(wrong).toBe(0);
  });
});
