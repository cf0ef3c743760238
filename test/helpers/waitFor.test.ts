/**
 * The waits of test/helpers/waitFor.ts: they return once what they wait for shows, and fail naming it (with the
 * output's tail) when it never does, so no test passes by a wait that ran out.
 */
import { describe, expect, test } from "vitest";
import { waitForLines, waitForOutput, waitUntil } from "./waitFor.ts";

/** An output that grows by one line every 20 ms, as a server's log does. */
function growing(lines: string[]): () => string {
  let out = "";
  let i = 0;
  const timer = setInterval(() => {
    if (i < lines.length) out += `${lines[i++]}\n`;
    else clearInterval(timer);
  }, 20);
  return () => out;
}

describe("waits for a server's output", () => {
  test("return once the line is out: the output, or the matching lines", async () => {
    const out = growing(["start", '{"method":"Plan","status":"OK"}', "x", '{"method":"Plan","status":"OK"}']);
    expect(await waitForOutput({ output: out }, /"method":"Plan"/, 5000)).toMatch(/start\n.*Plan/);
    const lines = await waitForLines(out, '"method":"Plan"', 2, 5000);
    expect(lines).toEqual(['{"method":"Plan","status":"OK"}', '{"method":"Plan","status":"OK"}']);
  });

  test("fail after the time given, naming the pattern and showing the output's tail", async () => {
    const out = () => "line one\nline two\n";
    await expect(waitForOutput(out, /never/, 200)).rejects.toThrow(
      /did not show \/never\/ within 200 ms; its last 3000 characters:\nline one\nline two/,
    );
    await expect(waitForLines(out, "line", 3, 200)).rejects.toThrow(/3 line\(s\) with line/);
  });

  test("waitUntil polls a condition and fails with what it waited for and the detail", async () => {
    let n = 0;
    await waitUntil("n reaches 3", () => ++n >= 3, 5000);
    expect(n).toBe(3);
    await expect(waitUntil("never true", () => false, 150, () => "n was 3")).rejects.toThrow(
      /^never true: not seen within 150 ms\nn was 3$/,
    );
  });
});
