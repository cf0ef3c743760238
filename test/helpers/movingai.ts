/**
 * Test-side readers of the shared Moving AI files (independent of src/maps, on purpose) and an independent
 * dense legality sampler for returned paths.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SHARED } from "./server.ts";

/** The Moving AI data directory. */
export const MOVINGAI = join(SHARED, "data/movingai");

/** One benchmark query. */
export interface Query {
  map: string;
  sx: number;
  sy: number;
  gx: number;
  gy: number;
  optimal: number;
}

/** Names of the shared maps (file names). */
export function mapNames(): string[] {
  return readdirSync(MOVINGAI).filter((f) => f.endsWith(".map")).sort();
}

/** The text of a shared map. */
export function mapText(name: string): string {
  return readFileSync(join(MOVINGAI, name), "utf8");
}

/** The queries of a shared map's .scen file. */
export function queries(name: string): Query[] {
  const lines = readFileSync(join(MOVINGAI, name + ".scen"), "utf8").split(/\r?\n/).slice(1);
  return lines.filter((l) => l.trim() !== "").map((l) => {
    const f = l.trim().split(/\s+/);
    return { map: name, sx: +f[4], sy: +f[5], gx: +f[6], gy: +f[7], optimal: +f[8] };
  });
}

/** The README's tolerance: one unit of the last printed digit. */
export function tolerance(name: string, optimal: number): number {
  if (name.startsWith("AR0011SR")) return 0.01;
  if (name.startsWith("Berlin")) return 1e-4;
  return Math.pow(10, Math.floor(Math.log10(optimal)) - 5);
}

/** A blocked-tile grid parsed from map text (blocked: anything but . G S). */
export interface BlockGrid {
  width: number;
  height: number;
  blocked: Uint8Array;
}

/** Parses map text into a blocked grid (independent of src/maps). */
export function blockGrid(text: string): BlockGrid {
  const lines = text.split(/\r?\n/);
  const height = +lines.find((l) => l.startsWith("height"))!.split(/\s+/)[1];
  const width = +lines.find((l) => l.startsWith("width"))!.split(/\s+/)[1];
  const start = lines.indexOf("map") + 1;
  const blocked = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = lines[start + y];
    for (let x = 0; x < width; x++) blocked[y * width + x] = ".GS".includes(row[x]) ? 0 : 1;
  }
  return { width, height, blocked };
}

/** Distance from a point to the closed unit square of tile (tx, ty). */
function distToTile(px: number, py: number, tx: number, ty: number): number {
  const dx = Math.max(tx - px, 0, px - (tx + 1));
  const dy = Math.max(ty - py, 0, py - (ty + 1));
  return Math.hypot(dx, dy);
}

/** True if a disc of radius r at (px, py) overlaps a blocked tile's interior or leaves the map. */
export function discOverlapsBlocked(g: BlockGrid, px: number, py: number, r: number): boolean {
  const rr = Math.max(r, 1e-6);
  for (let ty = Math.floor(py - rr) - 1; ty <= Math.floor(py + rr) + 1; ty++) {
    for (let tx = Math.floor(px - rr) - 1; tx <= Math.floor(px + rr) + 1; tx++) {
      const outside = tx < 0 || ty < 0 || tx >= g.width || ty >= g.height;
      if (!outside && !g.blocked[ty * g.width + tx]) continue;
      if (distToTile(px, py, tx, ty) < rr - 1e-9) return true;
    }
  }
  return false;
}

/** A wire segment (the fields the sampler needs). */
export interface WireSeg {
  start: { x: number; y: number; heading: number };
  length: number;
  curvature: number;
  direction: number;
}

/** Samples a path densely (step 0.01 tile): the first sample point whose disc overlaps a blocked tile, or null. */
export function firstCollision(g: BlockGrid, segs: WireSeg[], r: number): { x: number; y: number } | null {
  for (const s of segs) {
    const n = Math.max(1, Math.ceil(s.length / 0.01));
    for (let i = 0; i <= n; i++) {
      const u = (s.length * i) / n;
      const h0 = s.start.heading;
      const k = s.curvature;
      const d = s.direction;
      let x: number, y: number;
      if (Math.abs(k) < 1e-12) {
        x = s.start.x + d * u * Math.cos(h0);
        y = s.start.y + d * u * Math.sin(h0);
      } else {
        const h = h0 + d * k * u;
        x = s.start.x + (Math.sin(h) - Math.sin(h0)) / k;
        y = s.start.y - (Math.cos(h) - Math.cos(h0)) / k;
      }
      if (discOverlapsBlocked(g, x, y, r)) return { x, y };
    }
  }
  return null;
}

/** The Moving AI text of an open `width` x `height` room walled on every side. */
export function walledRoomText(width: number, height: number): string {
  const rows: string[] = [];
  for (let y = 0; y < height; y++) {
    let r = "";
    for (let x = 0; x < width; x++) {
      r += x === 0 || y === 0 || x === width - 1 || y === height - 1 ? "@" : ".";
    }
    rows.push(r);
  }
  return `type octile\nheight ${height}\nwidth ${width}\nmap\n${rows.join("\n")}\n`;
}

/**
 * Independent check of a tile path (`path` as tile indices): right ends, 8-adjacent unit steps without corner
 * cutting, and every tile open; with a disc `radius`, instead the disc clear of walls at every tile center
 * after the first (the start is where the unit already is). Null when legal, else what is wrong.
 */
export function tilePathProblem(
  g: BlockGrid,
  path: Int32Array,
  start: number,
  goal: number,
  radius?: number,
): string | null {
  const w = g.width;
  if (path[0] !== start) return "does not start at the start";
  if (path[path.length - 1] !== goal) return "does not end at the goal";
  for (let i = 0; i < path.length; i++) {
    const bx = path[i] % w, by = Math.floor(path[i] / w);
    if (radius === undefined) {
      if (g.blocked[path[i]]) return `tile ${i} is blocked`;
    } else if (i > 0 && discOverlapsBlocked(g, bx + 0.5, by + 0.5, radius)) {
      return `tile ${i} (${bx}, ${by}) does not fit the unit`;
    }
    if (i === 0) continue;
    const ax = path[i - 1] % w, ay = Math.floor(path[i - 1] / w);
    const dx = bx - ax, dy = by - ay;
    if (Math.max(Math.abs(dx), Math.abs(dy)) !== 1) return `step ${i} is not a unit move`;
    if (dx !== 0 && dy !== 0 && (g.blocked[ay * w + bx] || g.blocked[by * w + ax])) {
      return `step ${i} cuts a corner`;
    }
  }
  return null;
}

/** Length of a tile path as an 8-connected walk (1 straight, sqrt 2 diagonal), on a map `w` tiles wide. */
export function tileWalkLength(path: Int32Array, w: number): number {
  let length = 0;
  for (let i = 1; i < path.length; i++) {
    const diagonal = path[i] % w !== path[i - 1] % w &&
      Math.floor(path[i] / w) !== Math.floor(path[i - 1] / w);
    length += diagonal ? Math.SQRT2 : 1;
  }
  return length;
}
