/**
 * The footprint-reach labels' bound (src/service/poseGate.ts): labels are made per inscribed radius, which a
 * client chooses with its footprint, so they are kept within a byte bound, least recently used out first.
 */
import { afterEach, describe, expect, test } from "vitest";
import {
  footprintReachLabels,
  REACH_LABEL_CACHE_BYTES,
  reachLabelBytes,
  setReachLabelLimit,
} from "../../src/service/poseGate.ts";
import { layerOf } from "../helpers/pathCheck.ts";

const layer = layerOf(Array.from({ length: 64 }, () => ".".repeat(64)));
/** Bytes of one radius's labels on that layer (4 a tile). */
const ONE = 64 * 64 * 4;

afterEach(() => void setReachLabelLimit(REACH_LABEL_CACHE_BYTES));

describe("footprint-reach labels", () => {
  test("many radii stay within the bound; the least recently used is made again, the others are kept", () => {
    setReachLabelLimit(3 * ONE);
    const first = footprintReachLabels(layer, 0.6, 0.5)!;
    expect(footprintReachLabels(layer, 0.6, 0.5)).toBe(first);
    const kept = [0.7, 0.8].map((r) => footprintReachLabels(layer, r, 0.5)!);
    // A use of the first makes the 0.7 labels the least recently used.
    expect(footprintReachLabels(layer, 0.6, 0.5)).toBe(first);
    footprintReachLabels(layer, 0.85, 0.5);
    expect(footprintReachLabels(layer, 0.6, 0.5)).toBe(first);
    expect(footprintReachLabels(layer, 0.8, 0.5)).toBe(kept[1]);
    for (let i = 0; i < 20; i++) {
      footprintReachLabels(layer, 0.9 + i / 100, 0.5);
      expect(reachLabelBytes()).toBeLessThanOrEqual(3 * ONE);
    }
    expect(footprintReachLabels(layer, 0.7, 0.5)).not.toBe(kept[0]);
    expect(footprintReachLabels(layer, 0.7, 0.5)).toEqual(kept[0]);
  });
});
