/** The cost model: exact terrain integrals against a dense sampler, and the penalties. */
import { describe, expect, test } from "vitest";
import { pathCost, segmentTerrainCost } from "../../src/motion/pathCost.ts";
import { arcSegment, lineSegment, poseAlong } from "../../src/geometry/segment.ts";
import type { Segment } from "../../src/geometry/types.ts";
import type { PassLayer } from "../../src/maps/grid.ts";
import { rng } from "../helpers/rng.ts";

function costLayer(width: number, height: number, cost: (x: number, y: number) => number): PassLayer {
  const tileCost = new Float32Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) tileCost[y * width + x] = cost(x, y);
  return {
    width,
    height,
    tileCost,
    clearanceCode: new Uint8Array(width * height),
    minCost: 1,
    road: new Uint8Array(width * height),
  };
}

/** Independent: the tile cost at many sample points along the segment (midpoint rule). */
function sampled(seg: Segment, layer: PassLayer, n = 20000): number {
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const p = poseAlong(seg, ((i + 0.5) / n) * seg.length);
    const tx = Math.floor(p.x), ty = Math.floor(p.y);
    const c = tx >= 0 && ty >= 0 && tx < layer.width && ty < layer.height
      ? layer.tileCost[ty * layer.width + tx]
      : 1;
    sum += c > 0 ? c : 1;
  }
  return (sum * seg.length) / n;
}

describe("path cost", () => {
  const uniform = costLayer(40, 40, () => 1);
  const checker = costLayer(40, 40, (x, y) => 1 + ((x * 7 + y * 13) % 5));

  test("on uniform terrain the terrain cost is the length", () => {
    const line = lineSegment({ x: 3.2, y: 4.7, heading: 0.3 }, 12.5);
    const arc = arcSegment({ x: 20, y: 20, heading: 1 }, 1 / 3, 15, -1);
    expect(segmentTerrainCost(line, uniform)).toBeCloseTo(12.5, 9);
    expect(segmentTerrainCost(arc, uniform)).toBeCloseTo(15, 9);
  });

  test("lines and arcs of every direction match a dense sampler on varied terrain", () => {
    const rand = rng(11);
    for (let i = 0; i < 300; i++) {
      const start = { x: 10 + rand() * 20, y: 10 + rand() * 20, heading: (rand() - 0.5) * 2 * Math.PI };
      const dir = rand() < 0.5 ? 1 : -1;
      const seg = rand() < 0.3
        ? lineSegment(start, rand() * 8, dir)
        : arcSegment(start, (rand() < 0.5 ? -1 : 1) / (0.5 + rand() * 6), rand() * 20, dir);
      const exact = segmentTerrainCost(seg, checker);
      expect(Math.abs(exact - sampled(seg, checker))).toBeLessThan(2e-3 * Math.max(1, seg.length));
    }
  });

  test("long lines and arcs (over 64 tile-border crossings, sorted by the typed-array sort) match the sampler", () => {
    const big = costLayer(300, 300, (x, y) => 1 + ((x * 7 + y * 13) % 5));
    const rand = rng(29);
    for (let i = 0; i < 12; i++) {
      const start = { x: 100 + rand() * 100, y: 100 + rand() * 100, heading: (rand() - 0.5) * 2 * Math.PI };
      const seg = i % 3 === 2
        ? arcSegment(start, (rand() < 0.5 ? -1 : 1) / (20 + rand() * 30), 60 + rand() * 60, 1)
        : lineSegment(start, 60 + rand() * 30, rand() < 0.5 ? 1 : -1);
      const exact = segmentTerrainCost(seg, big);
      expect(Math.abs(exact - sampled(seg, big, 200_000))).toBeLessThan(2e-3 * seg.length);
    }
  });

  test("axis-aligned lines along tile borders and through tile corners", () => {
    // Along x = 5 (a border): the midpoints fall in the tiles to the right or left, never half-way.
    const border = lineSegment({ x: 5, y: 2.5, heading: Math.PI / 2 }, 10);
    expect(Math.abs(segmentTerrainCost(border, checker) - sampled(border, checker))).toBeLessThan(1e-2);
    const diagonal = lineSegment({ x: 2, y: 2, heading: Math.PI / 4 }, 10 * Math.SQRT2);
    expect(Math.abs(segmentTerrainCost(diagonal, checker) - sampled(diagonal, checker))).toBeLessThan(1e-2);
  });

  test("a cost-5 band adds 4 per tile crossed", () => {
    const band = costLayer(20, 20, (x) => (x >= 8 && x < 11 ? 5 : 1));
    const line = lineSegment({ x: 2.5, y: 5.5, heading: 0 }, 14);
    expect(segmentTerrainCost(line, band)).toBeCloseTo(14 + 3 * 4, 9);
  });

  test("reverse distance is weighted, cusps and turning are charged", () => {
    const a = lineSegment({ x: 5, y: 5, heading: 0 }, 4);
    const b = arcSegment(a.end, 0.5, Math.PI, -1); // reverse half a turn of radius 2
    const c = lineSegment(b.end, 3, 1);
    const unit = { reversePenalty: 3, turnPenalty: 2, cuspPenalty: 7 };
    const cost = pathCost([a, b, c], unit, uniform);
    expect(cost.terrain).toBeCloseTo(7 + Math.PI, 9);
    expect(cost.reverseLength).toBeCloseTo(Math.PI, 12);
    expect(cost.reverseExtra).toBeCloseTo(2 * Math.PI, 9);
    expect(cost.cusps).toBe(2);
    expect(cost.turning).toBeCloseTo(Math.PI / 2, 12);
    expect(cost.total).toBeCloseTo(7 + 3 * Math.PI + 2 * 7 + 2 * (Math.PI / 2), 9);
  });

  test("a corner turned in place counts its heading change; no layer prices tiles at 1", () => {
    const a = lineSegment({ x: 1, y: 1, heading: 0 }, 3);
    const c = lineSegment({ ...a.end, heading: Math.PI / 2 }, 2);
    const cost = pathCost([a, c], { reversePenalty: 1, turnPenalty: 1, cuspPenalty: 0 }, null);
    expect(cost.turning).toBeCloseTo(Math.PI / 2, 12);
    expect(cost.total).toBeCloseTo(5 + Math.PI / 2, 12);
  });
});
