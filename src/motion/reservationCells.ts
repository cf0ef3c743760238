/**
 * The reservation table's per-cell index of all times (motion/reservations.ts): for each spatial cell, the
 * reservations with moving samples there and, per reservation, its samples in that cell in time order, as runs
 * of store slots in typed arrays (motion/reservationStore.ts). A candidate standing still is tested once per
 * nearby cell against it instead of once per sample. Pure.
 *
 * @module
 */
import type { SampleStore } from "./reservationStore.ts";

/** A reservation's moving samples grouped by cell: the slots of cells[i]'s are byCell[from[i]..from[i + 1]). */
export interface CellRuns {
  /** The cells, ascending. */
  cells: Int32Array;
  from: Int32Array;
  /** Slots grouped by cell, each cell's in the order they were added (time order). */
  byCell: Int32Array;
}

/** What the index lists: a reservation's unit id and its runs. */
export interface CellOwner {
  readonly id: string;
  runs: CellRuns;
}

/** No samples (a standing reservation's runs, or a compacted one's). */
export const NO_RUNS: CellRuns = {
  cells: new Int32Array(0),
  from: new Int32Array(1),
  byCell: new Int32Array(0),
};

/** The owners with samples in one cell, in the order they were listed, each with its run's index there. */
interface CellOwners {
  owners: CellOwner[];
  runs: number[];
}

/** Moving samples by cell over all times, per reservation. */
export class CellIndex {
  readonly #store: SampleStore;
  readonly #at: (CellOwners | undefined)[] = [];
  /** Per cell, a count (zero between calls): {@link runsOf}'s bucket sort by cell. */
  readonly #count: Int32Array;
  /** The owner met by the last {@link earliest} that found one. */
  met: CellOwner | null = null;

  /** An index of `cells` spatial cells over the samples of `store`. */
  constructor(store: SampleStore, cells: number) {
    this.#store = store;
    this.#count = new Int32Array(cells);
  }

  /** The runs of `samples` (store slots), bucket-sorted by cell, keeping their order. */
  runsOf(samples: Int32Array): CellRuns {
    const count = this.#count, cellOf = this.#store.cell;
    const touched: number[] = [];
    for (let i = 0; i < samples.length; i++) {
      if (count[cellOf[samples[i]]]++ === 0) touched.push(cellOf[samples[i]]);
    }
    touched.sort((a, b) => a - b);
    const cells = Int32Array.from(touched), from = new Int32Array(cells.length + 1);
    for (let t = 0, at = 0; t < cells.length; t++) {
      from[t] = at;
      at += count[cells[t]];
      count[cells[t]] = from[t]; // now the next free place of that cell's run
    }
    from[cells.length] = samples.length;
    const byCell = new Int32Array(samples.length);
    for (let i = 0; i < samples.length; i++) byCell[count[cellOf[samples[i]]]++] = samples[i];
    for (let t = 0; t < cells.length; t++) count[cells[t]] = 0;
    return { cells, from, byCell };
  }

  /** Lists `o` in the cells of its runs (after those listed before). */
  list(o: CellOwner): void {
    const cells = o.runs.cells;
    for (let t = 0; t < cells.length; t++) {
      let here = this.#at[cells[t]];
      if (!here) this.#at[cells[t]] = here = { owners: [], runs: [] };
      here.owners.push(o);
      here.runs.push(t);
    }
  }

  /** Takes `o` out of the cells of its runs. */
  unlist(o: CellOwner): void {
    const cells = o.runs.cells;
    for (let t = 0; t < cells.length; t++) {
      const here = this.#at[cells[t]]!;
      const i = here.owners.indexOf(o);
      here.owners.splice(i, 1);
      here.runs.splice(i, 1);
    }
  }

  /**
   * The earliest sample index below `before`, within `k0`..`k1`, at which a sample in `cell` of an owner other
   * than `id` and those in `ignore` comes closer to (x, y) than `radius` + its radius + its speed * `half`, or
   * Infinity; the owner met is left in {@link met}. Owners are tried in listing order, so of two meeting it at
   * the same index the first listed is named.
   */
  earliest(
    cell: number,
    x: number,
    y: number,
    radius: number,
    half: number,
    k0: number,
    k1: number,
    before: number,
    id: string,
    ignore?: ReadonlySet<string>,
  ): number {
    const here = this.#at[cell];
    if (!here) return Infinity;
    const store = this.#store, K = store.k, X = store.x, Y = store.y, R = store.r, V = store.v;
    let best = before, found = false;
    for (let u = 0; u < here.owners.length; u++) {
      const o = here.owners[u];
      if (o.id === id || ignore?.has(o.id)) continue;
      // Its samples in the cell are in time order: from the first at k0 on, up to the first that comes too
      // close (none later can be earlier) or past k1 or the best so far.
      const run = here.runs[u], byCell = o.runs.byCell, end = o.runs.from[run + 1];
      let lo = o.runs.from[run], hi = end;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (K[byCell[mid]] < k0) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < end; i++) {
        const s = byCell[i], k = K[s];
        if (k > k1 || k >= best) break;
        const gap = radius + R[s] + V[s] * half;
        if ((X[s] - x) ** 2 + (Y[s] - y) ** 2 < gap * gap) {
          best = k;
          this.met = o;
          found = true;
          break;
        }
      }
    }
    return found ? best : Infinity;
  }
}
