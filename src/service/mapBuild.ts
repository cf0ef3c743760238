/**
 * Building a big map version's tables off the service's thread: the content hash, the pass layer and the
 * region tables of the built-in classes run in one dedicated worker (mapBuildWorker.ts), so the server keeps
 * answering other requests while an 8192x8192 upload builds (seconds). Small maps build inline: the thread hop
 * would cost more than it saves.
 *
 * @module
 */
import type { GridMap, PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { ServiceError } from "./errors.ts";
import { mapVersion } from "../maps/version.ts";
import { SECTOR_SIZE } from "./mapLayers.ts";

/** Maps with at least this many tiles are hashed and built in the builder worker (512 x 512). */
export const OFF_THREAD_TILES = 512 * 512;

/** Service thread to builder. */
export type BuildRequest =
  | { type: "hash"; id: number; map: GridMap }
  | { type: "build"; id: number; map: GridMap; classes: number[]; sectorSize: number };

/** Builder to service thread. */
export type BuildReply =
  | { type: "hashed"; id: number; version: string; hashMs: number }
  | {
    type: "built";
    id: number;
    layer: PassLayer;
    regions: RegionTable[];
    layerMs: number;
    regionsMs: number;
  }
  | { type: "failed"; id: number; message: string };

/** What {@link MapBuilder.build} returns. */
export interface BuiltTables {
  /** The pass layer of the map's own terrain. */
  layer: PassLayer;
  /** Region tables, in the order of the classes asked for. */
  regions: RegionTable[];
  /** Milliseconds hashing, building the layer and building the region tables (in the worker), for the log. */
  millis: { hash_ms: number; layer_ms: number; regions_ms: number };
}

/** Idle milliseconds after which the builder worker stops (an idle worker would keep the process alive). */
const IDLE_MS = 2000;

/**
 * One builder worker, started on first use, stopped after {@link IDLE_MS} idle and replaced if it dies; requests
 * run one at a time, in order.
 */
export class MapBuilder {
  #worker: Worker | null = null;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, { resolve: (r: BuildReply) => void; reject: (e: unknown) => void }>();

  /**
   * A new map's content version and, for a big map whose version is not `known`, its pass layer (of its own
   * terrain) and region tables for `classes`, all computed in the builder; null tables mean the caller builds
   * them inline (small maps, or the version is cached already).
   */
  async prepare(
    map: GridMap,
    classes: number[],
    known: (version: string) => boolean,
  ): Promise<{ version: string; built: BuiltTables | null }> {
    if (map.width * map.height < OFF_THREAD_TILES) {
      return { version: mapVersion(map.tiles, map.width, map.height, map.terrain), built: null };
    }
    const h = await this.#ask((id) => ({ type: "hash", id, map }));
    if (h.type !== "hashed") throw new Error("map builder: unexpected reply");
    if (known(h.version)) return { version: h.version, built: null };
    const r = await this.#ask((id) => ({ type: "build", id, map, classes, sectorSize: SECTOR_SIZE }));
    if (r.type !== "built") throw new Error("map builder: unexpected reply");
    const round = (ms: number) => Math.round(ms);
    return {
      version: h.version,
      built: {
        layer: r.layer,
        regions: r.regions,
        millis: { hash_ms: round(h.hashMs), layer_ms: round(r.layerMs), regions_ms: round(r.regionsMs) },
      },
    };
  }

  /** Stops the worker (requests still waiting fail with UNAVAILABLE). */
  close(): void {
    clearTimeout(this.#idle);
    this.#fail(new ServiceError("UNAVAILABLE", "server is shutting down"));
    this.#worker?.terminate();
    this.#worker = null;
  }

  #ask(make: (id: number) => BuildRequest): Promise<BuildReply> {
    clearTimeout(this.#idle);
    const id = this.#nextId++;
    const worker = this.#worker ??= this.#spawn();
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, {
        resolve: (r) => {
          if (r.type === "failed") reject(new Error(r.message));
          else resolve(r);
        },
        reject,
      });
      worker.postMessage(make(id));
    });
  }

  #spawn(): Worker {
    const worker = new Worker(new URL("./mapBuildWorker.ts", import.meta.url).href, { type: "module" });
    worker.onmessage = (ev: MessageEvent<BuildReply>) => {
      const w = this.#waiting.get(ev.data.id);
      this.#waiting.delete(ev.data.id);
      if (this.#waiting.size === 0) {
        clearTimeout(this.#idle);
        this.#idle = setTimeout(() => {
          if (this.#waiting.size > 0 || this.#worker !== worker) return;
          this.#worker = null;
          worker.terminate();
        }, IDLE_MS);
        Deno.unrefTimer(this.#idle);
      }
      w?.resolve(ev.data);
    };
    worker.onerror = (ev: ErrorEvent) => {
      // Without preventDefault an uncaught error in a worker ends the whole process.
      ev.preventDefault();
      this.#worker = null;
      worker.terminate();
      this.#fail(new ServiceError("INTERNAL", `map builder failed: ${ev.message ?? "worker error"}`));
    };
    return worker;
  }

  #fail(e: unknown): void {
    for (const w of this.#waiting.values()) w.reject(e);
    this.#waiting.clear();
  }
}
