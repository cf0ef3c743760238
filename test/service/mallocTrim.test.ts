/**
 * glibc malloc's fixed mmap threshold (src/service/mallocTrim.ts): after a freed 8 MB block, glibc by default
 * raises its threshold and takes a 1 MB array from the heap; with {@link mapLargeBlocksAlone} the 1 MB array is
 * a mapping of its own (given back whole when freed). Each case runs in a fresh process (the setting is
 * process-wide and glibc's threshold moves with what the process freed before).
 */
import { describe, expect, test } from "vitest";
import { fileURLToPath } from "node:url";

const mallocTrim = new URL("../../src/service/mallocTrim.ts", import.meta.url).href;
const collect = new URL("../../src/service/collect.ts", import.meta.url).href;

/** The child: frees an 8 MB array, then counts the new mappings of >= 1 MB a 1 MB array brings. */
const CHILD = `
import { mapLargeBlocksAlone } from "${mallocTrim}";
import { collectNow } from "${collect}";
const set = Deno.args[0] === "on" ? mapLargeBlocksAlone() : false;
const starts = () => Deno.readTextFileSync("/proc/self/maps").split("\\n").filter((l) => l !== "").map((l) => {
  const [a, b] = l.split(" ")[0].split("-").map((h) => parseInt(h, 16));
  return { a, size: b - a };
});
let big = new Uint8Array(8 << 20);
big[0] = 1;
big = null;
for (let i = 0; i < 2; i++) {
  collectNow();
  await new Promise((r) => setTimeout(r, 300));
}
const before = new Set(starts().map((m) => m.a));
const small = new Uint8Array(1 << 20);
small[7] = 1;
const fresh = starts().filter((m) => !before.has(m.a) && m.size >= (1 << 20)).length;
console.log(JSON.stringify({ set, fresh, touched: small[7] }));
`;

/** Runs the child with the threshold set ("on") or not; returns its report. */
async function child(mode: "on" | "off"): Promise<{ set: boolean; fresh: number }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--ext=ts", CHILD, mode],
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) throw new Error(`child failed: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(text.split("\n").at(-1)!);
}

describe.skipIf(Deno.build.os !== "linux")("mapLargeBlocksAlone", () => {
  test(
    "a 1 MB array after a freed 8 MB one is mapped alone with the fixed threshold, from the heap without",
    async () => {
      const on = await child("on");
      expect(on.set).toBe(true);
      expect(on.fresh).toBe(1);
      const off = await child("off");
      expect(off.fresh).toBe(0);
    },
    60_000,
  );
});
