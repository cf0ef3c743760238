/**
 * The map store: the service's one entry point to maps. Uploads are parsed and validated, every new version
 * (uploaded or patched) goes through one path into the in-memory cache (mapCache.ts) with its pass layers and
 * region tables built at load (mapLayers.ts) or updated from the version it patches (mapPatch.ts), and
 * uploaded maps persist under the data directory (mapPersistence.ts). Writes to one map id (put, patch,
 * delete) run one at a time in their order of arrival, and a version becomes the latest in memory only once it
 * is durably on disk, so what a client was told is what a restart finds. Uploads are parsed in mapParse.ts; a
 * patch's write (conditional, retried against a shared store) is mapPatchWrite.ts.
 *
 * @module
 */
import type { GridMap } from "../maps/grid.ts";
import type { MapLimits } from "../maps/movingai.ts";
import { terrainEntries, type TerrainEntry } from "../maps/terrain.ts";
import { mapVersion } from "../maps/version.ts";
import type { RegionTable } from "../maps/regions.ts";
import type { UnitSpec } from "../units/unit.ts";
import { formatValue, ServiceError } from "./errors.ts";
import { type LayerEntry, type MapVersion, VersionCache } from "./mapCache.ts";
import { type PatchEvent, patchLayers, type TileEditSpec } from "./mapPatch.ts";
import { type GridInput, parseUpload } from "./mapParse.ts";
import { type PatchWriteHost, writePatch } from "./mapPatchWrite.ts";
import { MapFiles, type MapFs, type StoredMap } from "./mapPersistence.ts";
import { LocalBackend, type MapBackend } from "./mapBackend.ts";
import { SharedSync, type SyncHost } from "./mapSync.ts";
import { checkMapKey, displayId } from "./mapKeys.ts";
import { MapBuilder } from "./mapBuild.ts";
import { GraphFiles } from "./graphFiles.ts";
import { type RegionsReady, VersionTables } from "./mapTables.ts";
import { VersionWriter, WriteQueue } from "./mapVersions.ts";

export type { LayerEntry, MapVersion } from "./mapCache.ts";
export { builtinClasses, SECTOR_SIZE } from "./mapLayers.ts";
export type { PatchEvent, TileEditSpec } from "./mapPatch.ts";
export { checkMapId } from "./mapPersistence.ts";
export { translateMapError } from "./mapErrors.ts";
export type { MapLimits } from "../maps/movingai.ts";

export { MAX_OVERRIDE_LAYERS, type RegionsReady } from "./mapTables.ts";
export { DEFAULT_LIMITS, type GridInput } from "./mapParse.ts";

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
  /** The file system under the data directory (Deno's by default; tests inject failures). */
  fs?: MapFs;
  /** Where maps persist instead of `dataDir` (a shared store such as Redis: redisBackend.ts). */
  backend?: MapBackend;
}

/** The map store. */
export class MapStore {
  readonly #opts: MapStoreOptions;
  readonly #cache: VersionCache;
  /** Where uploaded maps persist (null: memory only). */
  readonly #backend: MapBackend | null;
  /** Keeps this process in step with other processes (shared backends only). */
  readonly #sync: SharedSync | null;
  readonly #patchListeners = new Set<(e: PatchEvent) => void>();
  readonly #deleteListeners = new Set<(id: string) => void>();
  /** Writes to one map id, one at a time. */
  readonly #queue = new WriteQueue();
  /** How versions are made, written and made the latest. */
  readonly #versions: VersionWriter;
  /** Keys whose latest version is a built-in map (shared read-only with every tenant, see tenancy.ts). */
  readonly #builtins = new Set<string>();
  /** Hashes and builds big maps off this thread (started on first use). */
  readonly #builder = new MapBuilder();
  readonly #graphFiles: GraphFiles | null;
  /** Versions' layers and region tables. */
  readonly #tables: VersionTables;
  /** What a patch's write uses of this store (mapPatchWrite.ts). */
  readonly #patchHost: PatchWriteHost;

  /** The map builders (also used for abstract graphs prepared in the background, mapGraphs.ts). */
  get builder(): MapBuilder {
    return this.#builder;
  }

  /** Where prepared abstract graphs persist (the data directory's graph files), or null. */
  get graphFiles(): GraphFiles | null {
    return this.#graphFiles;
  }

  /** The store's log, if any. */
  get log(): MapStoreOptions["log"] {
    return this.#opts.log;
  }

  /** Creates an empty store. */
  constructor(opts: MapStoreOptions) {
    this.#opts = opts;
    this.#backend = opts.backend ??
      (opts.dataDir
        ? new LocalBackend(new MapFiles(opts.dataDir, opts.limits, opts.fs), opts.dataDir)
        : null);
    // Prepared abstract graphs of big maps are kept beside the map files (not in a shared store).
    this.#graphFiles = !opts.backend && opts.dataDir ? new GraphFiles(opts.dataDir, opts.fs) : null;
    // Without a backend a latest version could not be reloaded, so the cache must keep it.
    this.#cache = new VersionCache(opts.budgetBytes, this.#backend !== null, opts.log);
    this.#tables = new VersionTables(this.#cache, this.#builder, opts.log);
    this.#sync = this.#backend?.shared ? new SharedSync(this.#syncHost(this.#backend)) : null;
    this.#versions = new VersionWriter(this.#cache, this.#backend, this.#sync);
    this.#patchHost = {
      cache: this.#cache,
      versions: this.#versions,
      tables: this.#tables,
      sync: this.#sync,
      backendName: () => this.#backend?.name ?? "the map store",
      latest: (id) => this.#getNow(id, "", "map"),
      patched: (e) => {
        for (const cb of this.#patchListeners) cb(e);
      },
    };
    // An ephemeral map dropped for room no longer exists: streams on it end as on a delete.
    this.#cache.onDropMap((id) => {
      for (const cb of this.#deleteListeners) cb(id);
    });
  }

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

  /** Registers a callback told which layer keys were dropped (so workers can forget them). */
  onEvict(cb: (layerKeys: string[]) => void): void {
    this.#cache.onEvict(cb);
  }

  /** Bytes currently held. */
  get bytes(): number {
    return this.#cache.bytes;
  }

  /**
   * Counts in the budget the bytes of a table the workers built over a layer and share (jump tables, abstract
   * graphs; held once for all workers), against the version holding the layer: they go with it. A layer no longer
   * cached is ignored (the workers forgot the table with it).
   */
  countLayerTables(layerKey: string, bytes: number): void {
    const found = this.#cache.findLayer(layerKey);
    if (!found) return;
    found.entry.tableBytes = (found.entry.tableBytes ?? 0) + bytes;
    this.#cache.account(found.mv, bytes);
  }

  /** The upload limits (chunked uploads check their header against them). */
  get limits(): MapLimits {
    return this.#opts.limits;
  }

  /** Number of cached versions. */
  get cachedVersions(): number {
    return this.#cache.size;
  }

  /** Parses and validates an upload; throws INVALID_ARGUMENT / RESOURCE_EXHAUSTED naming the field. */
  parse(grid: GridInput, terrainInput: TerrainEntry[]): GridMap {
    return parseUpload(grid, terrainInput, this.#opts.limits);
  }

  /**
   * Adds a version as the latest of `id` (building its layer and region tables), persists it unless ephemeral
   * or built-in, and evicts least-recently-used versions past the budget. Queued behind other writes to `id`;
   * if persisting fails the version is not made visible and the error (RESOURCE_EXHAUSTED / UNAVAILABLE) is
   * thrown.
   */
  put(
    id: string,
    map: GridMap,
    terrainInput: TerrainEntry[],
    flags: { builtin?: boolean; ephemeral?: boolean; persist?: boolean } = {},
  ): Promise<MapVersion> {
    return this.#queue.serial(id, () => this.#putNow(id, map, terrainInput, flags));
  }

  async #putNow(
    id: string,
    map: GridMap,
    terrainInput: TerrainEntry[],
    flags: { builtin?: boolean; ephemeral?: boolean; persist?: boolean },
  ): Promise<MapVersion> {
    // Big maps hash and build their layer in the builder workers, so this thread keeps answering meanwhile.
    const t0 = performance.now();
    const version = await this.#builder.hash(map);
    const hashMs = performance.now() - t0;
    const persist = flags.persist !== false;
    let mv = this.#cache.peek(id, version);
    if (mv) {
      this.#cache.touch(mv);
      await this.#versions.makeLatest(mv, persist, null, { kind: "put" });
    } else {
      const fresh = this.#versions.record(id, version, map, terrainInput, flags);
      // Refused for the budget before anything is written; tiles and the default layer (9 bytes a tile).
      this.#cache.roomFor(id, version, map.tiles.byteLength + 9 * map.width * map.height);
      // The layer builds while the map is written (the answer needs both); region tables of a big map follow
      // in the background (mapTables.ts).
      const [layer] = await Promise.all([
        // A builder that failed must not fail an upload whose write may have landed: built inline instead.
        this.#builder.layer(map).catch((e) => {
          this.#opts.log?.(
            { map: id, version, err: String(e) },
            "map builder failed; building the layer here",
          );
          return null;
        }),
        this.#versions.commit(fresh, persist, null, { kind: "put" }),
      ]);
      const t1 = performance.now();
      mv = this.#versions.newVersion(id, version, map, terrainInput, flags, (v) => {
        this.#tables.addBuiltinRegions(v, this.#tables.buildLayer(v, map.terrain, layer));
      }, fresh);
      this.#cache.touch(mv);
      this.#cache.setLatest(id, version);
      if (layer) {
        const ms = { hash_ms: Math.round(hashMs), layer_and_write_ms: Math.round(t1 - t0 - hashMs) };
        this.#opts.log?.({ map: id, version, ...ms }, "map hashed and its layer built off thread");
      }
    }
    if (mv.builtin) this.#builtins.add(id);
    else this.#builtins.delete(id);
    return mv;
  }

  /**
   * Applies tile edits to the latest version of `id`, making a new version. Pass layers and region tables are
   * updated only where the edits reach. With `expectedVersion` the patch is conditional (FAILED_PRECONDITION
   * unless it is the latest when its turn in the map's write queue comes). Running requests keep the version
   * they hold. The new version is visible (and listeners told) only once it is on disk.
   */
  async patch(id: string, expectedVersion: string, edits: TileEditSpec[]): Promise<PatchEvent> {
    checkMapKey(id, "map.id");
    return await this.#queue.serial(id, () => writePatch(this.#patchHost, id, expectedVersion, edits));
  }

  /**
   * Looks a version up (latest when `version` is empty); NOT_FOUND if unknown. Reloads persisted maps (in the
   * map's write queue, so a reload never races a write).
   */
  async get(id: string, version: string, field = "map"): Promise<MapVersion> {
    checkMapKey(id, `${field}.id`);
    // A shared store may hold a newer latest version than news has brought yet: ask it (if it answers).
    const asked = this.#sync !== null && (version === "" || !this.#cache.peek(id, version));
    const answered = asked ? await this.#sync!.catchUp(id) : true;
    const latest = this.#cache.latest(id);
    if (!answered && latest === undefined) {
      // Another replica may hold it: "no such map" would be a guess.
      throw new ServiceError(
        "UNAVAILABLE",
        `${this.#backend!.name} is unavailable; map ${
          formatValue(displayId(id))
        } is not cached on this replica`,
      );
    }
    const cached = latest === undefined ? undefined : this.#cache.peek(id, version === "" ? latest : version);
    const reload = latest !== undefined && (version === "" || version === latest || this.#backend?.shared) &&
      !cached && this.#backend;
    return reload
      ? await this.#queue.serial(id, () => this.#getNow(id, version, field))
      : await this.#getNow(id, version, field);
  }

  async #getNow(id: string, version: string, field: string): Promise<MapVersion> {
    const latest = this.#cache.latest(id);
    if (latest === undefined) {
      throw new ServiceError("NOT_FOUND", `${field}.id: no map ${formatValue(displayId(id))}`);
    }
    const v = version === "" ? latest : version;
    const mv = this.#cache.peek(id, v);
    if (mv) {
      this.#cache.touch(mv);
      return mv;
    }
    if (this.#backend && (v === latest || this.#backend.shared)) {
      // The latest version was evicted from memory (it is on disk), or a shared store holds the version.
      const stored = await this.#backend.read(id, v);
      const reloaded = stored ? this.#loadStored(stored, false) : null;
      if (reloaded && reloaded.version === v) return reloaded;
    }
    throw new ServiceError(
      "NOT_FOUND",
      `${field}.version: map ${formatValue(displayId(id))} has no version ${
        formatValue(v)
      } (latest is ${latest})`,
    );
  }

  /** Whether the latest version of `key` is a built-in map. */
  isBuiltin(key: string): boolean {
    return this.#builtins.has(key);
  }

  /** The latest version string of a map, or undefined. */
  latestVersion(id: string): string | undefined {
    return this.#cache.latest(id);
  }

  /** Pins a version so it is not evicted while a request uses it; returns the unpin function. */
  pin(mv: MapVersion): () => void {
    return this.#cache.pin(mv);
  }

  /** The pass layer a unit sees on a version (see VersionTables.layerFor: override layers built on first use). */
  layerFor(mv: MapVersion, unit: UnitSpec): LayerEntry {
    return this.#tables.layerFor(mv, unit);
  }

  /**
   * The region table for a class on a layer, built here if missing. For a big map whose tables are built in
   * the background use {@link regionsReady} (this would build a second copy on this thread).
   */
  regionsFor(mv: MapVersion, entry: LayerEntry, cls: number): RegionTable {
    return this.#tables.regionsFor(mv, entry, cls);
  }

  /**
   * The region table for a class on a layer, waiting up to `waitMs` for its background build (big maps), or
   * which table is still being built (a query answers BUDGET naming it, and a later one finds it).
   */
  regionsReady(mv: MapVersion, entry: LayerEntry, cls: number, waitMs: number): Promise<RegionsReady> {
    return this.#tables.regionsReady(mv, entry, cls, waitMs);
  }

  /** Whether some of a version's region tables are still being built in the background. */
  preparing(mv: MapVersion): boolean {
    return this.#tables.preparing(mv);
  }

  /** The latest version of every map. */
  list(): MapVersion[] {
    return this.#cache.list();
  }

  /** Ids of all maps (including those whose latest version is on disk only). */
  ids(): string[] {
    return this.#cache.ids();
  }

  /**
   * Deletes a map id after the writes queued before it: removes its file durably, then forgets its versions
   * (pinned ones stay alive for their requests). If the file cannot be removed the map stays (UNAVAILABLE).
   */
  async delete(id: string): Promise<boolean> {
    checkMapKey(id, "map.id");
    return await this.#queue.serial(id, async () => {
      await this.#sync?.catchUpNow(id, true);
      const latest = this.#cache.latest(id);
      if (latest === undefined) return false;
      const mv = this.#cache.peek(id, latest);
      // Built-in and ephemeral maps live in this process only.
      const local = this.#builtins.has(id) || (mv?.ephemeral ?? false);
      if (this.#backend && !(local && this.#backend.shared)) {
        const seq = await this.#backend.remove(id);
        this.#sync?.committed(id, seq);
      }
      this.#cache.forgetLatest(id);
      this.#builtins.delete(id);
      for (const cb of this.#deleteListeners) cb(id);
      this.#cache.dropVersions(id);
      return true;
    });
  }

  /**
   * Loads every persisted map from the data directory (at start), first removing temporary files of writes a
   * crash interrupted. Corrupt files are logged and skipped.
   */
  async loadPersisted(): Promise<number> {
    if (!this.#backend) return 0;
    let n = 0;
    const versions = new Set<string>();
    const maps = new Set<string>();
    for await (const item of this.#backend.restore(this.#opts.log)) {
      if ("stored" in item) {
        try {
          versions.add(this.#loadStored(item.stored, true).version);
          maps.add(item.stored.id);
          n++;
        } catch (e) {
          this.#opts.log?.({ map: item.stored.id, err: String(e) }, "skipping unreadable persisted map");
        }
      } else if (item.pointer.version !== null) {
        // A shared store's versions load when first asked for.
        this.#cache.setLatest(item.pointer.id, item.pointer.version);
        this.#builtins.delete(item.pointer.id);
        this.#sync?.committed(item.pointer.id, item.pointer.seq);
        n++;
      }
    }
    // Graph files of versions no longer stored (replaced, patched, deleted) go.
    // (A stored map's last graph file stays: its patched version's graph takes blocks from it.)
    await this.#graphFiles?.prune(versions, maps).catch((e) =>
      this.#opts.log?.({ err: String(e) }, "graph files not pruned")
    );
    this.#sync?.listen();
    return n;
  }

  /** The name of the backend maps persist in (null: memory only). */
  get storeName(): string | null {
    return this.#backend?.name ?? null;
  }

  /** Closes the backend's connections. */
  async close(): Promise<void> {
    // A prepared graph still being written would otherwise be lost with the process (and prepared again).
    await this.#graphFiles?.settle();
    this.#builder.close();
    await this.#backend?.close();
  }

  /** What the shared-store sync may do to this store. */
  #syncHost(backend: MapBackend): SyncHost {
    return {
      backend,
      cache: this.#cache,
      serial: (id, fn) => this.#queue.serial(id, fn),
      pointTo: (id, version) => {
        this.#cache.setLatest(id, version);
        this.#builtins.delete(id);
      },
      isLocal: (id) => {
        const latest = this.#cache.latest(id);
        return this.#builtins.has(id) || (latest !== undefined && !!this.#cache.peek(id, latest)?.ephemeral);
      },
      patched: (e) => {
        for (const cb of this.#patchListeners) cb(e);
      },
      deleted: (id) => {
        this.#cache.forgetLatest(id);
        this.#builtins.delete(id);
        for (const cb of this.#deleteListeners) cb(id);
        this.#cache.dropVersions(id);
      },
      loadStored: (stored) => this.#loadStored(stored, false),
      patchedVersion: (from, stored, rects) => {
        const { map, terrainInput } = stored;
        const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
        const to = this.#versions.newVersion(
          from.id,
          version,
          map,
          terrainInput,
          {},
          (to) => patchLayers(from, to, rects),
        );
        this.#cache.touch(to);
        return to;
      },
      log: this.#opts.log,
    };
  }

  /** Adds a version read back from the backend, as the latest of its map or not. */
  #loadStored(stored: StoredMap, latest: boolean): MapVersion {
    const { id, map, terrainInput } = stored;
    const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
    const mv = this.#versions.newVersion(id, version, map, terrainInput, {}, (mv) => {
      this.#tables.addBuiltinRegions(mv, this.#tables.buildLayer(mv, map.terrain));
    });
    this.#cache.touch(mv);
    if (latest) {
      this.#cache.setLatest(id, version);
      this.#builtins.delete(id);
    }
    return mv;
  }
}

/** The terrain entries to report for a version. */
export function reportedTerrain(mv: MapVersion): TerrainEntry[] {
  return terrainEntries(mv.map.terrain);
}
