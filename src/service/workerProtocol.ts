/**
 * Messages between the pool (main thread) and its workers. Plain data: a job crosses the worker boundary by
 * structured clone; maps travel separately, once, as shared memory keyed by `PlanTask.layerKey`.
 *
 * @module
 */
import type { PlanOutcome, PlanTask } from "../planning/task.ts";
import type { SharedGraphData } from "../search/abstractGraph.ts";
import type { StraightJumps } from "../search/jumpPointSpace.ts";
import type { SharedTableSet } from "./directionalTables.ts";

/**
 * A read-only table one worker built over shared memory, published for the others to adopt instead of building
 * their own: an abstract graph with its landmarks (per region table) or the jump tables of a clearance class.
 * It is posted as shared data under its own key, after the keys it depends on.
 */
export type PublishedTable =
  | { kind: "graph"; layerKey: string; regionKey: string; cacheKey: string; graph: SharedGraphData }
  | { kind: "jumps"; layerKey: string; clearance: number; tables: StraightJumps };

/** Main thread to worker. */
export type WorkerRequest =
  | { type: "share"; key: string; data: unknown }
  | { type: "drop"; keys: string[] }
  /** The directional tables read once over shared memory (the pool's first message; the warm-up waits for it). */
  | { type: "tables"; sets: SharedTableSet[] }
  /** Stats and test hook: answer "stats". */
  | { type: "stats" }
  | { type: "job"; jobId: number; cancel: Int32Array; task: PlanTask }
  /** Build the search tables of a layer's region tables now (hierarchy, landmarks, jump tables). */
  | { type: "prepare"; prepareId: number; layerKey: string; regionKeys: string[] };

/** Worker to main thread. */
export type WorkerReply =
  | { type: "result"; jobId: number; value: PlanOutcome }
  | { type: "error"; jobId: number; message: string }
  /** `bytes`: what the tables this preparation built and published hold (the pool counted them on publish). */
  | { type: "prepared"; prepareId: number; millis: number; bytes: number; error?: string }
  /**
   * The worker's directional tables: `ownBytes` in its own cache, `shared` the adopted sets (key, whether every
   * array is a view of a SharedArrayBuffer, the first heuristic value: tests see a write made elsewhere); and
   * `scratchReleased`, the query scratch its idle releases let go so far (bytes).
   */
  | {
    type: "stats";
    ownBytes: number;
    shared: { key: string; sharedMemory: boolean; firstHeuristic: number }[];
    scratchReleased: number;
  }
  /**
   * A table this worker built (for a job or a preparation), to share with the others under `key`; `deps` are
   * the shared keys it belongs to (it goes when they do), `bytes` what it holds (counted once for all workers).
   */
  | { type: "publish"; key: string; deps: string[]; bytes: number; data: PublishedTable };
