/**
 * The in-memory cache of map versions: which version of each map id is the latest, and every cached version
 * under a byte budget. Least recently used versions are evicted first; a version pinned by a running request
 * never is, nor is a latest version that could not be brought back (not persisted, or shipped). Ephemeral maps
 * (never persisted) may hold at most half of the budget against other maps: when nothing else can be evicted,
 * the least recently used ephemeral maps are dropped (deleted) until they hold at most half, so they cannot
 * fill the budget for good.
 *
 * @module
 */
import type { GridMap, PassLayer, TerrainTable } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import { ServiceError } from "./errors.ts";

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
  /** LRU clock value of its last use by a unit's terrain override (override layers are evicted by it). */
  lastUsed?: number;
  /** Bytes of the tables the workers built over it and share (counted in the version's bytes). */
  tableBytes?: number;
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

/** The cache key of a version. */
function versionKey(id: string, version: string): string {
  return `${id}@${version}`;
}

/** Map versions in memory under a byte budget, and the latest version of each map id. */
export class VersionCache {
  readonly #budgetBytes: number;
  readonly #reloadable: boolean;
  readonly #log: ((fields: Record<string, unknown>, msg: string) => void) | undefined;
  readonly #versions = new Map<string, MapVersion>(); // key: id@version
  readonly #latest = new Map<string, string>(); // id -> version
  #clock = 0;
  #bytes = 0;
  #onEvict: ((layerKeys: string[]) => void) | null = null;
  #onDropMap: ((id: string) => void) | null = null;

  /**
   * An empty cache. `reloadable` says whether latest versions persist (and so may be evicted: they are
   * reloaded on demand); built-in and ephemeral ones never are.
   */
  constructor(
    budgetBytes: number,
    reloadable: boolean,
    log?: (fields: Record<string, unknown>, msg: string) => void,
  ) {
    this.#budgetBytes = budgetBytes;
    this.#reloadable = reloadable;
    this.#log = log;
  }

  /** Registers a callback told which layer keys were dropped (so workers can forget them). */
  onEvict(cb: (layerKeys: string[]) => void): void {
    this.#onEvict = cb;
  }

  /** Registers a callback told when an ephemeral map was dropped to make room (it no longer exists). */
  onDropMap(cb: (id: string) => void): void {
    this.#onDropMap = cb;
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Number of cached versions. */
  get size(): number {
    return this.#versions.size;
  }

  /** A cached version, or undefined; does not count as a use. */
  peek(id: string, version: string): MapVersion | undefined {
    return this.#versions.get(versionKey(id, version));
  }

  /** The cached version holding the layer of key `layerKey`, with its entry, or undefined. */
  findLayer(layerKey: string): { mv: MapVersion; entry: LayerEntry } | undefined {
    for (const mv of this.#versions.values()) {
      for (const entry of mv.layers.values()) if (entry.key === layerKey) return { mv, entry };
    }
    return undefined;
  }

  /** Marks a version most recently used. */
  touch(mv: MapVersion): void {
    mv.lastUsed = ++this.#clock;
  }

  /** The next LRU clock value (for a version about to be added). */
  tick(): number {
    return ++this.#clock;
  }

  /** Adds a new version, first evicting others until its bytes fit (RESOURCE_EXHAUSTED if they cannot). */
  add(mv: MapVersion): void {
    const key = versionKey(mv.id, mv.version);
    this.#makeRoom(mv.bytes, key);
    this.#versions.set(key, mv);
    this.#bytes += mv.bytes;
  }

  /**
   * Makes room for a version of `id` about to be added with about `bytes` (RESOURCE_EXHAUSTED if it cannot fit),
   * so an upload too big for the budget is refused before it is written.
   */
  roomFor(id: string, version: string, bytes: number): void {
    this.#makeRoom(bytes, versionKey(id, version));
  }

  /** Counts bytes a version gained (a layer or table built on demand); the budget counts them if it is cached. */
  account(mv: MapVersion, bytes: number): void {
    mv.bytes += bytes;
    if (this.#versions.get(versionKey(mv.id, mv.version)) === mv) this.#bytes += bytes;
  }

  /**
   * Makes room for `bytes` a cached version is about to gain (a layer built on demand), evicting others;
   * RESOURCE_EXHAUSTED if they cannot be freed. Nothing to do for a version no longer cached.
   */
  reserve(mv: MapVersion, bytes: number): void {
    const key = versionKey(mv.id, mv.version);
    if (this.#versions.get(key) === mv) this.#makeRoom(bytes, key);
  }

  /** Drops one layer of a version (an override layer evicted): its bytes leave the budget, workers forget it. */
  dropLayer(mv: MapVersion, entry: LayerEntry, bytes: number): void {
    this.account(mv, -bytes);
    this.#onEvict?.([entry.key]);
  }

  /** The latest version string of a map, or undefined. */
  latest(id: string): string | undefined {
    return this.#latest.get(id);
  }

  /** Makes `version` the latest of `id`. */
  setLatest(id: string, version: string): void {
    this.#latest.set(id, version);
  }

  /** Forgets which version of `id` is the latest (the id is no longer listed); false if it was unknown. */
  forgetLatest(id: string): boolean {
    return this.#latest.delete(id);
  }

  /** Drops one version (a new one whose write failed), unless it is the latest of its map. */
  dropVersion(mv: MapVersion): void {
    const key = versionKey(mv.id, mv.version);
    if (this.#versions.get(key) === mv && this.#latest.get(mv.id) !== mv.version) this.#drop(key, mv);
  }

  /** Drops every cached version of `id` (requests holding one keep it). */
  dropVersions(id: string): void {
    for (const [key, mv] of [...this.#versions]) {
      if (mv.id === id) this.#drop(key, mv);
    }
  }

  /** The cached latest version of every map, by id. */
  list(): MapVersion[] {
    const out: MapVersion[] = [];
    for (const [id, v] of this.#latest) {
      const mv = this.#versions.get(versionKey(id, v));
      if (mv) out.push(mv);
    }
    return out.sort((a, b) => a.id.localeCompare(b.id));
  }

  /** Ids of all maps (including those whose latest version is not cached). */
  ids(): string[] {
    return [...this.#latest.keys()].sort();
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

  /** Evicts unpinned versions, least recently used first, until `incoming` more bytes fit. */
  #makeRoom(incoming: number, incomingKey: string): void {
    const budget = this.#budgetBytes;
    if (this.#bytes + incoming <= budget) return;
    const candidates = [...this.#versions.entries()]
      .filter(([k, mv]) => mv.pins === 0 && k !== incomingKey && !this.#isUnrecoverable(mv))
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k, mv] of candidates) {
      if (this.#bytes + incoming <= budget) break;
      this.#drop(k, mv);
      this.#log?.({ map: mv.id, version: mv.version, bytes: mv.bytes }, "evicted map version");
    }
    if (this.#bytes + incoming > budget) this.#dropEphemeral(incoming, incomingKey);
    if (this.#bytes + incoming > budget) {
      throw new ServiceError(
        "RESOURCE_EXHAUSTED",
        `map: needs ${incoming} bytes of tables but only ${Math.max(0, budget - this.#bytes)} of the ` +
          `${budget}-byte map memory budget can be freed`,
      );
    }
  }

  /**
   * Drops ephemeral maps (latest versions, unpinned), least recently used first, while they hold more than half
   * the budget and `incoming` bytes do not fit. The map `incomingKey` belongs to is spared.
   */
  #dropEphemeral(incoming: number, incomingKey: string): void {
    const incomingId = incomingKey.slice(0, incomingKey.lastIndexOf("@"));
    const ephemeral = [...this.#versions.entries()].filter(([, mv]) =>
      mv.ephemeral && this.#latest.get(mv.id) === mv.version
    );
    let held = ephemeral.reduce((n, [, mv]) => n + mv.bytes, 0);
    const candidates = ephemeral.filter(([, mv]) => mv.pins === 0 && mv.id !== incomingId)
      .sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [k, mv] of candidates) {
      if (this.#bytes + incoming <= this.#budgetBytes || held <= this.#budgetBytes / 2) break;
      held -= mv.bytes;
      this.#drop(k, mv);
      this.#latest.delete(mv.id);
      this.#log?.({ map: mv.id, version: mv.version, bytes: mv.bytes }, "dropped ephemeral map for room");
      this.#onDropMap?.(mv.id);
    }
  }

  /** The latest version of a map that is neither persisted nor shipped cannot be evicted without loss. */
  #isUnrecoverable(mv: MapVersion): boolean {
    const isLatest = this.#latest.get(mv.id) === mv.version;
    return isLatest && (mv.builtin || mv.ephemeral || !this.#reloadable);
  }

  #drop(key: string, mv: MapVersion): void {
    if (!this.#versions.delete(key)) return;
    this.#bytes -= mv.bytes;
    this.#onEvict?.([...mv.layers.values()].map((l) => l.key));
  }
}
