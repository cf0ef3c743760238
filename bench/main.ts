/**
 * `deno task bench`: every benchmark of the project, printed as markdown tables.
 *
 * Usage: deno task bench [--only grid,curves,maps,hierarchical,directional,quality,e2e,stream,planmany,fleet,fleetRepair,distributed,soak] [--seconds N]
 *
 * Figures are medians over repeated runs, with a peer measured in the same run where one exists
 * (PathFinding.js for grid A*, plain A* for hierarchical, an empty RPC for Plan throughput, SMOOTH for HYBRID).
 * The machine is noisy: compare ratios, not absolute numbers across runs.
 *
 * @module
 */
import { parseCli } from "../src/tools/cli.ts";
import { benchE2e } from "./e2e.ts";
import { benchStream } from "./stream.ts";

const { values } = parseCli({
  usage: "deno task bench [--only NAMES] [--seconds N]",
  about:
    "Every benchmark of the project, printed as markdown tables (medians, with a peer where one exists).",
  flags: {
    only:
      "NAMES  comma-separated: grid,curves,maps,hierarchical,directional,quality,e2e,stream,planmany,fleet,fleetRepair,scale," +
      "scalequeries " +
      "(default all), and distributed (only when named: needs redis-server and nginx) and soak (only when named: " +
      "a 10-minute mixed workload, --seconds N to change)",
    seconds: "N  seconds per e2e and stream measurement (default 4; soak: 600)",
  },
}, {
  args: Deno.args,
  options: { only: { type: "string" }, seconds: { type: "string" } },
});
const only = values.only ? new Set(values.only.split(",")) : null;
const want = (name: string) => only === null || only.has(name);

type Bench = { name: string; module: string; fn: string };
const benches: Bench[] = [
  { name: "grid", module: "./grid.ts", fn: "benchGrid" },
  { name: "curves", module: "./curves.ts", fn: "benchCurves" },
  { name: "maps", module: "./maps.ts", fn: "benchMaps" },
  { name: "hierarchical", module: "./hierarchical.ts", fn: "benchHierarchical" },
  { name: "directional", module: "./directional.ts", fn: "benchDirectional" },
  { name: "quality", module: "./quality.ts", fn: "benchQuality" },
  { name: "planmany", module: "./planMany.ts", fn: "benchPlanMany" },
  { name: "fleet", module: "./fleet.ts", fn: "benchFleet" },
  { name: "fleetRepair", module: "./fleetRepairReplay.ts", fn: "benchFleetRepair" },
  { name: "scale", module: "./scale.ts", fn: "benchScale" },
  { name: "scalequeries", module: "./scaleQueries.ts", fn: "benchScaleQueries" },
];

console.log(`# arcpath benchmarks (${new Date().toISOString()}, ${navigator.hardwareConcurrency} cores)\n`);
for (const b of benches) {
  if (!want(b.name)) continue;
  console.log(`## ${b.name}\n`);
  const t0 = performance.now();
  const mod = await import(b.module);
  console.log(await mod[b.fn]());
  console.log(`\n(${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
}
if (want("e2e")) {
  console.log(`## e2e: Plan throughput over gRPC\n`);
  console.log(await benchE2e(Number(values.seconds ?? 4)));
}
// Opt-in (needs redis-server and nginx, and starts six processes): --only distributed.
if (only?.has("distributed")) {
  console.log(
    `\n## distributed: the Redis store's cost per replica, throughput behind nginx, CPU per Plan\n`,
  );
  const { benchDistributed } = await import("./distributed.ts");
  console.log(await benchDistributed(Number(values.seconds ?? 4)));
}
// Opt-in (ten minutes by default): --only soak [--seconds N].
if (only?.has("soak")) {
  console.log(`\n## soak: a mixed workload with the server's RSS sampled\n`);
  const { benchSoak } = await import("./soak.ts");
  console.log(await benchSoak(Number(values.seconds ?? 600)));
}
if (want("stream")) {
  console.log(`\n## stream: first and refined updates, replans under patch load\n`);
  console.log(await benchStream(Number(values.seconds ?? 4)));
}
