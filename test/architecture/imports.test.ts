/**
 * The architecture as the code's own imports state it: every import points down the layers (server → service →
 * planning → search/geometry/smoothing/motion → maps/units), there are no import circles, the wire
 * (`@grpc/grpc-js`, `src/server/`) is reached only from `src/server/` and `src/main.ts`, planning and the
 * cores do no I/O, and no source file is over 700 lines.
 */
import { describe, expect, test } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname ?? ".", "../..");
const SRC = join(ROOT, "src");

/** Layer rank by top folder of src/ (higher may import lower or equal, never higher). */
const RANK: Record<string, number> = {
  "main.ts": 6,
  tools: 5,
  server: 5,
  service: 4,
  planning: 3,
  search: 2,
  geometry: 2,
  smoothing: 2,
  motion: 2,
  maps: 1,
  units: 1,
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (p.endsWith(".ts")) out.push(p);
  }
  return out;
}

/** Module specifiers a file imports or re-exports (static imports only). */
function importsOf(text: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms;
  for (const m of text.matchAll(re)) out.push(m[1]);
  return out;
}

const files = sourceFiles(SRC).map((p) => relative(SRC, p));
const layerOf = (f: string) => f.includes("/") ? f.split("/")[0] : f;
const graph = new Map<string, { local: string[]; packages: string[] }>();
for (const f of files) {
  const specs = importsOf(readFileSync(join(SRC, f), "utf8"));
  graph.set(f, {
    local: specs.filter((s) => s.startsWith(".")).map((s) =>
      relative(SRC, resolve(dirname(join(SRC, f)), s))
    ),
    packages: specs.filter((s) => !s.startsWith(".")),
  });
}

describe("import graph of src/", () => {
  test("every folder of src/ has a layer", () => {
    for (const f of files) expect(RANK[layerOf(f)], f).toBeDefined();
  });

  test("imports point down or across a layer, never up", () => {
    const up: string[] = [];
    for (const [f, { local }] of graph) {
      for (const to of local) {
        if (RANK[layerOf(to)] > RANK[layerOf(f)]) up.push(`${f} -> ${to}`);
      }
    }
    expect(up).toEqual([]);
  });

  test("no import circles", () => {
    const state = new Map<string, number>(); // 1 on the stack, 2 done
    const circles: string[] = [];
    const visit = (f: string, stack: string[]) => {
      state.set(f, 1);
      for (const to of graph.get(f)?.local ?? []) {
        if (state.get(to) === 1) circles.push([...stack.slice(stack.indexOf(to)), f, to].join(" -> "));
        else if (!state.has(to)) visit(to, [...stack, f]);
      }
      state.set(f, 2);
    };
    for (const f of files) if (!state.has(f)) visit(f, []);
    expect(circles).toEqual([]);
  });

  test("the wire is spoken only in src/server/ and src/main.ts", () => {
    const wire: string[] = [];
    for (const [f, { local, packages }] of graph) {
      if (layerOf(f) === "server" || f === "main.ts") continue;
      for (const p of packages) {
        if (p.startsWith("@grpc/") || p === "grpc-health-check") wire.push(`${f} -> ${p}`);
      }
      for (const to of local) if (layerOf(to) === "server") wire.push(`${f} -> ${to}`);
    }
    expect(wire).toEqual([]);
  });

  test("planning and the pure cores do no I/O", () => {
    const io: string[] = [];
    for (const [f, { packages }] of graph) {
      if (RANK[layerOf(f)] > RANK.planning) continue;
      for (const p of packages) io.push(`${f} -> ${p}`);
    }
    expect(io).toEqual([]);
  });

  test("no source file is over 700 lines", () => {
    const long = files
      .map((f) => ({ f, lines: readFileSync(join(SRC, f), "utf8").split("\n").length }))
      .filter((x) => x.lines > 700)
      .map((x) => `${x.f}: ${x.lines}`);
    expect(long).toEqual([]);
  });
});
