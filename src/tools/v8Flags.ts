/**
 * The V8 flags the server is launched with (`deno run --v8-flags=...`: the Dockerfile, `deno task start`, the
 * test and bench servers), and whether this process got them. V8 reads them once at start, before any code runs
 * (`v8.setFlagsFromString` is too late for these: measured, no effect), so the launcher must pass them; the
 * server logs a warning naming what is missing.
 *
 * `--no-memory-pool-share-memory-on-teardown`: when a worker thread ends, V8 by default hands its heap pages to
 * a process-wide pool, released only by a task that an idle server never runs. The map builders are workers that
 * stop 2 s after their last job (service/mapBuild.ts), so every big upload left their heaps resident: 7.5 MB
 * after a 1024^2 upload, 7 B/tile of issue 13's 40 (bench/memoryMap.ts: V8's mappings 33.0 MB before the upload,
 * 40.1 MB 12 s after it, 33.0 MB with the flag). With the flag the pages go back to the system as the worker ends.
 *
 * @module
 */

/** The V8 flags of a server launch (`--v8-flags=` joins them with commas). */
export const SERVER_V8_FLAGS: readonly string[] = ["--no-memory-pool-share-memory-on-teardown"];

/** The `deno run` option that passes {@link SERVER_V8_FLAGS}. */
export const SERVER_V8_OPTION = `--v8-flags=${SERVER_V8_FLAGS.join(",")}`;

/**
 * The flags of {@link SERVER_V8_FLAGS} that neither the command line `argv` (the process's, runtime flags
 * included: /proc/self/cmdline) nor `envFlags` (DENO_V8_FLAGS) set; a later `--no-x`/`--x` wins over an earlier one.
 */
export function missingV8Flags(argv: readonly string[], envFlags: string | undefined): string[] {
  const given: string[] = (envFlags ?? "").split(/[,\s]+/).filter((f) => f !== "");
  for (const a of argv) {
    if (a === "--") break;
    if (a.startsWith("--v8-flags=")) {
      given.push(...a.slice("--v8-flags=".length).split(",").filter((f) => f !== ""));
    }
  }
  const last = new Map<string, string>();
  for (const raw of given) {
    const f = raw.replaceAll("_", "-");
    last.set(f.replace(/^--(no-)?/, ""), f);
  }
  return SERVER_V8_FLAGS.filter((f) => last.get(f.replace(/^--(no-)?/, "")) !== f);
}

/**
 * {@link missingV8Flags} of this process, reading its command line from /proc/self/cmdline (Linux; elsewhere the
 * flags cannot be seen and none is reported missing).
 */
export function missingServerV8Flags(): string[] {
  let argv: string[];
  try {
    argv = Deno.readTextFileSync("/proc/self/cmdline").split("\0");
  } catch {
    return [];
  }
  // Only the runtime's own options, before the script: a script argument spelled like one does not count.
  const script = argv.findIndex((a) => /\.(ts|js|mjs)$/.test(a));
  return missingV8Flags(script < 0 ? argv : argv.slice(0, script), Deno.env.get("DENO_V8_FLAGS"));
}
