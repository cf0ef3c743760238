/**
 * The pool's collection after a table built twice was dropped: once every worker has been idle
 * {@link POOL_IDLE_COLLECT_MS} (after their own idle releases, which free their copies), this thread collects
 * and gives malloc's free pages back: it holds the last wrappers of the dropped copies (the published
 * messages), and the workers' freed arrays sit in malloc's per-thread arenas until a trim. Only then: a full
 * collection of this thread takes tens of ms (40-65 ms measured under load), which a request arriving meanwhile
 * would wait.
 *
 * @module
 */
import { collectNow } from "./collect.ts";
import { trimMalloc } from "./mallocTrim.ts";

/**
 * Idle milliseconds of the whole pool after which this thread collects and trims malloc (after the workers' own
 * idle release at 1 s, service/worker.ts).
 */
export const POOL_IDLE_COLLECT_MS = 1500;

/** What the collector asks of the pool. */
export interface PoolActivity {
  /** Whether a worker is running a job. */
  running(): boolean;
  /** Whether jobs wait for a worker. */
  queued(): boolean;
}

/** Collects this thread once the pool is idle, after a table built twice was dropped. */
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

  /** A worker finished something: if one is due and no worker runs a job, collect after the idle delay. */
  whenIdle(): void {
    if (this.#closed || !this.#due || this.#pool.running()) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#closed || this.#pool.queued() || this.#pool.running()) return;
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
