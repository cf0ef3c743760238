/**
 * Benchmark of the length-only curve solvers: shortest Dubins and Reeds-Shepp length evaluations per second on
 * random pose pairs, one core. Run alone: `deno run -A bench/curves.ts`.
 *
 * @module
 */

import { dubinsLengthCoords, reedsSheppLengthCoords } from "../src/geometry/curves.ts";

/** Target rates (evaluations per second). */
const TARGETS = { dubins: 2_000_000, reedsShepp: 500_000 };

/** Turning radii cycled over the pairs: those of the reference data (shared/data/curves). */
const RADII = [0.5, 1, 2.5, 4];

/**
 * Random pose pairs in [-10, 10]^2 with headings in [-pi, pi) and a turning radius from {@link RADII}, flat:
 * x0 y0 h0 x1 y1 h1 r per pair.
 */
function randomPairs(count: number, seed: number): Float64Array {
  const out = new Float64Array(count * 7);
  let state = seed >>> 0;
  for (let i = 0; i < out.length; i++) {
    if (i % 7 === 6) {
      out[i] = RADII[((i - 6) / 7) % RADII.length];
      continue;
    }
    // xorshift32: deterministic and cheap.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const unit = state / 4294967296;
    out[i] = i % 7 === 2 || i % 7 === 5 ? (unit * 2 - 1) * Math.PI : unit * 20 - 10;
  }
  return out;
}

/**
 * A fixed trigonometric workload with the Dubins solver's unavoidable part (the start frame's and the heading
 * change's sines and cosines, plus one atan2 and a square root), as a same-run reference for this noisy,
 * shared machine: compare the solvers' rates with it rather than across runs.
 */
function referenceWorkload(
  x0: number,
  y0: number,
  h0: number,
  x1: number,
  y1: number,
  h1: number,
  r: number,
): number {
  const phi = h1 - h0;
  return Math.cos(h0) * x1 + Math.sin(h0) * y1 + Math.sin(phi) * x0 + Math.cos(phi) * y0 +
    Math.atan2(y1 - y0, x1 - x0) + Math.sqrt(r);
}

type LengthFn = (x0: number, y0: number, h0: number, x1: number, y1: number, h1: number, r: number) => number;

/** Runs `fn` over all pairs `repeats` times; returns evaluations per second and a checksum (keeps the work live). */
function timeRound(fn: LengthFn, pairs: Float64Array, repeats: number): { rate: number; checksum: number } {
  const n = pairs.length / 7;
  let checksum = 0;
  const t0 = performance.now();
  for (let rep = 0; rep < repeats; rep++) {
    for (let i = 0, j = 0; i < n; i++, j += 7) {
      checksum += fn(
        pairs[j],
        pairs[j + 1],
        pairs[j + 2],
        pairs[j + 3],
        pairs[j + 4],
        pairs[j + 5],
        pairs[j + 6],
      );
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  return { rate: (n * repeats) / seconds, checksum };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : 0.5 * (sorted[mid - 1] + sorted[mid]);
}

function measure(fn: LengthFn, pairs: Float64Array, rounds: number): number {
  timeRound(fn, pairs, 3); // warm-up: let the JIT optimize the solver
  const rates: number[] = [];
  let sink = 0;
  for (let i = 0; i < rounds; i++) {
    const { rate, checksum } = timeRound(fn, pairs, 2);
    rates.push(rate);
    sink += checksum;
  }
  if (!Number.isFinite(sink)) throw new Error("benchmark produced a non-finite length");
  return median(rates);
}

/**
 * Measures shortest Dubins and Reeds-Shepp length evaluations per second (median of several timed rounds after a
 * warm-up) and returns a markdown table with the targets.
 */
export async function benchCurves(): Promise<string> {
  const pairs = randomPairs(100_000, 20240601);
  const reference = measure(referenceWorkload, pairs, 7);
  await Promise.resolve();
  const dubins = measure(dubinsLengthCoords, pairs, 7);
  await Promise.resolve();
  const reedsShepp = measure(reedsSheppLengthCoords, pairs, 7);
  const row = (name: string, rate: number, target: number | null) =>
    `| ${name} | ${Math.round(rate).toLocaleString("en-US")} | ${(rate / reference).toFixed(3)} | ${
      target === null ? "-" : target.toLocaleString("en-US")
    } | ${target === null ? "-" : rate >= target ? "yes" : "no"} |`;
  return [
    "| Curve | evals/s (median) | x reference | target | met? |",
    "| --- | ---: | ---: | ---: | --- |",
    row("reference (4 sin/cos, atan2, sqrt)", reference, null),
    row("Dubins", dubins, TARGETS.dubins),
    row("Reeds-Shepp", reedsShepp, TARGETS.reedsShepp),
  ].join("\n");
}

if (import.meta.main) console.log(await benchCurves());
