/**
 * The maps core's input and limit errors as service errors.
 *
 * @module
 */
import { MapInputError, MapLimitError } from "../maps/errors.ts";
import { ServiceError } from "./errors.ts";

/** Maps the maps core's errors to service errors (INVALID_ARGUMENT / RESOURCE_EXHAUSTED). */
export function translateMapError(e: unknown, prefix: string): unknown {
  if (e instanceof MapLimitError) return new ServiceError("RESOURCE_EXHAUSTED", e.message);
  if (e instanceof MapInputError) {
    const msg = e.message.startsWith(prefix) ? e.message : `${prefix}: ${e.message}`;
    return new ServiceError("INVALID_ARGUMENT", msg);
  }
  return e;
}
