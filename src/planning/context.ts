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

/** Reusable per-worker state: the search workspace and spaces (allocated once, reused by every task). */
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

  /** Creates a context over a shared-data lookup. */
  constructor(lookup: (key: string) => unknown) {
    this.lookup = lookup;
  }

  /** The pass layer for a key (throws if the service did not share it). */
  layer(key: string): PassLayer {
    const layer = this.lookup(key) as PassLayer | undefined;
    if (!layer) throw new Error(`pass layer ${key} was not shared with this worker`);
    return layer;
  }
}
