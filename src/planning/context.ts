/**
 * Per-worker planning state: the shared map data posted to the worker and the search workspaces, allocated
 * once and reused by every task (Detour's rule: no allocation in queries).
 *
 * @module
 */
import type { PassLayer } from "../maps/grid.ts";
import { newSearchResult, SearchWorkspace } from "../search/astar.ts";
import { GridSpace } from "../search/gridSpace.ts";
import { JumpPointSpace } from "../search/jumpPointSpace.ts";
import { type DirectionalTableSource, NO_TABLE_SOURCE } from "./tableSource.ts";

/**
 * Reusable per-worker state: the search workspace and spaces (allocated once, reused by every task), and the
 * worker's directional tables.
 */
export class PlanContext {
  /** Looks up shared data posted to this worker. */
  readonly lookup: (key: string) => unknown;
  /** A* bookkeeping reused across searches. */
  readonly workspace: SearchWorkspace = new SearchWorkspace();
  /** The grid space, reconfigured per search. */
  readonly grid: GridSpace = new GridSpace();
  /** The jump-point space, used instead of {@link grid} for 8-connected searches on uniform-cost layers. */
  readonly jumpPoint: JumpPointSpace = new JumpPointSpace();
  /** The search result object, reused. */
  readonly result = newSearchResult();

  /** Directional tables by profile (the service's store; planning does no I/O). */
  readonly tables: DirectionalTableSource;

  /**
   * Largest map (in tiles) on which searches here may build missing map-sized tables (jump tables). The
   * service's inline lane sets a small bound: on bigger maps it uses the tables the workers built and published,
   * and a query that would need a build answers "budget" there and goes to a worker (a build on the service's
   * thread would block it for seconds on big maps, outside the map memory budget).
   */
  maxBuildTiles = Infinity;

  /**
   * Routes of the task being planned, by key, or null when routes are not shared: complete grid routes (see
   * gridRoute.ts's gridSearch) and the hybrid's corridor refinement (directional.ts's corridorKey). AUTO turns
   * it on for its task: its hybrid, capped directional search and forward CURVED fit each ask for the same
   * 4-connected route (a ~1,000-tile route on 1024^2 costs 3-8 ms a search), and on long queries the hybrid's
   * fallback and the capped search refine the same corridor. Only for one task at a time: the layer may be
   * patched between tasks.
   */
  routes: Map<string, unknown> | null = null;

  /**
   * Creates a context over a shared-data lookup and a source of directional tables (without one, directional
   * and hybrid searches throw).
   */
  constructor(lookup: (key: string) => unknown, tables: DirectionalTableSource = NO_TABLE_SOURCE) {
    this.lookup = lookup;
    this.tables = tables;
  }

  /**
   * Runs `f` with grid routes shared between the searches it makes (see {@link routes}); they are dropped
   * when it returns.
   */
  sharingRoutes<T>(f: () => T): T {
    if (this.routes !== null) return f();
    this.routes = new Map();
    try {
      return f();
    } finally {
      this.routes = null;
    }
  }

  /** The pass layer for a key (throws if the service did not share it). */
  layer(key: string): PassLayer {
    const layer = this.lookup(key) as PassLayer | undefined;
    if (!layer) throw new Error(`pass layer ${key} was not shared with this worker`);
    return layer;
  }
}
