/**
 * The pool thread's collection once the pool is idle, when it is worth it: after a table built twice was
 * dropped, or when this thread's young generation grew. Once every worker has been idle
 * {@link POOL_IDLE_COLLECT_MS} (after their own idle releases, which free their copies), this thread collects
 * and gives malloc's free pages back.
 * - A dropped table: this thread holds the last wrappers of the dropped copies (the published messages), and the
 *   workers' freed arrays sit in malloc's per-thread arenas until a trim.
 * - Young generation: V8 grows it up to 64 MB under this thread's allocation (the workers' replies, the wire)
 *   and gives it back only in a collection that reduces memory. Measured (bench/memoryMap.ts, DENO_V8_FLAGS=
 *   --trace-gc, 1024^2 map, 4 workers): this thread's heap was still 36.9 MB committed 2.5 s after planning, 23.1
 *   after such a collection; the 13.8 MB that grew with the number of workers (planning on 4 workers answers 4x
 *   the replies), ~13 of issue 13's 40 bytes per tile at 1024^2.
 * Only then: a full collection of this thread takes tens of ms (40-65 ms measured under load), which a request
 * arriving meanwhile would wait.
 *
 * @module
 */
import v8 from "node:v8";
import { collectNow } from "./collect.ts";
import { trimMalloc } from "./mallocTrim.ts";

/**
 * Idle milliseconds of the whole pool after which this thread collects and trims malloc (after the workers' own
 * idle release at 1 s, service/worker.ts).
 */
export const POOL_IDLE_COLLECT_MS = 1500;

/** Young generation of this thread (bytes) above which an idle pool collects it (it starts at 0.25-1 MB). */
export const YOUNG_KEEP_BYTES = 4 << 20;

/** This thread's young generation (V8's new space), bytes. */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
}

/** What the collector asks of the pool. */
export interface PoolActivity {
  /** Whether a worker is running a job. */
  running(): boolean;
  /** Whether jobs wait for a worker. */
  queued(): boolean;
}

/** Collects this thread once the pool is idle, after a table built twice was dropped or its young generation grew. */
export class PoolIdleCollector {
  readonly #pool: PoolActivity;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** A table built twice was dropped since the last idle collection. */
  #due = false;
  #closed = false;

  /** A collector for the pool whose activity `pool` tells. */
  constructor(pool: PoolActivity) {
    this.#pool = pool;
  }

  /** A table built twice was dropped: collect once the pool is next idle. */
  dropped(): void {
    this.#due = true;
  }

  /**
   * A worker finished something: if no worker runs a job, collect after the idle delay when a dropped table is
   * due or this thread's young generation is above {@link YOUNG_KEEP_BYTES}.
   */
  whenIdle(): void {
    if (this.#closed || this.#pool.running()) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#closed || this.#pool.queued() || this.#pool.running()) return;
      if (!this.#due && youngGenerationBytes() <= YOUNG_KEEP_BYTES) return;
      this.#due = false;
      collectNow();
      // The arrays are freed by V8's background sweeper after the collection; then malloc can give them back.
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        trimMalloc();
      }, 200);
      Deno.unrefTimer(this.#timer);
    }, POOL_IDLE_COLLECT_MS);
    Deno.unrefTimer(this.#timer);
  }

  /** Cancels a pending collection; none is scheduled after (the pool closed). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }
}
