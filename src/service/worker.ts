/**
 * Worker entry: keeps the shared data it was sent (pass layers, region tables) and runs planning tasks with
 * the pure planning code. No policy here: the service decided the planner, targets and limits.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { type PublishedTable, type WorkerReply, type WorkerRequest } from "./workerProtocol.ts";
import { runPlanTask } from "../planning/plan.ts";
import { releaseScratch } from "../planning/scratch.ts";
import { PlanContext } from "../planning/context.ts";
import { warmUpPlanners } from "./warmUp.ts";
import { tableStore } from "./directionalTables.ts";
import { collectNow } from "./collect.ts";
import { trimMalloc } from "./mallocTrim.ts";
import {
  adoptJumpTables,
  forgetJumpTables,
  jumpTableBytes,
  onJumpTablesBuilt,
  straightJumps,
  useJumpPoints,
} from "../search/jumpPointSpace.ts";
import { shareJumpTables } from "../search/jumpTables.ts";
import { type PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { abstractGraphFor, adoptGraph, onGraphPrepared } from "../planning/hierarchical.ts";
import { sharedGraphBytes } from "../search/abstractGraph.ts";

const shared = new Map<string, unknown>();
/** The key each shared layer and region table came under (to name the tables built from them). */
const keyOf = new WeakMap<object, string>();
/** Bytes this worker published since the counter was last reset (a preparation reports them). */
let publishedBytes = 0;
const ctx = new PlanContext((key) => shared.get(key), tableStore);

/** Posts a table built here to the pool, which shares it with the other workers (they adopt, not rebuild). */
function publish(key: string, deps: string[], bytes: number, data: PublishedTable): void {
  shared.set(key, data);
  publishedBytes += bytes;
  self.postMessage({ type: "publish", key, deps, bytes, data } satisfies WorkerReply);
}

onJumpTablesBuilt((layer, clearance, tables) => {
  const layerKey = keyOf.get(layer);
  if (layerKey === undefined) return; // a layer of the warm-up, not of the service
  // The pool holds published tables until the layer's version goes: this worker's LRU must not drop them.
  shareJumpTables(layer, clearance);
  publish(`${layerKey}#jumps/${clearance}`, [layerKey], jumpTableBytes(tables), {
    kind: "jumps",
    layerKey,
    clearance,
    tables,
  });
});

onGraphPrepared((graph, cacheKey) => {
  const layerKey = keyOf.get(graph.layer);
  const regionKey = keyOf.get(graph.table);
  if (layerKey === undefined || regionKey === undefined) return;
  const data = graph.toShared();
  // This worker also answers from the shared copy from now on, so the graph is held once.
  adoptGraph(graph.table, graph.layer, cacheKey, data, true);
  publish(`${regionKey}#graph/${cacheKey}`, [layerKey, regionKey], sharedGraphBytes(data), {
    kind: "graph",
    layerKey,
    regionKey,
    cacheKey,
    graph: data,
  });
});

/**
 * Installs a table another worker published (its layer and region table were shared before it). The pool sends
 * a key once; if this worker built the same table meanwhile (its build started before the other's came), the
 * published copy replaces its own, which is freed: the table is held once, whatever the number of workers.
 */
function adopt(data: PublishedTable): void {
  const layer = shared.get(data.layerKey) as PassLayer | undefined;
  if (!layer) return;
  if (data.kind === "jumps") {
    adoptJumpTables(layer, data.clearance, data.tables, true);
  } else {
    const table = shared.get(data.regionKey) as RegionTable | undefined;
    if (table) adoptGraph(table, layer, data.cacheKey, data.graph, true);
  }
}

/**
 * Idle time after a job before the worker lets go of its query scratch above the keep size (planning/scratch.ts):
 * long enough that a burst of queries reuses it, short enough that an idle worker holds little.
 */
const IDLE_RELEASE_MS = 1000;
let idleTimer: ReturnType<typeof setTimeout> | undefined;
/** Bytes of query scratch the idle releases let go so far (stats). */
let scratchReleased = 0;

/** (Re)starts the idle countdown after a job. */
function releaseWhenIdle(): void {
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = undefined;
    const released = releaseScratch(ctx);
    scratchReleased += released;
    // Collect even after a small release: the jobs' garbage (tables replaced by published ones, messages, a
    // small map's tables) would otherwise stay until the heap grows, and an idle worker is cheap to collect.
    collectNow();
    // The arrays are freed by V8's background sweeper after the collection; then malloc may give them back.
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      trimMalloc();
    }, 200);
  }, IDLE_RELEASE_MS);
}

/** True once the warm-up ran (on the first message: the pool's shared tables come first). */
let warmed = false;

/** This worker's directional tables and idle releases, for the pool's stats and tests. */
function workerStats(): WorkerReply {
  const shared = tableStore.sharedSets().map((set) => ({
    key: set.key,
    sharedMemory: [set.heur.values, ...Object.values(set.hit)].every((v) =>
      !ArrayBuffer.isView(v) || v.buffer instanceof SharedArrayBuffer
    ),
    firstHeuristic: set.heur.values[0],
  }));
  return { type: "stats", ownBytes: tableStore.bytes, shared, scratchReleased };
}

self.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const msg = ev.data;
  if (msg.type === "tables") tableStore.adopt(msg.sets);
  if (!warmed) {
    // Compile the planning code before the first request (~40 ms); messages wait in the queue meanwhile.
    warmed = true;
    warmUpPlanners(tableStore);
  }
  if (msg.type === "stats") {
    self.postMessage(workerStats());
  } else if (msg.type === "share") {
    const data = msg.data as { kind?: string } | null;
    if (data && (data.kind === "graph" || data.kind === "jumps")) adopt(data as PublishedTable);
    else if (data && typeof data === "object") keyOf.set(data, msg.key);
    shared.set(msg.key, msg.data);
  } else if (msg.type === "drop") {
    for (const k of msg.keys) {
      const data = shared.get(k) as { tileCost?: unknown } | undefined;
      // A pass layer's derived jump tables go with it (the bounded cache holds them strongly).
      if (data && data.tileCost instanceof Float32Array) forgetJumpTables(data as PassLayer);
      shared.delete(k);
    }
    // Free the dropped tables' shared memory now: this idle isolate's heap would not collect for a long time.
    collectNow();
  } else if (msg.type === "prepare") {
    const t0 = performance.now();
    let error: string | undefined;
    publishedBytes = 0;
    try {
      const layer = shared.get(msg.layerKey) as PassLayer;
      for (const key of msg.regionKeys) {
        const table = shared.get(key) as RegionTable;
        // What the first hierarchical query and the first 8-connected grid query would build; built here
        // (unless another worker published them already), they are published to the others.
        abstractGraphFor(table, layer, 8);
        if (useJumpPoints(layer, 8)) straightJumps(layer, table.clearanceClass);
      }
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const bytes = publishedBytes;
    releaseWhenIdle();
    self.postMessage({
      type: "prepared",
      prepareId: msg.prepareId,
      millis: performance.now() - t0,
      bytes,
      error,
    });
  } else if (msg.type === "job") {
    let reply: WorkerReply;
    try {
      const task = msg.task;
      if (task.debugCrash) {
        // Test hook (enabled only by the server's --test-hooks flag): an uncaught error, as a bug would cause.
        setTimeout(() => {
          throw new Error("debug crash requested");
        });
        return;
      }
      const value = runPlanTask(ctx, task, msg.cancel);
      reply = { type: "result", jobId: msg.jobId, value };
    } catch (e) {
      reply = { type: "error", jobId: msg.jobId, message: e instanceof Error ? e.message : String(e) };
    }
    self.postMessage(reply);
    releaseWhenIdle();
  }
};
