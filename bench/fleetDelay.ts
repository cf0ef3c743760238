/**
 * The repair after one reported delay, over gRPC, several times: the warehouse aisle grid of bench/fleet.ts
 * (95 x 82, one-tile aisles, soldiers from pick bay to pick bay), all added at t = 0 and synced; then one unit
 * that drives at t = 4 (not one still waiting at its start) and arrives after t = 10 reports at t = 6 the pose
 * it should have had at t = 4, and the sync after it is awaited. Each run takes a different late unit (a fresh
 * fleet each time). Reported per size: units arrived after the delay (the independent checker,
 * test/helpers/fleetCheck.ts, on the latest trajectories; overlaps and wall contacts counted, and in brackets
 * segments breaking the contract) and the server's time for the repair (the updates' `micros`), median and worst.
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
  call.end();
  const changed =
    new Set(updates.slice(before).flatMap((u) => u.trajectories.map((t: Any) => t.unit_id))).size;
  const server = updates.slice(before).reduce((m: number, u: Any) => Math.max(m, Number(u.micros)), 0) / 1000;
  const report = checkFleet(rows, units(), { step: 0.05 });
  return {
    id: late.id,
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
      "| warehouse 95x82, one delay | runs | arrived after the delay: median / worst | overlaps + wall contacts (contract errors) | " +
      "repair ms (server): median / worst | trajectories changed: median / most | per run (late unit: arrived, ms) |",
      "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ];
    for (const n of sizes) {
      const jobs = warehouseJobs(w, n, 11);
      const rs = [];
      for (let i = 0; i < runs; i++) rs.push(await once(srv.client, w.rows, jobs, i * 7));
      const pct = rs.map((r) => (100 * r.arrived) / n);
      lines.push(
        `| ${n} robots | ${runs} | ${median(pct).toFixed(1)}% / ${Math.min(...pct).toFixed(1)}% | ` +
          `${rs.reduce((s, r) => s + r.overlaps + r.walls, 0)} (${
            rs.reduce((s, r) => s + r.contract, 0)
          }) | ${median(rs.map((r) => r.ms)).toFixed(1)} / ` +
          `${Math.max(...rs.map((r) => r.ms)).toFixed(1)} | ` +
          `${median(rs.map((r) => r.changed))} / ${Math.max(...rs.map((r) => r.changed))} | ` +
          rs.map((r) => `${r.id}: ${r.arrived}, ${r.ms.toFixed(1)}`).join("; ") + " |",
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
