/**
 * Fixed-angle art (src/planning/fixedAngle.ts) directly: legal headings only, position joins, same end point,
 * the two-line replacement of Figure 15, arcs followed from just outside the circle, and collision avoidance by
 * choosing the other order or subdividing.
 */
import { describe, expect, test } from "vitest";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import { pathHitsBlocked } from "../../src/geometry/sweep.ts";
import type { Segment } from "../../src/geometry/types.ts";
import {
  isLegalHeading,
  snapHeading,
  toFixedAngles,
  turnHitsBlocked,
} from "../../src/planning/fixedAngle.ts";
import { footprintHitsBlocked } from "../../src/geometry/sweep.ts";
import { rng } from "../helpers/rng.ts";

function openLayer(width: number, height: number, blocked: [number, number][] = []) {
  const tileCost = new Float32Array(width * height).fill(1);
  for (const [x, y] of blocked) tileCost[y * width + x] = 0;
  return {
    width,
    height,
    tileCost,
    clearanceCode: new Uint8Array(width * height),
    minCost: 1,
    road: new Uint8Array(1),
  };
}

const disc = { radius: 0.3, width: 0, length: 0 };

function checkLegal(out: Segment[], headings: number, endX: number, endY: number): void {
  const step = (2 * Math.PI) / headings;
  for (const s of out) {
    expect(s.curvature).toBe(0);
    const q = s.start.heading / step;
    expect(Math.abs(q - Math.round(q)) * step).toBeLessThan(1e-9);
  }
  for (let i = 1; i < out.length; i++) {
    expect(Math.hypot(out[i].start.x - out[i - 1].end.x, out[i].start.y - out[i - 1].end.y)).toBeLessThan(
      1e-9,
    );
  }
  const last = out[out.length - 1].end;
  expect(Math.hypot(last.x - endX, last.y - endY)).toBeLessThan(1e-9);
}

describe("fixed-angle rewriting", () => {
  test("snapHeading and isLegalHeading", () => {
    expect(snapHeading(0.5, 8)).toBeCloseTo(Math.PI / 4, 15);
    expect(snapHeading(0.3, 8)).toBe(0);
    expect(isLegalHeading(Math.PI / 8, 16)).toBe(true);
    expect(isLegalHeading(Math.PI / 8, 8)).toBe(false);
  });

  test("a rectangle turning in place can hit a wall half way though both end headings fit", () => {
    // Open rows 1 and 2 only (height 2): a 0.8 x 1.9 rectangle fits at 0 and 90 degrees, but its diagonal 2.06 does not.
    const blocked: [number, number][] = [];
    for (let x = 0; x < 10; x++) blocked.push([x, 0], [x, 3]);
    const layer = openLayer(10, 4, blocked);
    const fp = { radius: 0, width: 0.8, length: 1.9 };
    expect(footprintHitsBlocked(layer, 5, 2, 0, fp)).toBe(false);
    expect(footprintHitsBlocked(layer, 5, 2, Math.PI / 2, fp)).toBe(false);
    expect(turnHitsBlocked(layer, 5, 2, 0, Math.PI / 2, fp)).toBe(true);
    expect(turnHitsBlocked(layer, 5, 2, 0, 0.2, fp)).toBe(false);
    // A disc turning is the disc.
    expect(turnHitsBlocked(layer, 5, 2, 0, 3, { radius: 0.9, width: 0, length: 0 })).toBe(false);
  });

  test("a line at 30 degrees becomes 0 and 45 degree lines meeting at their intersection (Figure 15)", () => {
    const layer = openLayer(20, 20);
    const line = lineSegment({ x: 2, y: 2, heading: Math.PI / 6 }, 10);
    const out = toFixedAngles([line], 8, { layer, footprint: disc, check: true })!;
    expect(out.length).toBe(2);
    const hs = out.map((s) => s.start.heading).sort();
    expect(hs[0]).toBeCloseTo(0, 12);
    expect(hs[1]).toBeCloseTo(Math.PI / 4, 12);
    // s*(1,0) + t*(c,c) = 10*(cos30, sin30): t = 5*sqrt2, s = 10cos30 - 5.
    const len = out.map((s) => s.length).sort((a, b) => a - b);
    expect(len).toEqual([
      expect.closeTo(10 * Math.cos(Math.PI / 6) - 5, 9),
      expect.closeTo(5 * Math.SQRT2, 9),
    ]);
    checkLegal(out, 8, line.end.x, line.end.y);
  });

  test("a legal line stays one line", () => {
    const layer = openLayer(20, 20);
    const line = lineSegment({ x: 10, y: 10, heading: Math.PI / 8 }, 5, -1);
    const out = toFixedAngles([line], 16, { layer, footprint: disc, check: true })!;
    expect(out.length).toBe(1);
    expect(out[0].direction).toBe(-1);
  });

  test("the other order is used when the first collides", () => {
    // From (2.5, 2.5) to (8.5, 5.5): order (0 deg, then 45) passes (5..8, 2.5); block (6, 2) to forbid it.
    const layer = openLayer(12, 10, [[6, 2]]);
    const line = lineSegment({ x: 2.5, y: 2.5, heading: Math.atan2(3, 6) }, Math.hypot(6, 3));
    const out = toFixedAngles([line], 8, { layer, footprint: disc, check: true })!;
    expect(out).not.toBeNull();
    expect(out[0].start.heading).toBeCloseTo(Math.PI / 4, 12);
    expect(pathHitsBlocked(layer, out, disc)).toBe(false);
    checkLegal(out, 8, line.end.x, line.end.y);
  });

  test("a stretch between walls is subdivided until both halves are free", () => {
    // A corridor along a shallow diagonal: neither full-length detour fits, halves do.
    const blocked: [number, number][] = [];
    for (let x = 0; x < 30; x++) {
      const y = Math.floor(2 + x * 0.2);
      blocked.push([x, y - 2], [x, y + 2]);
    }
    const layer = openLayer(30, 12, blocked);
    const line = lineSegment({ x: 1.5, y: 2.5, heading: Math.atan2(0.2, 1) }, 20 * Math.hypot(1, 0.2));
    expect(pathHitsBlocked(layer, [line], { radius: 0.2, width: 0, length: 0 })).toBe(false);
    const fp = { radius: 0.2, width: 0, length: 0 };
    const out = toFixedAngles([line], 8, { layer, footprint: fp, check: true })!;
    expect(out).not.toBeNull();
    expect(out.length).toBeGreaterThan(2);
    expect(pathHitsBlocked(layer, out, fp)).toBe(false);
    checkLegal(out, 8, line.end.x, line.end.y);
  });

  test("arcs are followed from just outside the circle: polygon sides at the legal headings", () => {
    const layer = openLayer(40, 40);
    for (const headings of [8, 16]) {
      const arc = arcSegment({ x: 20, y: 20, heading: 0.1 }, 1 / 5, 5 * 3);
      const out = toFixedAngles([arc], headings, { layer, footprint: disc, check: true })!;
      checkLegal(out, headings, arc.end.x, arc.end.y);
      // Every point stays outside the circle and within radius / cos(pi / headings) of its center.
      const cx = 20 - Math.sin(0.1) * 5, cy = 20 + Math.cos(0.1) * 5;
      for (const s of out) {
        for (const p of [s.start, s.end]) {
          const d = Math.hypot(p.x - cx, p.y - cy);
          expect(d).toBeGreaterThanOrEqual(5 - 1e-9);
          expect(d).toBeLessThanOrEqual(5 / Math.cos(Math.PI / headings) + 1e-9);
        }
      }
    }
  });

  test("random paths: legal headings, joins, same end, no collision in the open", () => {
    const r = rng(5);
    const layer = openLayer(200, 200);
    for (let trial = 0; trial < 100; trial++) {
      const headings = r() < 0.5 ? 8 : 16;
      const segs: Segment[] = [];
      let p = { x: 100, y: 100, heading: r() * 6 };
      for (let i = 0; i < 5; i++) {
        const dir = r() < 0.2 ? -1 : 1;
        const s = r() < 0.5
          ? lineSegment(p, 1 + 10 * r(), dir)
          : arcSegment(p, (r() < 0.5 ? -1 : 1) / (1 + 3 * r()), 1 + 6 * r(), dir);
        segs.push(s);
        p = s.end;
      }
      const out = toFixedAngles(segs, headings, { layer, footprint: disc, check: true })!;
      checkLegal(out, headings, p.x, p.y);
      // Reverse stretches stay reverse.
      expect(out.some((s) => s.direction < 0)).toBe(segs.some((s) => s.direction < 0));
    }
  });
});
