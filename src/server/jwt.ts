/**
 * JWT bearer tokens (`--auth-jwks FILE`): a token is accepted when its signature verifies against a key of the
 * JWKS file (public keys only; jose's local key set picks the key by `kid` and algorithm), it is within its
 * `exp`/`nbf`, matches `--auth-jwt-issuer` / `--auth-jwt-audience` when those are set, and carries a `tenant`
 * claim (a tenant name) and optionally `role` (`rw`, the default, or `ro`). The file is re-read when it changes
 * and on SIGHUP (a file that does not parse is logged and the previous keys stay).
 *
 * @module
 */
import { readFileSync, statSync } from "node:fs";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { ServiceError } from "../service/errors.ts";
import { validTenant } from "../service/mapKeys.ts";
import type { Principal } from "../service/tenancy.ts";

/** What a token must say besides its signature. */
export interface JwtChecks {
  /** Required `iss`, if set. */
  issuer?: string;
  /** Required `aud`, if set. */
  audience?: string;
}

/** Signature algorithms accepted (asymmetric only: the file holds public keys). */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

function parseJwks(text: string, path: string): ReturnType<typeof createLocalJWKSet> {
  let set: JSONWebKeySet;
  try {
    set = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not JSON (${(e as Error).message})`);
  }
  if (!set || !Array.isArray(set.keys) || set.keys.length === 0) {
    throw new Error(`${path}: expected a JWKS {"keys": [...]} with at least one key`);
  }
  for (const [i, k] of set.keys.entries()) {
    if ("d" in k || k.kty === "oct") throw new Error(`${path}: keys[${i}] is a private or symmetric key`);
  }
  return createLocalJWKSet(set);
}

/** A JWKS file, reloaded on change, and the verification of tokens against it. */
export class JwksFile {
  readonly #path: string;
  readonly #checks: JwtChecks;
  readonly #log: (fields: Record<string, unknown>, msg: string) => void;
  #keys: ReturnType<typeof createLocalJWKSet>;
  #stamp: string;
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Reads the file now (throws if it does not parse: a bad config fails at start). */
  constructor(path: string, checks: JwtChecks, log: (fields: Record<string, unknown>, msg: string) => void) {
    this.#path = path;
    this.#checks = checks;
    this.#log = log;
    this.#stamp = this.#currentStamp();
    this.#keys = parseJwks(readFileSync(path, "utf8"), path);
  }

  #currentStamp(): string {
    try {
      const s = statSync(this.#path);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return "missing";
    }
  }

  /** Re-reads the file; keeps the previous keys if it does not parse. Returns whether it took. */
  reload(reason: string): boolean {
    const stamp = this.#currentStamp();
    this.#stamp = stamp;
    try {
      this.#keys = parseJwks(readFileSync(this.#path, "utf8"), this.#path);
      this.#log({ reason }, "JWKS reloaded");
      return true;
    } catch (e) {
      this.#log({ reason, err: (e as Error).message }, "JWKS reload failed; keeping the previous keys");
      return false;
    }
  }

  /** Polls the file every `ms` and reloads it when it changed. */
  watch(ms: number): void {
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      if (this.#currentStamp() !== this.#stamp) this.reload("file changed");
    }, ms);
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
  }

  /** The principal of a JWT, or UNAUTHENTICATED saying why (never echoing the token). */
  async verify(token: string): Promise<Principal> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#keys, {
        algorithms: ALGORITHMS,
        issuer: this.#checks.issuer,
        audience: this.#checks.audience,
      }));
    } catch (e) {
      const code = (e as { code?: string }).code ?? "ERR_JWT_INVALID";
      throw new ServiceError("UNAUTHENTICATED", `authorization: JWT rejected (${code})`);
    }
    const tenant = payload.tenant, role = payload.role ?? "rw";
    if (typeof tenant !== "string" || !validTenant(tenant)) {
      throw new ServiceError("UNAUTHENTICATED", "authorization: JWT has no valid `tenant` claim");
    }
    if (role !== "rw" && role !== "ro") {
      throw new ServiceError("UNAUTHENTICATED", "authorization: JWT `role` claim must be rw or ro");
    }
    return { tenant, role };
  }
}
