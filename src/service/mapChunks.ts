/**
 * Chunked map uploads (PutMapChunks): a header, then rectangles of tiles that together cover the map exactly
 * once. The tiles are assembled into one shared array and the result is an ordinary {@link GridMap}, so a
 * tiled upload hashes, persists and loads exactly like a single PutMap of the same content.
 *
 * @module
 */
import { type GridMap, sharedArray } from "../maps/grid.ts";
import { checkMapLimits, type MapLimits } from "../maps/movingai.ts";
import { movingAiTerrain, rawTerrain, type TerrainEntry, withOverrides } from "../maps/terrain.ts";
import { invalid, ServiceError } from "./errors.ts";
import { translateMapError } from "./mapErrors.ts";

/** How chunk bytes are read: raw terrain codes, or Moving AI characters with Moving AI default costs. */
export type TileFormat = "raw" | "movingai";

/** The first message of a chunked upload, decoded. */
export interface ChunkHeader {
  /** The map's id (checked). */
  id: string;
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** How the tile bytes are read. */
  format: TileFormat;
  /** Terrain overrides of the format's defaults. */
  terrain: TerrainEntry[];
  /** Kept in memory only. */
  ephemeral: boolean;
  /** Build the search tables before answering. */
  prepare: boolean;
}

/** One rectangle of tiles, decoded (`tiles` row-major within the rectangle). */
export interface TileChunkSpec {
  /** First column. */
  x: number;
  /** First row. */
  y: number;
  /** Columns. */
  width: number;
  /** Rows. */
  height: number;
  /** width * height bytes. */
  tiles: Uint8Array;
}

/** First and last printable ASCII codes: what Moving AI rows may hold (as parseMovingAi checks). */
const FIRST_PRINTABLE = 0x20;
const LAST_PRINTABLE = 0x7e;

/**
 * Marks tiles [t0, t1) covered in a bitset, a word at a time (an 8192^2 upload: 67 M tiles); returns the first
 * tile that was covered already (nothing after it is marked), or -1.
 */
function cover(bits: Uint32Array, t0: number, t1: number): number {
  for (let t = t0; t < t1;) {
    const w = t >>> 5;
    const bit = t & 31;
    const n = Math.min(32 - bit, t1 - t);
    const mask = n === 32 ? -1 : ((1 << n) - 1) << bit;
    const hit = bits[w] & mask;
    if (hit !== 0) return w * 32 + 31 - Math.clz32(hit & -hit);
    bits[w] |= mask;
    t += n;
  }
  return -1;
}

/**
 * Tiles of chunked uploads being assembled in this process. A header allocates its whole map at once, so without
 * a bound many concurrent uploads that never finish could hold many maps' worth of memory.
 */
let tilesInFlight = 0;

/**
 * Assembles the chunks of one upload; errors name the chunk and field (INVALID_ARGUMENT, RESOURCE_EXHAUSTED).
 * Call {@link release} when the upload ends, however it ends.
 */
export class ChunkAssembler {
  readonly header: ChunkHeader;
  #held = 0;
  readonly #tiles: Uint8Array;
  /** One bit per tile: covered by a chunk already (overlaps are refused, gaps found at the end). */
  readonly #covered: Uint32Array;
  #coveredCount = 0;
  #chunks = 0;

  /** Checks the header against the limits (before allocating anything) and allocates the map. */
  constructor(header: ChunkHeader, limits: MapLimits) {
    for (const name of ["width", "height"] as const) {
      const v = header[name];
      if (!Number.isInteger(v) || v < 1) throw invalid(`header.${name}`, v, "must be a positive integer");
    }
    try {
      checkMapLimits(header.width, header.height, limits, "header");
    } catch (e) {
      throw translateMapError(e, "header");
    }
    this.header = header;
    const n = header.width * header.height;
    // At most twice the largest map in assembly at once (one big upload and its retry, or many small ones).
    const limit = 2 * limits.maxTiles;
    if (tilesInFlight + n > limit) {
      throw new ServiceError(
        "RESOURCE_EXHAUSTED",
        `header: ${tilesInFlight} tiles of chunked uploads are already being assembled; with ${n} more they ` +
          `would pass ${limit} (twice --max-map-tiles); retry later`,
      );
    }
    tilesInFlight += n;
    this.#held = n;
    this.#tiles = sharedArray(Uint8Array, n);
    this.#covered = new Uint32Array(Math.ceil(n / 32));
  }

  /** Copies one rectangle in; refuses one outside the map, of the wrong size, overlapping, or unprintable. */
  add(c: TileChunkSpec): void {
    const f = `chunk[${this.#chunks}]`;
    const { width: W, height: H, format } = this.header;
    for (const name of ["width", "height"] as const) {
      if (!Number.isInteger(c[name]) || c[name] < 1) throw invalid(`${f}.${name}`, c[name], "must be >= 1");
    }
    if (c.x + c.width > W) {
      throw invalid(`${f}.x`, c.x, `x + width (${c.width}) must be <= the map width ${W}`);
    }
    if (c.y + c.height > H) {
      throw invalid(`${f}.y`, c.y, `y + height (${c.height}) must be <= the map height ${H}`);
    }
    if (c.tiles.length !== c.width * c.height) {
      throw invalid(
        `${f}.tiles`,
        `${c.tiles.length} bytes`,
        `must hold width * height = ${c.width * c.height}`,
      );
    }
    if (format === "movingai") {
      for (let i = 0; i < c.tiles.length; i++) {
        const b = c.tiles[i];
        if (b < FIRST_PRINTABLE || b > LAST_PRINTABLE) {
          const at = `(${c.x + (i % c.width)}, ${c.y + Math.floor(i / c.width)})`;
          throw invalid(`${f}.tiles`, `byte ${b} at tile ${at}`, "Moving AI tiles must be printable ASCII");
        }
      }
    }
    for (let r = 0; r < c.height; r++) {
      const row = (c.y + r) * W + c.x;
      const t = cover(this.#covered, row, row + c.width);
      if (t >= 0) throw invalid(`${f}`, `tile (${t % W}, ${Math.floor(t / W)})`, "chunks may not overlap");
      this.#tiles.set(c.tiles.subarray(r * c.width, (r + 1) * c.width), row);
    }
    this.#coveredCount += c.width * c.height;
    this.#chunks++;
  }

  /** Gives back this upload's share of the in-flight bound (idempotent). */
  release(): void {
    tilesInFlight -= this.#held;
    this.#held = 0;
  }

  /** Chunks added so far. */
  get chunks(): number {
    return this.#chunks;
  }

  /** The assembled map; INVALID_ARGUMENT naming the first tile no chunk covered. */
  finish(): GridMap {
    const { width, height, format, terrain: entries } = this.header;
    const n = width * height;
    if (this.#coveredCount !== n) {
      let t = 0;
      while (t < n && this.#covered[t >>> 5] & (1 << (t & 31))) t++;
      throw invalid(
        "chunk",
        `${this.#coveredCount} of ${n} tiles`,
        `the chunks must cover the whole map; tile (${t % width}, ${Math.floor(t / width)}) is missing`,
      );
    }
    try {
      const base = format === "movingai" ? movingAiTerrain() : rawTerrain();
      const terrain = entries.length > 0 ? withOverrides(base, entries) : base;
      return { width, height, tiles: this.#tiles, terrain };
    } catch (e) {
      throw translateMapError(e, "header");
    }
  }
}
