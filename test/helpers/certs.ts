/**
 * Test certificates made at test time with `openssl`: CAs, a server certificate for host name `localhost`
 * (and 127.0.0.1), client certificates (valid, expired, signed by another CA). All are X.509 v3: Deno's TLS
 * (rustls/webpki) refuses v1 certificates, which is what `openssl x509 -req` makes without extensions.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A directory of generated PEM files; `read(name)` gives a file's bytes. */
export interface CertDir {
  /** The directory. */
  dir: string;
  /** Path of `name.pem` / `name.key`. */
  path: (file: string) => string;
  /** Bytes of a file. */
  read: (file: string) => Buffer;
  /** Makes a CA named `name` (`name.pem`, `name.key`). */
  ca: (name: string) => void;
  /** Makes a leaf `name` signed by `ca`; `days` < 0 makes it already expired. */
  leaf: (name: string, ca: string, kind: "server" | "client", days?: number) => void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

/** A fresh directory to make certificates in. */
export function certDir(): CertDir {
  const dir = mkdtempSync(join(tmpdir(), "arcpath-certs-"));
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  return {
    dir,
    path: (f) => join(dir, f),
    read: (f) => readFileSync(join(dir, f)),
    ca(name) {
      openssl(dir, [
        "req",
        "-x509",
        ...ec,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.pem`,
        "-days",
        "2",
        "-subj",
        `/CN=${name}`,
      ]);
    },
    leaf(name, ca, kind, days = 2) {
      openssl(dir, [
        "req",
        ...ec,
        "-keyout",
        `${name}.key`,
        "-out",
        `${name}.csr`,
        "-subj",
        `/CN=${kind === "server" ? "localhost" : name}`,
      ]);
      const ext = kind === "server"
        ? "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n"
        : "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n";
      execFileSync("sh", ["-c", `cat > ${name}.ext`], { cwd: dir, input: ext });
      openssl(dir, [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        `${ca}.pem`,
        "-CAkey",
        `${ca}.key`,
        "-CAcreateserial",
        "-out",
        `${name}.pem`,
        "-days",
        String(days),
        "-extfile",
        `${name}.ext`,
      ]);
    },
  };
}
