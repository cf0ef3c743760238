/**
 * Errors raised while reading map input. The service maps {@link MapInputError} to INVALID_ARGUMENT and
 * {@link MapLimitError} to RESOURCE_EXHAUSTED, so they are distinct classes.
 *
 * @module
 */

/** Malformed map input (bad header, wrong row length, bad terrain entry...). */
export class MapInputError extends Error {
  /** The input field the problem is in, e.g. `height`, `line 7` or `terrain[2].cost`. */
  readonly field: string;

  /** Creates the error; `message` should name the field and, for text input, the line. */
  constructor(field: string, message: string) {
    super(message);
    this.name = "MapInputError";
    this.field = field;
  }
}

/** Well-formed map input that exceeds a configured size limit. */
export class MapLimitError extends Error {
  /** The limited quantity: `width`, `height` or `tiles`. */
  readonly field: string;

  /** Creates the error; `message` should name the quantity, its value and the limit. */
  constructor(field: string, message: string) {
    super(message);
    this.name = "MapLimitError";
    this.field = field;
  }
}
