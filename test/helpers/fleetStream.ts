/**
 * A Fleet call driven to its first sync: open on a map, every unit added at t = 0 (soldiers unless told
 * otherwise), a sync at 0; resolves with every update received by its acknowledgement. For e2e tests and
 * benches that check what a fleet was first answered.
 */
import type { SentUnit } from "./fleetCheck.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** Opens a Fleet on `mapId`, adds `units` at t = 0 with `unit` and `planner`, syncs at 0; returns the updates. */
export async function fleetToSync(
  client: Any,
  mapId: string,
  units: readonly SentUnit[],
  opts: { unit?: string; planner?: string } = {},
): Promise<Any[]> {
  const f = client.Fleet();
  const updates: Any[] = [];
  const acked = new Promise<void>((resolve, reject) => {
    f.on("data", (u: Any) => {
      updates.push(u);
      if (u.synced) resolve();
    });
    f.on("error", reject);
  });
  f.write({ open: { map: { id: mapId } } });
  for (const u of units) {
    f.write({
      unit: {
        id: u.id,
        unit: { name: opts.unit ?? "soldier" },
        pose: { x: u.x, y: u.y },
        goal: { x: u.gx, y: u.gy },
        time: 0,
        ...(opts.planner ? { planner: opts.planner } : {}),
      },
    });
  }
  f.write({ sync: { time: 0 } });
  await acked;
  // The server's shutdown later ends the call with UNAVAILABLE: not the caller's concern.
  f.on("error", () => {});
  f.end();
  return updates;
}
