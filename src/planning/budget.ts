/**
 * One budget per planning task: the deadline, the cancel flag and the expansion limit, built once when the task
 * starts and handed to every search and fit the planner runs, so no planner writes its own clock or flag checks.
 *
 * @module
 */
import type { SearchLimits } from "../search/astar.ts";
import type { PlanTask } from "./task.ts";

/** A task's limits. Zero expansions or milliseconds mean "no limit". */
export class PlanBudget {
  /** performance.now() after which every search stops with "deadline" (Infinity for none). */
  readonly deadline: number;
  /** Shared flag polled by every search: non-zero element 0 means cancelled; null for none. */
  readonly cancel: Int32Array | null;
  /** Expansions for the whole task (Infinity for none). */
  readonly maxExpansions: number;
  /** The stop predicate for long preparations (tables, abstract graphs): cancelled or past the deadline. */
  readonly stopped: () => boolean;

  /** A budget of `maxExpansions` and `maxMillis` from `start` (performance.now()), polling `cancel`. */
  constructor(
    maxExpansions: number,
    maxMillis: number,
    cancel: Int32Array | null,
    start = performance.now(),
  ) {
    this.maxExpansions = maxExpansions > 0 ? maxExpansions : Infinity;
    this.deadline = maxMillis > 0 ? start + maxMillis : Infinity;
    this.cancel = cancel;
    this.stopped = () => this.cancelled() || performance.now() > this.deadline;
  }

  /** True once the cancel flag is raised. */
  cancelled(): boolean {
    return this.cancel !== null && Atomics.load(this.cancel, 0) !== 0;
  }

  /** Milliseconds left before the deadline (Infinity for none). */
  millisLeft(): number {
    return this.deadline - performance.now();
  }

  /** Expansions left after `spent` (never below 0). */
  expansionsLeft(spent: number): number {
    return Math.max(0, this.maxExpansions - spent);
  }

  /** A* limits for one search: at most `maxExpansions` (default: the whole budget), this deadline and flag. */
  limits(maxExpansions = this.maxExpansions, trackNearest = true): SearchLimits {
    return { maxExpansions, deadline: this.deadline, cancel: this.cancel, trackNearest };
  }
}

/** The budget of a task (its expansion and time limits from now), polling `cancel` when given. */
export function planBudget(task: PlanTask, cancel: Int32Array | null = null): PlanBudget {
  return new PlanBudget(task.maxExpansions, task.maxMillis, cancel);
}
