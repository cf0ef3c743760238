/**
 * The render tool: SVG elements for a hand-made path (arcs as A commands, one footprint per sample, a cusp marker
 * per direction change), a valid PNG, and an in-process plan drawn end to end.
 */
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { inflateSync } from "node:zlib";
import { join } from "node:path";
import { arcSegment, lineSegment } from "../../src/geometry/segment.ts";
import type { Segment } from "../../src/geometry/types.ts";
import {
  planInProcess,
  renderPng,
  renderSvg,
  segmentFromWire,
  segmentPathData,
} from "../../src/tools/render.ts";
import { segmentToWire } from "../../src/server/wire.ts";
import { decodeUnit } from "../../src/server/decodeUnit.ts";
import { ROOT } from "../helpers/server.ts";

/** A 10 x 8 layer with a wall column at x = 6, rows 0..4. */
function smallLayer() {
  const width = 10, height = 8;
  const tileCost = new Float32Array(width * height).fill(1);
  for (let y = 0; y < 5; y++) tileCost[y * width + 6] = 0;
  return { width, height, tileCost };
}

/** line, arc, reverse line (cusp), forward arc (cusp), forward line. */
function handPath(): Segment[] {
  const segs: Segment[] = [];
  const add = (s: Segment) => (segs.push(s), s.end);
  let p = add(lineSegment({ x: 1, y: 6, heading: 0 }, 2));
  p = add(arcSegment(p, -0.5, 2)); // radius 2, sweep -1 rad
  p = add(lineSegment(p, 1.5, -1));
  p = add(arcSegment(p, 1, 1.2)); // radius 1, sweep 1.2 rad
  add(lineSegment(p, 0.7));
  return segs;
}

function count(text: string, re: RegExp): number {
  return (text.match(re) ?? []).length;
}

describe("SVG", () => {
  test("arcs as A commands, one footprint per sample, one cusp marker per direction change", () => {
    const segs = handPath();
    const spacing = 0.25;
    for (const footprint of [{ radius: 0.4, width: 0, length: 0 }, { radius: 0, width: 0.8, length: 1.4 }]) {
      const svg = renderSvg({
        layer: smallLayer(),
        segments: segs,
        footprint,
        spacing,
        start: segs[0].start,
      });
      expect(svg.startsWith("<svg")).toBe(true);
      expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
      const paths = svg.match(/<path class="segment[^>]*d="([^"]*)"/g) ?? [];
      expect(paths.length).toBe(segs.length);
      const arcs = segs.filter((s) => s.curvature !== 0).length;
      expect(count(paths.join("\n"), / A/g)).toBe(arcs);
      expect(count(svg, /class="segment reverse"/g)).toBe(1);
      const total = 2 + 2 + 1.5 + 1.2 + 0.7;
      expect(count(svg, /class="footprint"/g)).toBe(Math.ceil(total / spacing) + 1);
      const changes = segs.filter((s, i) => i > 0 && s.direction !== segs[i - 1].direction).length;
      expect(changes).toBe(2);
      expect(count(svg, /class="cusp"/g)).toBe(changes);
      // The wall: rows 0..4 at x = 6, each a run of one tile.
      expect(count(svg, /<rect x="6" y="\d" width="1" height="1"\/>/g)).toBe(5);
    }
  });

  test("the arc's endpoint and flags draw the same circle the segment follows", () => {
    const arc = arcSegment({ x: 2, y: 3, heading: 0 }, 0.5, Math.PI / 2);
    const d = segmentPathData(arc);
    const m = /M([\d.-]+) ([\d.-]+) A([\d.-]+) ([\d.-]+) 0 0 (\d) ([\d.-]+) ([\d.-]+)/.exec(d)!;
    expect(m).not.toBeNull();
    expect(+m[3]).toBeCloseTo(2, 4);
    // Heading grows (+pi/4): in SVG's y-down frame that is sweep-flag 1.
    expect(m[5]).toBe("1");
    expect(+m[6]).toBeCloseTo(2 + 2 * Math.SQRT1_2, 3);
    expect(+m[7]).toBeCloseTo(3 - 2 * (Math.SQRT1_2 - 1), 3);
    // More than a half turn is drawn as two arcs.
    const big = arcSegment({ x: 2, y: 3, heading: 0 }, -1, 4);
    expect(count(segmentPathData(big), / A/g)).toBe(2);
  });
});

describe("paths from JSON", () => {
  test("wire segments (a PlanResponse's) draw the same as the originals", () => {
    const segs = handPath();
    segs[1].tightened = true;
    const wire = JSON.parse(JSON.stringify({ segments: segs.map(segmentToWire) }));
    const back = wire.segments.map(segmentFromWire);
    const fp = { radius: 0.4, width: 0, length: 0 };
    expect(renderSvg({ layer: smallLayer(), segments: back, footprint: fp })).toBe(
      renderSvg({ layer: smallLayer(), segments: segs, footprint: fp }),
    );
    expect(back[1].tightened).toBe(true);
  });
});

describe("PNG", () => {
  test("a valid PNG of the expected size with the wall and path colors", () => {
    const layer = smallLayer();
    const scale = 4;
    const png = renderPng({
      layer,
      segments: handPath(),
      footprint: { radius: 0.4, width: 0, length: 0 },
      scale,
    });
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const view = new DataView(png.buffer, png.byteOffset);
    expect(view.getUint32(16)).toBe(layer.width * scale);
    expect(view.getUint32(20)).toBe(layer.height * scale);
    const idatLen = view.getUint32(33);
    expect(String.fromCharCode(...png.subarray(37, 41))).toBe("IDAT");
    const raw = inflateSync(png.subarray(41, 41 + idatLen));
    const rowBytes = layer.width * scale * 3 + 1;
    expect(raw.length).toBe(rowBytes * layer.height * scale);
    const pixel = (x: number, y: number) => {
      const o = y * rowBytes + 1 + x * 3;
      return (raw[o] << 16) | (raw[o + 1] << 8) | raw[o + 2];
    };
    expect(pixel(6 * scale + 1, 1)).toBe(0x3b3b3b); // the wall
    expect(pixel(0, 7 * scale)).toBe(0xf7f5ef); // open floor, away from the path
    expect(pixel(2 * scale, 6 * scale)).toBe(0x1f4e9c); // on the first line
  });
});

describe("in-process planning", () => {
  test("the dead end with backing up: cusp markers match the planned direction changes", () => {
    const text = readFileSync(join(ROOT, "docs/pictures/deadend.map"), "utf8");
    const unit = decodeUnit({ radius: 0.4, turning_radius: 1.5, can_reverse: true });
    const { outcome, layer } = planInProcess(
      text,
      unit,
      { x: 3.5, y: 6.5, heading: Math.PI },
      { x: 22.5, y: 15.5 },
      "curved",
      {
        allowBackingUp: true,
      },
    );
    expect(outcome.status).toBe("found");
    const segs = outcome.segments;
    const changes = segs.filter((s, i) => i > 0 && s.direction !== segs[i - 1].direction).length;
    expect(changes).toBeGreaterThan(0);
    const svg = renderSvg({ layer, segments: segs, footprint: unit.footprint });
    expect(count(svg, /class="cusp"/g)).toBe(changes);
    expect(count(svg, /class="segment reverse"/g)).toBe(segs.filter((s) => s.direction < 0).length);
  });
});
