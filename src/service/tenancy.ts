/**
 * Tenants and their maps: who may read and write which map. A request's principal (its tenant and role) turns
 * each client map id into a store key (mapKeys.ts): its own tenant's map, or for reading, a built-in map shared
 * with every tenant. Another tenant's map is never reachable: the key a client id makes always carries the
 * caller's tenant, so a map of another tenant answers exactly as a map that does not exist (NOT_FOUND, no
 * existence leak). A read-only role cannot write (PERMISSION_DENIED); built-in maps are written only by the
 * default tenant (the operator's; an open server's clients are it).
 *
 * @module
 */
import { ServiceError } from "./errors.ts";
import { checkMapId, type MapStore } from "./mapStore.ts";
import { DEFAULT_TENANT, displayId, mapKey, tenantOf } from "./mapKeys.ts";
import type { PlanRequest } from "./requests.ts";

/** What a token allows: `rw` reads and writes the tenant's maps, `ro` only reads. */
export type Role = "rw" | "ro";

/** Who is calling. */
export interface Principal {
  /** The tenant whose maps the caller sees. */
  tenant: string;
  /** The caller's role. */
  role: Role;
}

/** The principal of every call on a server without authentication: the default tenant, read-write. */
export const OPEN_PRINCIPAL: Principal = { tenant: DEFAULT_TENANT, role: "rw" };

/**
 * The key a client's map id reads: the tenant's own map, else a shared built-in of that id, else the own key
 * (which then answers NOT_FOUND with the client's id). Throws INVALID_ARGUMENT naming `field` for a bad id.
 */
export function readKey(store: MapStore, p: Principal, id: string, field = "map.id"): string {
  checkMapId(id, field);
  if (p.tenant === DEFAULT_TENANT) return id;
  const own = mapKey(p.tenant, id);
  if (store.latestVersion(own) === undefined && store.isBuiltin(id)) return id;
  return own;
}

/**
 * The key a client's map id writes (PutMap, PatchMap, DeleteMap): PERMISSION_DENIED for a read-only role, and
 * for a tenant patching or deleting a shared built-in map it has no copy of (PutMap makes its own copy).
 */
export function writeKey(
  store: MapStore,
  p: Principal,
  id: string,
  field: string,
  op: "PutMap" | "PatchMap" | "DeleteMap",
): string {
  if (p.role !== "rw") {
    throw new ServiceError("PERMISSION_DENIED", `${op} needs role rw; this token's role is ${p.role}`);
  }
  checkMapId(id, field);
  const own = mapKey(p.tenant, id);
  if (
    op !== "PutMap" && p.tenant !== DEFAULT_TENANT && store.latestVersion(own) === undefined &&
    store.isBuiltin(id)
  ) {
    throw new ServiceError(
      "PERMISSION_DENIED",
      `${field}: built-in map ${JSON.stringify(id)} is shared read-only; PutMap a copy under your own id`,
    );
  }
  return own;
}

/** The keys ListMaps shows a tenant: its own maps and the built-ins it has no map of the same id for. */
export function visibleKeys(store: MapStore, p: Principal): string[] {
  const ids = store.ids();
  if (p.tenant === DEFAULT_TENANT) return ids.filter((k) => tenantOf(k) === DEFAULT_TENANT);
  const own = ids.filter((k) => tenantOf(k) === p.tenant);
  const shadowed = new Set(own.map(displayId));
  const shared = ids.filter((k) => tenantOf(k) === DEFAULT_TENANT && !shadowed.has(k) && store.isBuiltin(k));
  return [...own, ...shared].sort((a, b) => displayId(a).localeCompare(displayId(b)));
}

/** A plan request with its map id made the key the principal reads. */
export function scopePlan(store: MapStore, p: Principal, req: PlanRequest, field = "map.id"): PlanRequest {
  const key = readKey(store, p, req.map.id, field);
  return key === req.map.id ? req : { ...req, map: { ...req.map, id: key } };
}
