/**
 * Jump tables of big map versions built in the background (issue 13): on a big map the first 8-connected grid
 * search of a clearance class would build the layer's straight jump tables inside the query (6.3 s at 8192^2
 * under load), in whichever worker it ran. Instead the map builders build them once, right after the upload
 * (service/mapBuild.ts), and the pool publishes them to every worker and this thread's inline lane (as tables a
 * worker built are). Until then a GRID query is answered by plain 8-connected A* over the tiles (the same
 * optimal length, more expansions; its message says so; a long one first waits up to half its budget for the
 * tables, see {@link PLAIN_NOW_DISTANCE}), and the other planners wait for the build within their budget. A build that failed is forgotten, so the next query starts it again.
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import { jumpTableBytes, type StraightJumps } from "../search/jumpTables.ts";
import { useJumpPoints } from "../search/jumpPointSpace.ts";
import type { LayerEntry } from "./mapCache.ts";
import type { MapBuilder } from "./mapBuild.ts";
import type { SharedData, WorkerPool } from "./pool.ts";
import { within } from "./mapTables.ts";
import { builtinClasses } from "./mapLayers.ts";
import type { MapStore, MapVersion } from "./mapStore.ts";

/**
 * Maps with at least this many tiles (1024 x 1024) have their jump tables built in the background; below it a
 * query builds them within its budget (~25 ms at 512^2, ~0.1 s at 1024^2) and answers from them at once.
 * `--background-jump-tiles` sets it ({@link setBackgroundJumpTiles}).
 */
export const BACKGROUND_JUMP_TILES = 1024 * 1024;

let backgroundTiles = BACKGROUND_JUMP_TILES;
/** Test hook (`--test-jump-build-delay-ms` with `--test-hooks`): each background build starts this much later. */
let buildDelayMs = 0;

/** Sets the tile count from which jump tables are built in the background; returns the previous one. */
export function setBackgroundJumpTiles(tiles: number): number {
  const previous = backgroundTiles;
  backgroundTiles = tiles;
  return previous;
}

/** Test hook: delays every background build by `ms` (so a test sees a query while the tables build). */
export function setJumpBuildDelay(ms: number): void {
  buildDelayMs = ms;
}

/** Whether a layer's jump tables are built in the background: big enough and jump points apply (uniform cost). */
export function jumpsInBackground(layer: PassLayer): boolean {
  return layer.width * layer.height >= backgroundTiles && useJumpPoints(layer, 8);
}

/** The key the pool publishes (layer, class)'s jump tables under (as worker.ts publishes a worker's build). */
export function jumpTableKey(layerKey: string, cls: number): string {
  return `${layerKey}#jumps/${cls}`;
}

/** One background build. */
interface JumpBuild {
  /** Settles with the tables' bytes once published, null if the build failed or its layer was dropped. */
  done: Promise<number | null>;
  /** performance.now() when it started. */
  since: number;
}

/** Builds running, by layer entry and clearance class (an entry leaves with its version). */
const building = new WeakMap<LayerEntry, Map<number, JumpBuild>>();

/** Where (entry, class)'s jump tables stand: published, or being built (ms since the build started). */
export type JumpState = { ready: true } | { ready: false; ms: number; done: Promise<number | null> };

/** The service's log. */
type Log = (fields: Record<string, unknown>, msg: string) => void;

/**
 * Starts (unless published or running) the builders' build of `entry`'s jump tables for clearance class `cls`
 * and tells where they stand. The layer is registered with the pool on publishing, so the tables can be posted
 * to the workers with it.
 */
export function jumpTablesInBackground(
  builder: MapBuilder,
  pool: WorkerPool,
  entry: LayerEntry,
  cls: number,
  log?: Log,
): JumpState {
  const key = jumpTableKey(entry.key, cls);
  if (pool.hasPublished(key)) return { ready: true };
  let builds = building.get(entry);
  if (!builds) building.set(entry, builds = new Map());
  let job = builds.get(cls);
  if (!job) {
    const since = performance.now();
    const delay = buildDelayMs;
    const start = delay > 0
      ? new Promise<void>((res) => setTimeout(res, delay)).then(() => builder.jumps(entry.layer, cls))
      : builder.jumps(entry.layer, cls);
    const done = start.then(
      (tables: StraightJumps) => {
        builds.delete(cls);
        const bytes = jumpTableBytes(tables);
        const shared: SharedData[] = [{ key: entry.key, data: entry.layer }];
        const published = pool.publishTable(shared, key, [entry.key], bytes, {
          kind: "jumps",
          layerKey: entry.key,
          clearance: cls,
          tables,
        });
        log?.(
          { layer: entry.key, cls, ms: Math.round(performance.now() - since), bytes, published },
          "jump tables built in the background",
        );
        return published ? bytes : null;
      },
      (err) => {
        builds.delete(cls);
        log?.({ layer: entry.key, cls, err: String(err) }, "jump table build failed");
        return null;
      },
    );
    job = { done, since };
    builds.set(cls, job);
  }
  return { ready: false, ms: Math.round(performance.now() - job.since), done: job.done };
}

/** The note of a GRID answer given by plain A* while the jump tables build (see the module doc). */
export function jumpsPendingNote(cls: number, ms: number): string {
  return `jump tables of class ${cls} are being built in the background (${ms} ms so far); answered by plain ` +
    "8-connected A* over the tiles (the same optimal length, more expansions; later queries use the tables)";
}

/** Planners that answer by plain A* while the tables build (their grid search is the answer, or its stand-in). */
const PLAIN_WHILE_BUILDING = new Set(["grid", "smooth", "hierarchical"]);

/**
 * Octile distance (tiles) from which a line planner's query waits for the background build before plain A*:
 * plain A* expands what jump points skip, ~8x the expansions on the longest tiled-city pairs (4096^2: 3.45 M
 * against 0.43 M; 8192^2: 9.3 M against 1.16 M, 6.5 s and 12.5 s under load), more than the rest of a build
 * takes; a ~1,000-step query's plain A* takes milliseconds (at 512 it waited ~3 s for the build at 4096^2).
 */
export const PLAIN_NOW_DISTANCE = 2048;

/**
 * What a query on `entry` needs of the background jump tables of class `cls` (no-op for small or mixed-cost
 * maps): starts their build if none ran yet (a version loaded from the store, not uploaded here). GRID, SMOOTH
 * and HIERARCHICAL get the {@link jumpsPendingNote} (the task's `jumpsPending`: plain A*) at once when the query
 * is short ({@link PLAIN_NOW_DISTANCE}), else after waiting up to half of `waitMs` for the tables (undefined if
 * they came). The curve planners, whose long queries take a jump-point route, wait up to `waitMs` (a build in
 * the query would take as long, and twice the work).
 */
export async function jumpTablesForQuery(
  builder: MapBuilder,
  pool: WorkerPool,
  entry: LayerEntry,
  cls: number,
  planner: string,
  octile: number,
  waitMs: number,
  log?: Log,
): Promise<string | undefined> {
  if (!jumpsInBackground(entry.layer)) return undefined;
  const state = jumpTablesInBackground(builder, pool, entry, cls, log);
  if (state.ready) return undefined;
  if (!PLAIN_WHILE_BUILDING.has(planner)) {
    await within(state.done, waitMs);
    return undefined;
  }
  if (octile >= PLAIN_NOW_DISTANCE && (await within(state.done, waitMs / 2)) != null) return undefined;
  const now = jumpTablesInBackground(builder, pool, entry, cls, log);
  return now.ready ? undefined : jumpsPendingNote(cls, now.ms);
}

/** Octile distance between two points (tiles): a lower bound of an 8-connected route's length. */
export function octileDistance(ax: number, ay: number, bx: number, by: number): number {
  const dx = Math.abs(bx - ax), dy = Math.abs(by - ay);
  return Math.max(dx, dy) + (Math.SQRT2 - 1) * Math.min(dx, dy);
}

/**
 * Starts the background builds of a new version's jump tables (its default layer, the built-in clearance
 * classes) when the map is big; the upload calls this once the map is stored, and nothing waits for them.
 */
export function jumpTablesAtUpload(store: MapStore, pool: WorkerPool, mv: MapVersion): void {
  const entry = mv.layers.values().next().value;
  if (!entry || !jumpsInBackground(entry.layer)) return;
  for (const cls of builtinClasses()) jumpTablesInBackground(store.builder, pool, entry, cls, store.log);
}

/**
 * Waits until a big version's built-in classes' jump tables are published (started if not running): an upload's
 * `prepare` (mapPrepare.ts) waits for them, so no worker builds a second copy. Resolves with the bytes built.
 */
export async function jumpTablesSettled(store: MapStore, pool: WorkerPool, mv: MapVersion): Promise<number> {
  const entry = mv.layers.values().next().value;
  if (!entry || !jumpsInBackground(entry.layer)) return 0;
  let bytes = 0;
  for (const cls of builtinClasses()) {
    const state = jumpTablesInBackground(store.builder, pool, entry, cls, store.log);
    if (!state.ready) bytes += (await state.done) ?? 0;
  }
  return bytes;
}
