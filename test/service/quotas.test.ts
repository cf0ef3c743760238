/** The quota file's parser and the plans-per-second bucket, in process. */
import { describe, expect, test } from "vitest";
import { parseQuotas, Quotas } from "../../src/service/quotas.ts";
import type { MapStore } from "../../src/service/mapStore.ts";

describe("parseQuotas", () => {
  test("'*' gives the defaults, a tenant's line overrides only its keys; comments and blank lines are skipped", () => {
    const t = parseQuotas("# quotas\n\n* maps=10 streams=5\nacme maps=2 plans_per_s=7.5 # small\n");
    const q = new Quotas(() => t, {} as MapStore);
    expect(q.quota("acme")).toEqual({ maps: 2, streams: 5, plansPerSecond: 7.5 });
    expect(q.quota("other")).toEqual({ maps: 10, streams: 5 });
  });

  test("a bad line is refused naming the file, the line and the pair", () => {
    expect(() => parseQuotas("* maps=1\nacme map=2\n", "q.txt")).toThrow(
      /q\.txt:2: .*key one of maps.*"map=2"/,
    );
    expect(() => parseQuotas("acme maps=-1\n", "q.txt")).toThrow(/q\.txt:1: .*"maps=-1"/);
  });
});

describe("plans_per_s", () => {
  test("a bucket of one second's worth refills at the rate", () => {
    const q = new Quotas(() => parseQuotas("t plans_per_s=4\n"), {} as MapStore);
    q.takePlans("t", 4, 0);
    expect(() => q.takePlans("t", 1, 100)).toThrow(
      /quota plans_per_s: tenant "t" asked for 1 plans with 0 left/,
    );
    q.takePlans("t", 2, 600);
    expect(() => q.takePlans("t", 3, 600)).toThrow(/limit 4/);
    // Tenants without the quota are never counted.
    for (let i = 0; i < 100; i++) q.takePlans("u", 1, 0);
  });
});
