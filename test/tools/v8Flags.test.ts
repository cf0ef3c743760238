/**
 * The server's V8 flags (src/tools/v8Flags.ts): what counts as given, that every launcher in the repository
 * passes them, and, run for real, that the flag gives an ended worker's heap back to the system (without it the
 * pages stay in V8's process-wide pool).
 */
import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { missingV8Flags, SERVER_V8_FLAGS, SERVER_V8_OPTION } from "../../src/tools/v8Flags.ts";
import { ROOT } from "../helpers/server.ts";

const FLAG = "--no-memory-pool-share-memory-on-teardown";

describe("missingV8Flags", () => {
  test("the server's flags include the pool flag", () => {
    expect(SERVER_V8_FLAGS).toContain(FLAG);
    expect(SERVER_V8_OPTION).toBe(`--v8-flags=${SERVER_V8_FLAGS.join(",")}`);
  });

  test("given on the command line, among other flags, or in DENO_V8_FLAGS", () => {
    expect(missingV8Flags(["deno", "run", "-A", SERVER_V8_OPTION], undefined)).toEqual([]);
    expect(missingV8Flags(["deno", "run", `--v8-flags=--trace-gc,${FLAG}`], undefined)).toEqual([]);
    expect(missingV8Flags(["deno", "run"], `--trace-gc ${FLAG}`)).toEqual([]);
    expect(missingV8Flags(["deno", "run"], FLAG.replaceAll("-", "_").replace(/^__/, "--"))).toEqual([]);
  });

  test("missing, or undone by a later flag", () => {
    expect(missingV8Flags(["deno", "run", "-A"], undefined)).toEqual([FLAG]);
    expect(missingV8Flags(["deno", "run", "--v8-flags=--trace-gc"], "")).toEqual([FLAG]);
    expect(
      missingV8Flags(["deno", "run", `--v8-flags=${FLAG},--memory-pool-share-memory-on-teardown`], undefined),
    )
      .toEqual([FLAG]);
    // After "--" an argument is not the runtime's.
    expect(missingV8Flags(["deno", "run", "--", SERVER_V8_OPTION], undefined)).toEqual([FLAG]);
  });
});

describe("launchers", () => {
  test.each(["Dockerfile", "deno.json", "docker-compose.yml", "deploy/k8s/arcpath.yaml"])(
    "%s starts the server with the flags",
    (file) => {
      // A flow list `deno fmt` wrote one item a line is read as one line.
      const text = readFileSync(join(ROOT, file), "utf8").replace(
        /\[[^\]]*\]/g,
        (l) => l.replace(/\s*\n\s*/g, " "),
      );
      const launches = text.split("\n").filter((l) => l.includes("src/main.ts") && !l.trim().startsWith("#"));
      expect(launches.length, `${file} launches the server`).toBeGreaterThan(0);
      for (const l of launches) expect(l, file).toContain(SERVER_V8_OPTION);
    },
  );
});

describe("an ended worker's heap", () => {
  /** Resident growth of a process whose worker built ~30 MB of objects and ended, with `flags`. */
  function growth(flags: string[]): number {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.DENO_V8_FLAGS;
    const r = spawnSync(
      process.execPath,
      ["run", "-A", ...flags, join(ROOT, "test/tools/fixtures/workerTeardown.ts")],
      { encoding: "utf8", timeout: 60_000, env },
    );
    expect(r.status, r.stderr).toBe(0);
    const { before, after } = JSON.parse(r.stdout) as { before: number; after: number };
    return after - before;
  }

  test("goes back to the system with the flags, stays resident without", () => {
    const kept = growth([]);
    const given = growth([SERVER_V8_OPTION]);
    // Measured: +42.7 MB without, +18.5 MB with (the rest is the worker's thread, code and malloc arenas).
    expect(kept - given, `without ${(kept / 1048576).toFixed(1)} MB, with ${(given / 1048576).toFixed(1)} MB`)
      .toBeGreaterThan(10 * 1048576);
  }, 120_000);
});
