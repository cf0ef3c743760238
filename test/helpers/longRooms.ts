/**
 * The long map of the e2e turning-unit tests: 52 rooms of 32 x 32 in a row, 1664 x 32 tiles, beyond one
 * directional window of the tank's states (the corridor planner is in use), with a server holding it and the
 * tank's independent sampled cost on it.
 */
import { BUILTIN_PROFILES } from "../../src/units/profiles.ts";
import { type CostSegment, layerOf, sampledPathCost } from "./pathCheck.ts";
import { call, startServer, type TestServer } from "./server.ts";
import { tiledRoomRows } from "./tiledMap.ts";

/** The map's Moving AI rows. */
export const LONG_ROOM_ROWS = tiledRoomRows(52, 1);

/** The map as a layer, for the independent checker and in-process peers. */
export const longRoomLayer = layerOf(LONG_ROOM_ROWS);

/** Starts a server without demo maps and puts the long map as map id "rooms". */
export async function startLongRoomServer(): Promise<TestServer> {
  const srv = await startServer(["--no-demo"]);
  const rows = LONG_ROOM_ROWS;
  const text = `type octile\nheight ${rows.length}\nwidth ${rows[0].length}\nmap\n${rows.join("\n")}\n`;
  await call(srv.client, "PutMap", { id: "rooms", movingai: text });
  return srv;
}

/** The tank's sampled cost of `segments` on the long map (tile costs, 1e-2 steps). */
export function longRoomTankCost(segments: readonly CostSegment[]): number {
  const layer = longRoomLayer;
  return sampledPathCost(
    segments,
    BUILTIN_PROFILES.tank,
    (x, y) => layer.tileCost[y * layer.width + x] || 1,
    1e-2,
  )
    .total;
}
