/**
 * Messages between the pool (main thread) and its workers. Plain data: a job crosses the worker boundary by
 * structured clone; maps travel separately, once, as shared memory keyed by `PlanTask.layerKey`.
 *
 * @module
 */
import type { PlanOutcome, PlanTask } from "../planning/task.ts";

/** Main thread to worker. */
export type WorkerRequest =
  | { type: "share"; key: string; data: unknown }
  | { type: "drop"; keys: string[] }
  | { type: "job"; jobId: number; cancel: Int32Array; task: PlanTask }
  /** Build the search tables of a layer's region tables now (hierarchy, landmarks, jump tables). */
  | { type: "prepare"; prepareId: number; layerKey: string; regionKeys: string[] };

/** Worker to main thread. */
export type WorkerReply =
  | { type: "result"; jobId: number; value: PlanOutcome }
  | { type: "error"; jobId: number; message: string }
  /** `bytes`: what the worker's prepared tables hold (counted in the map memory budget). */
  | { type: "prepared"; prepareId: number; millis: number; bytes: number; error?: string };
