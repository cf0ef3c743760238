/**
 * Messages between the pool (main thread) and its workers.
 *
 * @module
 */

/** Main thread to worker. */
export type WorkerRequest =
  | { type: "share"; key: string; data: unknown }
  | { type: "drop"; keys: string[] }
  | { type: "job"; jobId: number; cancel: Int32Array; task: unknown };

/** Worker to main thread. */
export type WorkerReply =
  | { type: "result"; jobId: number; value: unknown }
  | { type: "error"; jobId: number; message: string };
