/**
 * Building a big map version's tables off the service's thread: the content hash, the pass layer and the
 * region tables run in builder workers (mapBuildWorker.ts), so the server keeps answering other requests while
 * an 8192x8192 upload builds. With several builders the work splits: the layer by bands of rows written in place
 * (shared memory), region tables one per builder. Small maps build inline: the thread hops would cost more than
 * they save. What waits for which table is the store's business (mapStore.ts, mapTables.ts).
 *
 * @module
 */
import type { GridMap, PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { ServiceError } from "./errors.ts";
import { mapVersion } from "../maps/version.ts";
import { allocPassLayer } from "../maps/layer.ts";
import { SECTOR_SIZE } from "./mapLayers.ts";
import { collectNow } from "./collect.ts";
import { trimMalloc } from "./mallocTrim.ts";
import type { SharedGraphData } from "../search/abstractGraph.ts";
import {
  chunkCount,
  type LandmarkWork,
  landmarkWork,
  type PreviousGraph,
} from "../search/abstractGraphBuild.ts";
import { type KeptGraph, printArray } from "../search/abstractGraphKept.ts";
import type { StraightJumps } from "../search/jumpTables.ts";

/** Maps with at least this many tiles are hashed and built in the builder workers (512 x 512). */
export const OFF_THREAD_TILES = 512 * 512;

/**
 * Builder workers (the layer's bands and the region tables are shared out between them). Two: an upload's
 * answer waits for the layer, and with the planning workers idle the second core halves it (8192^2 city map:
 * see the scale bench); under load they were no faster (4096^2, one run of 3: 4160 ms against 3748 ms).
 */
const BUILDERS = 2;

/** Idle milliseconds after which the builder workers stop (idle workers would keep the process alive). */
const IDLE_MS = 2000;

/** Service thread to builder. */
export type BuildRequest =
  | { type: "hash"; id: number; map: GridMap }
  | { type: "costs"; id: number; map: GridMap; layer: PassLayer; y0: number; y1: number }
  | { type: "clearance"; id: number; layer: PassLayer; y0: number; y1: number }
  | { type: "regions"; id: number; layer: PassLayer; cls: number; sectorSize: number }
  /** A layer's straight jump tables for a clearance class (service/mapJumps.ts). */
  | { type: "jumps"; id: number; layer: PassLayer; cls: number }
  /** The three steps of an abstract graph's parallel preparation (search/abstractGraphBuild.ts). */
  | {
    type: "graphSkeleton";
    id: number;
    layer: PassLayer;
    table: RegionTable;
    neighborhood: 4 | 8;
    progress: Int32Array;
  }
  | {
    type: "graphShare";
    id: number;
    layer: PassLayer;
    table: RegionTable;
    skeleton: SharedGraphData;
    part: number;
    parts: number;
    progress: Int32Array;
    previous: PreviousGraph | KeptGraph | null;
    prints: Uint32Array;
    done: Uint8Array;
  }
  | {
    type: "landmarks";
    id: number;
    layer: PassLayer;
    table: RegionTable;
    filled: SharedGraphData;
    work: LandmarkWork;
    part: number;
    parts: number;
    progress: Int32Array;
  }
  | {
    type: "graphFinish";
    id: number;
    layer: PassLayer;
    table: RegionTable;
    filled: SharedGraphData;
    work: LandmarkWork;
    made: number;
    prepExpansions: number;
    progress: Int32Array;
  };

/** Builder to service thread (`ms`: time the step took in the builder). */
export type BuildReply =
  | { type: "hashed"; id: number; version: string; ms: number }
  | { type: "done"; id: number; ms: number }
  | { type: "regions"; id: number; table: RegionTable; ms: number }
  | { type: "jumps"; id: number; tables: StraightJumps; ms: number }
  | { type: "graph"; id: number; graph: SharedGraphData; ms: number }
  | { type: "spent"; id: number; expansions: number; reused?: number; ms: number }
  /** A builder's part of the landmarks: how many were made (the same on every builder). */
  | { type: "landmarks"; id: number; made: number; ms: number }
  | { type: "failed"; id: number; message: string };

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

  /** Whether a map is big enough to hash and build in the builders ({@link OFF_THREAD_TILES}). */
  offThread(map: GridMap): boolean {
    return map.width * map.height >= OFF_THREAD_TILES;
  }

  /** A map's content version (hashed in a builder for a big map, here for a small one). */
  async hash(map: GridMap): Promise<string> {
    if (!this.offThread(map)) return mapVersion(map.tiles, map.width, map.height, map.terrain);
    const h = await this.#run(0, (id) => ({ type: "hash", id, map }));
    if (h.type !== "hashed") throw new Error("map builder: unexpected reply");
    return h.version;
  }

  /**
   * A big map's pass layer of its own terrain, built by the builders in bands of rows (costs everywhere first,
   * since clearance reads the costs of rows around its own); null for a small map (the caller builds it inline).
   */
  async layer(map: GridMap): Promise<PassLayer | null> {
    if (!this.offThread(map)) return null;
    const layer = allocPassLayer(map, map.terrain);
    const bands = this.#bands(map.height);
    await this.#all(bands.map(([y0, y1], i) => [i, (id) => ({ type: "costs", id, map, layer, y0, y1 })]));
    await this.#all(bands.map(([y0, y1], i) => [i, (id) => ({ type: "clearance", id, layer, y0, y1 })]));
    return layer;
  }

  /** A layer's region table for a clearance class, built in the builder with the fewest tasks waiting. */
  async regions(layer: PassLayer, cls: number): Promise<RegionTable> {
    while (this.#builders.length < BUILDERS) this.#builders.push(this.#spawn());
    const index = this.#leastBusy();
    const r = await this.#run(index, (id) => ({ type: "regions", id, layer, cls, sectorSize: SECTOR_SIZE }));
    if (r.type !== "regions") throw new Error("map builder: unexpected reply");
    return r.table;
  }

  /** A layer's jump tables for a clearance class (over shared memory), built in the least busy builder. */
  async jumps(layer: PassLayer, cls: number): Promise<StraightJumps> {
    while (this.#builders.length < BUILDERS) this.#builders.push(this.#spawn());
    const r = await this.#run(this.#leastBusy(), (id) => ({ type: "jumps", id, layer, cls }));
    if (r.type !== "jumps") throw new Error("map builder: unexpected reply");
    return r.tables;
  }

  /**
   * A region table's abstract graph with `landmarks` landmarks, prepared in parallel by the builders (one places
   * the nodes, each fills a share of the regions' blocks in place, then each round's landmark searches run on
   * different builders); equal bit for bit to a worker's sequential preparation. With `previous` (the same map's
   * graph before a patch, in memory or kept in a file) the blocks of regions the patch left alone are taken from
   * it (`reused`: how many). `progress` (graphProgress) counts the steps as they go. `prints`: the sector prints
   * a graph file keeps for the next version (search/abstractGraphKept.ts). `onSkeleton`, given the skeleton and
   * the chunks' done flags before any block is filled, may restore finished chunks (flagged: the builders skip
   * them) and watch the flags (graphPartial.ts).
   */
  async graph(
    layer: PassLayer,
    table: RegionTable,
    neighborhood: 4 | 8,
    landmarks: number,
    progress: Int32Array,
    previous: PreviousGraph | KeptGraph | null = null,
    onSkeleton: ((skeleton: SharedGraphData, done: Uint8Array) => Promise<void>) | null = null,
  ): Promise<{ graph: SharedGraphData; reused: number; prints: Uint32Array }> {
    while (this.#builders.length < BUILDERS) this.#builders.push(this.#spawn());
    // The single-builder steps go to the least busy builder (two classes' landmarks then run side by side).
    const sk = await this.#run(
      this.#leastBusy(),
      (id) => ({ type: "graphSkeleton", id, layer, table, neighborhood, progress }),
    );
    if (sk.type !== "graph") throw new Error("map builder: unexpected reply");
    const skeleton = sk.graph;
    const parts = this.#builders.length;
    const prints = printArray(table);
    const done = new Uint8Array(new SharedArrayBuffer(chunkCount(table.regionCount)));
    await onSkeleton?.(skeleton, done);
    const shares = await Promise.all(
      Array.from(
        { length: parts },
        (_, part) =>
          this.#run(
            part,
            (id) => ({
              type: "graphShare",
              id,
              layer,
              table,
              skeleton,
              part,
              parts,
              progress,
              previous,
              prints,
              done,
            }),
          ),
      ),
    );
    const prepExpansions = shares.reduce((n, r) => n + (r.type === "spent" ? r.expansions : 0), 0);
    const reused = shares.reduce((n, r) => n + (r.type === "spent" ? r.reused ?? 0 : 0), 0);
    const filled = { ...skeleton, partial: false, prepExpansions };
    // Landmarks: every builder at once, a round's searches split between them (search/abstractGraphBuild.ts).
    const work = landmarkWork(filled, landmarks);
    const parts2 = await Promise.all(
      Array.from(
        { length: parts },
        (_, part) =>
          this.#run(
            part,
            (id) => ({ type: "landmarks", id, layer, table, filled, work, part, parts, progress }),
          ),
      ),
    );
    const made = parts2[0].type === "landmarks" ? parts2[0].made : 0;
    const fin = await this.#run(
      this.#leastBusy(),
      (id) => ({ type: "graphFinish", id, layer, table, filled, work, made, prepExpansions, progress }),
    );
    if (fin.type !== "graph") throw new Error("map builder: unexpected reply");
    return { graph: fin.graph, reused, prints };
  }

  /** The builder with the fewest tasks waiting (the first of equals). */
  #leastBusy(): number {
    let index = 0;
    for (let i = 1; i < this.#builders.length; i++) {
      if (this.#builders[i].waiting.size < this.#builders[index].waiting.size) index = i;
    }
    return index;
  }

  /** Runs requests on the given builders at once; resolves when all replied. */
  async #all(asks: [number, (id: number) => BuildRequest][]): Promise<void> {
    await Promise.all(asks.map(([i, make]) => this.#run(i, make)));
  }

  /** One request, keeping the builders alive while it runs. */
  async #run(index: number, make: (id: number) => BuildRequest): Promise<BuildReply> {
    this.#busy++;
    clearTimeout(this.#idle);
    try {
      return await this.#ask(index, make);
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
    // What the builders allocated stays in malloc's per-thread arenas after they end: give it back.
    collectNow();
    trimMalloc();
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
