/**
 * What the pool's workers hold in common: the shared data (pass layers, region tables) posted to each worker
 * once per key, never per request, and the tables one worker (or a map builder) built and published for all of
 * them, held once. The pool (pool.ts) runs the jobs; this keeps track of which worker knows which key.
 *
 * @module
 */
import { collectSoon } from "./collect.ts";
import type { PublishedTable, WorkerReply, WorkerRequest } from "./workerProtocol.ts";
import type { PassLayer } from "../maps/grid.ts";
import { adoptJumpTables, forgetJumpTables } from "../search/jumpPointSpace.ts";

/** Data a job needs on its worker: a key and the object to post once (typed arrays over shared memory). */
export interface SharedData {
  /** Cache key in the worker. */
  key: string;
  /** The payload. */
  data: unknown;
}

/** A worker as the shares see it: where to post, and which keys it was sent. */
export interface ShareHolder {
  /** The worker. */
  worker: Worker;
  /** Keys of the shared data and published tables posted to it (and not dropped since). */
  known: Set<string>;
  /** False once it crashed or the pool closed. */
  alive: boolean;
}

/** A table a worker published for the others (see WorkerReply "publish"). */
interface Published {
  data: unknown;
  /** Shared keys it belongs to: a worker gets it once it knows them all; it goes when one is forgotten. */
  deps: string[];
}

/** The shared data and published tables of a pool's workers. */
export class WorkerShares {
  /** The pool's workers (the pool's own array: a worker replaced after a crash is seen here too). */
  readonly #holders: readonly ShareHolder[];
  /** Tables workers built and published, by key: posted to every worker that knows their dependencies. */
  readonly #published = new Map<string, Published>();
  /** The shared data posted to workers, by key (until forgotten): a published table's layer is looked up here. */
  readonly #data = new Map<string, unknown>();
  #onPublish: ((layerKey: string, bytes: number) => void) | null = null;

  /** Tracks the shares of `holders` (the pool's array of workers, read at each use). */
  constructor(holders: readonly ShareHolder[]) {
    this.#holders = holders;
  }

  /** Registers the callback told of each published table (its layer key and bytes, held once for all workers). */
  onPublish(cb: (layerKey: string, bytes: number) => void): void {
    this.#onPublish = cb;
  }

  /** Keys of the published tables every worker may adopt. */
  get publishedKeys(): string[] {
    return [...this.#published.keys()];
  }

  /** Whether a table was published under `key`. */
  hasPublished(key: string): boolean {
    return this.#published.has(key);
  }

  /** Tells every worker to drop cached shared data (and the published tables that belong to it). */
  forget(keys: string[]): void {
    // This isolate holds wrappers of the same shared tables: collect them too (once for a run of evictions).
    collectSoon();
    const gone = new Set(keys);
    for (const [k, p] of this.#published) {
      if (p.deps.some((d) => gone.has(d))) {
        this.#published.delete(k);
        keys = [...keys, k];
      }
    }
    for (const k of keys) gone.add(k);
    const isGone = (k: string) => gone.has(k) || gone.has(k.slice(0, k.lastIndexOf("/")));
    // This thread's copy of what was posted goes too (it held every layer and region table ever shared).
    for (const [k, data] of [...this.#data]) {
      if (!isGone(k)) continue;
      // Jump tables this thread adopted for a layer go with it (the bounded cache would hold them on).
      if ((data as { tileCost?: unknown }).tileCost instanceof Float32Array) {
        forgetJumpTables(data as PassLayer);
      }
      this.#data.delete(k);
    }
    for (const s of this.#holders) {
      // A layer's region tables (`<layer key>/<class>`) go with it: they were kept for good before.
      const drop = [...s.known].filter(isGone);
      for (const k of drop) s.known.delete(k);
      if (drop.length > 0) s.worker.postMessage({ type: "drop", keys: drop } satisfies WorkerRequest);
    }
  }

  /** Posts to a worker the shared data it lacks, then the published tables whose dependencies it now knows. */
  share(holder: ShareHolder, shared: SharedData[]): void {
    for (const s of shared) {
      this.#data.set(s.key, s.data);
      if (!holder.known.has(s.key)) {
        holder.worker.postMessage({ type: "share", key: s.key, data: s.data } satisfies WorkerRequest);
        holder.known.add(s.key);
      }
    }
    for (const [key, p] of this.#published) {
      if (!holder.known.has(key) && p.deps.every((d) => holder.known.has(d))) {
        holder.worker.postMessage({ type: "share", key, data: p.data } satisfies WorkerRequest);
        holder.known.add(key);
      }
    }
  }

  /**
   * A table built elsewhere (the map builders' abstract graphs), published as if a worker had built it: counted
   * once, posted to every worker that knows its dependencies. Dropped (false) when one of them was forgotten
   * meanwhile (its version evicted) or never shared; `shared` registers data first (a preparation shares it).
   */
  publishTable(
    shared: SharedData[],
    key: string,
    deps: string[],
    bytes: number,
    data: PublishedTable,
  ): boolean {
    for (const s of shared) this.#data.set(s.key, s.data);
    if (this.#published.has(key) || !deps.every((d) => this.#data.has(d))) return false;
    this.#published.set(key, { data, deps });
    this.#onPublish?.(data.layerKey, bytes);
    // The inline lane uses jump tables built elsewhere too (the map builders': service/mapJumps.ts).
    const layer = this.#data.get(data.layerKey) as PassLayer | undefined;
    if (data.kind === "jumps" && layer) adoptJumpTables(layer, data.clearance, data.tables);
    for (const holder of this.#holders) if (holder.alive) this.share(holder, []);
    return true;
  }

  /**
   * A worker published a table it built: keep it, count it once, post it to the workers that can use it.
   * Returns true when the table had been published already (a second build, dropped for the first).
   */
  published(holder: ShareHolder, msg: Extract<WorkerReply, { type: "publish" }>): boolean {
    holder.known.add(msg.key);
    // Built for data forgotten meanwhile (its version evicted), or a second build of a table published already.
    const winner = this.#published.get(msg.key);
    if (winner) {
      // The builder drops its copy for the published one (worker.ts adopt): held once, not once per worker.
      holder.worker.postMessage({ type: "share", key: msg.key, data: winner.data } satisfies WorkerRequest);
      return true;
    }
    if (!msg.deps.every((d) => holder.known.has(d))) return false;
    this.#published.set(msg.key, { data: msg.data, deps: msg.deps });
    this.#onPublish?.(msg.data.layerKey, msg.bytes);
    // This thread's inline lane uses the jump tables too (no copy: shared memory); it never builds them itself.
    const layer = this.#data.get(msg.data.layerKey) as PassLayer | undefined;
    if (msg.data.kind === "jumps" && layer) adoptJumpTables(layer, msg.data.clearance, msg.data.tables);
    for (const other of this.#holders) if (other.alive && other !== holder) this.share(other, []);
    return false;
  }
}
