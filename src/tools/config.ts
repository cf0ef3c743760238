/**
 * Flags from the environment and from a config file, for a program whose command line parseCli reads: each
 * becomes command-line arguments placed before the real ones, so the command line wins over the environment,
 * which wins over the file (parseArgs keeps the last value of a flag).
 *
 * - Environment: `PREFIX_<FLAG>` with the flag upper-cased and dashes as underscores (`--max-connections` is
 *   `ARCPATH_MAX_CONNECTIONS`); a boolean flag is on for `1`, `true` or `yes`, off for `0`, `false`, `no` or empty.
 * - Config file: one flag a line, `flag value` or `flag = value` (the flag with or without its dashes), a boolean
 *   flag alone on its line; `#` starts a comment. An unknown flag or a bad line is an error naming the line.
 *
 * @module
 */

/** The option kinds parseCli knows. */
type Options = Record<string, { type: "string" | "boolean" }>;

/** Arguments for the flags set in `env` (a function so tests need no real environment). */
export function envArgs(
  options: Options,
  prefix: string,
  env: (name: string) => string | undefined,
): string[] {
  const out: string[] = [];
  for (const [name, o] of Object.entries(options)) {
    const v = env(`${prefix}_${name.toUpperCase().replaceAll("-", "_")}`);
    if (v === undefined) continue;
    if (o.type === "boolean") {
      const on = /^(1|true|yes)$/i.test(v.trim());
      if (!on && !/^(0|false|no|)$/i.test(v.trim())) {
        throw new Error(
          `${prefix}_${name.toUpperCase().replaceAll("-", "_")}: expected 1/true/yes or 0/false/no, got ${
            JSON.stringify(v.slice(0, 80))
          }`,
        );
      }
      if (on) out.push(`--${name}`);
    } else if (v !== "") out.push(`--${name}=${v}`);
  }
  return out;
}

/** Arguments for the flags of a config file's text; throws naming `path`, the line and the flag. */
export function fileArgs(options: Options, text: string, path: string): string[] {
  const out: string[] = [];
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.replace(/(^|\s)#.*$/, "").trim();
    if (!line) continue;
    const m = /^(?:--)?([a-z0-9-]+)(?:\s*=\s*|\s+)?(.*)$/.exec(line);
    const name = m?.[1] ?? "";
    const o = options[name];
    if (!m || !o || name === "config") {
      throw new Error(`${path}:${i + 1}: unknown flag ${JSON.stringify(line.slice(0, 80))}`);
    }
    const value = m[2].trim();
    if (o.type === "boolean") {
      if (value !== "" && !/^(1|true|yes|0|false|no)$/i.test(value)) {
        throw new Error(
          `${path}:${i + 1}: ${name} takes no value (or true/false), got ${JSON.stringify(value)}`,
        );
      }
      if (value === "" || /^(1|true|yes)$/i.test(value)) out.push(`--${name}`);
    } else {
      if (value === "") throw new Error(`${path}:${i + 1}: ${name} needs a value`);
      out.push(`--${name}=${value}`);
    }
  }
  return out;
}

/** The value of `--config FILE` / `--config=FILE` on a command line, if any. */
export function configPath(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--config") return args[i + 1];
    if (args[i].startsWith("--config=")) return args[i].slice("--config=".length);
  }
  return undefined;
}
