/**
 * The clearance pass (maps/layer.ts) equals, bit for bit, the lower-envelope pass it replaced
 * (test/helpers/clearanceReference.ts): on the shared Moving AI maps, on random maps of several densities and
 * shapes, built whole, in bands of rows (as the builder workers do) and by edits (updatePassLayer's windows).
 */
import { describe, expect, test } from "vitest";
import { type PassLayer, tileClearance, type TileGrid } from "../../src/maps/grid.ts";
import {
  allocPassLayer,
  buildPassLayer,
  fillLayerClearance,
  fillLayerCosts,
  updatePassLayer,
} from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { movingAiTerrain, rawTerrain } from "../../src/maps/terrain.ts";
import { type FloatClearanceLayer, referenceFillClearance } from "../helpers/clearanceReference.ts";
import { mapNames, mapText } from "../helpers/movingai.ts";
import { rng } from "../helpers/rng.ts";

/** Tiles whose clearance differs from the reference pass over the same costs (0 when identical). */
function mismatches(layer: PassLayer): number {
  const ref: FloatClearanceLayer = { ...layer, clearance: new Float32Array(layer.clearanceCode.length) };
  referenceFillClearance(ref, { x0: 0, y0: 0, x1: layer.width, y1: layer.height });
  let wrong = 0;
  for (let t = 0; t < ref.clearance.length; t++) {
    if (!Object.is(ref.clearance[t], tileClearance(layer, t))) wrong++;
  }
  return wrong;
}

/** A random raw map: blocked tiles at `rate`, plus a few blocked rectangles. */
function randomGrid(width: number, height: number, rate: number, seed: number): TileGrid {
  const rand = rng(seed);
  const tiles = new Uint8Array(width * height);
  for (let t = 0; t < tiles.length; t++) tiles[t] = rand() < rate ? 1 : 0;
  for (let k = 0; k < 4; k++) {
    const x0 = Math.floor(rand() * width), y0 = Math.floor(rand() * height);
    for (let y = y0; y < Math.min(height, y0 + 5); y++) {
      for (let x = x0; x < Math.min(width, x0 + 9); x++) tiles[y * width + x] = 1;
    }
  }
  return { width, height, tiles };
}

describe("clearance pass against the lower-envelope reference", () => {
  test("the shared Moving AI maps, built whole and in bands of rows", () => {
    const terrain = movingAiTerrain();
    for (const name of mapNames()) {
      const grid = parseMovingAi(mapText(name), { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 });
      const whole = buildPassLayer(grid, terrain);
      expect(mismatches(whole), name).toBe(0);
      const banded = allocPassLayer(grid, terrain);
      fillLayerCosts(banded, grid, terrain, 0, grid.height);
      const cut = [0, 7, Math.floor(grid.height / 2), grid.height];
      for (let k = 0; k + 1 < cut.length; k++) fillLayerClearance(banded, cut[k], cut[k + 1]);
      expect(banded.clearanceCode, name).toEqual(whole.clearanceCode);
    }
  });

  test("random maps: empty, sparse, dense, thin and wide", () => {
    const terrain = rawTerrain();
    const cases: [number, number, number][] = [
      [40, 30, 0],
      [3, 70, 0.05],
      [90, 2, 0.02],
      [64, 64, 0.01],
      [
        120,
        80,
        0.15,
      ],
      [77, 51, 0.5],
      [1, 1, 0],
      [33, 1, 0.1],
    ];
    for (const [i, [w, h, rate]] of cases.entries()) {
      expect(mismatches(buildPassLayer(randomGrid(w, h, rate, 11 + i), terrain)), `${w}x${h} ${rate}`).toBe(
        0,
      );
    }
  });

  test("edits: updatePassLayer's windows equal a pass over the whole edited map", () => {
    const terrain = rawTerrain();
    const grid = randomGrid(150, 110, 0.03, 5);
    let layer = buildPassLayer(grid, terrain);
    const rand = rng(9);
    for (let k = 0; k < 12; k++) {
      const x0 = Math.floor(rand() * 150) - 5, y0 = Math.floor(rand() * 110) - 5;
      const x1 = x0 + 1 + Math.floor(rand() * 30), y1 = y0 + 1 + Math.floor(rand() * 30);
      const value = k % 2;
      for (let y = Math.max(0, y0); y < Math.min(110, y1); y++) {
        for (let x = Math.max(0, x0); x < Math.min(150, x1); x++) grid.tiles[y * 150 + x] = value;
      }
      layer = updatePassLayer(layer, grid, terrain, x0, y0, x1, y1).layer;
      expect(mismatches(layer), `edit ${k}`).toBe(0);
    }
  });
});
