/**
 * The long soak (`deno task bench --only soak [--seconds N]`, default 600): the mixed workload of
 * test/helpers/soak.ts against one server, with its resident memory sampled every second; reports the counts,
 * RSS first / median / max / last and the trend over the second half (MB per minute).
 *
 * @module
 */
import { startBenchServer } from "./server.ts";
import { soak, soakLine } from "../test/helpers/soak.ts";

/** Runs the soak and returns a markdown paragraph. */
export async function benchSoak(seconds = 600): Promise<string> {
  const srv = await startBenchServer();
  try {
    const r = await soak(srv, seconds);
    const series = r.rss.filter((_, i) => i % Math.max(1, Math.floor(r.rss.length / 20)) === 0)
      .map((x) => x.toFixed(0)).join(" ");
    return `Mixed soak, ${soakLine(r)}\n\nRSS (MB) sampled along the run: ${series}`;
  } finally {
    await srv.stop();
  }
}
