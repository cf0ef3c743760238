/**
 * The worker pool: Deno Web Workers running pure planning code.
 *
 * - Pass layers and region tables live in SharedArrayBuffers and are posted to a worker once per key, never
 *   copied per request.
 * - A bounded queue: past it, RESOURCE_EXHAUSTED. A bounded wait too: a job still queued after
 *   `maxQueueWaitMs` is answered RESOURCE_EXHAUSTED, and one whose estimated wait ((queue ahead of it / workers
 *   + 1/2) x the recent mean run time) already exceeds that is refused at once, so accepted requests do not wait
 *   minutes.
 * - Cancellation and deadlines set a flag in shared memory that the search polls (worker.terminate() cannot stop
 *   a busy worker on Deno 2.9).
 * - A worker that crashes is replaced; its job fails with INTERNAL, the others go on.
 *
 * What each worker was sent and the tables published for all: workerShares.ts; this thread's collection once
 * the pool is idle: poolIdleCollector.ts.
 *
 * @module
 */
import { jobSettled, jobStarted, type JobTrace, traceJob } from "./jobSpans.ts";
import { ServiceError } from "./errors.ts";
import { PoolIdleCollector } from "./poolIdleCollector.ts";
import type { PlanOutcome, PlanTask } from "../planning/task.ts";
import type { PublishedTable, WorkerReply, WorkerRequest } from "./workerProtocol.ts";
import { type SharedData, type ShareHolder, WorkerShares } from "./workerShares.ts";
import { type SharedTableSet, tableStore } from "./directionalTables.ts";
import { SHARED_NEIGHBORHOODS, warmTableProfiles } from "./warmUp.ts";

/** Options of the pool. */
export interface PoolOptions {
  /** Number of workers. */
  size: number;
  /** Jobs that may wait when all workers are busy. */
  maxQueue: number;
  /** Longest a job may wait for a worker, ms (default: no limit); stream jobs are exempt. */
  maxQueueWaitMs?: number;
  /** Called for log lines. */
  log?: (fields: Record<string, unknown>, msg: string) => void;
}

export type { SharedData } from "./workerShares.ts";

interface Job {
  task: PlanTask;
  shared: SharedData[];
  signal: AbortSignal | undefined;
  resolve: (v: JobResult<PlanOutcome>) => void;
  reject: (e: unknown) => void;
  enqueuedAt: number;
  onAbort?: () => void;
  settled: boolean;
  /** performance.now() when a running job was aborted. */
  abortedAt?: number;
  /** performance.now() when it started on a worker. */
  startedAt?: number;
  /** The timer that ends its wait at the queue-wait limit. */
  waitTimer?: ReturnType<typeof setTimeout>;
  /** Its trace spans (null without tracing). */
  trace?: JobTrace | null;
}

/** A worker's directional tables and idle releases (see WorkerReply "stats"). */
export type WorkerStats = Omit<Extract<WorkerReply, { type: "stats" }>, "type">;

interface Slot extends ShareHolder {
  /** Answers to "stats" requests, in order. */
  statsWaiting: ((s: WorkerStats) => void)[];
  /** Preparations posted to this worker and not answered yet, by id (resolved with the bytes built). */
  preparing: Map<number, (bytes: number) => void>;
  cancel: Int32Array;
  job: Job | null;
  jobId: number;
}

/** Result of a job with its queue wait. */
export interface JobResult<T> {
  /** What the worker returned. */
  value: T;
  /** Microseconds spent in the queue. */
  queueMicros: number;
}

/** The pool. */
export class WorkerPool {
  readonly #opts: PoolOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  readonly #waitListeners = new Set<(micros: number) => void>();
  /** The shared data and published tables of the workers (workerShares.ts). */
  readonly #shares = new WorkerShares(this.#slots);
  #nextJobId = 1;
  /** Collects this thread once idle after a table built twice was dropped (poolIdleCollector.ts). */
  readonly #idle = new PoolIdleCollector({
    running: () => this.#slots.some((s) => s.job !== null),
    queued: () => this.#queue.length > 0,
  });
  #closed = false;
  #recentCrashes: number[] = [];
  /** Mean run time of recent jobs, ms (exponentially weighted), or -1 before the first. */
  #meanRunMs = -1;
  /** Workers replaced after a crash, for tests and stats. */
  restarts = 0;
  /** Tables a worker built although another had published them (it was building before they came). */
  duplicateBuilds = 0;
  /** The directional tables every worker adopts: read once by this thread into shared memory. */
  readonly #tables: SharedTableSet[];

  /** Starts `size` workers. */
  constructor(opts: PoolOptions) {
    this.#opts = opts;
    this.#tables = tableStore.loadShared(warmTableProfiles(SHARED_NEIGHBORHOODS));
    for (let i = 0; i < opts.size; i++) this.#slots.push(this.#spawn());
  }

  /** Jobs waiting. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Tells `cb` each started job's queue wait in microseconds (metrics). */
  onQueueWait(cb: (micros: number) => void): void {
    this.#waitListeners.add(cb);
  }

  /** Workers busy. */
  get busy(): number {
    return this.#slots.filter((s) => s.job).length;
  }

  /**
   * Registers the callback told of each table a worker built and published to the others (its layer key and
   * bytes, held once for all workers), so the map memory budget counts it against the layer's version.
   */
  onPublish(cb: (layerKey: string, bytes: number) => void): void {
    this.#shares.onPublish(cb);
  }

  /** Bytes of the directional tables shared by all workers (and this thread), held once. */
  get sharedTableBytes(): number {
    return this.#tables.reduce((n, t) => n + t.bytes, 0);
  }

  /** Each live worker's directional tables and idle releases (stats and tests). */
  workerStats(): Promise<WorkerStats[]> {
    return Promise.all(
      this.#slots.filter((s) => s.alive).map((s) =>
        new Promise<WorkerStats>((resolve) => {
          s.statsWaiting.push(resolve);
          s.worker.postMessage({ type: "stats" } satisfies WorkerRequest);
        })
      ),
    );
  }

  /** Keys of the tables workers published and every worker may adopt (tests and stats). */
  get publishedKeys(): string[] {
    return this.#shares.publishedKeys;
  }

  /** Tells every worker to drop cached shared data (and the published tables that belong to it). */
  forget(keys: string[]): void {
    this.#shares.forget(keys);
  }

  /**
   * Runs a task on a worker. Streams pass `exemptFromQueueLimit`: each holds at most one job and their number is
   * bounded when they open, so their replans wait instead of failing. Rejects with RESOURCE_EXHAUSTED when the queue is full, CANCELLED when the signal
   * aborts (its reason, if a ServiceError, is used instead), INTERNAL when the worker crashes.
   */
  run(
    task: PlanTask,
    shared: SharedData[],
    signal?: AbortSignal,
    opts: { exemptFromQueueLimit?: boolean } = {},
  ): Promise<JobResult<PlanOutcome>> {
    if (this.#closed) return Promise.reject(new ServiceError("UNAVAILABLE", "server is shutting down"));
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const job: Job = {
        task,
        shared,
        signal,
        resolve,
        reject,
        enqueuedAt: performance.now(),
        settled: false,
      };
      const free = this.#slots.find((s) => s.alive && !s.job);
      if (free) {
        job.trace = traceJob();
        this.#start(free, job);
      } else if (!opts.exemptFromQueueLimit && this.#queue.length >= this.#opts.maxQueue) {
        reject(
          new ServiceError(
            "RESOURCE_EXHAUSTED",
            `queue: ${this.#queue.length} requests already waiting (limit ${this.#opts.maxQueue}); retry later`,
          ),
        );
        return;
      } else {
        const limit = this.#opts.maxQueueWaitMs ?? Infinity;
        if (!opts.exemptFromQueueLimit && Number.isFinite(limit)) {
          const refused = this.#admitWait(limit);
          if (refused) return reject(refused);
          const timer = setTimeout(() => this.#expire(job, limit), limit);
          Deno.unrefTimer(timer);
          job.waitTimer = timer;
        }
        job.trace = traceJob();
        this.#queue.push(job);
      }
      if (signal) {
        job.onAbort = () => this.#abort(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
    });
  }

  /** Stops all workers (jobs still running are cancelled). */
  close(): void {
    this.#closed = true;
    this.#idle.close();
    for (const job of this.#queue.splice(0)) {
      this.#settle(job, null, new ServiceError("UNAVAILABLE", "shutdown"));
    }
    for (const s of this.#slots) {
      for (const done of s.preparing.values()) done(0);
      Atomics.store(s.cancel, 0, 1);
      if (s.job) this.#settle(s.job, null, new ServiceError("UNAVAILABLE", "shutdown"));
      s.alive = false;
      s.worker.terminate();
    }
  }

  #spawn(): Slot {
    const worker = new Worker(new URL("./worker.ts", import.meta.url).href, { type: "module" });
    const slot: Slot = {
      worker,
      cancel: new Int32Array(new SharedArrayBuffer(4)),
      job: null,
      jobId: 0,
      known: new Set(),
      alive: true,
      preparing: new Map(),
      statsWaiting: [],
    };
    // First, so the worker's warm-up finds them (it waits for its first message).
    worker.postMessage({ type: "tables", sets: this.#tables } satisfies WorkerRequest);
    worker.onmessage = (ev: MessageEvent<WorkerReply>) => this.#onReply(slot, ev.data);
    worker.onerror = (ev: ErrorEvent) => {
      // Without preventDefault an uncaught error in a worker ends the whole process.
      ev.preventDefault();
      this.#onCrash(slot, ev.message ?? "worker error");
    };
    worker.onmessageerror = () => this.#onCrash(slot, "worker message could not be deserialized");
    return slot;
  }

  /** RESOURCE_EXHAUSTED if a new job's estimated wait exceeds `limit` ms, else null. */
  #admitWait(limit: number): ServiceError | null {
    if (this.#meanRunMs < 0) return null;
    const workers = Math.max(1, this.#slots.filter((s) => s.alive).length);
    // The jobs ahead, shared by the workers, plus on average half a run for the first worker to free up.
    const estimate = (this.#queue.length / workers + 0.5) * this.#meanRunMs;
    if (estimate <= limit) return null;
    return new ServiceError(
      "RESOURCE_EXHAUSTED",
      `queue: estimated wait ${Math.round(estimate)} ms (${this.#queue.length} waiting for ${workers} ` +
        `workers, ${Math.round(this.#meanRunMs)} ms per plan) exceeds the queue-wait limit of ${limit} ms; ` +
        "retry later",
    );
  }

  /** Ends a job's wait at the queue-wait limit. */
  #expire(job: Job, limit: number): void {
    const qi = this.#queue.indexOf(job);
    if (job.settled || qi < 0) return;
    this.#queue.splice(qi, 1);
    this.#settle(
      job,
      null,
      new ServiceError(
        "RESOURCE_EXHAUSTED",
        `queue: no worker became free within the queue-wait limit of ${limit} ms; retry later`,
      ),
    );
  }

  #start(slot: Slot, job: Job): void {
    clearTimeout(job.waitTimer);
    job.startedAt = performance.now();
    slot.job = job;
    slot.jobId = this.#nextJobId++;
    Atomics.store(slot.cancel, 0, 0);
    this.#shares.share(slot, job.shared);
    const queueMicros = Math.round((performance.now() - job.enqueuedAt) * 1000);
    (job as Job & { queueMicros: number }).queueMicros = queueMicros;
    for (const cb of this.#waitListeners) cb(queueMicros);
    if (job.trace) jobStarted(job.trace, job.task.planner);
    slot.worker.postMessage(
      { type: "job", jobId: slot.jobId, cancel: slot.cancel, task: job.task } satisfies WorkerRequest,
    );
  }

  /**
   * Has the workers build the search tables of a layer's region tables now (the `prepare` option of an upload),
   * so no first query pays for them: each region table's tables are built once, by one worker (the tables are
   * dealt out), and published to the others. Resolves when the workers answered (or died: preparation is an
   * optimisation, a worker replaced meanwhile builds its tables on first use as before). Jobs given to a worker
   * meanwhile wait behind its preparation. Resolves with the bytes the tables built hold (counted once).
   */
  prepare(shared: SharedData[], layerKey: string, regionKeys: string[]): Promise<number> {
    const waits: Promise<number>[] = [];
    const alive = this.#slots.filter((s) => s.alive);
    for (const slot of alive) this.#shares.share(slot, shared);
    // One build per table: the region keys dealt out to the workers, each publishing what it built to the others.
    for (const [i, slot] of alive.entries()) {
      const mine = regionKeys.filter((_, k) => k % alive.length === i);
      if (mine.length === 0) continue;
      const prepareId = this.#nextJobId++;
      waits.push(new Promise((resolve) => slot.preparing.set(prepareId, resolve)));
      slot.worker.postMessage(
        { type: "prepare", prepareId, layerKey, regionKeys: mine } satisfies WorkerRequest,
      );
    }
    return Promise.all(waits).then((bytes) => bytes.reduce((a, b) => a + b, 0));
  }

  /** Whether a table was published under `key` (by a worker or {@link publishTable}). */
  hasPublished(key: string): boolean {
    return this.#shares.hasPublished(key);
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
    return this.#shares.publishTable(shared, key, deps, bytes, data);
  }

  /** A worker published a table it built (workerShares.ts); a second build of one is counted and collected. */
  #onPublished(slot: Slot, msg: Extract<WorkerReply, { type: "publish" }>): void {
    if (!this.#shares.published(slot, msg)) return;
    this.duplicateBuilds++;
    this.#idle.dropped();
  }

  #onReply(slot: Slot, msg: WorkerReply): void {
    if (msg.type === "publish") return this.#onPublished(slot, msg);
    if (msg.type === "stats") {
      const { type: _, ...stats } = msg;
      slot.statsWaiting.shift()?.(stats);
      return;
    }
    if (msg.type === "prepared") {
      if (msg.error) this.#opts.log?.({ err: msg.error }, "worker preparation failed");
      slot.preparing.get(msg.prepareId)?.(msg.error ? 0 : msg.bytes);
      slot.preparing.delete(msg.prepareId);
      this.#idle.whenIdle();
      return;
    }
    if (msg.type !== "result" && msg.type !== "error") return;
    const job = slot.job;
    if (!job || msg.jobId !== slot.jobId) return;
    slot.job = null;
    if (job.abortedAt !== undefined) {
      // The job was already answered as cancelled; record how fast its search really stopped.
      const v: { status?: string; expansions?: number } = msg.type === "result" ? msg.value : {};
      this.#opts.log?.({
        stoppedAfterMs: +(performance.now() - job.abortedAt).toFixed(2),
        status: v.status,
        expansions: v.expansions,
      }, "search stopped after cancel");
    }
    if (job.startedAt !== undefined && job.abortedAt === undefined) {
      const ms = performance.now() - job.startedAt;
      this.#meanRunMs = this.#meanRunMs < 0 ? ms : 0.8 * this.#meanRunMs + 0.2 * ms;
    }
    if (msg.type === "result") {
      const queueMicros = (job as Job & { queueMicros: number }).queueMicros ?? 0;
      this.#settle(job, { value: msg.value, queueMicros }, null);
    } else {
      this.#settle(job, null, new ServiceError("INTERNAL", `planner failed: ${msg.message}`));
    }
    this.#next(slot);
  }

  #onCrash(slot: Slot, message: string): void {
    if (!slot.alive) return;
    slot.alive = false;
    for (const done of slot.preparing.values()) done(0);
    slot.preparing.clear();
    this.restarts++;
    this.#opts.log?.({ err: message }, "worker crashed; replacing it");
    try {
      slot.worker.terminate();
    } catch { /* already gone */ }
    const job = slot.job;
    slot.job = null;
    if (job) this.#settle(job, null, new ServiceError("INTERNAL", `worker crashed: ${message}`));
    if (this.#closed) return;
    // Back off when workers die in a burst (e.g. a module that fails to load), instead of spinning.
    const now = performance.now();
    this.#recentCrashes = this.#recentCrashes.filter((t) => now - t < 1000);
    this.#recentCrashes.push(now);
    const delay = this.#recentCrashes.length > 3 ? 1000 : 0;
    const respawn = () => {
      if (this.#closed) return;
      const fresh = this.#spawn();
      this.#slots[this.#slots.indexOf(slot)] = fresh;
      this.#next(fresh);
    };
    if (delay > 0) setTimeout(respawn, delay);
    else respawn();
  }

  #next(slot: Slot): void {
    while (this.#queue.length > 0 && slot.alive && !slot.job) {
      const job = this.#queue.shift()!;
      if (job.settled) continue;
      this.#start(slot, job);
    }
    if (!slot.job) this.#idle.whenIdle();
  }

  #abort(job: Job): void {
    if (job.settled) return;
    const qi = this.#queue.indexOf(job);
    if (qi >= 0) {
      this.#queue.splice(qi, 1);
      this.#settle(job, null, abortError(job.signal!));
      return;
    }
    // Running: raise the flag the search polls; the worker answers "cancelled" within a few milliseconds.
    const slot = this.#slots.find((s) => s.job === job);
    if (slot) {
      job.abortedAt = performance.now();
      Atomics.store(slot.cancel, 0, 1);
      // A worker that does not answer after the flag is stuck; replace it so the pool keeps its capacity.
      const timer = setTimeout(() => {
        if (slot.job === job) this.#onCrash(slot, "worker did not stop within 2 s of a cancel");
      }, 2000);
      Deno.unrefTimer(timer);
    }
    this.#settle(job, null, abortError(job.signal!));
  }

  #settle(job: Job, value: JobResult<PlanOutcome> | null, error: unknown): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.waitTimer);
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    if (job.trace) jobSettled(job.trace, value?.value ?? null, error);
    if (error) job.reject(error);
    else if (value) job.resolve(value);
  }
}

function abortError(signal: AbortSignal): unknown {
  const r = signal.reason;
  return r instanceof ServiceError ? r : new ServiceError("CANCELLED", "request cancelled by the client");
}
