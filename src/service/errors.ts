/**
 * Service errors carry a gRPC status code name and a message that names the field and the bad value.
 * The server maps them to gRPC statuses; nothing else in the service knows about gRPC.
 *
 * @module
 */

/** The status codes the service raises. */
export type ErrorCode =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "FAILED_PRECONDITION"
  | "RESOURCE_EXHAUSTED"
  | "DEADLINE_EXCEEDED"
  | "CANCELLED"
  | "UNIMPLEMENTED"
  | "UNAVAILABLE"
  | "INTERNAL";

/** An error with a status code for the client. */
export class ServiceError extends Error {
  /** The status code name. */
  readonly code: ErrorCode;
  /** Creates an error; `message` should name the field and the value. */
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = "ServiceError";
  }
}

/** Shorthand for an INVALID_ARGUMENT naming `field` and its `value`. */
export function invalid(field: string, value: unknown, why: string): ServiceError {
  return new ServiceError("INVALID_ARGUMENT", `${field}: ${why}, got ${formatValue(value)}`);
}

/** Formats a value for an error message (short, unambiguous). */
export function formatValue(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(value.length > 80 ? value.slice(0, 77) + "..." : value);
  }
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : String(value);
  return String(value);
}
