/**
 * The repair after one reported delay, over gRPC, several times: the warehouse aisle grid of bench/fleet.ts
 * (95 x 82, one-tile aisles, soldiers from pick bay to pick bay), all added at t = 0 and synced; then one unit
 * that drives at t = 4 (not one still waiting at its start) and arrives after t = 10 reports at t = 6 the pose
 * it should have had at t = 4, and the sync after it is awaited; then the clock advances by syncs every 0.5 s up to
 * the makespan (units follow their trajectories; a sync breaks standoffs left among waiting units, within 100 ms:
 * service/fleetDeadlock.ts). Each run takes a
 * different late unit (a fresh fleet each time). Reported per size: units arrived right after the repair and at
 * the end (the independent checker, test/helpers/fleetCheck.ts, on the latest trajectories; overlaps and wall
 * contacts counted, and in brackets segments breaking the contract), the server's time for the repair (the
 * progress message's first update's `micros`), median and worst, and the slowest update during the later syncs.
 * Usage:
 * `node_modules/deno/deno run -A bench/fleetDelay.ts [runs] [sizes...]`.
 *
 * @module
 */
import { startBenchServer, unary } from "./server.ts";
import { checkFleet, type CUnit, unitPose, unitsFromUpdates } from "../test/helpers/fleetCheck.ts";
import { movingAiText, warehouse, warehouseJobs } from "../test/helpers/warehouse.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

type Job = { id: string; x: number; y: number; gx: number; gy: number };

/** Fleet seconds between the syncs after the delay, and the most fleet seconds synced after it. */
const STEP = 0.5, MAX_SYNCED = 300;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** One fleet, one delay by the `pick`-th eligible unit: arrivals, overlaps and the server's repair time. */
async function once(client: Any, rows: string[], jobs: Job[], pick: number) {
  const call = client.Fleet();
  const updates: Any[] = [];
  const acks = new Map<number, () => void>();
  call.on("data", (u: Any) => {
    updates.push(u);
    if (u.synced) acks.get(u.synced_time)?.();
  });
  call.on("error", () => {});
  const sync = (time: number) =>
    new Promise<void>((res) => {
      acks.set(time, res);
      call.write({ sync: { time } });
    });
  call.write({ open: { map: { id: "warehouse" } } });
  for (const j of jobs) {
    call.write({
      unit: {
        id: j.id,
        unit: { name: "soldier" },
        pose: { x: j.x, y: j.y },
        goal: { x: j.gx, y: j.gy },
        time: 0,
      },
    });
  }
  await sync(0);
  const units = (): CUnit[] => unitsFromUpdates(jobs, updates);
  const latest = new Map<string, Any>();
  for (const u of updates) for (const t of u.trajectories) latest.set(t.unit_id, t);
  // Units driving at t = 4 (not waiting at their start) that have not arrived by t = 10.
  const all = units();
  const movers = all.filter((u) => {
    const t = latest.get(u.id);
    const a = unitPose(u, 4).pose, b = unitPose(u, 6).pose;
    return t?.status === "moving" && t.end_time > 10 && Math.hypot(a.x - b.x, a.y - b.y) > 0.5;
  });
  const late = movers[pick % movers.length];
  const before = updates.length;
  call.write({ progress: { id: late.id, pose: unitPose(late, 4).pose, time: 6 } });
  await sync(6);
  // The repair: every update between the progress message and the sync's acknowledgement (its server time is
  // the last one's; anything sent during the later syncs is timed apart).
  const repairUpdates = updates.slice(before);
  const changed = new Set(repairUpdates.flatMap((u: Any) => u.trajectories.map((t: Any) => t.unit_id))).size;
  const server = Math.max(0, ...repairUpdates.map((u: Any) => Number(u.micros))) / 1000;
  const afterRepair = checkFleet(rows, units(), { step: 0.05 }).arrived.length;
  // Time passes: syncs every STEP s up to the makespan (units follow their trajectories, so no progress needs
  // reporting; each sync may break standoffs the repair left, and its update is timed below).
  const afterSyncs = updates.length;
  const makespan = () => {
    let end = 0;
    for (const u of updates) for (const t of u.trajectories) end = Math.max(end, Number(t.end_time));
    return end;
  };
  for (let t = 6 + STEP; t <= Math.min(makespan() + STEP, 6 + MAX_SYNCED); t += STEP) await sync(t);
  call.end();
  const retryMs = updates.slice(afterSyncs).map((u: Any) => Number(u.micros) / 1000);
  const report = checkFleet(rows, units(), { step: 0.05 });
  return {
    id: late.id,
    afterRepair,
    retryWorst: Math.max(0, ...retryMs),
    arrived: report.arrived.length,
    overlaps: report.overlaps.length,
    walls: report.wallContacts.length,
    // Segments a client cannot drive as the server meant (e.g. one whose geometry does not reach its end).
    contract: report.contractErrors.length,
    ms: server,
    changed,
  };
}

/** Runs `runs` delays per size; returns a markdown table. */
export async function benchFleetDelay(runs = 5, sizes = [100, 300]): Promise<string> {
  const srv = await startBenchServer(["--max-fleet-units", "1000"]);
  try {
    const w = warehouse(30, 10);
    await unary(srv.client, "PutMap", { id: "warehouse", movingai: movingAiText(w.rows) });
    const lines = [
      "| warehouse 95x82, one delay | runs | arrived right after the repair: median / worst | " +
      "arrived at the end (syncs every 0.5 s): median / worst | overlaps + wall contacts (contract errors) | " +
      "repair ms (server): median / worst | trajectories changed: median / most | sync update ms after: worst | " +
      "per run (late unit: arrived after repair -> at the end, ms) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ];
    for (const n of sizes) {
      const jobs = warehouseJobs(w, n, 11);
      const rs = [];
      for (let i = 0; i < runs; i++) rs.push(await once(srv.client, w.rows, jobs, i * 7));
      const pct = rs.map((r) => (100 * r.arrived) / n);
      const pct0 = rs.map((r) => (100 * r.afterRepair) / n);
      lines.push(
        `| ${n} robots | ${runs} | ${median(pct0).toFixed(1)}% / ${Math.min(...pct0).toFixed(1)}% | ` +
          `${median(pct).toFixed(1)}% / ${Math.min(...pct).toFixed(1)}% | ` +
          `${rs.reduce((s, r) => s + r.overlaps + r.walls, 0)} (${
            rs.reduce((s, r) => s + r.contract, 0)
          }) | ${median(rs.map((r) => r.ms)).toFixed(1)} / ` +
          `${Math.max(...rs.map((r) => r.ms)).toFixed(1)} | ` +
          `${median(rs.map((r) => r.changed))} / ${Math.max(...rs.map((r) => r.changed))} | ` +
          `${Math.max(...rs.map((r) => r.retryWorst)).toFixed(1)} | ` +
          rs.map((r) => `${r.id}: ${r.afterRepair} -> ${r.arrived}, ${r.ms.toFixed(1)}`).join("; ") + " |",
      );
    }
    return lines.join("\n");
  } finally {
    await srv.stop();
  }
}

if (import.meta.main) {
  const [runs, ...sizes] = Deno.args.map(Number);
  console.log(await benchFleetDelay(runs || 5, sizes.length > 0 ? sizes : [100, 300]));
}
