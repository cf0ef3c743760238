/**
 * A small incremental 64-bit FNV-1a hash over bytes, kept in two 32-bit halves so it needs no BigInt.
 *
 * @module
 */

/** The running state of a 64-bit FNV-1a hash: high and low 32-bit halves. */
export interface Fnv64State {
  /** High 32 bits. */
  hi: number;
  /** Low 32 bits. */
  lo: number;
}

/** Starts a hash at the FNV-1a 64-bit offset basis 0xcbf29ce484222325. */
export function fnv64Start(): Fnv64State {
  return { hi: 0xcbf29ce4, lo: 0x84222325 };
}

/**
 * Feeds bytes into the hash. The FNV prime is 2^40 + 0x1b3, so h * prime = h * 0x1b3 + (h << 40);
 * the low product fits a double exactly (< 2^41), its carry goes to the high half.
 */
export function fnv64Bytes(state: Fnv64State, bytes: Uint8Array): void {
  let hi = state.hi;
  let lo = state.lo;
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ bytes[i]) >>> 0;
    const low = lo * 0x1b3;
    const carry = Math.floor(low / 4294967296);
    hi = (Math.imul(hi, 0x1b3) + carry + (lo << 8)) >>> 0;
    lo = low >>> 0;
  }
  state.hi = hi;
  state.lo = lo;
}

/** Feeds a 32-bit unsigned integer (little-endian bytes). */
export function fnv64Uint32(state: Fnv64State, value: number): void {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value >>> 0, true);
  fnv64Bytes(state, bytes);
}

/** The hash as 16 lowercase hex characters. */
export function fnv64Hex(state: Fnv64State): string {
  return state.hi.toString(16).padStart(8, "0") + state.lo.toString(16).padStart(8, "0");
}
