/** ByteLru: a map bounded by bytes, least recently used out first. */
import { describe, expect, test } from "vitest";
import { ByteLru } from "../../src/search/byteLru.ts";

describe("ByteLru", () => {
  test("evicts least recently used past the bound, reports evictions, keeps an oversized newest entry", () => {
    const evicted: string[] = [];
    const lru = new ByteLru<string, number>(10, (k) => evicted.push(k));
    lru.set("a", 1, 4);
    lru.set("b", 2, 4);
    expect(lru.get("a")).toBe(1); // a is now the most recently used
    lru.set("c", 3, 4); // 12 bytes: b goes
    expect(evicted).toEqual(["b"]);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.bytes).toBe(8);
    lru.set("a", 10, 6); // re-set: its size is replaced (6 + 4 = 10, within the bound)
    expect(lru.bytes).toBe(10);
    expect(evicted).toEqual(["b"]);
    lru.set("big", 4, 50); // larger than the bound alone: everything else goes, it stays
    expect(evicted).toEqual(["b", "c", "a"]);
    expect(lru.get("big")).toBe(4);
    expect(lru.bytes).toBe(50);
    expect(lru.delete("big")).toBe(true);
    expect(lru.delete("big")).toBe(false);
    expect(lru.bytes).toBe(0);
    lru.set("big", 4, 50);
    lru.clear();
    expect(lru.bytes).toBe(0);
    expect(lru.get("big")).toBeUndefined();
    expect(evicted).toEqual(["b", "c", "a"]);
  });
});
