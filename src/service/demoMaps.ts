/**
 * Built-in demo maps are read-only for clients unless the operator allows writing them
 * (`--writable-demo-maps`): a client's PutMap, PatchMap or DeleteMap of a demo map id would otherwise change
 * what every other client (and every later start, through the data directory) sees under that id.
 *
 * @module
 */
import { ServiceError } from "./errors.ts";
import type { MapStore } from "./mapStore.ts";

/**
 * Throws FAILED_PRECONDITION naming the map and the flag when `key` (a store key from writeKey) is a built-in
 * demo map and writing demo maps is not allowed. A conditional PatchMap on a version that is not the latest is
 * let through: the store refuses it for its version, and nothing is written either way.
 */
export function checkDemoWrite(
  store: MapStore,
  key: string,
  field: string,
  op: "PutMap" | "PatchMap" | "DeleteMap",
  writable: boolean,
  version = "",
): void {
  if (writable || !store.isBuiltin(key)) return;
  if (op === "PatchMap" && version !== "" && version !== store.latestVersion(key)) return;
  throw new ServiceError(
    "FAILED_PRECONDITION",
    `${field}: ${JSON.stringify(key)} is a built-in demo map, read-only for clients (${op} refused); ` +
      `use another id, or start the server with --writable-demo-maps`,
  );
}
