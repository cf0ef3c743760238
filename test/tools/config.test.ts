/** Flags from the environment and a config file (src/tools/config.ts), in process. */
import { describe, expect, test } from "vitest";
import { configPath, envArgs, fileArgs } from "../../src/tools/config.ts";

const OPTS = {
  listen: { type: "string" },
  "max-connections": { type: "string" },
  "no-demo": { type: "boolean" },
  config: { type: "string" },
} as const;

describe("envArgs", () => {
  test("PREFIX_<FLAG> with dashes as underscores; booleans on for 1/true/yes", () => {
    const env: Record<string, string> = { X_MAX_CONNECTIONS: "500", X_NO_DEMO: "true", X_LISTEN: "" };
    expect(envArgs(OPTS, "X", (n) => env[n])).toEqual(["--max-connections=500", "--no-demo"]);
    expect(envArgs(OPTS, "X", (n) => ({ X_NO_DEMO: "0" } as Record<string, string>)[n])).toEqual([]);
    expect(() => envArgs(OPTS, "X", (n) => ({ X_NO_DEMO: "maybe" } as Record<string, string>)[n])).toThrow(
      /X_NO_DEMO: expected 1\/true\/yes or 0\/false\/no, got "maybe"/,
    );
  });
});

describe("fileArgs", () => {
  test("'flag value', 'flag = value', '--flag value', a boolean alone, comments", () => {
    const text = "# arcpath\nlisten 127.0.0.1:1\nmax-connections = 64 # small\n--no-demo\n\n";
    expect(fileArgs(OPTS, text, "f.conf")).toEqual([
      "--listen=127.0.0.1:1",
      "--max-connections=64",
      "--no-demo",
    ]);
  });

  test("unknown flags, missing values and values on booleans are refused naming the line", () => {
    expect(() => fileArgs(OPTS, "listen 1\nmax-conections 3\n", "f.conf")).toThrow(/f\.conf:2: unknown flag/);
    expect(() => fileArgs(OPTS, "max-connections\n", "f.conf")).toThrow(
      /f\.conf:1: max-connections needs a value/,
    );
    expect(() => fileArgs(OPTS, "no-demo please\n", "f.conf")).toThrow(/f\.conf:1: no-demo takes no value/);
    expect(() => fileArgs(OPTS, "config other.conf\n", "f.conf")).toThrow(/f\.conf:1: unknown flag/);
  });
});

test("configPath finds --config FILE and --config=FILE", () => {
  expect(configPath(["--listen", "x", "--config", "a.conf"])).toBe("a.conf");
  expect(configPath(["--config=b.conf"])).toBe("b.conf");
  expect(configPath(["--listen", "x"])).toBeUndefined();
});
