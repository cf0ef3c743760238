/**
 * The example clients (examples/python, examples/go, examples/cpp) built with Debian's gRPC packages and run
 * against a real server: each uploads a map, plans for a tank, follows the plan in time, streams with
 * progress and applies the spliced update a map patch causes, and prints "OK <lang>: ..." with how far the
 * followed paths end from the goal and the gap at the splice. Missing Debian packages are installed (apt-get;
 * `apt-get update` only if that fails), or the set-up fails saying what to install. Builds go to
 * $TMPDIR/arcpath-examples/<checkout hash>/<lang>, kept between runs of one checkout so a rerun only rebuilds what changed (the C++ build,
 * Release, takes about a minute the first time).
 */
import { afterAll, beforeAll, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";

/** Build caches are per checkout (CMake refuses a cache made from another source directory). */
const CHECKOUT = createHash("sha256").update(ROOT).digest("hex").slice(0, 12);

/** What each example needs: a check that it is there and the Debian packages that provide it. */
const NEEDS: Record<string, { check: () => boolean; packages: string[] }> = {
  python: {
    check: () => ok("/usr/bin/python3", ["-c", "import grpc, google.protobuf"]) && has("grpc_python_plugin"),
    packages: ["python3-grpcio", "python3-protobuf", "protobuf-compiler", "protobuf-compiler-grpc"],
  },
  go: {
    // golang/protobuf 1.5 (the APIv2 wrapper): with 1.3 grpc's codec cannot marshal the generated messages.
    check: () =>
      has("go") && has("protoc-gen-go") && has("protoc-gen-go-grpc") &&
      existsSync("/usr/share/gocode/src/google.golang.org/grpc/server.go") &&
      existsSync("/usr/share/gocode/src/github.com/golang/protobuf/proto/registry.go"),
    packages: [
      "golang-go",
      "golang-google-grpc-dev",
      "golang-google-protobuf-dev",
      "golang-github-golang-protobuf-1-5-dev",
      "protoc-gen-go",
      "protoc-gen-go-grpc",
      "protobuf-compiler",
    ],
  },
  cpp: {
    check: () =>
      has("cmake") && has("g++") && has("grpc_cpp_plugin") &&
      ok("pkg-config", ["--exists", "grpc++", "protobuf"]),
    packages: [
      "cmake",
      "g++",
      "make",
      "pkg-config",
      "libgrpc++-dev",
      "libprotobuf-dev",
      "protobuf-compiler",
      "protobuf-compiler-grpc",
    ],
  },
};

/** True if the command runs and exits 0. */
function ok(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: "ignore" }).status === 0;
}

/** True if a program is on PATH. */
function has(program: string): boolean {
  return ok("sh", ["-c", `command -v ${program}`]);
}

/** Installs the missing packages of every example, or throws naming them. */
function ensurePackages(): void {
  const missing = Object.values(NEEDS).filter((n) => !n.check()).flatMap((n) => n.packages);
  if (missing.length === 0) return;
  const packages = [...new Set(missing)];
  const install = () =>
    // DPkg::Lock::Timeout: another test file may be installing its own packages at the same time.
    spawnSync("apt-get", [
      "-o",
      "DPkg::Lock::Timeout=600",
      "install",
      "-y",
      "--no-install-recommends",
      ...packages,
    ], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      encoding: "utf8",
    });
  let r = install();
  if (r.status !== 0) {
    spawnSync("apt-get", ["-o", "DPkg::Lock::Timeout=600", "update"], { stdio: "ignore" });
    r = install();
  }
  const still = Object.entries(NEEDS).filter(([, n]) => !n.check()).map(([lang]) => lang);
  if (still.length > 0) {
    throw new Error(
      `the ${still.join(", ")} example(s) need Debian packages that are missing and could not be installed ` +
        `(${r.stderr?.trim().split("\n").at(-1) ?? "apt-get failed"}); install them as root: ` +
        `apt-get install -y ${packages.join(" ")}`,
    );
  }
}

let srv: TestServer;
beforeAll(async () => {
  ensurePackages();
  srv = await startServer();
}, 600_000);
afterAll(async () => {
  await srv?.stop();
});

/** Builds and runs one example; returns its output. */
function runExample(lang: string): { status: number | null; out: string } {
  const r = spawnSync(join(ROOT, "examples", lang, "run.sh"), [`127.0.0.1:${srv.port}`], {
    env: { ...process.env, BUILD_DIR: join(tmpdir(), "arcpath-examples", CHECKOUT, lang) },
    encoding: "utf8",
    timeout: 540_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

for (const lang of ["python", "go", "cpp"]) {
  test(`the ${lang} example follows its plan and a spliced stream to the goal`, () => {
    const { status, out } = runExample(lang);
    const last = out.trim().split("\n").at(-1) ?? "";
    expect(last, out).toMatch(new RegExp(`^OK ${lang}: `));
    expect(status, out).toBe(0);
    // The figures the example prints: both followed ends within the goal tolerance, the splice exact.
    const m =
      /ends ([\d.]+) and spliced stream path ([\d.]+) from the goal \(tolerance ([\d.]+)\); splice gap (\S+)/
        .exec(last);
    expect(m, last).not.toBeNull();
    const [plan, spliced, tolerance, gap] = m!.slice(1).map(Number);
    expect(plan).toBeLessThanOrEqual(tolerance);
    expect(spliced).toBeLessThanOrEqual(tolerance);
    expect(gap).toBeLessThanOrEqual(1e-9);
    // The stream really carried a partial update (replace_from_segment >= 0), and the example applied it.
    expect(out).toMatch(/UPDATE_KIND_REPLANNED: replace_from_segment [0-9]+ at/);
  }, 600_000);
}

/** Runs examples/python/reflect.py (a client that knows the API only through server reflection). */
function reflect(...args: string[]): { status: number | null; out: string } {
  const r = spawnSync("/usr/bin/python3", [
    join(ROOT, "examples/python/reflect.py"),
    `127.0.0.1:${srv.port}`,
    ...args,
  ], {
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test(
  "a reflection-only client loads every served file into a strict descriptor pool and calls Health",
  () => {
    const listed = reflect("list");
    expect(listed.status, listed.out).toBe(0);
    const services = listed.out.trim().split("\n");
    expect(services).toEqual(expect.arrayContaining(["arcpath.v1.Pathfinder", "grpc.health.v1.Health"]));
    // Python's descriptor pool checks as protoc and grpcurl do (map entry names, type references): a file
    // that fails here cannot be described or called by generic tools.
    for (const service of services) {
      const described = reflect("describe", service);
      expect(described.status, described.out).toBe(0);
    }
    expect(reflect("describe", "grpc.health.v1.Health").out).toMatch(/rpc List\(.*\/\/ \S/);
    const health = reflect("call", "grpc.health.v1.Health/Check", "{}");
    expect(JSON.parse(health.out)).toEqual({ status: "SERVING" });
  },
  120_000,
);

/** The README's "First request": the request of its grpcurl command and the response it shows. */
function readmeFirstRequest(): { request: string; response: unknown } {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const section = readme.split("\n## First request\n")[1]?.split("\n## ")[0] ?? "";
  const request = /grpcurl[^']*-d '([^']*)'/.exec(section)?.[1];
  const response = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (!request || !response) {
    throw new Error("README.md: no grpcurl request or json response in 'First request'");
  }
  return { request, response: JSON.parse(response) };
}

/** Where shown and real differ: a missing or extra field, or a number off by more than the README rounding. */
function differences(shown: unknown, real: unknown, path = ""): string[] {
  if (typeof shown === "number" && typeof real === "number") {
    return Math.abs(shown - real) <= 1.01e-4 ? [] : [`${path}: README ${shown}, server ${real}`];
  }
  if (Array.isArray(shown) && Array.isArray(real)) {
    if (shown.length !== real.length) return [`${path}: README ${shown.length} items, server ${real.length}`];
    return shown.flatMap((s, i) => differences(s, real[i], `${path}[${i}]`));
  }
  if (shown && real && typeof shown === "object" && typeof real === "object") {
    const s = shown as Record<string, unknown>, r = real as Record<string, unknown>;
    return [...new Set([...Object.keys(s), ...Object.keys(r)])].flatMap((k) => {
      if (path === ".stats" && k.endsWith("_micros")) return []; // timings differ from run to run
      if (!(k in s)) return [`${path}.${k}: only the server has it (${JSON.stringify(r[k])})`];
      if (!(k in r)) return [`${path}.${k}: only the README has it`];
      return differences(s[k], r[k], `${path}.${k}`);
    });
  }
  return shown === real ? [] : [`${path}: README ${JSON.stringify(shown)}, server ${JSON.stringify(real)}`];
}

test("the README's first request answers, field by field, the response the README shows", () => {
  const { request, response } = readmeFirstRequest();
  const r = reflect("call", "arcpath.v1.Pathfinder/Plan", request);
  expect(r.status, r.out).toBe(0);
  expect(differences(response, JSON.parse(r.out)), "README.md 'First request' is out of date").toEqual([]);
}, 120_000);
