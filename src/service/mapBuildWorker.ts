/**
 * Worker entry of the map builder (mapBuild.ts): hashes a map's tiles and builds its pass layer and region
 * tables off the service's thread. Everything it gets and returns is over SharedArrayBuffer, so nothing is
 * copied either way.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import type { GridMap } from "../maps/grid.ts";
import { mapVersion } from "../maps/version.ts";
import { buildPassLayer } from "../maps/layer.ts";
import { buildRegionTable } from "../maps/regionBuild.ts";
import type { BuildReply, BuildRequest } from "./mapBuild.ts";
import { collectSoon } from "./collect.ts";

self.onmessage = (ev: MessageEvent<BuildRequest>) => {
  // This idle isolate's small heap would keep every map it saw (shared tiles, layers, tables) for good.
  collectSoon();
  const msg = ev.data;
  const map: GridMap = msg.map;
  try {
    if (msg.type === "hash") {
      const t0 = performance.now();
      const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
      self.postMessage(
        { type: "hashed", id: msg.id, version, hashMs: performance.now() - t0 } satisfies BuildReply,
      );
      return;
    }
    const t0 = performance.now();
    const layer = buildPassLayer(map, map.terrain);
    const t1 = performance.now();
    const regions = msg.classes.map((cls) => buildRegionTable(layer, cls, msg.sectorSize));
    self.postMessage(
      {
        type: "built",
        id: msg.id,
        layer,
        regions,
        layerMs: t1 - t0,
        regionsMs: performance.now() - t1,
      } satisfies BuildReply,
    );
  } catch (e) {
    self.postMessage({ type: "failed", id: msg.id, message: e instanceof Error ? e.message : String(e) });
  }
};
