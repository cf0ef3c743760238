/**
 * The directional table store of a worker: a profile's hit-check and heuristic tables from this worker's
 * cache, else from tables/<key>.bin.gz (committed by src/tools/tables.ts), else built (resumably, under the
 * request's stop condition) and cached. It is the {@link DirectionalTableSource} handed to planning, which does
 * no I/O itself.
 *
 * Tables every worker needs (D-8 and AUTO's D-24 and D-48 of the built-in turning units, ~15 MB) are read
 * once by the service's thread into SharedArrayBuffers ({@link DirectionalTableStore.loadShared}) and posted to
 * each worker, which adopts them ({@link DirectionalTableStore.adopt}): N workers hold one copy.
 *
 * @module
 */
import { gunzipSync, gzipSync } from "node:zlib";
import type { DirectionalTableSource, TableSet } from "../planning/tableSource.ts";
import { ByteLru } from "../search/byteLru.ts";
import { buildHeuristicTable, type HeuristicTable } from "../search/heuristicTable.ts";
import { shareDerivedCells } from "../search/transitionCells.ts";
import {
  HitCheckBuilder,
  type HitCheckTable,
  tableKey,
  type TableProfile,
  unpackTables,
} from "../search/hitCheckTable.ts";

/** Where committed tables live (src/tools/tables.ts writes them). */
export const TABLE_DIR: URL = new URL("../../tables/", import.meta.url);

/** The file name of a profile's tables in {@link TABLE_DIR}. */
export function tableFileName(profile: TableProfile): string {
  return `${tableKey(profile)}.bin.gz`;
}

/** The file content for packed tables: gzip level 9 (deterministic for a given zlib). */
export function compressTables(packed: Uint8Array): Uint8Array {
  return new Uint8Array(gzipSync(packed, { level: 9 }));
}

/**
 * Bytes of tables a worker keeps, least recently used out first. Custom profiles each bring their own tables
 * (a few MB), so without a bound a client cycling through unit shapes could grow a worker without limit.
 */
export const TABLE_CACHE_BYTES = 192 * 1024 * 1024;

interface CachedTables {
  hit: HitCheckTable;
  heur: HeuristicTable;
}

/** A profile's tables over shared memory, posted to workers as is (see {@link DirectionalTableStore.adopt}). */
export interface SharedTableSet {
  /** {@link tableKey} of the profile. */
  key: string;
  /** Hit-check table (arrays over one SharedArrayBuffer with {@link heur}). */
  hit: HitCheckTable;
  /** Heuristic table. */
  heur: HeuristicTable;
  /** Bytes held (once, whatever the number of threads holding it). */
  bytes: number;
}

function tableSetBytes(hit: HitCheckTable, heur: HeuristicTable): number {
  let bytes = heur.values.byteLength;
  for (const v of Object.values(hit)) if (ArrayBuffer.isView(v)) bytes += v.byteLength;
  return bytes;
}

/** Tables by profile: cached, read from a directory, or built (see the module doc). */
export class DirectionalTableStore implements DirectionalTableSource {
  readonly #dir: URL;
  readonly #cache: ByteLru<string, CachedTables>;
  /** Builds under way (stopped by a request's deadline or cancel), by table key, with the time spent so far. */
  readonly #builds = new Map<string, { builder: HitCheckBuilder; millis: number }>();
  /** Tables over shared memory, held for good (outside the cache's bound: one copy for every thread). */
  readonly #shared = new Map<string, SharedTableSet>();

  /** A store reading committed tables from `dir`, caching at most `cacheBytes`. */
  constructor(dir: URL = TABLE_DIR, cacheBytes: number = TABLE_CACHE_BYTES) {
    this.#dir = dir;
    this.#cache = new ByteLru<string, CachedTables>(cacheBytes);
  }

  /** The tables of a profile: from the cache, else the directory, else built (and cached). */
  tablesFor(profile: TableProfile): TableSet {
    return this.tablesUntil(profile, null)!;
  }

  /**
   * {@link tablesFor} under a `stop` condition: a build (up to seconds for a large custom profile) polls `stop`
   * between start headings and returns null when it says so; the part built is kept and the next call for the
   * profile goes on from there. `millis` of a built set counts every call's share of the build.
   */
  tablesUntil(profile: TableProfile, stop: (() => boolean) | null): TableSet | null {
    const key = tableKey(profile);
    const common = this.#shared.get(key);
    if (common) return { hit: common.hit, heur: common.heur, source: "cache", millis: 0 };
    const cached = this.#cache.get(key);
    if (cached) return { hit: cached.hit, heur: cached.heur, source: "cache", millis: 0 };
    const t0 = performance.now();
    let build = this.#builds.get(key);
    if (build === undefined) {
      try {
        const file = Deno.readFileSync(new URL(tableFileName(profile), this.#dir));
        const tables = unpackTables(new Uint8Array(gunzipSync(file)));
        this.#keep(key, tables.hit, tables.heur);
        return { ...tables, source: "file", millis: performance.now() - t0 };
      } catch {
        // Not a committed profile: build it.
      }
      build = { builder: new HitCheckBuilder(profile), millis: 0 };
      this.#builds.set(key, build);
    }
    const done = build.builder.step(stop);
    build.millis += performance.now() - t0;
    if (!done) return null;
    const t1 = performance.now();
    const hit = build.builder.table();
    const heur = buildHeuristicTable(profile.turningRadius, profile.headings, profile.reverse);
    this.#builds.delete(key);
    this.#keep(key, hit, heur);
    return { hit, heur, source: "built", millis: build.millis + performance.now() - t1 };
  }

  /**
   * Reads the committed tables of `profiles` into SharedArrayBuffers (once per profile; a profile without a
   * committed file is skipped: its tables are built per thread on first use) and keeps them here for good.
   * Returns every shared set this store holds, to post to workers.
   */
  loadShared(profiles: readonly TableProfile[]): SharedTableSet[] {
    for (const profile of profiles) {
      const key = tableKey(profile);
      if (this.#shared.has(key)) continue;
      let file: Uint8Array;
      try {
        file = Deno.readFileSync(new URL(tableFileName(profile), this.#dir));
      } catch {
        continue;
      }
      const { hit, heur } = unpackTables(new Uint8Array(gunzipSync(file)), true);
      // The search's row bitmasks too: derived once here instead of in every worker.
      const derived = shareDerivedCells(hit);
      this.#shared.set(key, { key, hit, heur, bytes: tableSetBytes(hit, heur) + derived });
      // A copy cached before (a query here) goes: the shared one answers from now on.
      this.#cache.delete(key);
    }
    return this.sharedSets();
  }

  /** Installs tables another thread loaded over shared memory (no copy); they answer before the cache. */
  adopt(sets: readonly SharedTableSet[]): void {
    for (const set of sets) {
      this.#shared.set(set.key, set);
      this.#cache.delete(set.key);
    }
  }

  /** The shared sets held (to post to a worker). */
  sharedSets(): SharedTableSet[] {
    return [...this.#shared.values()];
  }

  /** Bytes of the shared sets (held once for every thread that adopted them). */
  get sharedBytes(): number {
    let n = 0;
    for (const set of this.#shared.values()) n += set.bytes;
    return n;
  }

  /** Progress of a stopped build of the profile's tables (start headings done, of all), or null if none. */
  buildProgress(profile: TableProfile): { done: number; total: number } | null {
    const build = this.#builds.get(tableKey(profile));
    return build ? { done: build.builder.headingsDone, total: profile.headings } : null;
  }

  /** Drops every cached table and build under way (tests). */
  clear(): void {
    this.#cache.clear();
    this.#builds.clear();
  }

  /** Bytes the cache holds now. */
  get bytes(): number {
    return this.#cache.bytes;
  }

  /** The cache's byte bound (tests and tuning). */
  get limit(): number {
    return this.#cache.limit;
  }

  set limit(bytes: number) {
    this.#cache.limit = bytes;
  }

  #keep(key: string, hit: HitCheckTable, heur: HeuristicTable): void {
    this.#cache.set(key, { hit, heur }, tableSetBytes(hit, heur));
  }
}

/**
 * This thread's store: each worker (and the service's own thread) has its module instance, so its own cache,
 * shared by every planning context of the thread (the warm-up loads tables the worker's requests then find).
 */
export const tableStore: DirectionalTableStore = new DirectionalTableStore();
