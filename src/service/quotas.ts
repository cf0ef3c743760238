/**
 * Per-tenant quotas: maps, tile bytes stored, plans per second, concurrent streams (Stream and Fleet calls) and
 * fleet units. Past one, the call is refused RESOURCE_EXHAUSTED naming the quota, its limit and the tenant.
 * The table comes from a quota file (server/ re-reads it on change): one line per tenant,
 * `TENANT key=value ...`, with `*` for every tenant without a line of its own (a tenant's line overrides only
 * the keys it names); keys `maps`, `stored_mb`, `plans_per_s`, `streams`, `fleet_units`. No file: no quotas.
 *
 * @module
 */
import { ServiceError } from "./errors.ts";
import type { MapStore } from "./mapStore.ts";
import { tenantOf } from "./mapKeys.ts";

/** One tenant's limits (absent: unlimited). */
export interface Quota {
  maps?: number;
  storedMb?: number;
  plansPerSecond?: number;
  streams?: number;
  fleetUnits?: number;
}

/** The quota file's contents. */
export interface QuotaTable {
  /** The `*` line. */
  defaults: Quota;
  /** Lines by tenant. */
  tenants: Map<string, Quota>;
}

const KEYS: Record<string, keyof Quota> = {
  maps: "maps",
  stored_mb: "storedMb",
  plans_per_s: "plansPerSecond",
  streams: "streams",
  fleet_units: "fleetUnits",
};

/** Parses a quota file; throws naming the line and the key for anything it does not understand. */
export function parseQuotas(text: string, path = "quotas"): QuotaTable {
  const table: QuotaTable = { defaults: {}, tenants: new Map() };
  for (const [i, raw] of text.split("\n").entries()) {
    const line = raw.replace(/#.*/, "").trim();
    if (!line) continue;
    const [tenant, ...pairs] = line.split(/\s+/);
    const q: Quota = {};
    for (const pair of pairs) {
      const m = /^([a-z_]+)=(\d+(?:\.\d+)?)$/.exec(pair);
      const key = m && KEYS[m[1]];
      if (!m || !key) {
        throw new Error(
          `${path}:${i + 1}: expected key=number with key one of ${Object.keys(KEYS).join(", ")}, got ` +
            JSON.stringify(pair.slice(0, 80)),
        );
      }
      q[key] = Number(m[2]);
    }
    if (tenant === "*") table.defaults = q;
    else table.tenants.set(tenant, q);
  }
  return table;
}

/** Something with a number of fleet units (a FleetSession). */
interface UnitCounter {
  readonly unitCount: number;
}

/** Enforces the quotas of a table that may change (re-read file) over the store's maps. */
export class Quotas {
  readonly #table: () => QuotaTable;
  readonly #store: MapStore;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #streams = new Map<string, number>();
  readonly #fleets = new Map<string, Set<UnitCounter>>();

  /** Quotas from `table()` (read at each check, so a reloaded file applies at once). */
  constructor(table: () => QuotaTable, store: MapStore) {
    this.#table = table;
    this.#store = store;
  }

  /** A tenant's effective limits. */
  quota(tenant: string): Quota {
    const t = this.#table();
    return { ...t.defaults, ...t.tenants.get(tenant) };
  }

  #refuse(tenant: string, what: string, limit: number, now: string): never {
    throw new ServiceError(
      "RESOURCE_EXHAUSTED",
      `quota ${what}: tenant ${JSON.stringify(tenant)} ${now} (limit ${limit})`,
    );
  }

  /** PutMap of `tiles` tiles under store key `key`: the maps and stored_mb quotas (an overwrite counts once). */
  checkPut(tenant: string, key: string, tiles: number): void {
    const q = this.quota(tenant);
    if (q.maps === undefined && q.storedMb === undefined) return;
    const own = this.#store.ids().filter((k) => tenantOf(k) === tenant && !this.#store.isBuiltin(k));
    const exists = own.includes(key);
    if (q.maps !== undefined && !exists && own.length >= q.maps) {
      this.#refuse(tenant, "maps", q.maps, `has ${own.length} maps`);
    }
    if (q.storedMb !== undefined) {
      // Tile bytes of the tenant's maps in memory (maps only on disk are not counted until loaded).
      let bytes = 0;
      for (const mv of this.#store.list()) {
        if (mv.id !== key && tenantOf(mv.id) === tenant && !mv.builtin) bytes += mv.map.width * mv.map.height;
      }
      const mb = (bytes + tiles) / (1024 * 1024);
      if (mb > q.storedMb) this.#refuse(tenant, "stored_mb", q.storedMb, `would store ${mb.toFixed(3)} MB`);
    }
  }

  /** Takes `n` plans from the tenant's plans_per_s bucket (a burst of one second's worth), or refuses them all. */
  takePlans(tenant: string, n: number, now = performance.now()): void {
    const rate = this.quota(tenant).plansPerSecond;
    if (rate === undefined) return;
    const b = this.#buckets.get(tenant) ?? { tokens: rate, at: now };
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    this.#buckets.set(tenant, b);
    if (b.tokens < n) {
      this.#refuse(
        tenant,
        "plans_per_s",
        rate,
        `asked for ${n} plans with ${Math.floor(b.tokens)} left this second`,
      );
    }
    b.tokens -= n;
  }

  /** Opens a stream (Stream or Fleet call) for the tenant; returns its release (idempotent). */
  openStream(tenant: string): () => void {
    const limit = this.quota(tenant).streams;
    const open = this.#streams.get(tenant) ?? 0;
    if (limit !== undefined && open >= limit) {
      this.#refuse(tenant, "streams", limit, `has ${open} open streams`);
    }
    this.#streams.set(tenant, open + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#streams.set(tenant, (this.#streams.get(tenant) ?? 1) - 1);
    };
  }

  /** Registers a fleet of the tenant; returns its unregister. */
  addFleet(tenant: string, fleet: UnitCounter): () => void {
    const set = this.#fleets.get(tenant) ?? new Set();
    set.add(fleet);
    this.#fleets.set(tenant, set);
    return () => set.delete(fleet);
  }

  /** Before a fleet of the tenant adds a unit: the fleet_units quota over all its open fleets. */
  admitUnit(tenant: string): void {
    const limit = this.quota(tenant).fleetUnits;
    if (limit === undefined) return;
    let units = 0;
    for (const f of this.#fleets.get(tenant) ?? []) units += f.unitCount;
    if (units >= limit) this.#refuse(tenant, "fleet_units", limit, `has ${units} fleet units`);
  }
}
