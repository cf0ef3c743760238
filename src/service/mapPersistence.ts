/**
 * Persistence of uploaded maps: the latest version of each map id as one JSON file `maps/<id>.json` under the
 * data directory, holding its exact tiles and full terrain table. Writes are atomic (temporary file, then
 * rename); reading checks the content against the recorded version.
 *
 * @module
 */
import { join } from "node:path";
import type { GridMap, TerrainTable } from "../maps/grid.ts";
import { type MapLimits, rawGrid } from "../maps/movingai.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import { mapVersion } from "../maps/version.ts";
import { ServiceError } from "./errors.ts";
import type { MapVersion } from "./mapCache.ts";

const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

/** Checks a map id (ids name files, so "." and ".." are refused too); throws INVALID_ARGUMENT naming `field`. */
export function checkMapId(id: string, field: string): void {
  if (!ID_PATTERN.test(id) || id === "." || id === "..") {
    throw new ServiceError(
      "INVALID_ARGUMENT",
      `${field}: must be 1-128 characters of [A-Za-z0-9._-], got ${JSON.stringify(id.slice(0, 140))}`,
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

/** The `maps` folder of a data directory. */
export class MapFiles {
  readonly #dir: string;
  readonly #limits: MapLimits;

  /** Files under `<dataDir>/maps`; maps read back must respect `limits`. */
  constructor(dataDir: string, limits: MapLimits) {
    this.#dir = join(dataDir, "maps");
    this.#limits = limits;
  }

  /** The file of a map id. */
  path(id: string): string {
    return join(this.#dir, `${id}.json`);
  }

  /** Paths of every map file (creating the folder if missing). */
  async *paths(): AsyncGenerator<string> {
    await Deno.mkdir(this.#dir, { recursive: true });
    for await (const e of Deno.readDir(this.#dir)) {
      if (e.isFile && e.name.endsWith(".json")) yield join(this.#dir, e.name);
    }
  }

  /** A file's text, or null if there is no such file. */
  async readText(path: string): Promise<string | null> {
    try {
      return await Deno.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
  }

  /** Decodes a file's text; throws if it is malformed, over the limits or its content hash differs. */
  decode(text: string): StoredMap {
    const rec = JSON.parse(text) as PersistedMap;
    checkMapId(rec.id, "id");
    const tiles = fromBase64(rec.tiles);
    const parsed = rawGrid(rec.width, rec.height, tiles, this.#limits);
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

  /** Writes a version as its map's file, replacing the previous one atomically. */
  async write(mv: MapVersion): Promise<void> {
    await Deno.mkdir(this.#dir, { recursive: true });
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
    const final = this.path(mv.id);
    const tmp = `${final}.tmp-${crypto.randomUUID()}`;
    // Write then rename: a crash leaves either the old file or the new one, never half a file.
    const file = await Deno.open(tmp, { write: true, create: true, truncate: true });
    try {
      await file.write(new TextEncoder().encode(JSON.stringify(rec)));
      await file.sync();
    } finally {
      file.close();
    }
    await Deno.rename(tmp, final);
  }

  /** Removes a map's file (no error if there is none). */
  async remove(id: string): Promise<void> {
    try {
      await Deno.remove(this.path(id));
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  }
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}
