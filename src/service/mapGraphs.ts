/**
 * Abstract graphs of big map versions prepared in the background: the map builders prepare a region table's graph
 * in parallel (service/mapBuild.ts, search/abstractGraphBuild.ts), once, and the pool publishes it to every worker
 * (as a graph a worker prepared would be). Until then a HIERARCHICAL query is answered by the grid search with a
 * note saying how far the preparation is (planning/hierarchical.ts, `PlanTask.graphPending`), instead of spending
 * its budget on a per-worker preparation. A build that failed is forgotten, so the next query starts it again.
 * The same builds serve an upload's `prepare` (mapPrepare.ts), which waits for them. Prepared graphs are kept in
 * the data directory (graphFiles.ts) and read back after a restart instead of being prepared again. A patched
 * version's graph takes the blocks of the regions the patch left alone from its previous version's graph, while
 * that is still in memory (search/abstractGraphBuild.ts, PreviousGraph), else from the map's last graph file
 * (after a restart or an eviction: search/abstractGraphKept.ts; each map line records its last file,
 * GraphFiles.latest): a patch costs its regions, the nodes' placement and the landmarks, not every region's
 * searches again.
 *
 * @module
 */
import type { RegionTable } from "../maps/regions.ts";
import type { SharedGraphData } from "../search/abstractGraph.ts";
import { sharedGraphBytes } from "../search/abstractGraph.ts";
import { graphProgress, progressPercent } from "../search/abstractGraphBuild.ts";
import { DEFAULT_LANDMARKS, graphCacheKey } from "../planning/hierarchical.ts";
import type { LayerEntry } from "./mapCache.ts";
import { cachedTerrainKey, SECTOR_SIZE } from "./mapLayers.ts";
import type { GraphFiles } from "./graphFiles.ts";
import type { PassLayer } from "../maps/grid.ts";
import type { PreviousGraph } from "../search/abstractGraphBuild.ts";
import type { KeptGraph } from "../search/abstractGraphKept.ts";
import { PartialGraph } from "./graphPartial.ts";

/** How often a running preparation's finished blocks are appended to its partial file (graphPartial.ts). */
const PARTIAL_FLUSH_MS = 2000;
import type { MapBuilder } from "./mapBuild.ts";
import type { SharedData, WorkerPool } from "./pool.ts";

/**
 * Maps with at least this many tiles (1024 x 1024; `--background-graph-tiles` sets it) have their graphs prepared
 * by the map builders (and kept in the data directory). Below it a
 * worker prepares a graph within half a query's budget (0.1-1.5 s on the 512^2 Moving AI maps) and answers from
 * it at once, as before; the builders' thread hops and the grid-search answer in between would cost more.
 */
export const BACKGROUND_GRAPH_TILES = 1024 * 1024;

let backgroundTiles = BACKGROUND_GRAPH_TILES;

/** Sets the tile count from which graphs are prepared in the background (`--background-graph-tiles`). */
export function setBackgroundGraphTiles(tiles: number): number {
  const previous = backgroundTiles;
  backgroundTiles = tiles;
  return previous;
}

/** Whether a map's abstract graphs are prepared in the background ({@link BACKGROUND_GRAPH_TILES}). */
export function graphsInBackground(map: { width: number; height: number }): boolean {
  return map.width * map.height >= backgroundTiles;
}

/** The service's log. */
type Log = (fields: Record<string, unknown>, msg: string) => void;

/** One background preparation (or load from the data directory) of a table's graph. */
interface GraphBuild {
  /** Settles with the graph's bytes once it is published to the pool, null if the build failed or was dropped. */
  done: Promise<number | null>;
  /** The builders' progress counters (search/abstractGraphBuild.ts). */
  progress: Int32Array;
  /** performance.now() when it started. */
  since: number;
  /** True while the graph is read from its file (a prepared graph kept from an earlier run: graphFiles.ts). */
  loading: boolean;
}

/** Builds running, by region table and graph cache key (a table leaves with its version). */
const building = new WeakMap<RegionTable, Map<string, GraphBuild>>();

/** The key a table's graph is published under in the pool (as worker.ts publishes one a worker prepared). */
export function graphTableKey(regionKey: string, cacheKey: string): string {
  return `${regionKey}#graph/${cacheKey}`;
}

/**
 * Where a table's graph stands: published (ready), or being prepared (percent done, ms since it started;
 * `loading`: read from the data directory, ready in moments).
 */
export type GraphState = { ready: true } | { ready: false; percent: number; ms: number; loading: boolean };

/** Where prepared graphs persist and whose they are. */
export interface GraphPersist {
  /** The data directory's graph files (null: not kept, e.g. a shared store). */
  files: GraphFiles | null;
  /** The map version's content hash. */
  version: string;
  /** The map's id (a patched version takes the blocks its previous version's graph can lend). */
  mapId: string;
}

/** A published graph, held weakly (it goes with its version), that the map's next version may take blocks from. */
interface Lineage {
  table: WeakRef<RegionTable>;
  layer: WeakRef<PassLayer>;
  graph: WeakRef<SharedGraphData>;
}

/** The latest published graph per map id, terrain, class and graph key. */
const lineage = new Map<string, Lineage>();

/** The previous graph of the same map, terrain, class and key as `table`, if still in memory and another table. */
function previousGraph(key: string, table: RegionTable): PreviousGraph | null {
  const l = lineage.get(key);
  if (!l) return null;
  const [t, layer, graph] = [l.table.deref(), l.layer.deref(), l.graph.deref()];
  if (!t || !layer || !graph) {
    lineage.delete(key);
    return null;
  }
  return t === table ? null : { table: t, layer, graph };
}

/**
 * Starts (unless published or running) the builders' preparation of the graph of `table`, `entry`'s region
 * table for clearance class `cls`, for `neighborhood`, and tells where it stands. `shared` is registered with the
 * pool on publishing (a preparation that has not shared the layer and table yet passes them). With `persist`, a
 * graph kept in the data directory is read instead of prepared, and a prepared one is written there (after it is
 * published: queries do not wait for the disk).
 */
export function graphInBackground(
  builder: MapBuilder,
  pool: WorkerPool,
  entry: LayerEntry,
  cls: number,
  table: RegionTable,
  neighborhood: 4 | 8,
  log?: Log,
  shared: SharedData[] = [],
  persist: GraphPersist | null = null,
): { state: GraphState; done: Promise<number | null> } {
  const regionKey = `${entry.key}/${cls}`;
  const cacheKey = graphCacheKey(neighborhood);
  const key = graphTableKey(regionKey, cacheKey);
  if (pool.hasPublished(key)) return { state: { ready: true }, done: Promise.resolve(0) };
  let builds = building.get(table);
  if (!builds) building.set(table, builds = new Map());
  let job = builds.get(cacheKey);
  if (!job) {
    const progress = graphProgress();
    const since = performance.now();
    const graphKey = `class ${cls} sector ${SECTOR_SIZE} ${cacheKey}`;
    const terrainKey = cachedTerrainKey(entry.terrain);
    const file = persist?.files?.name(persist.version, terrainKey, graphKey);
    const lineKey = persist ? `${persist.mapId}\n${terrainKey}\n${graphKey}` : null;
    const publish = (graph: SharedGraphData, how: string, fields: Record<string, unknown> = {}) => {
      const bytes = sharedGraphBytes(graph);
      const published = pool.publishTable(shared, key, [entry.key, regionKey], bytes, {
        kind: "graph",
        layerKey: entry.key,
        regionKey,
        cacheKey,
        graph,
      });
      log?.({ layer: entry.key, cls, ms: Math.round(performance.now() - since), published, ...fields }, how);
      if (published && lineKey !== null) {
        lineage.set(lineKey, {
          table: new WeakRef(table),
          layer: new WeakRef(entry.layer),
          graph: new WeakRef(graph),
        });
      }
      return published ? bytes : null;
    };
    const files = persist?.files ?? null;
    const prepare = async () => {
      let previous: PreviousGraph | KeptGraph | null = lineKey === null
        ? null
        : previousGraph(lineKey, table);
      let kept = "";
      if (previous === null && files !== null && lineKey !== null) {
        // Not in memory (a restart, an eviction): the map's last graph file, when it is another version's.
        const last = await files.latest(lineKey);
        if (last !== null && last !== file) {
          previous = await files.readKept(
            last,
            table.regionLocal.length,
            (why) => log?.({ layer: entry.key, cls, file: last, why }, "earlier graph file not used"),
          ).catch((err) => {
            log?.({ layer: entry.key, cls, file: last, err: String(err) }, "earlier graph file unreadable");
            return null;
          });
          if (previous !== null) kept = last;
        }
      }
      // Finished blocks kept as they go: a restart resumes from them (graphPartial.ts).
      let partial: PartialGraph | null = null;
      let timer: ReturnType<typeof setInterval> | undefined;
      const onSkeleton = files !== null && file
        ? async (skeleton: SharedGraphData, done: Uint8Array) => {
          const why = (why: string) =>
            log?.({ layer: entry.key, cls, why }, "partial graph file cut or not used");
          partial = await PartialGraph.open(await files.partialPath(file), skeleton, done, why).catch(
            (err) => {
              log?.({ layer: entry.key, cls, err: String(err) }, "partial graph file not kept");
              return null;
            },
          );
          if (partial === null) return;
          if (partial.restored > 0) {
            log?.(
              { layer: entry.key, cls, chunks: partial.restored },
              "interrupted graph preparation resumed",
            );
          }
          const p = partial;
          const t = setInterval(() => p.flush().catch(() => {}), PARTIAL_FLUSH_MS);
          Deno.unrefTimer(t);
          timer = t;
        }
        : null;
      let built;
      try {
        built = await builder.graph(
          entry.layer,
          table,
          neighborhood,
          DEFAULT_LANDMARKS,
          progress,
          previous,
          onSkeleton,
        );
      } catch (e) {
        clearInterval(timer);
        // The next try resumes from what was kept.
        await (partial as PartialGraph | null)?.flush().catch(() => {});
        await (partial as PartialGraph | null)?.close();
        throw e;
      }
      clearInterval(timer);
      const kept0 = partial as PartialGraph | null;
      const { graph, reused, prints } = built;
      const bytes = publish(graph, "abstract graph prepared in the background", {
        regions: table.regionCount,
        previous: previous !== null,
        ...(kept ? { keptFile: kept } : {}),
        reused,
      });
      if (files !== null && file) {
        const t0 = performance.now();
        const extra = {
          sectorRegionStart: table.sectorRegionStart,
          sectorPrint: prints,
          minCost: entry.layer.minCost,
          width: table.width,
        };
        files.write(file, graph, extra, lineKey).then(() => kept0?.remove()).finally(() => kept0?.close())
          .then(
            () =>
              log?.(
                { layer: entry.key, cls, file, ms: Math.round(performance.now() - t0) },
                "abstract graph saved",
              ),
            (err) => log?.({ layer: entry.key, cls, file, err: String(err) }, "abstract graph not saved"),
          );
      }
      return bytes;
    };
    const loading = persist?.files != null && file !== undefined && persist.files.has(file);
    const started = loading
      ? persist!.files!.read(
        file!,
        table,
        (why) => log?.({ layer: entry.key, cls, why }, "graph file dropped"),
      )
        .catch((err) => {
          log?.({ layer: entry.key, cls, err: String(err) }, "graph file unreadable");
          return null;
        })
        .then((graph) => {
          if (graph === null) {
            job!.loading = false;
            return prepare();
          }
          const bytes = publish(graph, "abstract graph read from the data directory");
          // The map's line points at its latest graph file (another id's same tiles may have written it).
          if (lineKey !== null && persist?.files) {
            const files = persist.files;
            files.latest(lineKey).then((last) => last === file ? undefined : files.setLatest(lineKey, file!))
              .catch(() => {});
          }
          return bytes;
        })
      : prepare();
    const done = started.then(
      (bytes) => {
        builds.delete(cacheKey);
        return bytes;
      },
      (err) => {
        builds.delete(cacheKey);
        log?.({ layer: entry.key, cls, err: String(err) }, "abstract graph preparation failed");
        return null;
      },
    );
    job = { done, progress, since, loading };
    builds.set(cacheKey, job);
  }
  const percent = progressPercent(job.progress, table.regionCount, DEFAULT_LANDMARKS);
  return {
    state: { ready: false, percent, ms: Math.round(performance.now() - job.since), loading: job.loading },
    done: job.done,
  };
}

/** The note of a HIERARCHICAL answer given by the grid search while its graph is prepared (see the module doc). */
export function graphPendingNote(cls: number, state: { percent: number; ms: number }): string {
  return `abstract graph of class ${cls} is being prepared (${state.percent}% ready); answered by the grid search ` +
    `(PLANNER_SMOOTH: the optimal grid path, smoothed; preparing in the background for ${state.ms} ms, later ` +
    "queries use the graph)";
}
