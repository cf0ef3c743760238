/**
 * The region index of every tile of a region table (-1: closed), as the tables held it before they stored
 * sector-local ids: tests compare and index with it.
 *
 * @module
 */
import { regionAt, type RegionTable } from "../../src/maps/regions.ts";

/** regionAt for every tile, in one Int32Array. */
export function regionIndex(table: RegionTable): Int32Array {
  const out = new Int32Array(table.width * table.height);
  for (let t = 0; t < out.length; t++) out[t] = regionAt(table, t);
  return out;
}
