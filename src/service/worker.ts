/**
 * Worker entry: keeps the shared data it was sent (pass layers, region tables) and runs planning tasks with
 * the pure planning code. No policy here: the service decided the planner, targets and limits.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { type WorkerReply, type WorkerRequest } from "./workerProtocol.ts";
import { runPlanTask } from "../planning/plan.ts";
import { PlanContext } from "../planning/context.ts";
import { warmUpPlanners } from "./warmUp.ts";
import { tableStore } from "./directionalTables.ts";
import { forgetJumpTables, straightJumps, useJumpPoints } from "../search/jumpPointSpace.ts";
import { type PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { abstractGraphFor } from "../planning/hierarchical.ts";

const shared = new Map<string, unknown>();
const ctx = new PlanContext((key) => shared.get(key), tableStore);

self.onmessage = (ev: MessageEvent<WorkerRequest>) => {
  const msg = ev.data;
  if (msg.type === "share") {
    shared.set(msg.key, msg.data);
  } else if (msg.type === "drop") {
    for (const k of msg.keys) {
      const data = shared.get(k) as { tileCost?: unknown } | undefined;
      // A pass layer's derived jump tables go with it (the bounded cache holds them strongly).
      if (data && data.tileCost instanceof Float32Array) forgetJumpTables(data as PassLayer);
      shared.delete(k);
    }
  } else if (msg.type === "prepare") {
    const t0 = performance.now();
    let error: string | undefined;
    let bytes = 0;
    try {
      const layer = shared.get(msg.layerKey) as PassLayer;
      for (const key of msg.regionKeys) {
        const table = shared.get(key) as RegionTable;
        // What the first hierarchical query and the first 8-connected grid query would build.
        bytes += ownArrayBytes(abstractGraphFor(table, layer, 8), new Set([layer, table]));
        if (useJumpPoints(layer, 8)) {
          bytes += ownArrayBytes(straightJumps(layer, table.clearanceClass), new Set());
        }
      }
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
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
  }
};

// Compile the planning code before the first request (~40 ms); messages wait in the queue meanwhile.
warmUpPlanners(tableStore);

/**
 * Bytes of the typed arrays `obj` holds directly or in plain nested objects (not in `skip`: the shared layer and
 * table), for the map budget's count of prepared tables.
 */
function ownArrayBytes(obj: unknown, skip: Set<unknown>, depth = 3): number {
  if (obj === null || typeof obj !== "object" || skip.has(obj) || depth < 0) return 0;
  if (ArrayBuffer.isView(obj)) return obj.byteLength;
  skip.add(obj);
  let n = 0;
  for (const v of Object.values(obj)) n += ownArrayBytes(v, skip, depth - 1);
  return n;
}
