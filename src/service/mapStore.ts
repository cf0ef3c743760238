/**
 * The map cache: map versions in memory under a byte budget (LRU over versions; a version pinned by a running
 * request is never evicted), their pass layers and region tables built at load (never per request), and
 * persistence of uploaded maps under the data directory with atomic writes.
 *
 * @module
 */
import { join } from "node:path";
import type { GridMap, PassLayer, TerrainTable } from "../maps/grid.ts";
import { parseMovingAi, rawGrid } from "../maps/movingai.ts";
import { movingAiTerrain, rawTerrain, terrainEntries, terrainKey, withOverrides } from "../maps/terrain.ts";
import { mapVersion } from "../maps/version.ts";
import { buildPassLayer, clearanceClass, type TileRect, updatePassLayer } from "../maps/layer.ts";
import { buildRegionTable, type RegionTable, updateRegionTable } from "../maps/regions.ts";
import { MapInputError, MapLimitError } from "../maps/errors.ts";
import { invalid, ServiceError } from "./errors.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import type { UnitSpec } from "../units/unit.ts";
import { BUILTIN_PROFILES } from "../units/profiles.ts";

/** Size limits for uploaded maps. */
export interface MapLimits {
  /** Max columns. */
  maxWidth: number;
  /** Max rows. */
  maxHeight: number;
  /** Max width * height. */
  maxTiles: number;
}

/** Default limits: 4096 x 4096 and 8 M tiles. */
export const DEFAULT_LIMITS: MapLimits = { maxWidth: 4096, maxHeight: 4096, maxTiles: 8 * 1024 * 1024 };

/** Side of the region table's sectors. */
export const SECTOR_SIZE = 16;

/** A map's tiles as uploaded. */
export type GridInput =
  | { kind: "movingai"; text: string }
  | { kind: "raw"; width: number; height: number; tiles: Uint8Array };

/** The pass layer of one terrain table on one map version, with its region tables per clearance class. */
export interface LayerEntry {
  /** Unique key (map version + terrain key), the worker's cache key too. */
  key: string;
  /** The layer. */
  layer: PassLayer;
  /** Region tables by clearance class. */
  regions: Map<number, RegionTable>;
  /** The terrain table. */
  terrain: TerrainTable;
}

/** One cached map version. */
export interface MapVersion {
  /** Map id. */
  id: string;
  /** Content hash. */
  version: string;
  /** Tiles and the map's terrain table. */
  map: GridMap;
  /** The map's own terrain entries as uploaded (non-default). */
  terrainInput: TerrainEntry[];
  /** Shipped with the server. */
  builtin: boolean;
  /** Not persisted. */
  ephemeral: boolean;
  /** Pass layers by terrain key. */
  layers: Map<string, LayerEntry>;
  /** Pass layers by a unit's terrain override list (JSON), so repeated overrides skip hashing. */
  overrideLayers: Map<string, LayerEntry>;
  /** Running requests holding this version. */
  pins: number;
  /** LRU clock value. */
  lastUsed: number;
  /** Bytes held (tiles, layers, tables). */
  bytes: number;
  /** Microseconds spent building the default layer and tables. */
  buildMicros: number;
}

/** Options of the store. */
export interface MapStoreOptions {
  /** Where uploaded maps persist; null keeps them in memory only. */
  dataDir: string | null;
  /** Memory budget for cached versions. */
  budgetBytes: number;
  /** Upload limits. */
  limits: MapLimits;
  /** Called with a message when something worth logging happens. */
  log?: (fields: Record<string, unknown>, msg: string) => void;
}

const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

const terrainKeys = new WeakMap<TerrainTable, string>();

/** terrainKey, computed once per table (tables never change after they are built). */
function cachedTerrainKey(table: TerrainTable): string {
  let key = terrainKeys.get(table);
  if (key === undefined) {
    key = terrainKey(table);
    terrainKeys.set(table, key);
  }
  return key;
}

/** Checks a map id; throws INVALID_ARGUMENT naming `field`. */
export function checkMapId(id: string, field: string): void {
  if (!ID_PATTERN.test(id) || id === "." || id === "..") {
    throw new ServiceError(
      "INVALID_ARGUMENT",
      `${field}: must be 1-128 characters of [A-Za-z0-9._-], got ${JSON.stringify(id.slice(0, 140))}`,
    );
  }
}

function layerBytes(layer: PassLayer): number {
  return layer.tileCost.byteLength + layer.clearance.byteLength + layer.road.byteLength;
}

function regionBytes(t: RegionTable): number {
  let n = 0;
  for (const v of Object.values(t)) {
    if (ArrayBuffer.isView(v)) n += (v as ArrayBufferView).byteLength;
  }
  return n;
}

/** Clearance classes that get region tables as soon as a version loads: those of the built-in profiles. */
export function builtinClasses(): number[] {
  const set = new Set<number>();
  for (const p of Object.values(BUILTIN_PROFILES)) {
    if (p.terrain.length === 0) set.add(clearanceClass(p.boundingRadius));
  }
  return [...set].sort((a, b) => a - b);
}

/** One tile edit after validation: a rectangle set to a terrain code. */
export interface TileEditSpec {
  /** First column. */
  x: number;
  /** First row. */
  y: number;
  /** Width (>= 1). */
  width: number;
  /** Height (>= 1). */
  height: number;
  /** The new terrain code. */
  code: number;
}

/** What a patch did, for streams and logs. */
export interface PatchEvent {
  /** Map id. */
  id: string;
  /** The version patched. */
  from: MapVersion;
  /** The new latest version. */
  to: MapVersion;
  /** The edited rectangles (half-open). */
  rects: TileRect[];
  /** Microseconds spent updating layers and region tables incrementally. */
  updateMicros: number;
}

/** The map cache. */
export class MapStore {
  readonly #opts: MapStoreOptions;
  readonly #versions = new Map<string, MapVersion>(); // key: id@version
  readonly #latest = new Map<string, string>(); // id -> version
  #clock = 0;
  #bytes = 0;
  #onEvict: ((layerKeys: string[]) => void) | null = null;
  readonly #patchListeners = new Set<(e: PatchEvent) => void>();
  readonly #deleteListeners = new Set<(id: string) => void>();

  /** Subscribes to patches (streams replan from them); returns the unsubscribe function. */
  onPatch(cb: (e: PatchEvent) => void): () => void {
    this.#patchListeners.add(cb);
    return () => this.#patchListeners.delete(cb);
  }

  /** Subscribes to map deletions; returns the unsubscribe function. */
  onDelete(cb: (id: string) => void): () => void {
    this.#deleteListeners.add(cb);
    return () => this.#deleteListeners.delete(cb);
  }

  /**
   * Applies tile edits to the latest version of `id`, making a new version. Pass layers and region tables are
   * updated only where the edits reach. With `expectedVersion` the patch is conditional (FAILED_PRECONDITION
   * unless it is the latest). Running requests keep the version they hold.
   */
  async patch(id: string, expectedVersion: string, edits: TileEditSpec[]): Promise<PatchEvent> {
    const from = await this.get(id, "", "map");
    if (expectedVersion !== "" && expectedVersion !== from.version) {
      throw new ServiceError(
        "FAILED_PRECONDITION",
        `map.version: ${JSON.stringify(expectedVersion)} is not the latest version of ${
          JSON.stringify(id)
        } ` +
          `(latest is ${from.version})`,
      );
    }
    const { width, height } = from.map;
    const tiles = new Uint8Array(new SharedArrayBuffer(width * height));
    tiles.set(from.map.tiles);
    const rects: TileRect[] = [];
    edits.forEach((e, i) => {
      if (e.x >= width) throw invalid(`edits[${i}].x`, e.x, `must be < map width ${width}`);
      if (e.y >= height) throw invalid(`edits[${i}].y`, e.y, `must be < map height ${height}`);
      const x1 = Math.min(width, e.x + e.width), y1 = Math.min(height, e.y + e.height);
      for (let y = e.y; y < y1; y++) tiles.fill(e.code, y * width + e.x, y * width + x1);
      rects.push({ x0: e.x, y0: e.y, x1, y1 });
    });
    const map: GridMap = { width, height, tiles, terrain: from.map.terrain };
    const version = mapVersion(tiles, width, height, map.terrain);
    const t0 = performance.now();
    let to = this.#versions.get(`${id}@${version}`);
    if (!to) {
      to = {
        id,
        version,
        map,
        terrainInput: from.terrainInput,
        builtin: false,
        ephemeral: from.ephemeral,
        layers: new Map(),
        overrideLayers: new Map(),
        pins: 0,
        lastUsed: ++this.#clock,
        bytes: tiles.byteLength,
        buildMicros: 0,
      };
      // One bounding rectangle for the incremental update: edits in one patch are usually close together.
      const box = rects.reduce((a, r) => ({
        x0: Math.min(a.x0, r.x0),
        y0: Math.min(a.y0, r.y0),
        x1: Math.max(a.x1, r.x1),
        y1: Math.max(a.y1, r.y1),
      }));
      for (const [tkey, old] of from.layers) {
        const up = updatePassLayer(old.layer, map, old.terrain, box.x0, box.y0, box.x1, box.y1);
        const entry: LayerEntry = {
          key: `${id}@${version}/${tkey}`,
          layer: up.layer,
          regions: new Map(),
          terrain: old.terrain,
        };
        to.bytes += layerBytes(up.layer);
        for (const [cls, table] of old.regions) {
          const next = updateRegionTable(table, up.layer, box.x0, box.y0, box.x1, box.y1);
          entry.regions.set(cls, next);
          to.bytes += regionBytes(next);
        }
        to.layers.set(tkey, entry);
      }
      to.buildMicros = Math.round((performance.now() - t0) * 1000);
      this.#makeRoom(to.bytes, `${id}@${version}`);
      this.#versions.set(`${id}@${version}`, to);
      this.#bytes += to.bytes;
    }
    this.#latest.set(id, version);
    if (!to.ephemeral && this.#opts.dataDir && !to.builtin) await this.#persist(to);
    const event: PatchEvent = {
      id,
      from,
      to,
      rects,
      updateMicros: Math.round((performance.now() - t0) * 1000),
    };
    for (const cb of this.#patchListeners) cb(event);
    return event;
  }

  /** Creates an empty store. */
  constructor(opts: MapStoreOptions) {
    this.#opts = opts;
  }

  /** Registers a callback told which layer keys were dropped (so workers can forget them). */
  onEvict(cb: (layerKeys: string[]) => void): void {
    this.#onEvict = cb;
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Number of cached versions. */
  get cachedVersions(): number {
    return this.#versions.size;
  }

  /** Parses and validates an upload; throws INVALID_ARGUMENT / RESOURCE_EXHAUSTED naming the field. */
  parse(grid: GridInput, terrainInput: TerrainEntry[]): GridMap {
    try {
      const parsed = grid.kind === "movingai"
        ? parseMovingAi(grid.text, this.#opts.limits)
        : rawGrid(grid.width, grid.height, grid.tiles, this.#opts.limits);
      const base = grid.kind === "movingai" ? movingAiTerrain() : rawTerrain();
      const terrain = terrainInput.length > 0 ? withOverrides(base, terrainInput) : base;
      return { width: parsed.width, height: parsed.height, tiles: parsed.tiles, terrain };
    } catch (e) {
      throw translateMapError(e, grid.kind === "movingai" ? "movingai" : "raw");
    }
  }

  /**
   * Adds a version as the latest of `id` (building its layer and region tables), persists it unless ephemeral
   * or built-in, and evicts least-recently-used versions past the budget.
   */
  async put(
    id: string,
    map: GridMap,
    terrainInput: TerrainEntry[],
    flags: { builtin?: boolean; ephemeral?: boolean; persist?: boolean } = {},
  ): Promise<MapVersion> {
    const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
    const key = `${id}@${version}`;
    let mv = this.#versions.get(key);
    if (!mv) {
      const t0 = performance.now();
      mv = {
        id,
        version,
        map,
        terrainInput,
        builtin: !!flags.builtin,
        ephemeral: !!flags.ephemeral,
        layers: new Map(),
        overrideLayers: new Map(),
        pins: 0,
        lastUsed: ++this.#clock,
        bytes: map.tiles.byteLength,
        buildMicros: 0,
      };
      const entry = this.#buildLayer(mv, map.terrain);
      for (const cls of builtinClasses()) this.#buildRegions(mv, entry, cls);
      mv.buildMicros = Math.round((performance.now() - t0) * 1000);
      this.#makeRoom(mv.bytes, key);
      this.#versions.set(key, mv);
      this.#bytes += mv.bytes;
    }
    mv.lastUsed = ++this.#clock;
    this.#latest.set(id, version);
    if (flags.persist !== false && !mv.builtin && !mv.ephemeral && this.#opts.dataDir) {
      await this.#persist(mv);
    }
    return mv;
  }

  /** Looks a version up (latest when `version` is empty); NOT_FOUND if unknown. Reloads persisted maps. */
  async get(id: string, version: string, field = "map"): Promise<MapVersion> {
    checkMapId(id, `${field}.id`);
    const latest = this.#latest.get(id);
    if (latest === undefined) {
      throw new ServiceError("NOT_FOUND", `${field}.id: no map ${JSON.stringify(id)}`);
    }
    const v = version === "" ? latest : version;
    const mv = this.#versions.get(`${id}@${v}`);
    if (mv) {
      mv.lastUsed = ++this.#clock;
      return mv;
    }
    if (v === latest && this.#opts.dataDir) {
      // The latest version was evicted from memory: it is on disk.
      const reloaded = await this.#loadFile(join(this.#opts.dataDir, "maps", `${id}.json`));
      if (reloaded && reloaded.version === v) return reloaded;
    }
    throw new ServiceError(
      "NOT_FOUND",
      `${field}.version: map ${JSON.stringify(id)} has no version ${JSON.stringify(v)} (latest is ${latest})`,
    );
  }

  /** The latest version string of a map, or undefined. */
  latestVersion(id: string): string | undefined {
    return this.#latest.get(id);
  }

  /** Pins a version so it is not evicted while a request uses it; returns the unpin function. */
  pin(mv: MapVersion): () => void {
    mv.pins++;
    let done = false;
    return () => {
      if (!done) {
        done = true;
        mv.pins--;
      }
    };
  }

  /** The pass layer a unit sees on a version (built on first use for a terrain override, then cached). */
  layerFor(mv: MapVersion, unit: UnitSpec): LayerEntry {
    if (unit.terrain.length === 0) return mv.layers.get(cachedTerrainKey(mv.map.terrain))!;
    // Requests repeat the same overrides: remember which layer a given override list resolves to.
    const overrideKey = JSON.stringify(unit.terrain);
    const known = mv.overrideLayers.get(overrideKey);
    if (known) return known;
    let terrain: TerrainTable;
    try {
      terrain = withOverrides(mv.map.terrain, unit.terrain);
    } catch (e) {
      throw translateMapError(e, "unit");
    }
    const entry = mv.layers.get(cachedTerrainKey(terrain)) ?? this.#buildLayer(mv, terrain);
    mv.overrideLayers.set(overrideKey, entry);
    return entry;
  }

  /** The region table for a clearance class on a layer (built on first use, then cached). */
  regionsFor(mv: MapVersion, entry: LayerEntry, cls: number): RegionTable {
    return entry.regions.get(cls) ?? this.#buildRegions(mv, entry, cls);
  }

  /** The latest version of every map. */
  list(): MapVersion[] {
    const out: MapVersion[] = [];
    for (const [id, v] of this.#latest) {
      const mv = this.#versions.get(`${id}@${v}`);
      if (mv) out.push(mv);
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Ids of all maps (including those whose latest version is on disk only). */
  ids(): string[] {
    return [...this.#latest.keys()].sort();
  }

  /** Deletes a map id: forgets its versions (pinned ones stay alive for their requests) and its file. */
  async delete(id: string): Promise<boolean> {
    checkMapId(id, "map.id");
    if (!this.#latest.has(id)) return false;
    this.#latest.delete(id);
    for (const cb of this.#deleteListeners) cb(id);
    for (const [key, mv] of [...this.#versions]) {
      if (mv.id === id) this.#drop(key, mv);
    }
    if (this.#opts.dataDir) {
      try {
        await Deno.remove(join(this.#opts.dataDir, "maps", `${id}.json`));
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    }
    return true;
  }

  /** Loads every persisted map from the data directory (at start). Corrupt files are logged and skipped. */
  async loadPersisted(): Promise<number> {
    const dir = this.#opts.dataDir;
    if (!dir) return 0;
    await Deno.mkdir(join(dir, "maps"), { recursive: true });
    let n = 0;
    for await (const e of Deno.readDir(join(dir, "maps"))) {
      if (!e.isFile || !e.name.endsWith(".json")) continue;
      if (await this.#loadFile(join(dir, "maps", e.name))) n++;
    }
    return n;
  }

  async #loadFile(path: string): Promise<MapVersion | null> {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
    try {
      const rec = JSON.parse(text) as PersistedMap;
      checkMapId(rec.id, "id");
      const tiles = fromBase64(rec.tiles);
      const parsed = rawGrid(rec.width, rec.height, tiles, this.#opts.limits);
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
      return await this.put(rec.id, map, rec.terrainInput ?? [], { persist: false });
    } catch (e) {
      this.#opts.log?.({ path, err: String(e) }, "skipping unreadable persisted map");
      return null;
    }
  }

  async #persist(mv: MapVersion): Promise<void> {
    const dir = join(this.#opts.dataDir!, "maps");
    await Deno.mkdir(dir, { recursive: true });
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
    const final = join(dir, `${mv.id}.json`);
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

  #buildLayer(mv: MapVersion, terrain: TerrainTable): LayerEntry {
    const t0 = performance.now();
    const layer = buildPassLayer(mv.map, terrain);
    const key = `${mv.id}@${mv.version}/${cachedTerrainKey(terrain)}`;
    const entry: LayerEntry = { key, layer, regions: new Map(), terrain };
    mv.layers.set(cachedTerrainKey(terrain), entry);
    this.#account(mv, layerBytes(layer));
    this.#opts.log?.(
      { map: mv.id, version: mv.version, ms: +(performance.now() - t0).toFixed(2) },
      "pass layer built",
    );
    return entry;
  }

  #buildRegions(mv: MapVersion, entry: LayerEntry, cls: number): RegionTable {
    const table = buildRegionTable(entry.layer, cls, SECTOR_SIZE);
    entry.regions.set(cls, table);
    this.#account(mv, regionBytes(table));
    return table;
  }

  #account(mv: MapVersion, bytes: number): void {
    mv.bytes += bytes;
    if (this.#versions.get(`${mv.id}@${mv.version}`) === mv) this.#bytes += bytes;
  }

  /** Evicts unpinned versions, least recently used first, until `incoming` more bytes fit. */
  #makeRoom(incoming: number, incomingKey: string): void {
    const budget = this.#opts.budgetBytes;
    if (this.#bytes + incoming <= budget) return;
    const candidates = [...this.#versions.entries()]
      .filter(([k, mv]) => mv.pins === 0 && k !== incomingKey && !this.#isUnrecoverable(mv))
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k, mv] of candidates) {
      if (this.#bytes + incoming <= budget) break;
      this.#drop(k, mv);
      this.#opts.log?.({ map: mv.id, version: mv.version, bytes: mv.bytes }, "evicted map version");
    }
    if (this.#bytes + incoming > budget) {
      throw new ServiceError(
        "RESOURCE_EXHAUSTED",
        `map: needs ${incoming} bytes of tables but only ${Math.max(0, budget - this.#bytes)} of the ` +
          `${budget}-byte map memory budget can be freed`,
      );
    }
  }

  /** The latest version of a map that is neither persisted nor shipped cannot be evicted without loss. */
  #isUnrecoverable(mv: MapVersion): boolean {
    const isLatest = this.#latest.get(mv.id) === mv.version;
    return isLatest && (mv.builtin || mv.ephemeral || !this.#opts.dataDir);
  }

  #drop(key: string, mv: MapVersion): void {
    if (!this.#versions.delete(key)) return;
    this.#bytes -= mv.bytes;
    this.#onEvict?.([...mv.layers.values()].map((l) => l.key));
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

/** Maps the maps core's errors to service errors (INVALID_ARGUMENT / RESOURCE_EXHAUSTED). */
export function translateMapError(e: unknown, prefix: string): unknown {
  if (e instanceof MapLimitError) return new ServiceError("RESOURCE_EXHAUSTED", e.message);
  if (e instanceof MapInputError) {
    const msg = e.message.startsWith(prefix) ? e.message : `${prefix}: ${e.message}`;
    return new ServiceError("INVALID_ARGUMENT", msg);
  }
  return e;
}

/** The terrain entries to report for a version. */
export function reportedTerrain(mv: MapVersion): TerrainEntry[] {
  return terrainEntries(mv.map.terrain);
}
