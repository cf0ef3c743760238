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
    try {
      const layer = shared.get(msg.layerKey) as PassLayer;
      for (const key of msg.regionKeys) {
        const table = shared.get(key) as RegionTable;
        // What the first hierarchical query and the first 8-connected grid query would build.
        abstractGraphFor(table, layer, 8);
        if (useJumpPoints(layer, 8)) straightJumps(layer, table.clearanceClass);
      }
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    self.postMessage({ type: "prepared", prepareId: msg.prepareId, millis: performance.now() - t0, error });
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
