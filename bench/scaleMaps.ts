/**
 * Big maps for the scale benchmark: a real Moving AI city map (Berlin_0_256) tiled mirror-wise (neighbouring
 * copies meet along identical edges, so streets join across copies), with random obstacles sprinkled on
 * top; and the longest connected pair for a tank (the tile a breadth-first search from a corner reaches last).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const SHARED = resolve(import.meta.dirname ?? ".", "../../shared/data/movingai");

/** The source map's rows as bytes. */
function sourceRows(name: string): { size: number; rows: Uint8Array[] } {
  const lines = readFileSync(resolve(SHARED, name), "latin1").split(/\r?\n/);
  const start = lines.indexOf("map") + 1;
  const rows: Uint8Array[] = [];
  for (let i = start; i < lines.length && lines[i].length > 0; i++) {
    rows.push(new TextEncoder().encode(lines[i]));
  }
  return { size: rows.length, rows };
}

/**
 * A side x side map of Moving AI characters ('.' open, '@' blocked), row-major: Berlin_0_256 mirrored into
 * every 256 x 256 block, then `obstacleRate` of the tiles blocked at random (seeded, deterministic).
 */
export function tiledCity(side: number, obstacleRate = 0.01, seed = 12345): Uint8Array {
  const { size, rows } = sourceRows("Berlin_0_256.map");
  const out = new Uint8Array(side * side);
  for (let y = 0; y < side; y++) {
    const by = Math.floor(y / size);
    const sy = by % 2 === 0 ? y % size : size - 1 - (y % size);
    const src = rows[sy];
    for (let x = 0; x < side; x++) {
      const bx = Math.floor(x / size);
      const sx = bx % 2 === 0 ? x % size : size - 1 - (x % size);
      out[y * side + x] = src[sx] === 46 ? 46 : 64; // '.' or '@'
    }
  }
  let s = seed >>> 0;
  const threshold = Math.round(obstacleRate * 4294967296);
  for (let i = 0; i < out.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    if (s < threshold) out[i] = 64;
  }
  return out;
}

/** The Moving AI text of a map made by {@link tiledCity}. */
export function movingAiText(tiles: Uint8Array, side: number): string {
  const dec = new TextDecoder("latin1");
  const parts = [`type octile\nheight ${side}\nwidth ${side}\nmap\n`];
  for (let y = 0; y < side; y++) parts.push(dec.decode(tiles.subarray(y * side, (y + 1) * side)), "\n");
  return parts.join("");
}

/** A long connected pair for a unit needing the 3 x 3 block around its tile open (the tank's class 1.5). */
export interface LongPair {
  /** Start tile (x, y). */
  start: [number, number];
  /** Goal tile (x, y). */
  goal: [number, number];
  /** 4-connected steps between them (breadth-first). */
  steps: number;
  /** The first tile reached at `nearSteps` steps from the start (a shorter pair), or the goal. */
  near: [number, number];
  /** The first tile reached at 4 steps from the start (a query of a few expansions), or the goal. */
  short: [number, number];
}

/**
 * The tile farthest (4-connected steps through tiles whose 3 x 3 block is open, the tank's clearance class)
 * from the qualifying tile nearest the top-left corner: a pair the tank can drive between, about as far apart as
 * the map allows.
 */
export function longestPair(tiles: Uint8Array, side: number, nearSteps = 1000): LongPair {
  // Rows of three open tiles, then three such rows: the 3 x 3 test in two passes.
  const row = new Uint8Array(side * side);
  for (let t = 1; t < row.length - 1; t++) {
    row[t] = tiles[t - 1] === 46 && tiles[t] === 46 && tiles[t + 1] === 46 ? 1 : 0;
  }
  const ok = new Uint8Array(side * side);
  for (let y = 1; y < side - 1; y++) {
    for (let t = y * side + 1, end = y * side + side - 1; t < end; t++) {
      ok[t] = row[t - side] & row[t] & row[t + side];
    }
  }
  let start = -1;
  for (let d = 0; d < 2 * side && start < 0; d++) {
    for (let x = 0; x <= d && start < 0; x++) {
      const y = d - x;
      if (x < side && y < side && ok[y * side + x]) start = y * side + x;
    }
  }
  const dist = new Int32Array(side * side).fill(-1);
  const queue = new Int32Array(side * side);
  let head = 0, tail = 0, last = start, near = -1, short = -1;
  dist[start] = 0;
  queue[tail++] = start;
  // Qualifying tiles are never on the border (their 3 x 3 block lies on the map), so no bounds checks.
  const visit = (n: number, d: number) => {
    if (ok[n] && dist[n] < 0) {
      dist[n] = d;
      queue[tail++] = n;
    }
  };
  while (head < tail) {
    const t = queue[head++];
    last = t;
    const d = dist[t] + 1;
    if (near < 0 && d - 1 === nearSteps) near = t;
    if (short < 0 && d - 1 === 4) short = t;
    visit(t - 1, d);
    visit(t + 1, d);
    visit(t - side, d);
    visit(t + side, d);
  }
  const xy = (t: number): [number, number] => [t % side, Math.floor(t / side)];
  return {
    start: xy(start),
    goal: xy(last),
    steps: dist[last],
    near: xy(near < 0 ? last : near),
    short: xy(short < 0 ? last : short),
  };
}

/** A hash of every file under src/ (what a planner's result can depend on), computed once per process. */
let sourceHash: string | undefined;
function srcHash(): string {
  if (sourceHash) return sourceHash;
  const root = resolve(import.meta.dirname ?? ".", "../src");
  const h = createHash("sha256");
  const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts")).sort();
  for (const f of files) h.update(f).update(readFileSync(join(root, f)));
  return (sourceHash = h.digest("hex").slice(0, 16));
}

/**
 * `compute()`'s JSON value, kept under the OS temp dir (arcpath-bench-cache/) per content of src/ and `key`:
 * a deterministic result that takes long (a full-search cost reference: 10-30 s) is computed again only when
 * the code changes; values `keep` refuses (a search cut by its time budget) are not kept. `cached` says whether
 * it came from an earlier run.
 */
export function cachedBySource<T>(
  key: string,
  compute: () => T,
  keep: (value: T) => boolean = () => true,
): { value: T; cached: boolean } {
  const dir = join(tmpdir(), "arcpath-bench-cache");
  const file = join(dir, `${key.replace(/[^A-Za-z0-9._-]/g, "_")}-${srcHash()}.json`);
  try {
    return { value: JSON.parse(readFileSync(file, "utf8")) as T, cached: true };
  } catch {
    // Not cached yet (or unreadable): compute it.
  }
  const value = compute();
  if (!keep(value)) return { value, cached: false };
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.tmp-${Deno.pid}`, JSON.stringify(value));
  renameSync(`${file}.tmp-${Deno.pid}`, file);
  return { value, cached: false };
}
