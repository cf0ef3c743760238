/**
 * Reading and writing Moving AI `.map` text, and validating raw byte grids.
 *
 * Format: header lines `type <word>`, `height <H>`, `width <W>` (in any order), then a line `map`, then H rows
 * of W characters. LF and CRLF line endings are accepted. A tile's terrain code is its character's byte value.
 *
 * @module
 */

import { sharedArray, type TileGrid } from "./grid.ts";
import { MapInputError, MapLimitError } from "./errors.ts";

/** Size limits a map must respect (the server's configuration). */
export interface MapLimits {
  /** Largest accepted width in tiles. */
  maxWidth: number;
  /** Largest accepted height in tiles. */
  maxHeight: number;
  /** Largest accepted width * height. */
  maxTiles: number;
}

/** First and last character codes accepted in map rows: printable ASCII. */
const FIRST_PRINTABLE = 0x20;
const LAST_PRINTABLE = 0x7e;

/**
 * Throws MapLimitError if the size exceeds the limits (checked before allocating anything); the message names
 * the server flag that sets the limit.
 */
export function checkMapLimits(width: number, height: number, limits: MapLimits, source: string): void {
  if (width > limits.maxWidth) {
    throw new MapLimitError(
      "width",
      `${source}: width ${width} exceeds the limit ${limits.maxWidth} (server flag --max-map-side)`,
    );
  }
  if (height > limits.maxHeight) {
    throw new MapLimitError(
      "height",
      `${source}: height ${height} exceeds the limit ${limits.maxHeight} (server flag --max-map-side)`,
    );
  }
  if (width * height > limits.maxTiles) {
    throw new MapLimitError(
      "tiles",
      `${source}: ${width} x ${height} = ${width * height} tiles exceeds the limit ${limits.maxTiles} ` +
        "(server flag --max-map-tiles)",
    );
  }
}

/** Parses a header size value: a positive decimal integer. */
function parseSize(key: string, value: string, lineNumber: number): number {
  if (!/^[0-9]+$/.test(value)) {
    throw new MapInputError(
      key,
      `movingai: line ${lineNumber}: ${key} must be a positive integer, got "${
        value.length > 40 ? value.slice(0, 40) + "..." : value
      }"`,
    );
  }
  const size = Number(value);
  if (size === 0) {
    throw new MapInputError(key, `movingai: line ${lineNumber}: ${key} must be at least 1, got 0`);
  }
  return size;
}

/** Describes a character for an error message. */
function describeChar(code: number): string {
  return code >= FIRST_PRINTABLE && code <= LAST_PRINTABLE
    ? `"${String.fromCharCode(code)}"`
    : `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Parses Moving AI `.map` text. Throws {@link MapInputError} (with the line number) for a missing, duplicate
 * or unknown header, a non-integer or zero size, a row of the wrong length, too few or too many rows, or a
 * control / non-ASCII character in a row; {@link MapLimitError} when the size exceeds `limits`.
 * Blank lines are allowed only after the last row.
 */
export function parseMovingAi(text: string, limits: MapLimits): TileGrid {
  const lines = text.split("\n");
  let width = -1;
  let height = -1;
  let sawType = false;
  let lineIndex = 0;
  let sawMap = false;
  for (; lineIndex < lines.length; lineIndex++) {
    const line = lines[lineIndex].replace(/\r$/, "").trim();
    const lineNumber = lineIndex + 1;
    if (line === "") continue;
    const words = line.split(/\s+/);
    const key = words[0].toLowerCase();
    if (key === "map" && words.length === 1) {
      sawMap = true;
      lineIndex++;
      break;
    }
    if (key === "type") {
      if (sawType) throw new MapInputError("type", `movingai: line ${lineNumber}: duplicate "type" header`);
      if (words.length < 2) {
        throw new MapInputError("type", `movingai: line ${lineNumber}: "type" needs a value`);
      }
      sawType = true;
    } else if (key === "height" || key === "width") {
      if ((key === "height" ? height : width) !== -1) {
        throw new MapInputError(key, `movingai: line ${lineNumber}: duplicate "${key}" header`);
      }
      if (words.length !== 2) {
        throw new MapInputError(key, `movingai: line ${lineNumber}: "${key}" needs exactly one value`);
      }
      const size = parseSize(key, words[1], lineNumber);
      if (key === "height") height = size;
      else width = size;
    } else {
      const shown = line.length > 40 ? line.slice(0, 40) + "..." : line;
      throw new MapInputError(
        "header",
        `movingai: line ${lineNumber}: expected a header (type, height, width, map), got "${shown}"`,
      );
    }
  }
  for (
    const [name, present] of [["type", sawType], ["height", height !== -1], ["width", width !== -1]] as const
  ) {
    if (!present) throw new MapInputError(name, `movingai: missing "${name}" header`);
  }
  if (!sawMap) throw new MapInputError("map", `movingai: missing "map" line before the rows`);
  checkMapLimits(width, height, limits, "movingai");

  // Rows must end before the trailing blank lines (a final newline leaves one empty element).
  let contentEnd = lines.length;
  while (contentEnd > lineIndex && lines[contentEnd - 1].replace(/\r$/, "") === "") contentEnd--;
  const tiles = sharedArray(Uint8Array, width * height);
  for (let y = 0; y < height; y++, lineIndex++) {
    const lineNumber = lineIndex + 1;
    if (lineIndex >= contentEnd) {
      throw new MapInputError(
        "rows",
        `movingai: too few rows: expected ${height}, got ${y} (the last row is line ${contentEnd})`,
      );
    }
    let row = lines[lineIndex];
    if (row.endsWith("\r")) row = row.slice(0, -1);
    if (row.length !== width) {
      throw new MapInputError(
        `line ${lineNumber}`,
        `movingai: line ${lineNumber}: row ${y} has ${row.length} characters, expected width ${width}`,
      );
    }
    const offset = y * width;
    for (let x = 0; x < width; x++) {
      const code = row.charCodeAt(x);
      if (code < FIRST_PRINTABLE || code > LAST_PRINTABLE) {
        throw new MapInputError(
          `line ${lineNumber}`,
          `movingai: line ${lineNumber}, column ${x + 1}: character ${
            describeChar(code)
          } is not printable ASCII`,
        );
      }
      tiles[offset + x] = code;
    }
  }
  for (; lineIndex < lines.length; lineIndex++) {
    if (lines[lineIndex].trim() !== "") {
      throw new MapInputError(
        `line ${lineIndex + 1}`,
        `movingai: line ${lineIndex + 1}: too many rows: expected ${height}`,
      );
    }
  }
  return { width, height, tiles };
}

/**
 * Writes a grid as Moving AI text (LF endings, `type octile`), the inverse of {@link parseMovingAi}.
 * Throws {@link MapInputError} if a tile code is not printable ASCII (such grids cannot be written as text).
 */
export function formatMovingAi(map: TileGrid): string {
  const { width, height, tiles } = map;
  const parts: string[] = [`type octile\nheight ${height}\nwidth ${width}\nmap\n`];
  const decoder = new TextDecoder("latin1");
  const row = new Uint8Array(width + 1);
  row[width] = 0x0a;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const code = tiles[y * width + x];
      if (code < FIRST_PRINTABLE || code > LAST_PRINTABLE) {
        throw new MapInputError(
          "tiles",
          `movingai: tile (${x}, ${y}) has code ${code}, which is not a printable ASCII character`,
        );
      }
      row[x] = code;
    }
    parts.push(decoder.decode(row));
  }
  return parts.join("");
}

/**
 * Validates a raw byte grid and copies it into shared memory. Throws {@link MapInputError} for a non-integer
 * or zero size or a byte count other than width * height, {@link MapLimitError} when over the limits.
 */
export function rawGrid(width: number, height: number, bytes: Uint8Array, limits: MapLimits): TileGrid {
  for (const [name, value] of [["width", width], ["height", height]] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new MapInputError(name, `raw: ${name} must be a positive integer, got ${value}`);
    }
  }
  checkMapLimits(width, height, limits, "raw");
  if (bytes.length !== width * height) {
    throw new MapInputError(
      "tiles",
      `raw: tiles has ${bytes.length} bytes, expected width * height = ${width * height}`,
    );
  }
  const tiles = sharedArray(Uint8Array, width * height);
  tiles.set(bytes);
  return { width, height, tiles };
}
