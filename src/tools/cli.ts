/**
 * The command lines of the server and the tools: `--help` prints the usage and exits 0; an unknown or
 * mistyped flag, a missing value or a stray argument is a usage error (exit 2, the message naming the flag and
 * the nearest known one), never a stack trace. A thin strict wrapper over node:util parseArgs.
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** What `--help` says about a program. */
export interface CliHelp {
  /** The command line, e.g. "deno run -A src/main.ts [flags]". */
  usage: string;
  /** What the program does, a sentence or two. */
  about: string;
  /** Per flag (without dashes): "VALUE  what it means" (the first word, if upper case, names the value). */
  flags?: Record<string, string>;
  /** Lines after the flag list (environment, where to read more). */
  footer?: string;
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The text `--help` prints: usage, about, every flag of `options` (described or not), footer. */
export function usageText(help: CliHelp, options: Options): string {
  const rows = Object.entries(options).map(([name, o]) => {
    const text = help.flags?.[name] ?? "";
    const m = /^([A-Z][A-Z0-9_:,.[\]|-]*)\s+(.*)$/s.exec(text);
    const value = o.type === "string" ? ` ${m ? m[1] : "VALUE"}` : "";
    return { left: `--${name}${value}`, right: m ? m[2] : text };
  });
  rows.push({ left: "--help", right: "print this help and exit" });
  const width = Math.max(...rows.map((r) => r.left.length)) + 2;
  const lines = rows.map((r) => `  ${r.left.padEnd(width)}${r.right}`.trimEnd());
  return [
    `Usage: ${help.usage}`,
    "",
    help.about,
    "",
    "Flags:",
    ...lines,
    ...(help.footer ? ["", help.footer] : []),
  ]
    .join("\n") + "\n";
}

/** Edit distance, to suggest the flag a typo meant. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** The usage error for a parseArgs failure: which flag, and the known flag it most likely meant. */
export function usageError(e: unknown, options: Options): string {
  const message = (e as Error).message ?? String(e);
  const code = (e as { code?: string }).code;
  const flag = /'([^']+)'/.exec(message)?.[1] ?? "";
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const name = flag.replace(/^-+/, "").split("=")[0];
    const near = Object.keys(options).map((k) => ({ k, d: distance(name, k) })).sort((a, b) => a.d - b.d)[0];
    const hint = near && near.d <= Math.max(2, name.length / 3) ? ` (did you mean --${near.k}?)` : "";
    return `unknown flag ${flag}${hint}`;
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL") return `unexpected argument ${flag || message}`;
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = /^(?:Option )?'?(-[^' ]+)/.exec(flag || message)?.[1] ?? flag;
    const o = options[name.replace(/^-+/, "").split(" ")[0]];
    return o?.type === "boolean" ? `flag ${name} takes no value` : `flag ${name} needs a value`;
  }
  return message;
}

/**
 * parseArgs, strict, with `--help` (usage on stdout, exit 0) and usage errors (message on stderr naming the
 * flag, exit 2). Takes the same config as parseArgs.
 */
export function parseCli<T extends ParseArgsConfig>(
  help: CliHelp,
  config: T,
): ReturnType<typeof parseArgs<T>> {
  const options = config.options ?? {};
  const given = config.args ?? Deno.args;
  // `deno task render -- --map yard` (the way npm and the README pass flags) hands the script the `--` too.
  const args = given[0] === "--" ? given.slice(1) : given;
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usageText(help, options));
    Deno.exit(0);
  }
  try {
    return parseArgs({ ...config, args, strict: true } as T);
  } catch (e) {
    console.error(`${usageError(e, options)}\n\nUsage: ${help.usage}\nRun with --help for every flag.`);
    Deno.exit(2);
  }
}
