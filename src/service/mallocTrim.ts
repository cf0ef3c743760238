/**
 * glibc malloc, tuned for a server whose big arrays come and go. Typed arrays of a few MB (a worker's query
 * scratch, the map builders' temporaries) are allocated by glibc's malloc from its heap once earlier frees raised
 * its mmap threshold, and freeing them leaves the pages resident in malloc's free lists: a worker that let go of 8
 * MB of scratch kept its resident set (measured: 131.5 MB before and after; 123.9 MB after `malloc_trim(0)`).
 * Two remedies here, both no-ops where glibc or FFI is not available:
 * - {@link trimMalloc}: `malloc_trim(0)`, after a worker's idle release (service/worker.ts) and the like.
 * - {@link mapLargeBlocksAlone}: a fixed mmap threshold, set once at start (src/main.ts), so every block from
 *   {@link MMAP_THRESHOLD_BYTES} up is a mapping of its own, given back whole when freed, and the shared tables
 *   a map builder or the main thread allocates do not land among other threads' free space.
 *
 * @module
 */

/**
 * Blocks from this size up are mapped alone: glibc's starting threshold, which it otherwise raises (up to 32 MB)
 * each time a mapped block is freed, after which big arrays come from the thread's arena and stay resident.
 */
export const MMAP_THRESHOLD_BYTES = 128 * 1024;

/** glibc's mallopt parameter number of M_MMAP_THRESHOLD (malloc.h). */
const M_MMAP_THRESHOLD = -3;

/**
 * Sets glibc's mmap threshold to {@link MMAP_THRESHOLD_BYTES} for the whole process (every thread's arena; a fixed
 * value also turns off glibc's raising of it). Call once at start, before the workers. Measured with
 * bench/mapGrowth.ts (1024^2 map, same sittings, 11 runs each, alternating with a copy without it): with 4 workers
 * the map's settled bytes per tile 33.0-39.9 (median 36.3) against 34.2-43.3 (36.8, 5 runs over 40), with 2
 * workers 32.3-37.3 (34.5) against 32.0-41.3 (35.2), and the settled resident set 4-9 MB lower: the shared tables
 * no longer land in other threads' free space, and freed blocks do not stay in arenas. Left alone when
 * MALLOC_MMAP_THRESHOLD_ is set (glibc read it at start: the operator's choice). Returns whether the threshold is set (by this call or the environment).
 */
export function mapLargeBlocksAlone(): boolean {
  if (Deno.build.os !== "linux") return false;
  try {
    if (Deno.env.get("MALLOC_MMAP_THRESHOLD_") !== undefined) return true;
    const lib = glibc();
    return lib !== null && lib.symbols.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES) === 1;
  } catch {
    // --allow-env not given: malloc keeps its dynamic threshold.
    return false;
  }
}

const GLIBC_SYMBOLS = {
  mallopt: { parameters: ["i32", "i32"], result: "i32" },
  malloc_trim: { parameters: ["usize"], result: "i32" },
} as const;

let libc: Deno.DynamicLibrary<typeof GLIBC_SYMBOLS> | null | undefined;

/** glibc's malloc tuning calls, opened once, or null when they cannot be had (not glibc, or FFI not allowed). */
function glibc(): Deno.DynamicLibrary<typeof GLIBC_SYMBOLS> | null {
  if (libc !== undefined) return libc;
  libc = null;
  if (Deno.build.os !== "linux") return libc;
  try {
    libc = Deno.dlopen("libc.so.6", GLIBC_SYMBOLS);
  } catch {
    // Not glibc, or --allow-ffi not given: malloc stays as it is.
  }
  return libc;
}

/** Returns malloc's free pages to the system now (a few ms); true when it could. */
export function trimMalloc(): boolean {
  const lib = glibc();
  lib?.symbols.malloc_trim(0n);
  return lib !== null;
}
