/**
 * render's drawing: a map and a path as SVG (arcs as elliptical-arc `A` commands, reverse driving in another
 * color, approximations marked, the swept footprint, cusps, start and goal; optionally tile coordinates and a
 * legend) and as PNG (own rasterizer and encoder). What is drawn comes from motion/pathDrawing.ts, as in the
 * live viewer.
 *
 * @module
 */
import { deflateSync } from "node:zlib";
import { arcCenter, poseAtDistance } from "../geometry/segment.ts";
import { type Pose, type Segment } from "../geometry/types.ts";
import { type Footprint } from "../units/footprint.ts";
import { type PassLayer } from "../maps/grid.ts";
import { cuspIndices, footprintCorners, footprintSamples, segmentStyle } from "../motion/pathDrawing.ts";

export { cuspIndices, footprintSamples };

/** What to draw. */
export interface RenderInput {
  /** Map size and blocked tiles (tileCost 0). */
  layer: Pick<PassLayer, "width" | "height" | "tileCost">;
  /** The path. */
  segments: readonly Segment[];
  /** The unit's footprint, drawn along the path. */
  footprint: Footprint;
  /** Distance between footprint samples, tiles (default 0.5). */
  spacing?: number;
  /** Pixels per tile (default 12). */
  scale?: number;
  /** Start pose marker. */
  start?: Pose;
  /** Goal marker. */
  goal?: { x: number; y: number; heading?: number };
  /** Map column and row of the layer's first tile, when the layer is a crop (default 0, 0). */
  origin?: { x: number; y: number };
  /** SVG: tile coordinates along the top and left edges. */
  coordinates?: boolean;
  /** SVG: a legend of what each color means, below the map. */
  legend?: boolean;
  /** A caption. */
  title?: string;
}

/** The footprint's outline at a pose (the viewer draws the same, from motion/pathDrawing.ts). */
const rectCorners = footprintCorners;

const n4 = (v: number) => +v.toFixed(4);

/** The SVG path data of one segment: M then L (line) or A (arc; split in two beyond a half turn). */
export function segmentPathData(seg: Segment): string {
  const { start, end } = seg;
  let d = `M${n4(start.x)} ${n4(start.y)}`;
  if (seg.curvature === 0) return d + ` L${n4(end.x)} ${n4(end.y)}`;
  const r = n4(1 / Math.abs(seg.curvature));
  const sweep = seg.direction * seg.curvature * seg.length;
  // The point runs around the center by the heading change: increasing angle is SVG's sweep-flag 1 (y down).
  const flag = sweep > 0 ? 1 : 0;
  if (Math.abs(sweep) > Math.PI) {
    const c = arcCenter(seg);
    const a0 = Math.atan2(start.y - c.y, start.x - c.x) + sweep / 2;
    const mx = c.x + Math.cos(a0) / Math.abs(seg.curvature),
      my = c.y + Math.sin(a0) / Math.abs(seg.curvature);
    d += ` A${r} ${r} 0 0 ${flag} ${n4(mx)} ${n4(my)}`;
  }
  return d + ` A${r} ${r} 0 0 ${flag} ${n4(end.x)} ${n4(end.y)}`;
}

/** What each color of the picture means (the legend's rows). */
const LEGEND: { label: string; color: string; shape: "line" | "dash" | "box" | "dot" | "ring" }[] = [
  { label: "forward", color: "#1f4e9c", shape: "line" },
  { label: "reverse", color: "#e67e22", shape: "line" },
  { label: "approximation touching a blocked tile", color: "#d0302a", shape: "dash" },
  { label: "tightened turn (below the turning radius)", color: "#8e44ad", shape: "line" },
  { label: "swept footprint", color: "#2a7ab0", shape: "box" },
  { label: "cusp (change of direction)", color: "#c0392b", shape: "ring" },
  { label: "start", color: "#27ae60", shape: "dot" },
  { label: "goal", color: "#c0392b", shape: "dot" },
  { label: "blocked tile", color: "#3b3b3b", shape: "box" },
];

/** A tick step of 1, 2 or 5 times a power of ten giving at most ~10 labels over `span` tiles. */
function tickStep(span: number): number {
  for (let p = 1;; p *= 10) for (const k of [1, 2, 5]) if (span / (k * p) <= 10) return k * p;
}

/** Tile coordinates along the top and left edges (labels at tile borders, map frame). */
function coordinateLabels(ox: number, oy: number, w: number, h: number, font: number, scale: number): string {
  const out = [`<g class="coordinates" font-family="sans-serif" font-size="${n4(font)}" fill="#555">`];
  const tick = `stroke="#555" stroke-width="${n4(1 / scale)}"`;
  const sx = tickStep(w), sy = tickStep(h);
  for (let x = Math.ceil(ox / sx) * sx; x <= ox + w; x += sx) {
    out.push(`<line x1="${x}" y1="${n4(oy - 0.6 * font)}" x2="${x}" y2="${oy}" ${tick}/>`);
    out.push(`<text x="${x}" y="${n4(oy - 0.9 * font)}" text-anchor="middle">${x}</text>`);
  }
  for (let y = Math.ceil(oy / sy) * sy; y <= oy + h; y += sy) {
    out.push(`<line x1="${n4(ox - 0.6 * font)}" y1="${y}" x2="${ox}" y2="${y}" ${tick}/>`);
    out.push(
      `<text x="${n4(ox - 0.9 * font)}" y="${n4(y + 0.35 * font)}" text-anchor="end">${y}</text>`,
    );
  }
  out.push(`</g>`);
  return out.join("\n");
}

/** The legend's rows from (x, y) down. */
function legendSvg(x: number, y: number, font: number, stroke: number): string {
  const out = [`<g class="legend" font-family="sans-serif" font-size="${n4(font)}" fill="#333">`];
  LEGEND.forEach((e, i) => {
    const cy = n4(y + (i + 0.5) * 1.4 * font), x2 = n4(x + 2 * font);
    const mid = n4(x + font);
    if (e.shape === "line" || e.shape === "dash") {
      const dash = e.shape === "dash" ? ` stroke-dasharray="${n4(font / 3)} ${n4(font / 4)}"` : "";
      out.push(
        `<line x1="${x}" y1="${cy}" x2="${x2}" y2="${cy}" stroke="${e.color}" stroke-width="${
          n4(stroke * 2)
        }"${dash}/>`,
      );
    } else if (e.shape === "box") {
      out.push(
        `<rect x="${n4(x + 0.4 * font)}" y="${n4(y + i * 1.4 * font + 0.2 * font)}" width="${n4(font)}" ` +
          `height="${n4(font)}" fill="${e.color}" fill-opacity="${e.label === "blocked tile" ? 1 : 0.3}"/>`,
      );
    } else {
      const fill = e.shape === "dot"
        ? `fill="${e.color}"`
        : `fill="none" stroke="${e.color}" stroke-width="${stroke}"`;
      out.push(`<circle cx="${mid}" cy="${cy}" r="${n4(font / 3)}" ${fill}/>`);
    }
    out.push(`<text x="${n4(x + 2.6 * font)}" y="${n4(+cy + 0.35 * font)}">${e.label}</text>`);
  });
  out.push(`</g>`);
  return out.join("\n");
}

/** Renders the map and the path as an SVG document (one tile = one user unit). */
export function renderSvg(input: RenderInput): string {
  const { layer, segments, footprint } = input;
  const scale = input.scale ?? 12;
  const { width, height } = layer;
  const ox = input.origin?.x ?? 0, oy = input.origin?.y ?? 0;
  const stroke = 0.08;
  // Text is sized in tiles but kept readable (>= 10 px) at small scales.
  const font = Math.max(0.9, 10 / scale);
  const margin = input.coordinates ? 3 * font : 0;
  const legendRows = input.legend ? LEGEND.length : 0;
  const below = legendRows > 0 ? (legendRows + 1) * 1.4 * font : 0;
  const vw = width + margin, vh = height + margin + below;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n4(vw * scale)}" height="${n4(vh * scale)}" ` +
      `viewBox="${n4(ox - margin)} ${n4(oy - margin)} ${n4(vw)} ${n4(vh)}">`,
  );
  if (input.title) parts.push(`<title>${input.title.replace(/[<&>]/g, "")}</title>`);
  if (margin > 0 || below > 0) {
    parts.push(
      `<rect x="${n4(ox - margin)}" y="${n4(oy - margin)}" width="${n4(vw)}" height="${
        n4(vh)
      }" fill="#ffffff"/>`,
    );
  }
  parts.push(`<rect x="${ox}" y="${oy}" width="${width}" height="${height}" fill="#f7f5ef"/>`);
  if (input.coordinates) parts.push(coordinateLabels(ox, oy, width, height, font, scale));
  if (legendRows > 0) parts.push(legendSvg(ox, oy + height + 0.6 * font, font, stroke));
  // Blocked tiles as horizontal runs: one rect per run keeps big maps small.
  parts.push(`<g class="blocked" fill="#3b3b3b">`);
  for (let y = 0; y < height; y++) {
    let x = 0;
    while (x < width) {
      if (layer.tileCost[y * width + x] !== 0) {
        x++;
        continue;
      }
      const x0 = x;
      while (x < width && layer.tileCost[y * width + x] === 0) x++;
      parts.push(`<rect x="${x0 + ox}" y="${y + oy}" width="${x - x0}" height="1"/>`);
    }
  }
  parts.push(`</g>`);
  parts.push(
    `<g class="footprints" fill="#2a7ab0" fill-opacity="0.08" stroke="#2a7ab0" stroke-opacity="0.5" ` +
      `stroke-width="${stroke / 2}">`,
  );
  for (const p of footprintSamples(segments, input.spacing ?? 0.5)) {
    const corners = rectCorners(p, footprint);
    if (corners) {
      parts.push(
        `<polygon class="footprint" points="${corners.map(([x, y]) => `${n4(x)},${n4(y)}`).join(" ")}"/>`,
      );
    } else {
      parts.push(
        `<circle class="footprint" cx="${n4(p.x)}" cy="${n4(p.y)}" r="${
          n4(Math.max(footprint.radius, 0.05))
        }"/>`,
      );
    }
  }
  parts.push(`</g>`);
  parts.push(`<g class="segments" fill="none" stroke-width="${stroke}" stroke-linecap="round">`);
  for (const seg of segments) {
    const kind = seg.direction < 0 ? "reverse" : "forward";
    const { color, dashed } = segmentStyle(seg);
    const dash = dashed ? ` stroke-dasharray="0.2 0.15"` : "";
    parts.push(`<path class="segment ${kind}" stroke="${color}"${dash} d="${segmentPathData(seg)}"/>`);
  }
  parts.push(`</g>`);
  for (const i of cuspIndices(segments)) {
    const p = segments[i].start;
    parts.push(
      `<circle class="cusp" cx="${n4(p.x)}" cy="${n4(p.y)}" r="0.3" fill="none" stroke="#c0392b" ` +
        `stroke-width="${stroke}"/>`,
    );
  }
  const marker = (cls: string, x: number, y: number, h: number | undefined, color: string) => {
    parts.push(`<circle class="${cls}" cx="${n4(x)}" cy="${n4(y)}" r="0.25" fill="${color}"/>`);
    if (h !== undefined) {
      parts.push(
        `<line class="${cls}-heading" x1="${n4(x)}" y1="${n4(y)}" x2="${n4(x + 0.8 * Math.cos(h))}" ` +
          `y2="${n4(y + 0.8 * Math.sin(h))}" stroke="${color}" stroke-width="${stroke}"/>`,
      );
    }
  };
  if (input.start) marker("start", input.start.x, input.start.y, input.start.heading, "#27ae60");
  if (input.goal) marker("goal", input.goal.x, input.goal.y, input.goal.heading, "#c0392b");
  parts.push(`</svg>`);
  return parts.join("\n") + "\n";
}

/** An RGB raster. */
class Raster {
  readonly pixels: Uint8Array;
  constructor(readonly width: number, readonly height: number) {
    this.pixels = new Uint8Array(width * height * 3);
  }
  /** Blends a color into a pixel with opacity alpha. */
  plot(x: number, y: number, rgb: number, alpha = 1): void {
    const ix = Math.floor(x), iy = Math.floor(y);
    if (ix < 0 || iy < 0 || ix >= this.width || iy >= this.height) return;
    const o = (iy * this.width + ix) * 3;
    const c = [(rgb >> 16) & 255, (rgb >> 8) & 255, rgb & 255];
    for (let k = 0; k < 3; k++) {
      this.pixels[o + k] = Math.round(this.pixels[o + k] * (1 - alpha) + c[k] * alpha);
    }
  }
  /** A filled disc of pixel radius r. */
  dot(x: number, y: number, r: number, rgb: number, alpha = 1): void {
    for (let dy = -Math.ceil(r); dy <= Math.ceil(r); dy++) {
      for (let dx = -Math.ceil(r); dx <= Math.ceil(r); dx++) {
        if (dx * dx + dy * dy <= r * r) this.plot(x + dx, y + dy, rgb, alpha);
      }
    }
  }
  /** A line from a to b drawn as dots every half pixel. */
  line(ax: number, ay: number, bx: number, by: number, r: number, rgb: number, alpha = 1): void {
    const n = Math.max(1, Math.ceil(2 * Math.hypot(bx - ax, by - ay)));
    for (let i = 0; i <= n; i++) this.dot(ax + ((bx - ax) * i) / n, ay + ((by - ay) * i) / n, r, rgb, alpha);
  }
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 255] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Encodes 8-bit RGB pixels as a PNG file (filter 0 per row, zlib deflate). */
export function encodePng(width: number, height: number, rgb: Uint8Array): Uint8Array {
  const raw = new Uint8Array(height * (width * 3 + 1));
  for (let y = 0; y < height; y++) {
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  }
  const chunk = (type: string, data: Uint8Array) => {
    const out = new Uint8Array(12 + data.length);
    const view = new DataView(out.buffer);
    view.setUint32(0, data.length);
    for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
    out.set(data, 8);
    view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const hv = new DataView(ihdr.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const parts = [
    new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", new Uint8Array(deflateSync(raw))),
    chunk("IEND", new Uint8Array(0)),
  ];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, o), o += p.length;
  return out;
}

/** Rasterizes the same picture as {@link renderSvg} (simpler strokes) and encodes it as PNG. */
export function renderPng(input: RenderInput): Uint8Array {
  const scale = input.scale ?? 12;
  const { layer, segments, footprint } = input;
  const img = new Raster(layer.width * scale, layer.height * scale);
  const ox = input.origin?.x ?? 0, oy = input.origin?.y ?? 0;
  // Map points to pixels of the (possibly cropped) picture.
  const X = (x: number) => (x - ox) * scale, Y = (y: number) => (y - oy) * scale;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const blocked = layer.tileCost[Math.floor(y / scale) * layer.width + Math.floor(x / scale)] === 0;
      img.plot(x, y, blocked ? 0x3b3b3b : 0xf7f5ef);
    }
  }
  for (const p of footprintSamples(segments, input.spacing ?? 0.5)) {
    const corners = rectCorners(p, footprint);
    if (corners) {
      for (let i = 0; i < 4; i++) {
        const [ax, ay] = corners[i], [bx, by] = corners[(i + 1) % 4];
        img.line(X(ax), Y(ay), X(bx), Y(by), 0.5, 0x2a7ab0, 0.35);
      }
    } else {
      const r = Math.max(footprint.radius, 0.05) * scale;
      const n = Math.max(12, Math.ceil(2 * Math.PI * r));
      for (let i = 0; i < n; i++) {
        const a = (2 * Math.PI * i) / n;
        img.plot(X(p.x) + r * Math.cos(a), Y(p.y) + r * Math.sin(a), 0x2a7ab0, 0.5);
      }
    }
  }
  for (const seg of segments) {
    const color = parseInt(segmentStyle(seg).color.slice(1), 16);
    const n = Math.max(1, Math.ceil((seg.length * scale) / 2));
    let prev = seg.start;
    for (let i = 1; i <= n; i++) {
      const p = poseAtDistance([seg], (seg.length * i) / n);
      img.line(X(prev.x), Y(prev.y), X(p.x), Y(p.y), 1, color);
      prev = p;
    }
  }
  for (const i of cuspIndices(segments)) {
    const p = segments[i].start;
    img.dot(X(p.x), Y(p.y), 0.3 * scale, 0xc0392b, 0.8);
  }
  if (input.start) img.dot(X(input.start.x), Y(input.start.y), 0.25 * scale, 0x27ae60);
  if (input.goal) img.dot(X(input.goal.x), Y(input.goal.y), 0.25 * scale, 0xc0392b);
  return encodePng(img.width, img.height, img.pixels);
}
