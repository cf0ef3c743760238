/**
 * Map memory stays bounded: each distinct unit terrain override used to add a pass layer that was never evicted
 * (+127 MB per request on a 4096x2048 map); now a version keeps at most MAX_OVERRIDE_LAYERS of them, least
 * recently used evicted (bytes leave the budget, workers are told). Ephemeral maps used to fill the budget for
 * good (every PutMap refused after); now the least recently used ones are dropped while they hold more than
 * half the budget and a newcomer does not fit.
 */
import { describe, expect, test } from "vitest";
import { DEFAULT_LIMITS, MapStore, MAX_OVERRIDE_LAYERS } from "../../src/service/mapStore.ts";
import { buildPassLayer } from "../../src/maps/layer.ts";
import { AGENT } from "../../src/units/profiles.ts";
import type { UnitSpec } from "../../src/units/unit.ts";
import { ServiceError } from "../../src/service/errors.ts";

const TEXT = `type octile\nheight 64\nwidth 64\nmap\n${(".".repeat(30) + "G".repeat(34) + "\n").repeat(64)}`;
const G = "G".charCodeAt(0);
const unitWithCost = (cost: number): UnitSpec => ({
  ...AGENT,
  terrain: [{ code: G, cost, impassable: false, road: false }],
});

describe("map memory", () => {
  test("override layers per version are capped, least recently used evicted, bytes and workers told", async () => {
    const store = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    const evicted: string[] = [];
    store.onEvict((keys) => evicted.push(...keys));
    const mv = await store.put("m", store.parse({ kind: "movingai", text: TEXT }, []), []);
    const base = store.bytes;
    const first = store.layerFor(mv, unitWithCost(2));
    const perLayer = store.bytes - base;
    expect(perLayer).toBeGreaterThan(0);
    for (let c = 3; c < 20; c++) {
      store.layerFor(mv, unitWithCost(c));
      // The first override stays in use, so it is never the least recently used.
      expect(store.layerFor(mv, unitWithCost(2))).toBe(first);
    }
    expect(mv.layers.size).toBe(1 + MAX_OVERRIDE_LAYERS);
    expect(store.bytes).toBe(base + MAX_OVERRIDE_LAYERS * perLayer);
    expect(evicted.length).toBe(18 - MAX_OVERRIDE_LAYERS);
    expect(evicted).not.toContain(first.key);
    // An evicted override is rebuilt on demand, equal to a fresh build.
    const again = store.layerFor(mv, unitWithCost(3));
    const fresh = buildPassLayer(mv.map, again.terrain);
    expect([...again.layer.tileCost]).toEqual([...fresh.tileCost]);
    expect(mv.layers.size).toBe(1 + MAX_OVERRIDE_LAYERS);
  });

  test("ephemeral maps cannot fill the budget for good: the least recently used are dropped for newcomers", async () => {
    const probe = new MapStore({ dataDir: null, budgetBytes: 1e9, limits: DEFAULT_LIMITS });
    await probe.put("p", probe.parse({ kind: "movingai", text: TEXT }, []), []);
    const one = probe.bytes;
    const store = new MapStore({ dataDir: null, budgetBytes: Math.floor(4.5 * one), limits: DEFAULT_LIMITS });
    const dropped: string[] = [];
    store.onDelete((id) => dropped.push(id));
    const put = (id: string, ephemeral: boolean) =>
      store.put(id, store.parse({ kind: "movingai", text: TEXT }, []), [], { ephemeral });
    for (let i = 0; i < 4; i++) await put(`e${i}`, true);
    await store.get("e0", ""); // e1 is now the least recently used
    await put("e4", true);
    expect(dropped).toEqual(["e1"]);
    expect(store.ids()).toEqual(["e0", "e2", "e3", "e4"]);
    const gone = await store.get("e1", "").catch((e) => e);
    expect(gone).toBeInstanceOf(ServiceError);
    expect(gone.code).toBe("NOT_FOUND");
    // A map that is not ephemeral gets room too, and listing works.
    await put("kept", false);
    expect(store.ids()).toContain("kept");
    expect(store.list().length).toBe(store.ids().length);
    expect(store.bytes).toBeLessThanOrEqual(Math.floor(4.5 * one));
  });
});
