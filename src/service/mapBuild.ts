/**
 * Building a big map version's tables off the service's thread: the content hash, the pass layer and the
 * region tables of the built-in classes run in builder workers (mapBuildWorker.ts), so the server keeps
 * answering other requests while an 8192x8192 upload builds. With several builders the work splits: the layer
 * by bands of rows written in place (shared memory; costs everywhere first, since clearance reads the costs of
 * rows around its own), then one region table each. Small maps build inline: the thread hops would cost more
 * than they save.
 *
 * @module
 */
import type { GridMap, PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { ServiceError } from "./errors.ts";
import { mapVersion } from "../maps/version.ts";
import { allocPassLayer } from "../maps/layer.ts";
import { SECTOR_SIZE } from "./mapLayers.ts";

/** Maps with at least this many tiles are hashed and built in the builder workers (512 x 512). */
export const OFF_THREAD_TILES = 512 * 512;

/**
 * Builder workers (the layer's bands and the region tables are shared out between them). One: two were no
 * faster on this 2-core machine under load (4096^2 city map, 3 runs each: median 4160 ms against 3748 ms) and
 * take the second core from the planning workers during an upload.
 */
const BUILDERS = 1;

/** Idle milliseconds after which the builder workers stop (idle workers would keep the process alive). */
const IDLE_MS = 2000;

/** Service thread to builder. */
export type BuildRequest =
  | { type: "hash"; id: number; map: GridMap }
  | { type: "costs"; id: number; map: GridMap; layer: PassLayer; y0: number; y1: number }
  | { type: "clearance"; id: number; layer: PassLayer; y0: number; y1: number }
  | { type: "regions"; id: number; layer: PassLayer; cls: number; sectorSize: number };

/** Builder to service thread (`ms`: time the step took in the builder). */
export type BuildReply =
  | { type: "hashed"; id: number; version: string; ms: number }
  | { type: "done"; id: number; ms: number }
  | { type: "regions"; id: number; table: RegionTable; ms: number }
  | { type: "failed"; id: number; message: string };

/** The tables {@link MapBuilder.prepare} built. */
export interface BuiltTables {
  /** The pass layer of the map's own terrain. */
  layer: PassLayer;
  /** Region tables, in the order of the classes asked for. */
  regions: RegionTable[];
  /** Wall milliseconds hashing, building the layer and building the region tables, for the log. */
  millis: { hash_ms: number; layer_ms: number; regions_ms: number };
}

interface Builder {
  worker: Worker;
  waiting: Map<number, { resolve: (r: BuildReply) => void; reject: (e: unknown) => void }>;
}

/**
 * Builder workers, started on first use, stopped after {@link IDLE_MS} idle, replaced if one dies.
 */
export class MapBuilder {
  #builders: Builder[] = [];
  #idle: ReturnType<typeof setTimeout> | undefined;
  #nextId = 1;
  #busy = 0;

  /**
   * A new map's content version and, for a big map whose version is not `known`, its pass layer (of its own
   * terrain) and region tables for `classes`, built in the builders; null tables mean the caller builds them
   * inline (small maps, or the version is cached already).
   */
  async prepare(
    map: GridMap,
    classes: number[],
    known: (version: string) => boolean,
  ): Promise<{ version: string; built: BuiltTables | null }> {
    if (map.width * map.height < OFF_THREAD_TILES) {
      return { version: mapVersion(map.tiles, map.width, map.height, map.terrain), built: null };
    }
    this.#busy++;
    clearTimeout(this.#idle);
    try {
      const t0 = performance.now();
      const h = await this.#ask(0, (id) => ({ type: "hash", id, map }));
      if (h.type !== "hashed") throw new Error("map builder: unexpected reply");
      if (known(h.version)) return { version: h.version, built: null };
      const t1 = performance.now();
      const layer = allocPassLayer(map, map.terrain);
      const bands = this.#bands(map.height);
      await Promise.all(
        bands.map(([y0, y1], i) => this.#ask(i, (id) => ({ type: "costs", id, map, layer, y0, y1 }))),
      );
      await Promise.all(
        bands.map(([y0, y1], i) => this.#ask(i, (id) => ({ type: "clearance", id, layer, y0, y1 }))),
      );
      const t2 = performance.now();
      const replies = await Promise.all(
        classes.map((cls, i) =>
          this.#ask(i % BUILDERS, (id) => ({ type: "regions", id, layer, cls, sectorSize: SECTOR_SIZE }))
        ),
      );
      const regions = replies.map((r) => {
        if (r.type !== "regions") throw new Error("map builder: unexpected reply");
        return r.table;
      });
      const round = (ms: number) => Math.round(ms);
      return {
        version: h.version,
        built: {
          layer,
          regions,
          millis: {
            hash_ms: round(t1 - t0),
            layer_ms: round(t2 - t1),
            regions_ms: round(performance.now() - t2),
          },
        },
      };
    } finally {
      if (--this.#busy === 0) this.#stopWhenIdle();
    }
  }

  /** Stops the workers (requests still waiting fail with UNAVAILABLE). */
  close(): void {
    clearTimeout(this.#idle);
    this.#stop(new ServiceError("UNAVAILABLE", "server is shutting down"));
  }

  /** Row bands [y0, y1) of a map `height` rows high, one per builder. */
  #bands(height: number): [number, number][] {
    const out: [number, number][] = [];
    const step = Math.ceil(height / BUILDERS);
    for (let y = 0; y < height; y += step) out.push([y, Math.min(height, y + step)]);
    return out;
  }

  #stopWhenIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#busy === 0) this.#stop(null);
    }, IDLE_MS);
    Deno.unrefTimer(this.#idle);
  }

  /** Terminates every builder, failing what waits on them with `error` (if any waits). */
  #stop(error: unknown): void {
    for (const b of this.#builders) {
      for (const w of b.waiting.values()) w.reject(error);
      b.worker.terminate();
    }
    this.#builders = [];
  }

  #ask(index: number, make: (id: number) => BuildRequest): Promise<BuildReply> {
    while (this.#builders.length <= index) this.#builders.push(this.#spawn());
    const b = this.#builders[index];
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      b.waiting.set(id, {
        resolve: (r) => (r.type === "failed" ? reject(new Error(r.message)) : resolve(r)),
        reject,
      });
      b.worker.postMessage(make(id));
    });
  }

  #spawn(): Builder {
    const worker = new Worker(new URL("./mapBuildWorker.ts", import.meta.url).href, { type: "module" });
    const b: Builder = { worker, waiting: new Map() };
    worker.onmessage = (ev: MessageEvent<BuildReply>) => {
      const w = b.waiting.get(ev.data.id);
      b.waiting.delete(ev.data.id);
      w?.resolve(ev.data);
    };
    worker.onerror = (ev: ErrorEvent) => {
      // Without preventDefault an uncaught error in a worker ends the whole process.
      ev.preventDefault();
      const error = new ServiceError("INTERNAL", `map builder failed: ${ev.message ?? "worker error"}`);
      for (const w of b.waiting.values()) w.reject(error);
      b.waiting.clear();
      worker.terminate();
      this.#builders = this.#builders.filter((x) => x !== b);
    };
    return b;
  }
}
