/**
 * The map builders' parallel preparation of abstract graphs (service/mapBuild.ts: shares of the regions, then
 * the landmark rounds split between two builder threads that meet at a shared counter) gives the sequential
 * preparation's arrays bit for bit; two classes prepared at once (an upload's `prepare`) do not wait on each other.
 */
import { afterAll, describe, expect, test } from "vitest";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { parseMovingAi } from "../../src/maps/movingai.ts";
import { buildRegionTable } from "../../src/maps/regionBuild.ts";
import { movingAiTerrain } from "../../src/maps/terrain.ts";
import { AbstractGraphBuild, graphProgress, progressPercent } from "../../src/search/abstractGraphBuild.ts";
import { MapBuilder } from "../../src/service/mapBuild.ts";
import { mapText } from "../helpers/movingai.ts";
import { graphDigest } from "../helpers/graphDigest.ts";

const LIMITS = { maxWidth: 4096, maxHeight: 4096, maxTiles: 1 << 24 };

const builder = new MapBuilder();
afterAll(() => builder.close());

describe("map builders' abstract graph preparation", () => {
  test("Berlin_0_256, classes 0.5 and 1.5 at once, equal the sequential preparation", async () => {
    const layer = buildPassLayer(parseMovingAi(mapText("Berlin_0_256.map"), LIMITS), movingAiTerrain());
    const classes = [0.5, 1.5];
    const tables = classes.map((cls) => buildRegionTable(layer, cls));
    const progress = classes.map(() => graphProgress());
    const built = await Promise.all(tables.map((t, i) => builder.graph(layer, t, 8, 16, progress[i])));
    for (let i = 0; i < classes.length; i++) {
      const sequential = new AbstractGraphBuild(tables[i], layer, 8).run(null)!;
      sequential.prepare(16, null);
      expect(built[i].reused).toBe(0);
      expect(built[i].graph.landmarkCount).toBe(16);
      expect(graphDigest(built[i].graph)).toEqual(graphDigest(sequential.toShared()));
      expect(progressPercent(progress[i], tables[i].regionCount, 16)).toBe(100);
    }
  }, 60_000);
});
