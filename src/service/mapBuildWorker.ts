/**
 * Worker entry of the map builder (mapBuild.ts): hashes a map's tiles and builds its pass layer (a band of rows
 * per worker), region tables and abstract graphs (a share of the regions per worker) off the service's thread. Everything it gets and returns is over
 * SharedArrayBuffer, so nothing is copied either way and bands are written in place.
 *
 * @module
 */
/// <reference lib="deno.worker" />
import { mapVersion } from "../maps/version.ts";
import { fillLayerClearance, fillLayerCosts } from "../maps/layer.ts";
import { buildRegionTable } from "../maps/regionBuild.ts";
import type { BuildReply, BuildRequest } from "./mapBuild.ts";
import { collectSoon } from "./collect.ts";
import { buildSkeleton, finishGraph, landmarkPart, prepareShare } from "../search/abstractGraphBuild.ts";
import { DEFAULT_SAMPLING } from "../search/entranceNodes.ts";
import { forgetJumpTables, straightJumps } from "../search/jumpTables.ts";

self.onmessage = (ev: MessageEvent<BuildRequest>) => {
  // This idle isolate's small heap would keep every map it saw (shared tiles, layers, tables) for good.
  collectSoon();
  const msg = ev.data;
  const t0 = performance.now();
  let reply: BuildReply;
  try {
    if (msg.type === "hash") {
      const { map } = msg;
      const version = mapVersion(map.tiles, map.width, map.height, map.terrain);
      reply = { type: "hashed", id: msg.id, version, ms: performance.now() - t0 };
    } else if (msg.type === "costs") {
      fillLayerCosts(msg.layer, msg.map, msg.map.terrain, msg.y0, msg.y1);
      reply = { type: "done", id: msg.id, ms: performance.now() - t0 };
    } else if (msg.type === "clearance") {
      fillLayerClearance(msg.layer, msg.y0, msg.y1);
      reply = { type: "done", id: msg.id, ms: performance.now() - t0 };
    } else if (msg.type === "graphSkeleton") {
      const { table, layer, neighborhood, progress } = msg;
      const graph = buildSkeleton(table, layer, neighborhood, DEFAULT_SAMPLING, progress);
      reply = { type: "graph", id: msg.id, graph, ms: performance.now() - t0 };
    } else if (msg.type === "graphShare") {
      const { table, layer, skeleton, part, parts, progress, previous, prints, done } = msg;
      const share = prepareShare(table, layer, skeleton, part, parts, progress, previous, prints, done);
      const { spent, reused } = share;
      reply = { type: "spent", id: msg.id, expansions: spent, reused, ms: performance.now() - t0 };
    } else if (msg.type === "landmarks") {
      const { table, layer, filled, work, part, parts, progress } = msg;
      const { made } = landmarkPart(table, layer, filled, work, part, parts, progress);
      reply = { type: "landmarks", id: msg.id, made, ms: performance.now() - t0 };
    } else if (msg.type === "graphFinish") {
      const { table, layer, filled, work, made, prepExpansions, progress } = msg;
      const graph = finishGraph(table, layer, filled, work, made, prepExpansions, progress);
      reply = { type: "graph", id: msg.id, graph, ms: performance.now() - t0 };
    } else if (msg.type === "jumps") {
      const tables = straightJumps(msg.layer, msg.cls);
      // The service publishes them to the workers (shared memory): this builder keeps no reference.
      forgetJumpTables(msg.layer);
      reply = { type: "jumps", id: msg.id, tables, ms: performance.now() - t0 };
    } else {
      const table = buildRegionTable(msg.layer, msg.cls, msg.sectorSize);
      reply = { type: "regions", id: msg.id, table, ms: performance.now() - t0 };
    }
  } catch (e) {
    reply = { type: "failed", id: msg.id, message: e instanceof Error ? e.message : String(e) };
  }
  self.postMessage(reply);
};
