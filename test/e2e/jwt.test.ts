/**
 * JWT bearer tokens (--auth-jwks) over real gRPC, keys made at test time with jose: a token signed by a key of
 * the JWKS names its tenant and role; another key's signature, an expired token, the wrong issuer or audience,
 * a missing tenant claim and an unsigned token are UNAUTHENTICATED (unary and streams); the JWKS file is
 * re-read on change (key rotation); token-file tokens keep working beside JWTs.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose";
import { startServer, type TestServer } from "../helpers/server.ts";
import { waitForOutput } from "../helpers/waitFor.ts";

// deno-lint-ignore no-explicit-any
type Any = any;
let srv: TestServer;
let dir: string;
let jwksPath: string;
const keys: Record<string, CryptoKey> = {};
const FILE_TOKEN = "file-token-000001";

async function jwks(...kids: string[]): Promise<string> {
  const out = [];
  for (const kid of kids) {
    const pair = await generateKeyPair("ES256", { extractable: true });
    keys[kid] = pair.privateKey;
    out.push({ ...(await exportJWK(pair.publicKey)), kid, alg: "ES256", use: "sig" });
  }
  return JSON.stringify({ keys: out });
}

function sign(
  kid: string,
  claims: JWTPayload,
  opts: { exp?: string | number; iss?: string; aud?: string } = {},
) {
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid }).setIssuedAt()
    .setIssuer(opts.iss ?? "https://issuer.test").setAudience(opts.aud ?? "arcpath")
    .setExpirationTime(opts.exp ?? "5m").sign(keys[kid]);
}

function md(token: string): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set("authorization", `Bearer ${token}`);
  return m;
}

async function outcome(method: string, req: unknown, token: string) {
  return await new Promise<{ code: number; details: string; value?: Any }>((res) => {
    srv.client[method](
      req,
      md(token),
      (e: grpc.ServiceError | null, v: Any) =>
        res(e ? { code: e.code, details: e.details } : { code: 0, details: "", value: v }),
    );
  });
}

async function streamOutcome(token: string) {
  const st = srv.client.Stream(md(token));
  const r = await new Promise<{ code: number; details: string }>((res) => {
    st.on("data", () => res({ code: 0, details: "" }));
    st.on("error", (e: grpc.ServiceError) => res({ code: e.code, details: e.details }));
    st.write({ plan: { map: { id: "arena" }, start: { x: 2.5, y: 2.5 }, goal: { x: 8.5, y: 6.5 } } });
  });
  st.cancel();
  return r;
}

const movingai = `type octile\nheight 4\nwidth 4\nmap\n....\n....\n....\n....\n`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "arcpath-jwt-"));
  jwksPath = join(dir, "jwks.json");
  writeFileSync(jwksPath, await jwks("k1"));
  await jwks("stranger"); // a key the server does not know
  writeFileSync(join(dir, "tokens.txt"), `${FILE_TOKEN} alice\n`);
  srv = await startServer([
    "--auth-jwks",
    jwksPath,
    "--auth-jwt-issuer",
    "https://issuer.test",
    "--auth-jwt-audience",
    "arcpath",
    "--auth-tokens",
    join(dir, "tokens.txt"),
  ], join(dir, "data"));
}, 60_000);
afterAll(async () => {
  await srv?.stop();
});

describe("JWT bearer tokens", () => {
  test("a valid token names its tenant and role", async () => {
    expect(srv.output()).toMatch(/"auth":"tokens \(1\), jwt"/);
    const alice = await sign("k1", { tenant: "alice" });
    expect((await outcome("PutMap", { id: "jwt-map", movingai }, alice)).code).toBe(0);
    // The token-file token of the same tenant sees the map; another tenant's JWT does not.
    expect((await outcome("GetMap", { map: { id: "jwt-map" } }, FILE_TOKEN)).code).toBe(0);
    const bob = await sign("k1", { tenant: "bob" });
    expect((await outcome("GetMap", { map: { id: "jwt-map" } }, bob)).code).toBe(grpc.status.NOT_FOUND);
    const ro = await sign("k1", { tenant: "alice", role: "ro" });
    expect((await outcome("GetMap", { map: { id: "jwt-map" } }, ro)).code).toBe(0);
    expect((await outcome("DeleteMap", { map: { id: "jwt-map" } }, ro)).code).toBe(
      grpc.status.PERMISSION_DENIED,
    );
    expect((await streamOutcome(alice)).code).toBe(0);
  });

  test("other keys, expiry, issuer, audience, claims and unsigned tokens are refused", async () => {
    const none = [
      Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url"),
      Buffer.from(JSON.stringify({ tenant: "alice", iss: "https://issuer.test", aud: "arcpath" })).toString(
        "base64url",
      ),
      "",
    ].join(".");
    const bad: [string, string, RegExp][] = [
      ["another key", await sign("stranger", { tenant: "alice" }), /JWT rejected/],
      [
        "expired",
        await sign("k1", { tenant: "alice" }, { exp: Math.floor(Date.now() / 1000) - 60 }),
        /ERR_JWT_EXPIRED/,
      ],
      [
        "issuer",
        await sign("k1", { tenant: "alice" }, { iss: "https://evil.test" }),
        /ERR_JWT_CLAIM_VALIDATION/,
      ],
      ["audience", await sign("k1", { tenant: "alice" }, { aud: "other" }), /ERR_JWT_CLAIM_VALIDATION/],
      ["no tenant", await sign("k1", { sub: "x" }), /tenant/],
      ["bad tenant", await sign("k1", { tenant: "../etc" }), /tenant/],
      ["bad role", await sign("k1", { tenant: "alice", role: "admin" }), /role/],
      ["alg none", none, /JWT rejected/],
    ];
    for (const [what, token, why] of bad) {
      const u = await outcome("ListMaps", {}, token);
      expect(u.code, what).toBe(grpc.status.UNAUTHENTICATED);
      expect(u.details, what).toMatch(why);
      expect(u.details, what).not.toContain(token);
      expect((await streamOutcome(token)).code, `${what} (Stream)`).toBe(grpc.status.UNAUTHENTICATED);
    }
  });

  test("the JWKS file is re-read when it changes (key rotation)", async () => {
    writeFileSync(jwksPath, await jwks("k2"));
    const fresh = await sign("k2", { tenant: "alice" });
    let code = -1;
    // The file is polled every second; a loaded machine may take a few polls.
    for (let i = 0; i < 300 && code !== 0; i++) {
      code = (await outcome("ListMaps", {}, fresh)).code;
      if (code !== 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(code).toBe(0);
    // The old key is gone.
    expect((await outcome("ListMaps", {}, await sign("k1", { tenant: "alice" }))).code).toBe(
      grpc.status.UNAUTHENTICATED,
    );
    // A private key in the file is refused and the previous keys stay.
    const pair = await generateKeyPair("ES256", { extractable: true });
    writeFileSync(jwksPath, JSON.stringify({ keys: [{ ...(await exportJWK(pair.privateKey)), kid: "p" }] }));
    await waitForOutput(srv, /is a private or symmetric key/);
    expect((await outcome("ListMaps", {}, fresh)).code).toBe(0);
  }, 90_000);
});
