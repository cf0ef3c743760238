/**
 * Errors raised while reading map input. The service maps {@link MapInputError} to INVALID_ARGUMENT and
 * {@link MapLimitError} to RESOURCE_EXHAUSTED, so they are distinct classes.
 *
 * @module
 */

/** A problem with one field of map input (the two kinds below differ only in class). */
class MapFieldError extends Error {
  /**
   * The input field: where malformed input is wrong (e.g. `height`, `line 7` or `terrain[2].cost`), or which
   * quantity exceeds a limit (`width`, `height` or `tiles`).
   */
  readonly field: string;

  /** Creates the error under the subclass's `name`. */
  constructor(name: string, field: string, message: string) {
    super(message);
    this.name = name;
    this.field = field;
  }
}

/** Malformed map input (bad header, wrong row length, bad terrain entry...). */
export class MapInputError extends MapFieldError {
  /** Creates the error; `message` should name the field and, for text input, the line. */
  constructor(field: string, message: string) {
    super("MapInputError", field, message);
  }
}

/** Well-formed map input that exceeds a configured size limit (`field` is `width`, `height` or `tiles`). */
export class MapLimitError extends MapFieldError {
  /** Creates the error; `message` should name the quantity, its value and the limit. */
  constructor(field: string, message: string) {
    super("MapLimitError", field, message);
  }
}
