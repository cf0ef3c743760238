/**
 * Fleet at scale: N soldiers (disc radius 0.3, 2 tiles/s) with random starts and random goals 20-80 tiles away on
 * a 512x512 Moving AI map, robots from pick bay to pick bay in a warehouse aisle grid (test/helpers/warehouse.ts),
 * and the open-field circle crossing (bench/fleetCircle.ts), all added at time 0 over one Fleet stream, then a
 * sync; each scenario on two servers in the same run: with detours around the spots where units queue (the
 * default) and with `--fleet-detours 0` (timing alone, the peer). Reported: time to the first update with
 * trajectories, to the moment every unit has had its first trajectory (the target's "first trajectories for 500
 * units"), and to the sync's acknowledgement (after detours and refuges too), the independent checker's
 * collisions and wall contacts (test/helpers/fleetCheck.ts, 20 ms steps), arrivals, statuses, the makespan
 * against the slowest unit's solo duration (each unit's path planned alone by PlanMany on the same server), and
 * the server's time to repair after one unit reports a delay.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startBenchServer, unary } from "./server.ts";
import { checkFleet, type CUnit, unitPose, unitsFromUpdates } from "../test/helpers/fleetCheck.ts";
import { movingAiText, warehouse, warehouseJobs } from "../test/helpers/warehouse.ts";
import { CIRCLE_NOTE, circleScenario, type Spec } from "./fleetCircle.ts";
import { corridorScenario, gateScenario, GROUPS_NOTE } from "./fleetGroups.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function pick(rows: string[], n: number, seed: number): Spec[] {
  let s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const open = (x: number, y: number) => rows[y]?.[x] === "." || rows[y]?.[x] === "G";
  const used = new Set<number>();
  const free = (x: number, y: number) => open(x, y) && !used.has(y * 512 + x);
  const out: Spec[] = [];
  while (out.length < n) {
    const x = Math.floor(rnd() * 512), y = Math.floor(rnd() * 512);
    if (!free(x, y)) continue;
    for (let tries = 0; tries < 50; tries++) {
      const a = rnd() * 2 * Math.PI, d = 20 + rnd() * 60;
      const gx = Math.floor(x + d * Math.cos(a)), gy = Math.floor(y + d * Math.sin(a));
      if (!free(gx, gy) || (gx === x && gy === y)) continue;
      used.add(y * 512 + x);
      used.add(gy * 512 + gx);
      out.push({ id: `u${out.length}`, x: x + 0.5, y: y + 0.5, gx: gx + 0.5, gy: gy + 0.5 });
      break;
    }
  }
  return out;
}

/** The CPU seconds (user + system, all threads) of process `pid` so far, from /proc (NaN elsewhere). */
function cpuSeconds(pid: number | undefined): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = f.slice(f.lastIndexOf(")") + 2).split(" ");
    // Fields 14 and 15 (utime, stime) in clock ticks of 1/100 s (the Linux USER_HZ).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** The slowest unit's solo duration: every unit's path planned alone (one PlanMany), the longest duration. */
async function slowestSolo(client: Any, mapId: string, specs: Spec[]): Promise<number> {
  const res = await unary(client, "PlanMany", {
    requests: specs.map((s) => ({
      map: { id: mapId },
      unit: { name: "soldier" },
      start: { x: s.x, y: s.y },
      goal: { x: s.gx, y: s.gy },
    })),
  });
  let slowest = 0;
  for (const r of res.results) if (r.code === 0) slowest = Math.max(slowest, Number(r.response.duration));
  return slowest;
}

async function run(
  client: Any,
  mapId: string,
  rows: string[],
  specs: Spec[],
  label: string,
  pid?: number,
): Promise<Run> {
  const n = specs.length;
  const slowest = await slowestSolo(client, mapId, specs);
  const call = client.Fleet();
  const updates: Any[] = [];
  let firstAt = 0, everyAt = 0;
  const answered = new Set<string>();
  const acks = new Map<number, (u: Any) => void>();
  call.on("data", (u: Any) => {
    updates.push(u);
    if (!firstAt && u.trajectories.length > 0) firstAt = performance.now();
    for (const t of u.trajectories) answered.add(t.unit_id);
    if (!everyAt && answered.size === n) everyAt = performance.now();
    if (u.synced) acks.get(u.synced_time)?.(u);
  });
  call.on("error", () => {});
  const sync = (time: number) =>
    new Promise<Any>((res) => {
      acks.set(time, res);
      call.write({ sync: { time } });
    });
  call.write({ open: { map: { id: mapId } } });
  const t0 = performance.now();
  const cpu0 = cpuSeconds(pid);
  for (const s of specs) {
    call.write({
      unit: {
        id: s.id,
        unit: { name: "soldier" },
        pose: { x: s.x, y: s.y },
        goal: { x: s.gx, y: s.gy },
        time: 0,
      },
    });
  }
  await sync(0);
  const allMs = performance.now() - t0;
  const cpu = cpuSeconds(pid) - cpu0;
  const toUnits = (): CUnit[] => unitsFromUpdates(specs, updates);
  // Arrivals as first scheduled, before the delay below (its repair may leave units waiting).
  const firstReport = checkFleet(rows, toUnits(), { step: 0.1 });
  // One unit reports a delay: at t = 6 it is where it should have been at t = 4.
  const latest = new Map<string, Any>();
  for (const u of updates) for (const t of u.trajectories) latest.set(t.unit_id, t);
  const mover = specs.find((s) => latest.get(s.id)?.status === "moving" && latest.get(s.id).end_time > 10);
  let repair = "-";
  if (mover) {
    const unit = toUnits().find((u) => u.id === mover.id)!;
    const before = updates.length;
    const r0 = performance.now();
    call.write({ progress: { id: mover.id, pose: unitPose(unit, 4).pose, time: 6 } });
    await sync(6);
    const wall = performance.now() - r0;
    // The repair: every update between the progress message and the sync's acknowledgement (its server time is
    // the last one's).
    const repairUpdates = updates.slice(before);
    const server = Math.max(0, ...repairUpdates.map((u: Any) => Number(u.micros)));
    const changed = repairUpdates.reduce((c: number, u: Any) => c + u.trajectories.length, 0);
    // Time passes: syncs every 0.5 s up to the makespan (units follow their trajectories, so no progress needs
    // reporting; a waiting unit is retried only after a change, not as time passes). Arrivals are counted at the end.
    const makespan = () => {
      let end = 0;
      for (const u of updates) for (const t of u.trajectories) end = Math.max(end, Number(t.end_time));
      return end;
    };
    for (let t = 6.5; t <= Math.min(makespan() + 0.5, 306); t += 0.5) await sync(t);
    repair = `${(server / 1000).toFixed(1)} ms server (${
      wall.toFixed(0)
    } ms round trip), ${changed} trajectories`;
  }
  call.end();
  const units = toUnits();
  for (const u of units) {
    latest.set(u.id, u.trajectories.at(-1));
  }
  const report = checkFleet(rows, units, { step: 0.02 });
  const statuses = new Map<string, number>();
  for (const t of latest.values()) {
    statuses.set(t?.status ?? "none", (statuses.get(t?.status ?? "none") ?? 0) + 1);
  }
  const line =
    `| ${n} | ${label} | ${(firstAt - t0).toFixed(0)} | ${(everyAt - t0).toFixed(0)} | ${
      allMs.toFixed(0)
    } | ${cpu.toFixed(2)} | ${report.overlaps.length} | ` +
    `${report.wallContacts.length} | ${(100 * firstReport.arrived.length / n).toFixed(1)}% | ` +
    `${(100 * report.arrived.length / n).toFixed(1)}% | ` +
    `${[...statuses].map(([k, v]) => `${k} ${v}`).join(", ")} | ${firstReport.makespan.toFixed(1)} s / ` +
    `${slowest.toFixed(1)} s = ${(firstReport.makespan / slowest).toFixed(2)} | ` +
    `${(report.makespan / slowest).toFixed(2)} | ${repair} |`;
  return {
    line,
    every: everyAt - t0,
    cpu,
    ratio: firstReport.makespan / slowest,
    delayedRatio: report.makespan / slowest,
    arrived: 100 * firstReport.arrived.length / n,
    collisions: report.overlaps.length + report.wallContacts.length,
  };
}

/** One scenario on one server: its table row and the figures the summary sets side by side. */
interface Run {
  line: string;
  /** Milliseconds until every unit had its first trajectory. */
  every: number;
  /** Server CPU seconds. */
  cpu: number;
  /** Makespan as first scheduled over the slowest unit's solo duration. */
  ratio: number;
  /** The same after one unit's reported 2 s delay and its repair. */
  delayedRatio: number;
  /** Percentage of units arriving as first scheduled. */
  arrived: number;
  /** Overlaps and wall contacts. */
  collisions: number;
}

/** Runs the fleet scenarios; returns a markdown table. */
export async function benchFleet(
  sizes = [100, 500],
  circle = [10, 50, 100],
  maps = ["8room_000", "random512-10-0"],
  robots = [100, 300],
  detourMs?: number,
  groups = [16],
): Promise<string> {
  const budget = detourMs === undefined ? [] : ["--fleet-detour-ms", String(detourMs)];
  const servers = [
    { label: "detours", srv: await startBenchServer(["--max-fleet-units", "1000", ...budget]) },
    {
      label: "timing only (peer)",
      srv: await startBenchServer(["--max-fleet-units", "1000", "--fleet-detours", "0"]),
    },
  ];
  const summary = [
    "| scenario | units | every unit's first trajectory ms: detours / peer (ratio) | server CPU s: detours / peer | " +
    "makespan / slowest solo: detours / peer | after one delay: detours / peer | " +
    "arrived as scheduled: detours / peer | collisions + wall contacts |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
  ];
  const both = async (mapId: string, rows: string[], specs: Spec[]) => {
    const runs: Run[] = [];
    for (const { label, srv } of servers) {
      runs.push(await run(srv.client, mapId, rows, specs, label, srv.proc.pid));
      lines.push(runs[runs.length - 1].line);
    }
    const [d, p] = runs;
    summary.push(
      `| ${mapId} | ${specs.length} | ${d.every.toFixed(0)} / ${p.every.toFixed(0)} (${
        (d.every / p.every).toFixed(2)
      }) | ` +
        `${d.cpu.toFixed(2)} / ${p.cpu.toFixed(2)} | ${d.ratio.toFixed(2)} / ${p.ratio.toFixed(2)} | ` +
        `${d.delayedRatio.toFixed(2)} / ${p.delayedRatio.toFixed(2)} | ` +
        `${d.arrived.toFixed(1)}% / ${p.arrived.toFixed(1)}% | ${d.collisions} / ${p.collisions} |`,
    );
  };
  const put = async (id: string, movingai: string) => {
    for (const { srv } of servers) await unary(srv.client, "PutMap", { id, movingai });
  };
  const lines = [
    "| units | server | first update ms | every unit's first trajectory ms | sync acknowledged ms | server CPU s | collisions | wall contacts | arrived as scheduled | arrived after one delay | " +
    "final status | " +
    "makespan as scheduled / slowest solo duration | after one delay | repair after one delay |",
    "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |",
  ];
  const blank = " | | | | | | | | | | | | |";
  try {
    for (const name of sizes.length > 0 ? maps : []) {
      const text = readFileSync(join(ROOT, `../shared/data/movingai/${name}.map`), "utf8");
      await put(name, text);
      const rows = text.split(/\r?\n/);
      const grid = rows.slice(rows.indexOf("map") + 1, rows.indexOf("map") + 513);
      lines.push(`| **${name}** |${blank}`);
      for (const n of sizes) await both(name, grid, pick(grid, n, 7 + n));
    }
    if (robots.length > 0) {
      // A warehouse aisle grid (test/helpers/warehouse.ts): 30 shelf columns x 10 blocks, 95 x 82 tiles, 900 bays.
      const w = warehouse(30, 10);
      await put("warehouse", movingAiText(w.rows));
      lines.push(`| **warehouse 95x82** |${blank}`);
      for (const n of robots) await both("warehouse", w.rows, warehouseJobs(w, n, 11));
    }
    for (const n of circle) {
      const c = circleScenario(n);
      await put(`circle${n}`, movingAiText(c.rows));
      lines.push(`| **circle ${n}** |${blank}`);
      await both(`circle${n}`, c.rows, c.specs);
    }
    for (const n of groups) {
      // Issue 12's narrow passages: two groups of n swapping ends through a corridor, 2n through a gate.
      for (
        const [id, c] of [[`corridor${n}`, corridorScenario(n)], [
          `gate${2 * n}`,
          gateScenario(2 * n),
        ]] as const
      ) {
        await put(id, movingAiText(c.rows));
        lines.push(`| **${id}** |${blank}`);
        await both(id, c.rows, c.specs);
      }
    }
    return lines.join("\n") + "\n\n" + summary.join("\n") +
      "\n\nSoldiers (disc r 0.3, 2 tiles/s), all added at t = 0: on the Moving AI maps random starts and random " +
      "goals 20-80 tiles away; in the warehouse from a random pick bay to another through one-tile aisles; " +
      "checker: exact discs every 20 ms on the latest trajectories. Makespan as scheduled: the last arrival of the " +
      "trajectories first sent; after one delay: the same once one unit reported that it is 2 s behind (its own " +
      "arrival is 2 s later at least) and the fleet was repaired, then synced every 0.5 s up to the makespan " +
      "(arrivals and makespan counted at the end; the repair's time is its own update's). Server CPU: the server process's user + system " +
      "time (all threads) from the first unit message to the sync's acknowledgement. Peer: the same server with " +
      "`--fleet-detours 0` (each unit keeps its planned path; timing only). Detours: the detour pass within " +
      `${
        detourMs === undefined
          ? "its default budget of the server thread's CPU time (200 ms + 20 ms per late unit, at most 2,000 ms " +
            "and the larger of 100,000 ms / units and 2e7 ms / units^2)"
          : `--fleet-detour-ms ${detourMs}`
      }; the units it ` +
      "cannot change are sent before it runs (first update), the others after it. " + CIRCLE_NOTE + " " +
      GROUPS_NOTE;
  } finally {
    for (const { srv } of servers) await srv.stop();
  }
}

if (import.meta.main) {
  // deno run -A bench/fleet.ts [sizes] [circle] [maps] [robots] [detour ms] [groups]: comma lists ("-" for none),
  // e.g.
  // 500 100 8room_000 300 (the detours server's --fleet-detour-ms: its default when absent)
  const list = (a: string | undefined, d: string[]) => a === undefined ? d : a === "-" ? [] : a.split(",");
  const [sizes, circle, maps, robots, ms, groups] = Deno.args;
  console.log(
    await benchFleet(
      list(sizes, ["100", "500"]).map(Number),
      list(circle, ["10", "50", "100"]).map(Number),
      list(maps, ["8room_000", "random512-10-0"]),
      list(robots, ["100", "300"]).map(Number),
      ms === undefined || ms === "-" ? undefined : Number(ms),
      list(groups, ["16"]).map(Number),
    ),
  );
}
