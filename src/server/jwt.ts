/**
 * JWT bearer tokens (`--auth-jwks FILE`): a token is accepted when its signature verifies against a key of the
 * JWKS file (public keys only; jose's local key set picks the key by `kid` and algorithm), it is within its
 * `exp`/`nbf`, matches `--auth-jwt-issuer` / `--auth-jwt-audience` when those are set, and carries a `tenant`
 * claim (a tenant name) and optionally `role` (`rw`, the default, or `ro`). The file is re-read when it changes
 * and on SIGHUP (a file that does not parse is logged and the previous keys stay).
 *
 * @module
 */
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";
import { ServiceError } from "../service/errors.ts";
import { validTenant } from "../service/mapKeys.ts";
import type { Principal } from "../service/tenancy.ts";
import { WatchedFile } from "./watchedFile.ts";

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
  readonly #checks: JwtChecks;
  readonly #file: WatchedFile<ReturnType<typeof createLocalJWKSet>>;

  /** Reads the file now (throws if it does not parse: a bad config fails at start). */
  constructor(path: string, checks: JwtChecks, log: (fields: Record<string, unknown>, msg: string) => void) {
    this.#checks = checks;
    this.#file = new WatchedFile(path, {
      parse: parseJwks,
      log,
      reloaded: { msg: "JWKS reloaded" },
      failed: "JWKS reload failed; keeping the previous keys",
    });
  }

  /** Re-reads the file; keeps the previous keys if it does not parse. Returns whether it took. */
  reload(reason: string): boolean {
    return this.#file.reload(reason);
  }

  /** Polls the file every `ms` and reloads it when it changed. */
  watch(ms: number): void {
    this.#file.watch(ms);
  }

  /** Stops watching. */
  close(): void {
    this.#file.close();
  }

  /** The principal of a JWT, or UNAUTHENTICATED saying why (never echoing the token). */
  async verify(token: string): Promise<Principal> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.#file.value, {
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
