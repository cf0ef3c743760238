/**
 * Waits for something a server process prints or a condition the test watches, polling instead of sleeping:
 * the server logs through pino, which writes asynchronously, so a line about an event (an RPC's access line, a
 * background build, a reload, a crash) may land some time after the event a client saw. A wait that never
 * sees what it waits for fails with a message naming it (and the tail of the output), never passes silently.
 *
 * @module
 */

/** Anything with the server's output so far: a {@link import("./server.ts").TestServer} or a plain getter. */
export type OutputSource = { output: () => string } | (() => string);

/** How long a wait lasts unless told: long enough for a loaded CI machine, short enough to fail clearly. */
export const WAIT_MS = 30_000;

/** The interval between two looks. */
const POLL_MS = 50;

/** How much of the output a failure message shows. */
const TAIL_CHARS = 3000;

/** The output text of `src` now. */
function read(src: OutputSource): string {
  return typeof src === "function" ? src() : src.output();
}

/**
 * Waits until the server's output matches `what` (a regular expression, or a test on the whole output) and
 * returns the output at that moment. Fails after `ms` with the pattern and the output's tail.
 */
export async function waitForOutput(
  src: OutputSource,
  what: RegExp | ((out: string) => boolean),
  ms = WAIT_MS,
  label?: string,
): Promise<string> {
  const ok = typeof what === "function" ? what : (out: string) => what.test(out);
  const end = Date.now() + ms;
  for (;;) {
    const out = read(src);
    if (ok(out)) return out;
    if (Date.now() >= end) {
      const name = label ?? (what instanceof RegExp ? String(what) : "the awaited condition");
      throw new Error(
        `the server's output did not show ${name} within ${ms} ms; its last ${TAIL_CHARS} characters:\n` +
          out.slice(-TAIL_CHARS),
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * Waits until at least `n` lines of the server's output contain `needle` (a string or a regular expression)
 * and returns those lines. Fails after `ms` naming the count seen and the output's tail.
 */
export async function waitForLines(
  src: OutputSource,
  needle: string | RegExp,
  n = 1,
  ms = WAIT_MS,
): Promise<string[]> {
  const has = (l: string) => (typeof needle === "string" ? l.includes(needle) : needle.test(l));
  const lines = () => read(src).split("\n").filter(has);
  await waitForOutput(src, () => lines().length >= n, ms, `${n} line(s) with ${String(needle)}`);
  return lines();
}

/**
 * Polls `cond` until it holds and fails after `ms` with `what` (and `detail()`, if given, for context): the
 * wait for a state the test itself can see (a counter, a file, a client's received updates).
 */
export async function waitUntil(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = WAIT_MS,
  detail?: () => string,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() >= end) {
      throw new Error(`${what}: not seen within ${ms} ms${detail ? `\n${detail()}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
