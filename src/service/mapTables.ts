/**
 * A map version's tables (pass layers, region tables) and region tables of big versions built in the
 * background: an upload of a big map answers once the map is
 * stored and its pass layer built, and the region tables of the built-in classes follow in the map builder
 * (mapBuild.ts). A query that needs a table still being built waits for it within its own budget, never builds
 * a second copy, and is told which table it waited for when the budget runs out first. A build that failed
 * (builder stopped or crashed) is forgotten, so the next query that asks starts it again.
 *
 * @module
 */
import type { PassLayer, TerrainTable } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { withOverrides } from "../maps/terrain.ts";
import type { UnitSpec } from "../units/unit.ts";
import { formatValue } from "./errors.ts";
import type { LayerEntry, MapVersion, VersionCache } from "./mapCache.ts";
import type { MapBuilder } from "./mapBuild.ts";
import { translateMapError } from "./mapErrors.ts";
import { displayId } from "./mapKeys.ts";
import {
  addLayer,
  addRegions,
  builtinClasses,
  cachedTerrainKey,
  layerBytes,
  regionBytes,
} from "./mapLayers.ts";

/** The store's log. */
type Log = (fields: Record<string, unknown>, msg: string) => void;

/**
 * Pass layers a version keeps for units' terrain overrides (each distinct override table has its own layer);
 * past it the least recently used one is evicted, so distinct overrides cannot grow memory without bound.
 */
export const MAX_OVERRIDE_LAYERS = 4;
/** Override lists remembered per version (many lists may resolve to the same few layers). */
const MAX_OVERRIDE_KEYS = 64;

/** A region table being built in the background. */
export interface RegionBuild {
  /** Settles with the table (added to its layer entry first), or null if the build failed. */
  done: Promise<RegionTable | null>;
  /** performance.now() when it started. */
  since: number;
}

/** Builds a layer's region table for a class somewhere else (the map builder). */
export type BuildRegions = (layer: PassLayer, cls: number) => Promise<RegionTable>;

/** The background builds of each layer entry, by class (a table leaves once it is in `entry.regions`). */
const building = new WeakMap<LayerEntry, Map<number, RegionBuild>>();

/**
 * Starts building `entry`'s region table for `cls` unless it is built or being built; returns the build (null
 * when the table is there). `added` runs once the table is in the entry (the store counts its bytes); `failed`
 * is told why a build failed.
 */
export function startRegionBuild(
  entry: LayerEntry,
  cls: number,
  build: BuildRegions,
  added: (table: RegionTable) => void,
  failed: (err: unknown) => void,
): RegionBuild | null {
  if (entry.regions.has(cls)) return null;
  let builds = building.get(entry);
  const running = builds?.get(cls);
  if (running) return running;
  if (!builds) building.set(entry, builds = new Map());
  const done = build(entry.layer, cls).then(
    (table) => {
      builds.delete(cls);
      // Built inline meanwhile (a synchronous caller): keep that one, equal content.
      if (!entry.regions.has(cls)) {
        entry.regions.set(cls, table);
        added(table);
      }
      return entry.regions.get(cls)!;
    },
    (err) => {
      builds.delete(cls);
      failed(err);
      return null;
    },
  );
  const job: RegionBuild = { done, since: performance.now() };
  builds.set(cls, job);
  return job;
}

/** The background build of `entry`'s table for `cls`, if one is running. */
export function regionBuildOf(entry: LayerEntry, cls: number): RegionBuild | undefined {
  return building.get(entry)?.get(cls);
}

/** Every background build running on `entry` (a patch waits for them, so it updates whole tables). */
export function regionBuildsOf(entry: LayerEntry): RegionBuild[] {
  return [...(building.get(entry)?.values() ?? [])];
}

/** `p`'s value if it settles within `ms` milliseconds, else undefined (`p` goes on). */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  if (!Number.isFinite(ms)) return await p;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), Math.max(0, ms))));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What {@link VersionTables.regionsReady} gives: the table, or which table is still being built. */
export type RegionsReady = { table: RegionTable } | { building: string };

/**
 * A version's pass layers and region tables: built when the version loads (inline for small maps; for big
 * ones the layer comes from the map builder and the region tables follow in the background), on first use
 * for a unit's terrain override (at most {@link MAX_OVERRIDE_LAYERS} a version), and counted in the cache's
 * budget.
 */
export class VersionTables {
  readonly #cache: VersionCache;
  readonly #builder: MapBuilder;
  readonly #log?: Log;

  /** Tables of versions in `cache`, big ones built by `builder`. */
  constructor(cache: VersionCache, builder: MapBuilder, log?: Log) {
    this.#cache = cache;
    this.#builder = builder;
    this.#log = log;
  }

  /** Adds a version's pass layer of its own terrain (or `built`, the builder's) and logs the time. */
  buildLayer(mv: MapVersion, terrain: TerrainTable, built?: PassLayer | null): LayerEntry {
    const t0 = performance.now();
    const entry = addLayer(mv, terrain, built ?? undefined);
    this.#cache.account(mv, layerBytes(entry.layer));
    this.#log?.(
      { map: mv.id, version: mv.version, ms: +(performance.now() - t0).toFixed(2) },
      "pass layer built",
    );
    return entry;
  }

  /**
   * The built-in classes' region tables of a new version's layer: built here for a small map, started in the
   * builder for a big one (queries wait for them: {@link regionsReady}).
   */
  addBuiltinRegions(mv: MapVersion, entry: LayerEntry): void {
    for (const cls of builtinClasses()) {
      if (this.#builder.offThread(mv.map)) this.#start(mv, entry, cls);
      else this.#buildRegions(mv, entry, cls);
    }
  }

  /** The region table for a class on a layer, built here if missing (small maps; see {@link regionsReady}). */
  regionsFor(mv: MapVersion, entry: LayerEntry, cls: number): RegionTable {
    return entry.regions.get(cls) ?? this.#buildRegions(mv, entry, cls);
  }

  /**
   * The region table for a class on a layer, waiting up to `waitMs` for a background build (started now if a
   * big map's table is missing); else which table is still being built, for a BUDGET message.
   */
  async regionsReady(mv: MapVersion, entry: LayerEntry, cls: number, waitMs: number): Promise<RegionsReady> {
    const have = entry.regions.get(cls);
    if (have) return { table: have };
    if (!this.#builder.offThread(mv.map)) return { table: this.#buildRegions(mv, entry, cls) };
    const job = this.#start(mv, entry, cls);
    const table = job ? await within(job.done, waitMs) : entry.regions.get(cls);
    if (table) return { table };
    const since = job ? Math.round(performance.now() - job.since) : 0;
    return {
      building:
        `the region table of clearance class ${cls} for map ${formatValue(displayId(mv.id))} version ` +
        `${mv.version} is still being built (${since} ms so far, in the background since the upload); ` +
        "retry shortly",
    };
  }

  /** Whether any of the version's region tables is still being built in the background. */
  preparing(mv: MapVersion): boolean {
    for (const entry of mv.layers.values()) if (regionBuildsOf(entry).length > 0) return true;
    return false;
  }

  /** Waits until the version's background builds settled (a patch updates whole tables). */
  async settled(mv: MapVersion): Promise<void> {
    for (const entry of mv.layers.values()) {
      await Promise.all(regionBuildsOf(entry).map((b) => b.done));
    }
  }

  /**
   * The pass layer a unit sees on a version (built on first use for a terrain override, counted in the budget,
   * then cached; at most {@link MAX_OVERRIDE_LAYERS} override layers per version, least recently used evicted).
   */
  layerFor(mv: MapVersion, unit: UnitSpec): LayerEntry {
    if (unit.terrain.length === 0) return mv.layers.get(cachedTerrainKey(mv.map.terrain))!;
    // Requests repeat the same overrides: remember which layer a given override list resolves to.
    const overrideKey = JSON.stringify(unit.terrain);
    const known = mv.overrideLayers.get(overrideKey);
    if (known) {
      known.lastUsed = this.#cache.tick();
      return known;
    }
    let terrain: TerrainTable;
    try {
      terrain = withOverrides(mv.map.terrain, unit.terrain);
    } catch (e) {
      throw translateMapError(e, "unit");
    }
    let entry = mv.layers.get(cachedTerrainKey(terrain));
    if (!entry) {
      this.#trimOverrideLayers(mv, MAX_OVERRIDE_LAYERS - 1);
      const base = mv.layers.get(cachedTerrainKey(mv.map.terrain))!;
      this.#cache.reserve(mv, layerBytes(base.layer));
      entry = this.buildLayer(mv, terrain);
    }
    entry.lastUsed = this.#cache.tick();
    if (mv.overrideLayers.size >= MAX_OVERRIDE_KEYS) {
      mv.overrideLayers.delete(mv.overrideLayers.keys().next().value!);
    }
    mv.overrideLayers.set(overrideKey, entry);
    return entry;
  }

  /** Evicts a version's least recently used override layers until at most `keep` remain. */
  #trimOverrideLayers(mv: MapVersion, keep: number): void {
    const base = cachedTerrainKey(mv.map.terrain);
    const extra = [...mv.layers].filter(([k]) => k !== base)
      .sort((a, b) => (a[1].lastUsed ?? 0) - (b[1].lastUsed ?? 0));
    for (const [k, entry] of extra.slice(0, Math.max(0, extra.length - keep))) {
      mv.layers.delete(k);
      for (const [ok, e] of mv.overrideLayers) if (e === entry) mv.overrideLayers.delete(ok);
      let bytes = layerBytes(entry.layer);
      for (const t of entry.regions.values()) bytes += regionBytes(t);
      bytes += entry.tableBytes ?? 0;
      this.#cache.dropLayer(mv, entry, bytes);
      this.#log?.(
        { map: mv.id, version: mv.version, layer: entry.key, bytes },
        "evicted override layer",
      );
    }
  }

  #buildRegions(mv: MapVersion, entry: LayerEntry, cls: number): RegionTable {
    const table = addRegions(entry, cls);
    this.#cache.account(mv, regionBytes(table));
    return table;
  }

  /** Starts a background build in the builder (null: the table is there). */
  #start(mv: MapVersion, entry: LayerEntry, cls: number): RegionBuild | null {
    const since = performance.now();
    return startRegionBuild(
      entry,
      cls,
      (layer, c) => this.#builder.regions(layer, c),
      (table) => {
        this.#cache.account(mv, regionBytes(table));
        this.#log?.(
          { map: mv.id, version: mv.version, cls, ms: Math.round(performance.now() - since) },
          "region table built in the background",
        );
      },
      (err) =>
        this.#log?.({ map: mv.id, version: mv.version, cls, err: String(err) }, "region table build failed"),
    );
  }
}
