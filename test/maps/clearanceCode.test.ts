/**
 * Clearance codes (maps/grid.ts): the one-byte code a pass layer stores per tile stands for exactly the float32
 * clearance the distance transform computes, and comparing codes is comparing values, for every class.
 */
import { describe, expect, test } from "vitest";
import {
  CLEARANCE_VALUES,
  clearanceCode,
  clearanceCodeAtLeast,
  MAX_CLEARANCE,
  tileClearance,
} from "../../src/maps/grid.ts";
import { buildPassLayer, clearanceClass, reachClearanceClass } from "../../src/maps/layer.ts";
import { rawTerrain } from "../../src/maps/terrain.ts";
import { rng } from "../helpers/rng.ts";
import { bruteClearance } from "../helpers/clearance.ts";

/**
 * Every clearance the transform can produce, independently of src/maps: sqrt(f(i)^2 + f(j)^2) for tile offsets
 * i, j >= 0 with f(k) = max(0, k - 0.5), capped at MAX_CLEARANCE, as float32 (0 for a blocked tile).
 */
function transformValues(): number[] {
  const f = (k: number) => Math.max(0, k - 0.5);
  const values = new Set<number>();
  for (let i = 0; i <= 20; i++) {
    for (let j = 0; j <= 20; j++) {
      values.add(Math.fround(Math.min(Math.sqrt(f(i) ** 2 + f(j) ** 2), MAX_CLEARANCE)));
    }
  }
  return [...values].sort((a, b) => a - b);
}

describe("clearance codes", () => {
  test("the table is every transform value, ascending, and fits a byte", () => {
    const values = transformValues();
    expect(Array.from(CLEARANCE_VALUES)).toEqual(values);
    expect(CLEARANCE_VALUES.length).toBe(101);
    expect(CLEARANCE_VALUES[0]).toBe(0);
    expect(CLEARANCE_VALUES[CLEARANCE_VALUES.length - 1]).toBe(MAX_CLEARANCE);
    for (let k = 1; k < CLEARANCE_VALUES.length; k++) {
      expect(CLEARANCE_VALUES[k]).toBeGreaterThan(CLEARANCE_VALUES[k - 1]);
    }
  });

  test("every transform value round-trips through its code", () => {
    for (const value of transformValues()) {
      const code = clearanceCode(value);
      expect(code).toBeLessThan(256);
      expect(CLEARANCE_VALUES[code]).toBe(value);
    }
    // Float64 forms of the same values (as clearanceClass computes them before rounding) find the same codes.
    expect(clearanceCode(Math.SQRT1_2)).toBe(clearanceCode(Math.fround(Math.SQRT1_2)));
    expect(clearanceCode(Math.hypot(0.5, 1.5))).toBe(clearanceCode(Math.fround(Math.hypot(0.5, 1.5))));
  });

  test("a value no tile can have is refused, naming the value", () => {
    for (const bad of [1, 4, 0.25, 17, -1, NaN, Infinity]) {
      expect(() => clearanceCode(bad)).toThrow(new RegExp(`${bad} is not a clearance value`));
    }
  });

  test("code >= clearanceCodeAtLeast(c) iff value >= c, for every class and other thresholds", () => {
    const thresholds: number[] = [...CLEARANCE_VALUES, 0, -1, -Infinity, Infinity, NaN, MAX_CLEARANCE + 1e-6];
    for (let r = 0; r <= MAX_CLEARANCE + 2; r += 1 / 64) {
      thresholds.push(r, clearanceClass(r), reachClearanceClass(r), Math.fround(r) + 1e-7);
    }
    const rand = rng(3);
    for (let i = 0; i < 500; i++) thresholds.push(rand() * 18 - 1);
    for (const c of thresholds) {
      const at = clearanceCodeAtLeast(c);
      for (let code = 0; code < CLEARANCE_VALUES.length; code++) {
        if ((code >= at) !== (CLEARANCE_VALUES[code] >= c)) {
          throw new Error(`threshold ${c}: code ${code} (value ${CLEARANCE_VALUES[code]}) vs code ${at}`);
        }
      }
    }
    // Every class the planners use is a table value (or Infinity: no tile), so it has a code of its own.
    for (let r = 0; r <= MAX_CLEARANCE + 1; r += 1 / 16) {
      const cls = clearanceClass(r);
      if (cls !== Infinity) expect(CLEARANCE_VALUES[clearanceCodeAtLeast(cls)]).toBe(cls);
      expect(CLEARANCE_VALUES[clearanceCodeAtLeast(reachClearanceClass(r))]).toBe(reachClearanceClass(r));
    }
  });

  test("a built layer's codes read back as the brute-force clearances", () => {
    const rand = rng(8);
    for (let i = 0; i < 6; i++) {
      const width = 20 + Math.floor(rand() * 30), height = 20 + Math.floor(rand() * 30);
      const tiles = new Uint8Array(width * height);
      for (let t = 0; t < tiles.length; t++) tiles[t] = rand() < [0, 0.03, 0.2][i % 3] ? 1 : 0;
      const layer = buildPassLayer({ width, height, tiles }, rawTerrain());
      expect(layer.clearanceCode).toBeInstanceOf(Uint8Array);
      const brute = bruteClearance(width, height, layer.tileCost, MAX_CLEARANCE);
      for (let t = 0; t < tiles.length; t++) expect(tileClearance(layer, t)).toBe(brute[t]);
    }
  });
});
