// Runs on Node before `npm start` and `npm test` (package.json prestart / pretest): says plainly what is
// missing instead of a stack trace later. Node only installs packages and starts the pinned Deno binary (the
// server and the tests run on Deno), so the Node floor is npm's and the dependencies' install scripts'.
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Oldest Node.js major the set-up supports (README, "Quick start"; the Dockerfile uses 22). */
const MIN_NODE_MAJOR = 20;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const what = process.argv[2] ?? "start";
const problems = [];

const major = Number(process.versions.node.split(".")[0]);
if (major < MIN_NODE_MAJOR) {
  problems.push(
    `Node.js ${process.versions.node} is too old: arcpath's set-up needs Node.js ${MIN_NODE_MAJOR} or newer ` +
      `(22 LTS recommended). Install a newer Node.js (https://nodejs.org) and run npm install again.`,
  );
}
if (!existsSync(join(root, "node_modules/deno/deno"))) {
  problems.push(
    "The Deno binary is missing (node_modules/deno/deno): run `npm install` first (it downloads the pinned Deno 2.9.3).",
  );
}
if (what === "test") {
  const shared = resolve(root, "../shared");
  const need = ["data/movingai", "data/curves"].filter((d) => !existsSync(join(shared, d)));
  if (need.length > 0) {
    problems.push(
      `The tests read shared data from ${shared} (beside the checkout), and ${need.join(" and ")} ` +
        `${need.length > 1 ? "are" : "is"} missing there:\n` +
        "  - data/movingai: Moving AI Lab grid benchmark maps and queries (https://movingai.com/benchmarks/grids.html)\n" +
        "  - data/curves: Dubins and Reeds-Shepp shortest paths computed with OMPL 1.5.2\n" +
        "  Put the project's shared directory beside the checkout (../shared, as CI has it). Tests that need no\n" +
        "  shared data run without it, e.g. `npx deno task test test/geometry test/e2e/viewer.test.ts`.",
    );
  }
}
if (problems.length > 0) {
  console.error(`arcpath ${what}: cannot run yet.\n\n${problems.map((p) => `* ${p}`).join("\n\n")}\n`);
  process.exit(1);
}
