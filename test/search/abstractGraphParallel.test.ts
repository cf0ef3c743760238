/**
 * The parallel preparation of an abstract graph (skeleton, shares of the regions filled in place, landmarks; the
 * map builders run it, service/mapBuild.ts) gives the sequential preparation's arrays bit for bit, whatever the
 * number of shares and the order they run in; and its progress counts reach 100%.
 */
import { describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import {
  AbstractGraphBuild,
  buildSkeleton,
  graphProgress,
  landmarksInline,
  prepareShare,
  progressPercent,
} from "../../src/search/abstractGraphBuild.ts";
import { DEFAULT_SAMPLING } from "../../src/search/entranceNodes.ts";
import { mapText } from "../helpers/movingai.ts";
import { graphDigest } from "../helpers/graphDigest.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

describe("parallel abstract graph preparation", () => {
  for (
    const [name, cls, parts] of [["Berlin_0_256.map", 1.5, 2], ["AR0011SR.map", 0.5, 3], [
      "Berlin_0_256.map",
      0.5,
      5,
    ]] as const
  ) {
    test(`${name} class ${cls} in ${parts} shares equals the sequential build`, () => {
      const layer = buildPassLayer(parseMovingAi(mapText(name), LIMITS), movingAiTerrain());
      const table = buildRegionTable(layer, cls);
      const sequential = new AbstractGraphBuild(table, layer, 8).run(null)!;
      expect(sequential.prepare(16, null).done).toBe(true);

      const progress = graphProgress();
      const skeleton = buildSkeleton(table, layer, 8, DEFAULT_SAMPLING, progress);
      expect(skeleton.partial).toBe(true);
      expect(progressPercent(progress, table.regionCount, 16)).toBe(5);
      // Shares run in reverse order: no share depends on another's regions.
      let spent = 0;
      for (let p = parts - 1; p >= 0; p--) {
        spent += prepareShare(table, layer, skeleton, p, parts, progress).spent;
      }
      expect(Atomics.load(progress, 1)).toBe(table.regionCount);
      const filled = { ...skeleton, partial: false };
      const parallel = landmarksInline(table, layer, filled, 16, spent, progress);
      expect(progressPercent(progress, table.regionCount, 16)).toBe(100);
      expect(parallel.distance.buffer).toBe(skeleton.distance.buffer);
      expect(parallel.landmarkCount).toBeGreaterThan(0);
      expect(graphDigest(parallel, ["partial"])).toEqual(graphDigest(sequential.toShared(), ["partial"]));
    });
  }
});
