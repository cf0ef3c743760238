/**
 * Bearer-token authentication (and the combination with JWTs, jwt.ts): a token file of lines `TOKEN TENANT [ROLE]` (ROLE `rw`, the default, or `ro`;
 * blank lines and `#` comments ignored) maps each token to a principal. Calls carry metadata
 * `authorization: Bearer TOKEN`; without a known token they fail UNAUTHENTICATED (the token is never echoed).
 * The file is re-read when it changes (size or modification time, polled) and on SIGHUP; a file that does not
 * parse is logged and the previous tokens stay. Tokens are held as SHA-256 digests, so the lookup does not
 * compare secrets byte by byte.
 *
 * @module
 */
import type * as grpc from "@grpc/grpc-js";
import { createHash } from "node:crypto";
import { ServiceError } from "../service/errors.ts";
import { validTenant } from "../service/mapKeys.ts";
import type { Principal, Role } from "../service/tenancy.ts";
import { WatchedFile } from "./watchedFile.ts";

/** Turns a call's metadata into its principal, or throws (rejects) UNAUTHENTICATED. */
export type Authenticator = (md: grpc.Metadata) => Principal | Promise<Principal>;

const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/** Parses a token file's text; throws an Error naming the line at fault. */
export function parseTokens(text: string, source = "tokens"): Map<string, Principal> {
  const out = new Map<string, Principal>();
  text.split("\n").forEach((raw, i) => {
    const line = raw.replace(/#.*/, "").trim();
    if (line === "") return;
    const [token, tenant, role = "rw", ...rest] = line.split(/\s+/);
    const where = `${source} line ${i + 1}`;
    if (tenant === undefined || rest.length > 0) throw new Error(`${where}: expected TOKEN TENANT [ROLE]`);
    if (token.length < 8) throw new Error(`${where}: token shorter than 8 characters`);
    if (!validTenant(tenant)) throw new Error(`${where}: tenant must be 1-64 characters of [A-Za-z0-9._-]`);
    if (role !== "rw" && role !== "ro") throw new Error(`${where}: role must be rw or ro, got ${role}`);
    const key = digest(token);
    if (out.has(key)) throw new Error(`${where}: duplicate token`);
    out.set(key, { tenant, role: role as Role });
  });
  return out;
}

/** The bearer token of a call, or null. */
function bearer(md: grpc.Metadata): string | null {
  const v = md.get("authorization");
  if (v.length !== 1 || typeof v[0] !== "string") return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(v[0]);
  return m ? m[1] : null;
}

/** The tokens of a file, reloaded on change. */
export class TokenFile {
  readonly #file: WatchedFile<Map<string, Principal>>;

  /** Reads the file now (throws naming the line if it does not parse: a bad config fails at start). */
  constructor(path: string, log: (fields: Record<string, unknown>, msg: string) => void) {
    this.#file = new WatchedFile(path, {
      parse: parseTokens,
      log,
      reloaded: { msg: "auth tokens reloaded", fields: (tokens) => ({ tokens: tokens.size }) },
      failed: "auth token reload failed; keeping the previous tokens",
    });
  }

  /** Number of tokens. */
  get size(): number {
    return this.#file.value.size;
  }

  /** Re-reads the file; keeps the previous tokens if it does not parse. Returns whether it took. */
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

  /** The principal of a token, if the file holds it. */
  lookup(token: string): Principal | undefined {
    return this.#file.value.get(digest(token));
  }
}

/** Verifies JWTs (jwt.ts); declared here so this module does not import jose. */
export interface JwtVerifier {
  /** The principal of a JWT, or rejects UNAUTHENTICATED. */
  verify(token: string): Promise<Principal>;
}

/**
 * The authenticator over a token file and/or JWT keys: a token the file holds is accepted at once (no await);
 * otherwise a token shaped like a JWT is verified against the keys.
 */
export function authenticator(tokens: TokenFile | null, jwt: JwtVerifier | null): Authenticator {
  return (md) => {
    const token = bearer(md);
    if (token === null) {
      throw new ServiceError(
        "UNAUTHENTICATED",
        "authorization: expected metadata `authorization: Bearer <token>`",
      );
    }
    const p = tokens?.lookup(token);
    if (p) return p;
    if (jwt && token.split(".").length === 3) return jwt.verify(token);
    throw new ServiceError("UNAUTHENTICATED", "authorization: unknown bearer token");
  };
}
