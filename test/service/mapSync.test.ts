/**
 * A replica's catch-up after (re)connecting to a shared store (service/mapSync.ts), against an in-memory shared
 * backend whose news and snapshot answers the test delivers in the order a loaded machine can: the news of an
 * upload arriving before the answer of a read of every map made just before that upload. The replica then
 * forgot the map it had just heard of and answered NOT_FOUND for it for good (distributed tests under load:
 * `no map "shared"` right after start, `no map "drain"` on a reopened stream). A map the store really has no
 * record of is still forgotten.
 */
import { describe, expect, test } from "vitest";
import { DEFAULT_LIMITS, MapStore } from "../../src/service/mapStore.ts";
import type { MapVersion } from "../../src/service/mapCache.ts";
import type {
  CommitResult,
  MapBackend,
  RemoteChange,
  RemotePointer,
  StoredMap,
} from "../../src/service/mapBackend.ts";
import { ServiceError } from "../../src/service/errors.ts";

/** What the replicas share: every map's latest version and change counter, and the versions' contents. */
class Hub {
  readonly latest = new Map<string, { version: string | null; seq: number }>();
  readonly blobs = new Map<string, StoredMap>();
  /** Every map's state now (what a replica's read of every map answers). */
  all(): RemotePointer[] {
    return [...this.latest].map(([id, p]) => ({ id, ...p }));
  }
}

/** One replica's connection to the hub; news and snapshots reach it only when the test delivers them. */
class Replica implements MapBackend {
  readonly name = "shared test store";
  readonly shared = true;
  change: ((c: RemoteChange) => void) | null = null;
  resync: ((all: RemotePointer[]) => void) | null = null;
  constructor(readonly hub: Hub) {}
  commit(mv: MapVersion, expected: string | null): Promise<CommitResult> {
    const cur = this.hub.latest.get(mv.id);
    if (expected !== null && (cur?.version ?? null) !== expected) {
      return Promise.resolve({ ok: false, latest: cur?.version ?? null });
    }
    const seq = (cur?.seq ?? 0) + 1;
    this.hub.latest.set(mv.id, { version: mv.version, seq });
    this.hub.blobs.set(`${mv.id}@${mv.version}`, { id: mv.id, map: mv.map, terrainInput: mv.terrainInput });
    return Promise.resolve({ ok: true, seq });
  }
  remove(id: string): Promise<number> {
    const seq = (this.hub.latest.get(id)?.seq ?? 0) + 1;
    this.hub.latest.set(id, { version: null, seq });
    return Promise.resolve(seq);
  }
  read(id: string, version: string): Promise<StoredMap | null> {
    return Promise.resolve(this.hub.blobs.get(`${id}@${version}`) ?? null);
  }
  pointer(id: string): Promise<RemotePointer> {
    const p = this.hub.latest.get(id);
    return Promise.resolve({ id, version: p?.version ?? null, seq: p?.seq ?? 0 });
  }
  async *restore(): AsyncGenerator<{ pointer: RemotePointer }> {}
  listen(change: (c: RemoteChange) => void, resync: (all: RemotePointer[]) => void): void {
    this.change = change;
    this.resync = resync;
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const TEXT = `type octile\nheight 4\nwidth 6\nmap\n${"......\n".repeat(4)}`;

/** Two replicas on one hub, listening. */
async function replicas() {
  const hub = new Hub();
  const backends = [new Replica(hub), new Replica(hub)];
  const stores = backends.map((backend) =>
    new MapStore({ dataDir: null, budgetBytes: 1e8, limits: DEFAULT_LIMITS, backend })
  );
  for (const s of stores) await s.loadPersisted();
  return { hub, a: stores[0], b: stores[1], bLink: backends[1] };
}

/** Lets every queued step run (the test store answers without I/O: one timer turn drains them all). */
const settle = () => new Promise((r) => setTimeout(r, 0));

/** The error of `p`, or null. */
const errorOf = (p: Promise<unknown>) => p.then(() => null, (e) => e as ServiceError);

describe("catching up with a shared store", () => {
  test("the news of an upload before an older snapshot's answer: the replica keeps the map", async () => {
    const { hub, a, b, bLink } = await replicas();
    const before = hub.all(); // B asked for every map's state; the store answered before the upload
    const mv = await a.put("m", a.parse({ kind: "movingai", text: TEXT }, []), []);
    bLink.change!({ id: "m", version: mv.version, seq: 1, put: true }); // the upload's news came first
    await settle();
    expect((await b.get("m", "")).version).toBe(mv.version);
    bLink.resync!(before); // then that answer
    await settle();
    expect((await errorOf(b.get("m", "")))?.message).toBeUndefined();
    expect((await b.get("m", "")).version).toBe(mv.version);
  });

  test("a map the store has no record of is forgotten", async () => {
    const { hub, a, b, bLink } = await replicas();
    const mv = await a.put("gone", a.parse({ kind: "movingai", text: TEXT }, []), []);
    bLink.change!({ id: "gone", version: mv.version, seq: 1, put: true });
    await settle();
    expect((await b.get("gone", "")).version).toBe(mv.version);
    hub.latest.delete("gone"); // the store lost it (emptied while B was away)
    bLink.resync!(hub.all());
    await settle();
    expect((await errorOf(b.get("gone", "")))?.code).toBe("NOT_FOUND");
  });
});
