/**
 * The live web viewer in a real browser: a server started with --http, Debian's headless `chromium` driven by
 * playwright-core. The page lists the maps, draws one (pixel checks on blocked and open tiles), shows the tile
 * under the cursor, plans a path from two clicks (the drawn segment count and pixels on the path are checked
 * against the answer), and follows a gRPC Stream opened by this test live over Server-Sent Events. With
 * authentication on, the API refuses calls without the token. Screenshots: docs/pictures/ with
 * ARCPATH_SCREENSHOTS=1.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type Browser, chromium, type Page } from "playwright-core";
import { ROOT, startServer, type TestServer } from "../helpers/server.ts";
import { ensureBinary } from "../helpers/redis.ts";

let srv: TestServer;
let authed: TestServer;
let browser: Browser;
let page: Page;
let base = "";
const TOKEN = "viewer-test-token";

/**
 * Where screenshots go: docs/pictures/ with ARCPATH_SCREENSHOTS=1 (how the README's are made), else a temporary
 * directory, so a test run does not rewrite tracked files.
 */
const SHOTS = process.env.ARCPATH_SCREENSHOTS === "1"
  ? join(ROOT, "docs/pictures")
  : mkdtempSync(join(tmpdir(), "arcpath-shots-"));

const httpPort = (s: TestServer) => Number(/ARCPATH_HTTP_READY port=(\d+)/.exec(s.output())![1]);

beforeAll(async () => {
  const bin = ensureBinary("chromium", "chromium");
  if (!bin) {
    throw new Error("the viewer test needs Debian's chromium: install it with `apt-get install -y chromium`");
  }
  srv = await startServer(["--http", "127.0.0.1:0"]);
  base = `http://127.0.0.1:${httpPort(srv)}`;
  const tokens = join(mkdtempSync(join(tmpdir(), "arcpath-viewer-")), "tokens.txt");
  writeFileSync(tokens, `${TOKEN} acme rw\n`);
  authed = await startServer(["--http", "127.0.0.1:0", "--auth-tokens", tokens]);
  browser = await chromium.launch({ executablePath: bin, args: ["--no-sandbox"] });
  page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
  await page.goto(base + "/");
  await page.waitForFunction(() => !!document.getElementById("map")!.dataset.map);
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await srv?.stop();
  await authed?.stop();
});

/** Selects a map in the page and waits until it is drawn. */
async function showMap(id: string) {
  await page.selectOption("#mapSelect", id);
  await page.waitForFunction((m) => document.getElementById("map")!.dataset.map === m, id);
}

/** Where tile point (x, y) is in page coordinates. */
async function screen(x: number, y: number) {
  const box = (await page.locator("#map").boundingBox())!;
  // deno-lint-ignore no-explicit-any
  const p = await page.evaluate(([x, y]) => (window as any).viewer.tileToScreen(x, y), [x, y]);
  return { x: box.x + p.x, y: box.y + p.y };
}

const pixel = (x: number, y: number) =>
  // deno-lint-ignore no-explicit-any
  page.evaluate(([x, y]) => (window as any).viewer.pixelAt(x, y), [x, y]);

describe("live viewer", () => {
  test("lists the maps and draws one: blocked tiles dark, open tiles light, tile under the cursor", async () => {
    const names = await page.locator("#mapSelect option").evaluateAll((os) =>
      os.map((o) => (o as HTMLOptionElement).value)
    );
    expect(names).toContain("yard");
    await showMap("yard");
    // yard: row 0 is wall ('@'), tile (30, 4) is open ground.
    const wall = await pixel(10.5, 0.5), open = await pixel(30.5, 4.5);
    expect(wall.slice(0, 3).every((c: number) => c < 90)).toBe(true);
    expect(open.slice(0, 3).every((c: number) => c > 200)).toBe(true);
    const p = await screen(30.5, 4.5);
    await page.mouse.move(p.x, p.y);
    // expect.poll gives up after 1 s unless told: a loaded machine's browser may take longer to repaint.
    await expect.poll(() => page.locator("#coords").textContent(), { timeout: 30_000 }).toContain(
      "tile (30, 4)",
    );
  });

  test("two clicks plan a path for the chosen unit and planner; what is drawn matches the answer", async () => {
    await showMap("yard");
    await page.selectOption("#unitSelect", "tank");
    await page.selectOption("#plannerSelect", "PLANNER_HYBRID");
    const a = await screen(27.5, 4.5), b = await screen(55.5, 40.5);
    await page.mouse.click(a.x, a.y);
    await page.mouse.click(b.x, b.y);
    await page.waitForFunction(() => !!document.getElementById("result")!.dataset.status);
    const data = await page.locator("#result").evaluate((e) => ({ ...(e as HTMLElement).dataset }));
    expect(data.status, await page.locator("#status").textContent() ?? "").toBe("PLAN_STATUS_FOUND");
    // The same plan over the API directly (from where the clicks landed): the page drew its segments.
    // deno-lint-ignore no-explicit-any
    const { start, goal } = await page.evaluate(() => (window as any).viewer.state);
    expect(Math.hypot(start.x - 27.5, start.y - 4.5)).toBeLessThan(0.1);
    expect(Math.hypot(goal.x - 55.5, goal.y - 40.5)).toBeLessThan(0.1);
    const api = await (await fetch(base + "/api/plan", {
      method: "POST",
      body: JSON.stringify({
        map: { id: "yard" },
        unit: { name: "tank" },
        start,
        goal,
        planner: "PLANNER_HYBRID",
      }),
    })).json();
    expect(Number(data.segments)).toBe(api.response.segments.length);
    expect(Number(data.segments)).toBeGreaterThan(0);
    expect(Number(data.length)).toBeCloseTo(api.response.length, 6);
    expect(Number(data.footprints)).toBe(api.drawing.footprints.length);
    // A point in the middle of the first segment is painted in the path's color (forward: #1f4e9c).
    const pts: number[] = api.drawing.segments[0].points;
    const mid = Math.floor(pts.length / 4) * 2;
    const c = await pixel(pts[mid], pts[mid + 1]);
    expect(c[2]).toBeGreaterThan(c[0] + 40);
    await page.screenshot({ path: join(SHOTS, "viewer-plan.png") });
  });

  test("an open gRPC Stream appears live (SSE) with its path, and goes when it ends", async () => {
    await showMap("yard");
    const s = srv.client.Stream();
    const seen: string[] = [];
    s.on(
      "data",
      (u: { kind: string; plan?: { status: string } }) => seen.push(`${u.kind} ${u.plan?.status}`),
    );
    s.on("error", (e: Error) => seen.push(`error ${e.message}`));
    s.write({
      plan: {
        map: { id: "yard" },
        unit: { name: "jeep" },
        start: { x: 3.5, y: 2.5, heading: 0 },
        goal: { x: 50.5, y: 30.5 },
        planner: "PLANNER_HYBRID",
      },
    });
    // The server answered the stream first (else the failure says what it answered).
    await expect.poll(() => seen.length, { timeout: 60_000 }).toBeGreaterThan(0);
    expect(seen[0], seen.join("; ")).toMatch(/^UPDATE_KIND_/);
    await expect.poll(
      () => page.evaluate(() => Number(document.getElementById("streams")!.dataset.count)),
      { timeout: 30_000, message: `page shows no stream; the stream saw: ${seen.join("; ")}` },
    ).toBe(1);
    const li = page.locator("#streams li").first();
    await expect.poll(async () => Number(await li.getAttribute("data-segments")), { timeout: 30_000 })
      .toBeGreaterThan(0);
    expect(await li.getAttribute("data-map")).toBe("yard");
    await page.screenshot({ path: join(SHOTS, "viewer-stream.png") });
    s.end();
    await page.waitForFunction(() => Number(document.getElementById("streams")!.dataset.count) === 0);
  });

  test("an open Fleet appears live with each unit's path, and goes when it ends", async () => {
    await showMap("yard");
    const f = srv.client.Fleet();
    const seen: string[] = [];
    f.on("data", (u: { trajectories: unknown[] }) => seen.push(`update ${u.trajectories.length}`));
    f.on("error", (e: Error) => seen.push(`error ${e.message}`));
    f.write({ open: { map: { id: "yard" } } });
    const soldier = { name: "soldier" };
    f.write({
      unit: { id: "a", unit: soldier, pose: { x: 2.5, y: 1.5 }, goal: { x: 10.5, y: 21.5 }, time: 0 },
    });
    f.write({
      unit: { id: "b", unit: soldier, pose: { x: 4.5, y: 1.5 }, goal: { x: 12.5, y: 22.5 }, time: 0 },
    });
    const fleet = page.locator('#streams li[data-kind="fleet"]');
    await expect.poll(async () => Number(await fleet.first().getAttribute("data-units").catch(() => 0)), {
      timeout: 60_000,
      message: `page shows no fleet of 2 units; the fleet saw: ${seen.join("; ")}`,
    }).toBe(2);
    expect(await fleet.first().textContent()).toContain("yard");
    f.end();
    await expect.poll(() => fleet.count(), { timeout: 30_000 }).toBe(0);
  });

  test("bad input is a clear error: unknown map (404), bad window, unknown API call", async () => {
    const r = await fetch(base + "/api/maps/nope?tiles=1");
    expect(r.status).toBe(404);
    expect((await r.json()).message).toContain("nope");
    const w = await fetch(base + "/api/maps/yard?tiles=1&x=999");
    expect(w.status).toBe(400);
    expect((await w.json()).message).toMatch(/^window: /);
    const pl = await fetch(base + "/api/plan", {
      method: "POST",
      body: JSON.stringify({ planner: "PLANNER_FOO" }),
    });
    expect(pl.status).toBe(400);
    expect((await pl.json()).message).toContain('planner: unknown planner "PLANNER_FOO"');
    const nj = await fetch(base + "/api/plan", { method: "POST", body: "{oops" });
    expect(nj.status).toBe(400);
    expect((await nj.json()).message).toMatch(/^body: not JSON/);
    const u = await fetch(base + "/api/nothing");
    expect(u.status).toBe(404);
    await u.body?.cancel();
  });

  test("with --auth-tokens the API needs the token and keeps to the tenant", async () => {
    const b = `http://127.0.0.1:${httpPort(authed)}`;
    const none = await fetch(b + "/api/maps");
    expect(none.status).toBe(401);
    await none.body?.cancel();
    const ok = await fetch(b + "/api/maps", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).maps.map((m: { id: string }) => m.id)).toContain("yard");
    const sse = await fetch(b + "/api/streams?access_token=wrong-token-123");
    expect(sse.status).toBe(401);
    await sse.body?.cancel();
  });
});
