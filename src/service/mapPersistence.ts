/**
 * Persistence of uploaded maps: the latest version of each map id as one JSON file `maps/<id>.json` under the
 * data directory (another tenant's maps under `tenants/<tenant>/maps/<id>.json`; see mapKeys.ts), holding its exact tiles and full terrain table. A write is durable before it returns: the
 * whole buffer goes to a temporary file (`<id>.json.tmp-<pid>-<n>`), which is fsynced, renamed over the map's
 * file, and then the directory is fsynced. A failed write removes its temporary file and throws a
 * RESOURCE_EXHAUSTED (disk full) or UNAVAILABLE naming the data directory; temporary files a crash left are
 * swept at start. Reading checks the content against the recorded version. File calls go through an
 * injectable {@link MapFs} so tests can simulate short writes and a full disk.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { join } from "node:path";
import type { GridMap, TerrainTable } from "../maps/grid.ts";
import { type MapLimits, rawGrid } from "../maps/movingai.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import { mapVersion } from "../maps/version.ts";
import { formatValue, ServiceError } from "./errors.ts";
import type { MapVersion } from "./mapCache.ts";
import { checkMapKey, DEFAULT_TENANT, displayId, tenantOf, validTenant } from "./mapKeys.ts";

const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** Checks a map id (ids name files, so "." and ".." are refused too); throws INVALID_ARGUMENT naming `field`. */
export function checkMapId(id: string, field: string): void {
  if (!ID_PATTERN.test(id) || id === "." || id === "..") {
    throw new ServiceError(
      "INVALID_ARGUMENT",
      `${field}: must be 1-128 characters of [A-Za-z0-9._-], got ${formatValue(id)}`,
    );
  }
}

/** The on-disk record of a map's latest version: its exact tiles and full terrain table. */
interface PersistedMap {
  id: string;
  version: string;
  width: number;
  height: number;
  terrain: { cost: number[]; impassable: number[]; road: number[] };
  terrainInput: TerrainEntry[];
  tiles: string;
}

/** A map read back from its file: what the store needs to add it again. */
export interface StoredMap {
  /** Map id. */
  id: string;
  /** Tiles and terrain table (the content hash matched the recorded version). */
  map: GridMap;
  /** The map's own terrain entries as uploaded. */
  terrainInput: TerrainEntry[];
}

/** An open file being written: `write` may write fewer bytes than given (a short write). */
export interface MapFileHandle {
  /** Writes some prefix of `p`; returns how many bytes it wrote. */
  write(p: Uint8Array): Promise<number>;
  /** fsync. */
  sync(): Promise<void>;
  /** Closes the file. */
  close(): void;
}

/** The file operations map persistence uses (Deno's by default); a missing path throws Deno.errors.NotFound. */
export interface MapFs {
  /** Creates a directory and its parents (no error if it exists). */
  mkdir(dir: string): Promise<void>;
  /** The entries of a directory. */
  readDir(dir: string): AsyncIterable<{ name: string; isFile: boolean }>;
  /** A file's text. */
  readTextFile(path: string): Promise<string>;
  /** Creates (or truncates) a file for writing. */
  create(path: string): Promise<MapFileHandle>;
  /** Atomically replaces `to` with `from`. */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file. */
  remove(path: string): Promise<void>;
  /** fsyncs a directory, making renames and removals in it durable. */
  syncDir(dir: string): Promise<void>;
}

/** Deno's file system. */
export const denoFs: MapFs = {
  mkdir: (dir) => Deno.mkdir(dir, { recursive: true }),
  readDir: (dir) => Deno.readDir(dir),
  readTextFile: (path) => Deno.readTextFile(path),
  create: (path) => Deno.open(path, { write: true, create: true, truncate: true }),
  rename: (from, to) => Deno.rename(from, to),
  remove: (path) => Deno.remove(path),
  syncDir: async (dir) => {
    const d = await Deno.open(dir, { read: true });
    try {
      await d.sync();
    } finally {
      d.close();
    }
  },
};

/**
 * A file system that waits a random 0..`maxMs` ms before each rename (the server's `--test-write-jitter-ms`
 * hook): concurrent writes then finish out of order and stay in flight long enough for tests to race deletes
 * and kills against them.
 */
export function jitteredFs(base: MapFs, maxMs: number): MapFs {
  return {
    ...base,
    rename: async (from, to) => {
      await new Promise((r) => setTimeout(r, Math.random() * maxMs));
      await base.rename(from, to);
    },
  };
}

/** Marks a temporary file of an unfinished write (`<id>.json.tmp-<pid>-<n>`). */
const TMP_MARK = ".json.tmp-";
let tmpCounter = 0;

/** `n` rounded up to a multiple of 8 (graph files and their partial files align typed arrays to 8 bytes). */
export function align8(n: number): number {
  return (n + 7) & ~7;
}

/** Writes all of `data`, looping over short writes; a write that makes no progress is an error. */
export async function writeAll(file: MapFileHandle, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const n = await file.write(data.subarray(off));
    if (!(n > 0)) throw new Error(`write made no progress at byte ${off} of ${data.length}`);
    off += n;
  }
}

/** True for a disk-full (or quota) error. */
function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === "ENOSPC" || code === "EDQUOT" || /os error (28|122)\b|No space left/.test(String(e));
}

/** The `maps` folders of a data directory (the default tenant's, and `tenants/<tenant>/maps` for others). */
export class MapFiles {
  readonly #root: string;
  readonly #dir: string;
  readonly #limits: MapLimits;
  readonly #fs: MapFs;
  /** Tenant folders made (and their parents fsynced) by this process. */
  readonly #made = new Set<string>();

  /** Files under `<dataDir>/maps`; maps read back must respect `limits`; file calls go to `fs`. */
  constructor(dataDir: string, limits: MapLimits, fs: MapFs = denoFs) {
    this.#root = dataDir;
    this.#dir = join(dataDir, "maps");
    this.#limits = limits;
    this.#fs = fs;
  }

  /** The folder of a map key's tenant. */
  #dirOf(key: string): string {
    const tenant = tenantOf(key);
    return tenant === DEFAULT_TENANT ? this.#dir : join(this.#root, "tenants", tenant, "maps");
  }

  /** The file of a map key. */
  path(key: string): string {
    return join(this.#dirOf(key), `${displayId(key)}.json`);
  }

  /**
   * Creates a tenant's folder on its first write, fsyncing each parent so the new folders survive a crash as
   * the file in them does.
   */
  async #ensureDir(dir: string): Promise<void> {
    await this.#fs.mkdir(dir);
    if (dir === this.#dir || this.#made.has(dir)) return;
    const tenantDir = join(dir, "..");
    for (const d of [tenantDir, join(tenantDir, ".."), this.#root]) await this.#fs.syncDir(d);
    this.#made.add(dir);
  }

  /** Every maps folder: the default tenant's (created if missing) and each tenant's under `tenants/`. */
  async #dirs(): Promise<string[]> {
    await this.#fs.mkdir(this.#dir);
    const dirs = [this.#dir];
    try {
      for await (const e of this.#fs.readDir(join(this.#root, "tenants"))) {
        if (!e.isFile && validTenant(e.name)) dirs.push(join(this.#root, "tenants", e.name, "maps"));
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
    return dirs;
  }

  /** Paths of every map file (creating the default folder if missing). */
  async *paths(): AsyncGenerator<string> {
    for (const dir of await this.#dirs()) {
      try {
        for await (const e of this.#fs.readDir(dir)) {
          if (e.isFile && e.name.endsWith(".json")) yield join(dir, e.name);
        }
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
  }

  /** Removes the temporary files of writes a crash interrupted (at start, before anything writes); their count. */
  async sweepTemporary(): Promise<number> {
    let n = 0;
    for (const dir of await this.#dirs()) {
      const names: string[] = [];
      try {
        for await (const e of this.#fs.readDir(dir)) {
          if (e.isFile && e.name.includes(TMP_MARK)) names.push(e.name);
        }
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
      for (const name of names) await this.#fs.remove(join(dir, name));
      if (names.length > 0) await this.#fs.syncDir(dir);
      n += names.length;
    }
    return n;
  }

  /** A file's text, or null if there is no such file. */
  async readText(path: string): Promise<string | null> {
    try {
      return await this.#fs.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
  }

  /** Decodes a file's text; throws if it is malformed, over the limits or its content hash differs. */
  decode(text: string): StoredMap {
    return decodeMap(text, this.#limits);
  }

  /**
   * Writes a version as its map's file, replacing the previous one atomically and durably (file and directory
   * fsynced before it returns). On failure the previous file stays, no temporary file remains, and it throws
   * RESOURCE_EXHAUSTED (disk full) or UNAVAILABLE naming the data directory.
   */
  async write(mv: MapVersion): Promise<void> {
    const data = encodeMapBytes(mv);
    const dir = this.#dirOf(mv.id);
    const final = this.path(mv.id);
    const tmp = join(dir, `${displayId(mv.id)}${TMP_MARK}${Deno.pid}-${++tmpCounter}`);
    let file: MapFileHandle | null = null;
    let renamed = false;
    try {
      await this.#ensureDir(dir);
      file = await this.#fs.create(tmp);
      // Write all, fsync, rename, fsync the directory: a crash leaves the old file or the new one, whole,
      // and once this returns the new one survives a power loss.
      await writeAll(file, data);
      await file.sync();
      file.close();
      file = null;
      await this.#fs.rename(tmp, final);
      renamed = true;
      await this.#fs.syncDir(dir);
    } catch (e) {
      if (file) closeQuietly(file);
      if (!renamed) await this.#fs.remove(tmp).catch(() => {});
      throw this.#diskError(e, dir, `map ${JSON.stringify(displayId(mv.id))} was not saved`);
    }
  }

  /** Removes a map's file durably (directory fsynced; no error if there is none); UNAVAILABLE if it cannot. */
  async remove(id: string): Promise<void> {
    try {
      try {
        await this.#fs.remove(this.path(id));
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
        return;
      }
      await this.#fs.syncDir(this.#dirOf(id));
    } catch (e) {
      throw this.#diskError(e, this.#dirOf(id), `map ${JSON.stringify(displayId(id))} was not deleted`);
    }
  }

  /** The service error for a failed file operation, naming the data directory. */
  #diskError(e: unknown, dir: string, what: string): ServiceError {
    if (e instanceof ServiceError) return e;
    const why = String(e instanceof Error ? e.message : e).slice(0, 200);
    return isDiskFull(e)
      ? new ServiceError("RESOURCE_EXHAUSTED", `data directory ${dir}: disk full (${why}); ${what}`)
      : new ServiceError("UNAVAILABLE", `data directory ${dir}: ${why}; ${what}`);
  }
}

/** A version as the JSON record persistence stores (its exact tiles and full terrain table). */
export function encodeMap(mv: MapVersion): string {
  const rec: PersistedMap = {
    id: mv.id,
    version: mv.version,
    width: mv.map.width,
    height: mv.map.height,
    terrain: {
      cost: [...mv.map.terrain.cost],
      impassable: [...mv.map.terrain.impassable],
      road: [...mv.map.terrain.road],
    },
    terrainInput: mv.terrainInput,
    tiles: toBase64(mv.map.tiles),
  };
  return JSON.stringify(rec);
}

/**
 * {@link encodeMap} as UTF-8 bytes, the same bytes, without the record's text: the tiles' base64 goes straight
 * into the buffer (JSON.stringify and TextEncoder over an 8192^2 map's 89 MB of base64 held the service thread
 * for about a second).
 */
export function encodeMapBytes(mv: MapVersion): Uint8Array {
  const head = encodeMap({ ...mv, map: { ...mv.map, tiles: new Uint8Array(0) } });
  // The record ends `"tiles":""}` (tiles is its last field): the base64 goes between the quotes.
  if (!head.endsWith('"tiles":""}')) throw new Error("map record: tiles must be the last field");
  const enc = new TextEncoder();
  const prefix = enc.encode(head.slice(0, -2));
  const tiles = mv.map.tiles;
  const b64 = Buffer.from(tiles.buffer, tiles.byteOffset, tiles.byteLength).toString("base64");
  const out = new Uint8Array(prefix.length + b64.length + 2);
  out.set(prefix);
  enc.encodeInto(b64, out.subarray(prefix.length, prefix.length + b64.length));
  out[out.length - 2] = 0x22; // "
  out[out.length - 1] = 0x7d; // }
  return out;
}

/** Decodes a record of {@link encodeMap}; throws if it is malformed, over `limits` or its content hash differs. */
export function decodeMap(text: string, limits: MapLimits): StoredMap {
  const rec = JSON.parse(text) as PersistedMap;
  checkMapKey(rec.id, "id");
  const tiles = fromBase64(rec.tiles);
  const parsed = rawGrid(rec.width, rec.height, tiles, limits);
  const terrain: TerrainTable = {
    cost: Float64Array.from(rec.terrain.cost),
    impassable: Uint8Array.from(rec.terrain.impassable),
    road: Uint8Array.from(rec.terrain.road),
  };
  if (terrain.cost.length !== 256 || terrain.impassable.length !== 256 || terrain.road.length !== 256) {
    throw new Error("terrain table must have 256 entries");
  }
  const map: GridMap = { width: parsed.width, height: parsed.height, tiles: parsed.tiles, terrain };
  if (mapVersion(map.tiles, map.width, map.height, terrain) !== rec.version) {
    throw new Error(`content hash differs from the recorded version ${rec.version}`);
  }
  return { id: rec.id, map, terrainInput: rec.terrainInput ?? [] };
}

function closeQuietly(file: MapFileHandle): void {
  try {
    file.close();
  } catch {
    // Already failing; the write's own error is the one to report.
  }
}

// Node's Buffer codec: native, ~10x faster than String.fromCharCode + btoa on a 64 M-tile map (4 s there).
function fromBase64(s: string): Uint8Array {
  return Buffer.from(s, "base64");
}

function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
