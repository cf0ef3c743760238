/**
 * The command lines: the usage text lists every flag, a typo is named with the flag it meant; and run for real,
 * the server and every tool answer `--help` with their usage (exit 0) and a mistyped or unknown flag with a usage
 * error naming it (exit 2), never a stack trace.
 */
import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { usageError, usageText } from "../../src/tools/cli.ts";
import { ROOT } from "../helpers/server.ts";

const OPTIONS = { listen: { type: "string" }, "no-demo": { type: "boolean" } } as const;

/** The error parseArgs (strict) throws for these arguments. */
function errorOf(args: string[]): unknown {
  try {
    parseArgs({ args, options: OPTIONS, strict: true });
  } catch (e) {
    return e;
  }
  throw new Error(`no error for ${args.join(" ")}`);
}

describe("usage text and errors", () => {
  test("the usage lists every flag, described or not, with its value name", () => {
    const text = usageText(
      { usage: "x [flags]", about: "Does x.", flags: { listen: "HOST:PORT where" } },
      OPTIONS,
    );
    expect(text).toMatch(/^Usage: x \[flags\]/);
    expect(text).toMatch(/--listen HOST:PORT +where/);
    expect(text).toContain("--no-demo");
    expect(text).toContain("--help");
  });

  test("a usage error names the flag, and the known flag a typo meant", () => {
    expect(usageError(errorOf(["--lisen", "a"]), OPTIONS)).toBe(
      "unknown flag --lisen (did you mean --listen?)",
    );
    expect(usageError(errorOf(["--frobnicate"]), OPTIONS)).toBe("unknown flag --frobnicate");
    expect(usageError(errorOf(["--listen"]), OPTIONS)).toBe("flag --listen needs a value");
    expect(usageError(errorOf(["--no-demo=1"]), OPTIONS)).toBe("flag --no-demo takes no value");
    expect(usageError(errorOf(["stray"]), OPTIONS)).toBe("unexpected argument stray");
  });
});

/** Runs a program of the repo with Deno; returns its exit status and output. */
function run(file: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["run", "-A", join(ROOT, file), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, ARCPATH_LOG_LEVEL: "error" },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const PROGRAMS: [string, string, string][] = [
  // file, a flag its usage must list, a typo and the flag it should suggest
  ["src/main.ts", "--listen HOST:PORT", "--max-mesage-mb"],
  ["src/tools/render.ts", "--turning-radius R", "--sacle"],
  ["src/tools/tables.ts", "--help", "--force"],
  ["bench/main.ts", "--only NAMES", "--onyl"],
];

describe.each(PROGRAMS)("%s", (file, listed, typo) => {
  test("--help prints the usage and exits 0", () => {
    const r = run(file, ["--help"]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Usage: /);
    expect(r.stdout).toContain(listed);
  }, 60_000);

  test("a mistyped flag is a usage error naming it (exit 2), not a crash", () => {
    const r = run(file, [typo, "1"]);
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`unknown flag ${typo}`);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});

test(
  "flags after a leading `--` (as `deno task render -- --map yard` passes them) are parsed as flags",
  () => {
    const r = run("src/tools/render.ts", ["--", "--map", "yard", "--sacle", "1"]);
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain("unknown flag --sacle"); // not "unexpected argument --map"
  },
  60_000,
);

test("the server on an address already in use exits 2 naming --listen, not with a stack trace", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const { port } = taken.address() as { port: number };
  try {
    const data = mkdtempSync(join(tmpdir(), "arcpath-cli-"));
    const r = run("src/main.ts", [
      "--listen",
      `127.0.0.1:${port}`,
      "--data",
      data,
      "--workers",
      "1",
      "--no-demo",
    ]);
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toContain(`--listen 127.0.0.1:${port}: listen EADDRINUSE`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  } finally {
    taken.close();
  }
}, 60_000);

test("the server's typo hint names the flag it meant", () => {
  const r = run("src/main.ts", ["--max-mesage-mb", "4"]);
  expect(r.stderr).toContain("unknown flag --max-mesage-mb (did you mean --max-message-mb?)");
}, 60_000);
