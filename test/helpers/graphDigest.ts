/**
 * A prepared abstract graph as plain data, for bit-for-bit comparisons between ways of preparing it.
 *
 * @module
 */
import type { SharedGraphData } from "../../src/search/abstractGraph.ts";

/**
 * Every array of a shared graph as bytes, and its numbers, but the fields named in `leaveOut` (by default
 * `partial` and the expansions spent, which differ between equal graphs prepared different ways).
 */
export function graphDigest(
  d: SharedGraphData,
  leaveOut: readonly string[] = ["partial", "prepExpansions"],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(d)) {
    if (leaveOut.includes(k)) continue;
    out[k] = ArrayBuffer.isView(v) ? Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)) : v;
  }
  return out;
}
