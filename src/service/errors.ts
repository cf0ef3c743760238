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
  | "INTERNAL"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED";

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

/**
 * Largest heading magnitude accepted, radians. Any angle is meaningful modulo 2 pi, but reducing a huge one in
 * double precision loses it (at 1e12 rad the spacing of doubles is already 1e-4 rad), so callers must send
 * angles near their circle, as every client naturally does.
 */
export const MAX_HEADING = 1e6;

/**
 * Largest heading magnitude taken as radians: two full turns. A client's heading is near its circle; a value
 * beyond this (and up to {@link MAX_HEADING}) is almost always degrees sent by mistake (90 for "north" is
 * 14.3 turns), which would silently point the unit somewhere else, so it is refused with that hint.
 */
export const DEGREES_HINT_HEADING = 4 * Math.PI;

/**
 * A heading field: a finite number of radians within +-{@link DEGREES_HINT_HEADING}, else INVALID_ARGUMENT
 * naming it (with a degrees hint up to {@link MAX_HEADING}).
 */
export function headingValue(field: string, v: unknown): number {
  const x = typeof v === "number" ? v : Number.NaN;
  if (!Number.isFinite(x)) throw invalid(field, v, "must be a finite number");
  if (Math.abs(x) > MAX_HEADING) {
    throw invalid(field, v, `must be an angle in radians within +-${MAX_HEADING}`);
  }
  if (Math.abs(x) > DEGREES_HINT_HEADING) {
    throw invalid(
      field,
      v,
      "looks like degrees; headings are radians (|heading| at most 4 pi = 12.566, two full turns)",
    );
  }
  return x;
}

/** Most characters of a client's value echoed in an error message (before JSON escaping). */
export const MAX_ECHO_CHARS = 80;

/**
 * Formats a client's value for an error message: short and unambiguous, never longer than about
 * {@link MAX_ECHO_CHARS} characters (a 100 KB value echoed into a status message made grpc-js clients hang).
 */
export function formatValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clip(value));
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : String(value);
  return clip(String(value));
}

function clip(s: string): string {
  return s.length > MAX_ECHO_CHARS ? s.slice(0, MAX_ECHO_CHARS - 3) + "..." : s;
}
