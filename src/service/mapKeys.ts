/**
 * Map keys: how the store tells tenants' maps apart. A map is stored under a key: its id for the default tenant
 * (the layout and ids of a single-tenant server, unchanged), `<tenant>~<id>` for any other tenant. `~` is not
 * allowed in map ids or tenant names, so a key names one (tenant, id) pair and no client id can spell another
 * tenant's key. Only keys travel below the server layer; clients only ever see the id part.
 *
 * @module
 */
import { formatValue, ServiceError } from "./errors.ts";

/** The tenant of an open (unauthenticated) server, and of maps stored before tenants existed. */
export const DEFAULT_TENANT = "default";

const NAME = /^[A-Za-z0-9._-]{1,128}$/;
const SEP = "~";

/** Whether `name` is a valid tenant name (as map ids: it names a folder; "." and ".." refused). */
export function validTenant(name: string): boolean {
  return name.length <= 64 && NAME.test(name) && name !== "." && name !== "..";
}

/** The store key of a tenant's map id (the id itself for the default tenant). */
export function mapKey(tenant: string, id: string): string {
  return tenant === DEFAULT_TENANT ? id : tenant + SEP + id;
}

/** The id part of a key: what a client sees. */
export function displayId(key: string): string {
  const i = key.indexOf(SEP);
  return i < 0 ? key : key.slice(i + 1);
}

/** The tenant part of a key. */
export function tenantOf(key: string): string {
  const i = key.indexOf(SEP);
  return i < 0 ? DEFAULT_TENANT : key.slice(0, i);
}

/**
 * Checks a store key (an id, or `tenant~id`); throws INVALID_ARGUMENT naming `field` and the id part. Client
 * ids are checked by checkMapId (no `~`) before they are made keys.
 */
export function checkMapKey(key: string, field: string): void {
  const i = key.indexOf(SEP);
  const id = i < 0 ? key : key.slice(i + 1);
  if (!NAME.test(id) || id === "." || id === ".." || (i >= 0 && !validTenant(key.slice(0, i)))) {
    throw new ServiceError(
      "INVALID_ARGUMENT",
      `${field}: must be 1-128 characters of [A-Za-z0-9._-], got ${formatValue(id)}`,
    );
  }
}
