/**
 * Where a real server's resident set lives (issue 13's bytes per tile): the mapGrowth.ts steps (a 16x16 map
 * loaded and planned on, then the big map), with the process's memory mappings (/proc/PID/smaps) read at each
 * step and summed by kind: files, malloc's main arena, glibc's per-thread arenas (the workers' and builders'
 * array buffers up to malloc's mmap threshold live there), V8's heap pages, other anonymous mappings; then the
 * mappings that grew most from the fixed part to the settled figure.
 *
 * Run: `node_modules/deno/deno run -A bench/memoryMap.ts [side=1024] [workers=2]`. Environment:
 * MAPGROWTH_ONLY=grid/agent,hierarchical/tank,... plans only those queries on the big map ("none": none);
 * DENO_V8_FLAGS=--trace-gc adds each isolate's heap after its last collection before each step;
 * MEMORYMAP_GREP=REGEX prints the server's output lines that match, with the step they came before.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";

/** One mapping of /proc/PID/smaps. */
export interface Mapping {
  /** Start address (hex). */
  start: string;
  /** Reserved bytes. */
  size: number;
  /** Resident bytes. */
  rss: number;
  /** Path, [heap], [stack], or "" (anonymous). */
  name: string;
}

/** The mappings of process `pid`. */
export function mappings(pid: number): Mapping[] {
  const out: Mapping[] = [];
  let cur: Mapping | undefined;
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      cur = { start: m[1], size: parseInt(m[2], 16) - parseInt(m[1], 16), rss: 0, name: m[3] };
      out.push(cur);
    } else if (cur && line.startsWith("Rss:")) cur.rss = Number(line.split(/\s+/)[1]) * 1024;
  }
  return out;
}

/** Below this address: V8's heap pages (mapped at random addresses); malloc, libraries and stacks lie above. */
const V8_PAGES_BELOW = 0x500000000000;

/** Kind of a mapping, for sums. */
export function kindOf(m: Mapping): string {
  if (m.name.startsWith("/")) return "files (executable, libraries, caches)";
  if (m.name === "[heap]") return "malloc main arena (main thread)";
  if (m.name !== "") return m.name;
  const at = parseInt(m.start, 16);
  if (at < V8_PAGES_BELOW) return "V8 heap pages (every isolate)";
  // glibc maps a thread's arena at a 64 MB boundary and grows it within those 64 MB.
  if (at % (64 << 20) === 0 && m.size <= 64 << 20) return "malloc thread arenas (workers, builders, runtime)";
  return "other anonymous (large blocks mapped alone, V8 reservations)";
}

/** Resident bytes per kind. */
export function byKind(ms: Mapping[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of ms) out.set(kindOf(m), (out.get(kindOf(m)) ?? 0) + m.rss);
  return out;
}

if (import.meta.main) {
  const { mapGrowth } = await import("./mapGrowth.ts");
  const side = Number(Deno.args[0] ?? 1024), workers = Number(Deno.args[1] ?? 2);
  const stages = new Map<string, Mapping[]>();
  const threads = new Map<string, number>();
  const outAt = new Map<string, number>();
  let output = () => "";
  const g = await mapGrowth(side, workers, (stage, pid, srv) => {
    stages.set(stage, mappings(pid));
    threads.set(stage, readdirSync(`/proc/${pid}/task`).length);
    outAt.set(stage, srv.output().length);
    output = srv.output;
  });
  const mb = (b: number) => (b / 1048576).toFixed(1);
  const kinds = [...new Set([...stages.values()].flatMap((ms) => [...byKind(ms).keys()]))].sort();
  const sums = new Map([...stages].map(([s, ms]) => [s, byKind(ms)]));
  console.log(
    `side ${side}, ${workers} workers: settled ${((g.settled - g.fixed) / side / side).toFixed(1)} B/tile`,
  );
  console.log(`threads: ${[...threads].map(([s, n]) => `${s} ${n}`).join(", ")}`);
  console.log(`| kind | ${[...stages.keys()].join(" MB | ")} MB | settled - fixed MB |`);
  console.log(`| --- |${" ---: |".repeat(stages.size + 1)}`);
  for (const k of kinds) {
    const row = [...stages.keys()].map((s) => mb(sums.get(s)!.get(k) ?? 0));
    const d = (sums.get("settled")!.get(k) ?? 0) - (sums.get("fixed")!.get(k) ?? 0);
    console.log(`| ${k} | ${row.join(" | ")} | ${mb(d)} |`);
  }
  // With DENO_V8_FLAGS=--trace-gc: each isolate's heap after its last collection before each stage.
  const gcLine =
    /^\[(\d+):(0x[0-9a-f]+)\]\s+\d+ ms: (\S+(?: \S+)?) [^ ]* ?([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;
  const text = output();
  if (/ ms: /.test(text)) {
    console.log(
      "\nV8 heaps (--trace-gc): per isolate, used (committed) MB after its last collection before each stage",
    );
    const isolates = new Map<string, Map<string, string>>();
    for (const [stage, at] of outAt) {
      for (const line of text.slice(0, at).split("\n")) {
        const m = gcLine.exec(line);
        if (!m) continue;
        if (!isolates.has(m[2])) isolates.set(m[2], new Map());
        isolates.get(m[2])!.set(stage, `${m[6]} (${m[7]}) ${m[3]}`);
      }
    }
    for (const [iso, st] of isolates) {
      console.log(`${iso}: ${[...outAt.keys()].map((s) => `${s} ${st.get(s) ?? "-"}`).join(" | ")}`);
    }
  }
  // Server output lines matching MEMORYMAP_GREP (a regular expression), with the stage they came before.
  const grep = Deno.env.get("MEMORYMAP_GREP");
  if (grep) {
    let from = 0;
    for (const [stage, at] of [...outAt, ["end", text.length] as [string, number]]) {
      for (const line of text.slice(from, at).split("\n")) {
        if (new RegExp(grep).test(line)) console.log(`${stage}< ${line}`);
      }
      from = at;
    }
  }
  // Anonymous mappings by resident growth from the fixed part to the settled one (new ones in full).
  const fixedAt = new Map(stages.get("fixed")!.map((m) => [m.start, m]));
  const grown = stages.get("settled")!.filter((m) => m.name === "").map((m) => ({
    m,
    d: m.rss - (fixedAt.get(m.start)?.rss ?? 0),
  })).filter((x) => Math.abs(x.d) >= 128 << 10).sort((a, b) => b.d - a.d);
  const gone = stages.get("fixed")!.filter((m) =>
    m.name === "" && !stages.get("settled")!.some((n) => n.start === m.start)
  );
  console.log(
    `\nanonymous mappings grown by >= 128 KB: start size MB, rss MB (growth); ${gone.length} gone holding ${
      mb(gone.reduce((a, m) => a + m.rss, 0))
    } MB`,
  );
  const aligned = (m: Mapping) => parseInt(m.start, 16) % (64 << 20) === 0 ? " 64MB-aligned" : "";
  for (const { m, d } of grown.slice(0, 30)) {
    console.log(
      `${m.start} ${mb(m.size)}, ${mb(m.rss)} (${mb(d)}${fixedAt.has(m.start) ? "" : " new"})${aligned(m)}`,
    );
  }
  console.log(`sum of growth ${mb(grown.reduce((a, x) => a + x.d, 0))} MB`);
}
