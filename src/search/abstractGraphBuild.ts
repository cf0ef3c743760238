/**
 * The construction of an {@link AbstractGraph} in slices, resumable across queries: at 8192^2 the entrance
 * placement and cost scan take longer than one query's budget, so a HIERARCHICAL query that runs out
 * answers budget and the next one continues where it stopped (see planning/hierarchical.ts).
 *
 * @module
 */

import type { PassLayer } from "../maps/grid.ts";
import type { RegionTable } from "../maps/regions.ts";
import { AbstractGraph, uniformScan } from "./abstractGraph.ts";
import { DEFAULT_SAMPLING, EntranceBuild, type EntranceSampling } from "./entranceNodes.ts";
import type { Neighborhood } from "./gridSpace.ts";

/** Tiles of the uniform-cost scan between polls of a build's stop condition (about a millisecond). */
const TILES_PER_POLL = 1 << 20;

/**
 * The construction of an {@link AbstractGraph} as a resumable job: at 8192^2 placing the entrance nodes and
 * scanning the costs takes seconds, more than a query's budget. {@link run} polls `stop` (every
 * {@link TILES_PER_POLL} tiles of the scan, then every few thousand entrances, regions or pairs of the
 * placement, see {@link EntranceBuild}) and returns null when it says so, keeping its place; the graph it
 * finally returns equals one built uninterrupted.
 */
export class AbstractGraphBuild {
  /** The table the graph will abstract. */
  readonly table: RegionTable;
  /** The layer the graph will use. */
  readonly layer: PassLayer;
  private readonly neighborhood: Neighborhood;
  private readonly sampling: EntranceSampling;
  private readonly entrances: EntranceBuild;
  /** Next tile of the uniform-cost scan (the tile count once it is over). */
  private scanned = 0;
  private uniform = true;

  /** A build of the graph of `table` over `layer`; nothing is done until {@link run}. */
  constructor(
    table: RegionTable,
    layer: PassLayer,
    neighborhood: Neighborhood = 8,
    sampling: EntranceSampling = DEFAULT_SAMPLING,
  ) {
    if (layer.width !== table.width || layer.height !== table.height) {
      throw new RangeError("AbstractGraph: layer and table sizes differ");
    }
    this.table = table;
    this.layer = layer;
    this.neighborhood = neighborhood;
    this.sampling = sampling;
    this.entrances = new EntranceBuild(table, layer, sampling);
  }

  /** Goes on with the build: the graph once complete, or null when `stop` said so first. */
  run(stop: (() => boolean) | null): AbstractGraph | null {
    const size = this.table.regionLocal.length;
    // Each call does at least one slice, so a build under a spent budget still advances.
    for (let slices = 0; this.scanned < size; slices++) {
      if (!this.uniform) {
        this.scanned = size;
        break;
      }
      if (slices > 0 && stop !== null && stop()) return null;
      const end = Math.min(size, this.scanned + TILES_PER_POLL);
      this.uniform = uniformScan(this.table, this.layer, this.scanned, end);
      this.scanned = end;
    }
    const nodes = this.entrances.run(stop);
    if (nodes === null) return null;
    return new AbstractGraph(this.table, this.layer, this.neighborhood, this.sampling, null, {
      nodes,
      uniformCost: this.uniform,
    });
  }
}
