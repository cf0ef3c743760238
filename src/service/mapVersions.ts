/**
 * Map versions' bookkeeping for the store (mapStore.ts): how a new version's record is made and enters the
 * cache, how it is written to the backend and only then made the latest of its map, and the per-id queue that
 * runs writes to one map id one at a time.
 *
 * @module
 */
import type { GridMap } from "../maps/grid.ts";
import type { TerrainEntry } from "../maps/terrain.ts";
import type { MapVersion, VersionCache } from "./mapCache.ts";
import type { CommitResult, MapBackend, WriteNote } from "./mapBackend.ts";
import type { SharedSync } from "./mapSync.ts";

/** How a new version is flagged. */
export interface VersionFlags {
  /** Shipped with the server. */
  builtin?: boolean;
  /** Kept in memory only. */
  ephemeral?: boolean;
}

/** Makes versions, writes them and makes them the latest of their map. */
export class VersionWriter {
  readonly #cache: VersionCache;
  readonly #backend: MapBackend | null;
  readonly #sync: SharedSync | null;

  /** Versions in `cache`, written to `backend` (null: memory only), `sync` told of commits (shared only). */
  constructor(cache: VersionCache, backend: MapBackend | null, sync: SharedSync | null) {
    this.#cache = cache;
    this.#backend = backend;
    this.#sync = sync;
  }

  /**
   * The one way a version enters the cache (uploads, patches, reloads): the cached version if this content
   * (`version`, its hash) is known, else a new record (or `record`, made before) that `fill` gives its layers
   * and tables, timed and added under the budget.
   */
  newVersion(
    id: string,
    version: string,
    map: GridMap,
    terrainInput: TerrainEntry[],
    flags: VersionFlags,
    fill: (mv: MapVersion) => void,
    record?: MapVersion,
  ): MapVersion {
    const known = this.#cache.peek(id, version);
    if (known) return known;
    const t0 = performance.now();
    const mv = record ?? this.record(id, version, map, terrainInput, flags);
    fill(mv);
    mv.buildMicros = Math.round((performance.now() - t0) * 1000);
    this.#cache.add(mv);
    return mv;
  }

  /** A new version's record, with no layers yet and not cached. */
  record(
    id: string,
    version: string,
    map: GridMap,
    terrainInput: TerrainEntry[],
    flags: VersionFlags,
  ): MapVersion {
    return {
      id,
      version,
      map,
      terrainInput,
      builtin: !!flags.builtin,
      ephemeral: !!flags.ephemeral,
      layers: new Map(),
      overrideLayers: new Map(),
      pins: 0,
      lastUsed: this.#cache.tick(),
      bytes: map.tiles.byteLength,
      buildMicros: 0,
    };
  }

  /**
   * Persists a version when asked (unless built-in or ephemeral), then makes it the latest of its map. If the
   * write fails the version is dropped (unless it was cached before) and the error thrown. With a shared
   * backend the write is a compare-and-set against `expected` (null: any): null is returned, and nothing
   * changed, if another process changed the latest version first. Otherwise the change counter (0 unshared).
   */
  async makeLatest(
    mv: MapVersion,
    persist: boolean,
    expected: string | null,
    note: WriteNote,
  ): Promise<number | null> {
    let seq: number | null;
    try {
      seq = await this.commit(mv, persist, expected, note);
    } catch (e) {
      if (mv.pins === 0) this.#cache.dropVersion(mv);
      throw e;
    }
    if (seq === null) {
      if (mv.pins === 0) this.#cache.dropVersion(mv);
      return null;
    }
    this.#cache.setLatest(mv.id, mv.version);
    return seq;
  }

  /**
   * Writes a version to the backend when asked (unless built-in or ephemeral); the change counter (0 when
   * nothing was written), or null if a shared backend's latest version was not `expected` (nothing written).
   */
  async commit(
    mv: MapVersion,
    persist: boolean,
    expected: string | null,
    note: WriteNote,
  ): Promise<number | null> {
    if (!persist || mv.builtin || mv.ephemeral || !this.#backend) return 0;
    const result: CommitResult = await this.#backend.commit(mv, expected, note);
    if (!result.ok) return null;
    this.#sync?.committed(mv.id, result.seq);
    return result.seq;
  }
}

/** Per map id, a queue of writes run one at a time in their order of arrival. */
export class WriteQueue {
  /** The tail of each map id's queue. */
  readonly #queues = new Map<string, Promise<void>>();

  /**
   * Runs `fn` after every earlier write to map `id` settled: concurrent patches apply in order and the file on
   * disk always holds the latest acknowledged version; a delete waits for the write before it.
   */
  serial<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#queues.get(id) ?? Promise.resolve();
    const run = prev.then(fn);
    const tail = run.then(() => {}, () => {});
    this.#queues.set(id, tail);
    void tail.then(() => {
      if (this.#queues.get(id) === tail) this.#queues.delete(id);
    });
    return run;
  }
}
