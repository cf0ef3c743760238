/**
 * Where planners get a profile's directional tables. Planning does no I/O: the service's table store (files
 * under tables/, gzip, the per-worker cache and resumable builds: src/service/directionalTables.ts)
 * implements this and is handed in with the {@link PlanContext}.
 *
 * @module
 */
import type { HeuristicTable } from "../search/heuristicTable.ts";
import type { HitCheckTable, TableProfile } from "../search/hitCheckTable.ts";

/** A profile's tables and how they were obtained. */
export interface TableSet {
  /** Hit-check table. */
  hit: HitCheckTable;
  /** Heuristic table. */
  heur: HeuristicTable;
  /** "file" (read from tables/), "built" (computed now) or "cache" (earlier in this worker). */
  source: "file" | "built" | "cache";
  /** Milliseconds spent loading or building (0 from the cache). */
  millis: number;
}

/** A source of directional tables by profile. */
export interface DirectionalTableSource {
  /**
   * The tables of a profile, or null when `stop` says so before a build is done (a build polls it between
   * start headings; the part built is kept and the next call for the profile goes on from there).
   */
  tablesUntil(profile: TableProfile, stop: (() => boolean) | null): TableSet | null;
  /** Progress of a stopped build of the profile's tables (start headings done, of all), or null if none. */
  buildProgress(profile: TableProfile): { done: number; total: number } | null;
}

/** The source of a context given none: planning directional searches there is a programming error. */
export const NO_TABLE_SOURCE: DirectionalTableSource = {
  tablesUntil(): never {
    throw new Error("this planning context has no directional table source");
  },
  buildProgress(): null {
    return null;
  },
};
