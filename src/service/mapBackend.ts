/**
 * The persistence seam of the map store: where acknowledged map versions live. Two implementations: the local
 * data directory ({@link LocalBackend}, one process, the embedded default) and a shared Redis
 * (redisBackend.ts, many replicas). The store (mapStore.ts) keeps its cache, write queue and listeners the same
 * over both; a shared backend also tells it what other processes did ({@link RemoteChange}).
 *
 * @module
 */
import type { TileRect } from "../maps/layer.ts";
import type { MapVersion } from "./mapCache.ts";
import { MapFiles, type StoredMap } from "./mapPersistence.ts";

export type { StoredMap } from "./mapPersistence.ts";

/** The answer of a compare-and-set of a map's latest version. */
export type CommitResult =
  /** Done: `seq` orders the map's changes (0 where the backend is not shared). */
  | { ok: true; seq: number }
  /** Refused: the latest version is no longer the expected one (null: the map does not exist). */
  | { ok: false; latest: string | null };

/** A map's latest state in a shared backend. */
export interface RemotePointer {
  /** The map key. */
  id: string;
  /** The latest version, null if the map was deleted. */
  version: string | null;
  /** The map's change counter (grows with every write; compare to skip stale news). */
  seq: number;
}

/** A change another process made (or the state found after a reconnect, without `from` and `rects`). */
export interface RemoteChange extends RemotePointer {
  /** The version it replaced, when known. */
  from?: string;
  /** The edited rectangles of a patch (half-open); absent for an upload or when unknown. */
  rects?: TileRect[];
  /** The write was an upload (PutMap), not a patch. */
  put?: boolean;
}

/** What a write is, for the news other processes get. */
export interface WriteNote {
  /** "put" (an upload) or "patch". */
  kind: "put" | "patch";
  /** The edited rectangles of a patch. */
  rects?: TileRect[];
}

/** Where map versions persist. */
export interface MapBackend {
  /** Names the store in messages ("data directory ./data", "map store redis://..."). */
  readonly name: string;
  /** Whether other processes write it too (then the latest version must be asked, and news listened to). */
  readonly shared: boolean;
  /**
   * Durably makes `mv` the latest version of its map if the latest is still `expected` (null: any). Throws
   * UNAVAILABLE / RESOURCE_EXHAUSTED naming the store if it cannot.
   */
  commit(mv: MapVersion, expected: string | null, note: WriteNote): Promise<CommitResult>;
  /** Durably deletes a map; returns its change counter (0 where not shared). */
  remove(id: string): Promise<number>;
  /** Reads a version back (null if the store does not hold it). */
  read(id: string, version: string): Promise<StoredMap | null>;
  /** A map's latest state as the store has it now (shared backends; throws if the store cannot answer). */
  pointer(id: string): Promise<RemotePointer>;
  /**
   * Every stored map at start: maps read whole (`stored`) or only their latest version (`pointer`, loaded when
   * first asked for).
   */
  restore(log?: (fields: Record<string, unknown>, msg: string) => void): AsyncIterable<
    { stored: StoredMap } | { pointer: RemotePointer }
  >;
  /**
   * Listens to other processes' changes; `resync` is called with every map's state after each (re)connection,
   * so missed news is caught up.
   */
  listen(change: (c: RemoteChange) => void, resync: (all: RemotePointer[]) => void): void;
  /** Closes connections. */
  close(): Promise<void>;
}

/** The local data directory: one process owns it, so its per-map write queue alone orders writes. */
export class LocalBackend implements MapBackend {
  readonly name: string;
  readonly shared = false;
  readonly #files: MapFiles;

  /** Persists through `files` (maps/<id>.json under the data directory). */
  constructor(files: MapFiles, dataDir: string) {
    this.#files = files;
    this.name = `data directory ${dataDir}`;
  }

  /** Writes the version's file (durable before it returns); `expected` is the store's own queue's business. */
  async commit(mv: MapVersion): Promise<CommitResult> {
    await this.#files.write(mv);
    return { ok: true, seq: 0 };
  }

  /** Removes the map's file durably. */
  async remove(id: string): Promise<number> {
    await this.#files.remove(id);
    return 0;
  }

  /** The map's file (it holds only the latest version: the store checks it is the one asked for). */
  async read(id: string, _version: string): Promise<StoredMap | null> {
    const text = await this.#files.readText(this.#files.path(id));
    if (text === null) return null;
    const stored = this.#files.decode(text);
    return stored.id === id ? stored : null;
  }

  /** Not shared: the store's cache is the truth. */
  pointer(id: string): Promise<RemotePointer> {
    return Promise.reject(new Error(`${this.name} is not shared (asked for ${id})`));
  }

  /** Sweeps temporary files of interrupted writes, then reads every map file (corrupt ones logged, skipped). */
  async *restore(
    log?: (fields: Record<string, unknown>, msg: string) => void,
  ): AsyncGenerator<{ stored: StoredMap }> {
    const swept = await this.#files.sweepTemporary();
    if (swept > 0) log?.({ files: swept }, "removed temporary files of interrupted writes");
    for await (const path of this.#files.paths()) {
      const text = await this.#files.readText(path);
      if (text === null) continue;
      let stored: StoredMap;
      try {
        stored = this.#files.decode(text);
      } catch (e) {
        log?.({ path, err: String(e) }, "skipping unreadable persisted map");
        continue;
      }
      yield { stored };
    }
  }

  /** Nobody else writes the directory. */
  listen(): void {}

  /** Nothing to close. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
