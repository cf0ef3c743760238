/**
 * Server TLS and mTLS with certificates reloaded in place: the key pair (and the client CA for mTLS) are read
 * from files, checked (the key must match the certificate, every PEM must parse), and handed to grpc-js through
 * its certificate-provider credentials. A reload (SIGHUP, or a change of the files' size or modification time,
 * polled) swaps the listener's secure context (`setSecureContext`): new handshakes use the new certificates,
 * connections already open keep theirs and are not dropped. A reload whose files do not check out is logged
 * and the previous certificates stay in use.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { readFileSync, statSync } from "node:fs";
import { createPrivateKey, X509Certificate } from "node:crypto";

/** Where the certificates live. */
export interface TlsFiles {
  /** The server's certificate chain (PEM). */
  cert: string;
  /** The server's private key (PEM). */
  key: string;
  /** CA bundle that client certificates must chain to (PEM); set, a client certificate is required. */
  clientCa?: string;
}

type IdentityListener = grpc.experimental.IdentityCertificateUpdateListener;
type CaListener = grpc.experimental.CaCertificateUpdateListener;

/** What one successful read of the files gave. */
interface Loaded {
  certificate: Buffer;
  privateKey: Buffer;
  ca: Buffer | null;
  /** The server certificate's validity end, for the log. */
  notAfter: string;
  /** Size and mtime of each file, to notice a change. */
  stamp: string;
}

function stampOf(paths: string[]): string {
  return paths.map((p) => {
    try {
      const s = statSync(p);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return "missing";
    }
  }).join("|");
}

/** Reads and checks the files; throws an Error naming the file at fault. */
function load(files: TlsFiles): Loaded {
  const paths = [files.cert, files.key, ...(files.clientCa ? [files.clientCa] : [])];
  const stamp = stampOf(paths);
  const read = (p: string, what: string) => {
    try {
      return readFileSync(p);
    } catch (e) {
      throw new Error(`${what} ${p}: ${(e as Error).message}`);
    }
  };
  const certificate = read(files.cert, "--tls-cert");
  const privateKey = read(files.key, "--tls-key");
  const ca = files.clientCa ? read(files.clientCa, "--tls-client-ca") : null;
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(certificate);
  } catch (e) {
    throw new Error(`--tls-cert ${files.cert}: not a PEM certificate (${(e as Error).message})`);
  }
  let key;
  try {
    key = createPrivateKey(privateKey);
  } catch (e) {
    throw new Error(`--tls-key ${files.key}: not a PEM private key (${(e as Error).message})`);
  }
  if (!x509.checkPrivateKey(key)) {
    throw new Error(`--tls-key ${files.key}: does not match the certificate in ${files.cert}`);
  }
  if (ca) {
    try {
      new X509Certificate(ca);
    } catch (e) {
      throw new Error(`--tls-client-ca ${files.clientCa}: not a PEM certificate (${(e as Error).message})`);
    }
  }
  return { certificate, privateKey, ca, notAfter: x509.validTo, stamp };
}

/**
 * The certificate provider behind the server's credentials: holds the last good certificates, tells grpc-js's
 * listeners on every successful reload.
 */
export class ReloadingCertificates implements grpc.experimental.CertificateProvider {
  readonly #files: TlsFiles;
  readonly #log: (fields: Record<string, unknown>, msg: string) => void;
  #current: Loaded;
  readonly #identity = new Set<IdentityListener>();
  readonly #ca = new Set<CaListener>();
  #timer: ReturnType<typeof setInterval> | undefined;

  /** Reads the files now (throws naming the file if they do not check out: a bad config fails at start). */
  constructor(files: TlsFiles, log: (fields: Record<string, unknown>, msg: string) => void) {
    this.#files = files;
    this.#log = log;
    this.#current = load(files);
  }

  /** Whether client certificates are required (a client CA was given). */
  get mutual(): boolean {
    return this.#files.clientCa !== undefined;
  }

  /** The server certificate's validity end (as in the certificate). */
  get notAfter(): string {
    return this.#current.notAfter;
  }

  /**
   * grpc-js credentials over this provider. (grpc-js 1.14 declares the parameters as (ca, identity) but passes
   * the first to the identity slot; the call below follows the implementation, checked by test/e2e/tls.test.ts.)
   */
  credentials(): grpc.ServerCredentials {
    return grpc.experimental.createCertificateProviderServerCredentials(
      this,
      this.mutual ? this : null,
      this.mutual,
    );
  }

  /** Re-reads the files; on success the new certificates serve new handshakes. Returns whether it took. */
  reload(reason: string): boolean {
    let next: Loaded;
    try {
      next = load(this.#files);
    } catch (e) {
      this.#log(
        { reason, err: (e as Error).message },
        "TLS reload failed; keeping the previous certificates",
      );
      return false;
    }
    this.#current = next;
    for (const l of this.#identity) l(this.#identityUpdate());
    for (const l of this.#ca) l(this.#caUpdate());
    this.#log({ reason, notAfter: next.notAfter }, "TLS certificates reloaded");
    return true;
  }

  /** Polls the files every `ms` and reloads when one changed (size or modification time). */
  watch(ms: number): void {
    clearInterval(this.#timer);
    this.#timer = setInterval(() => {
      const paths = [
        this.#files.cert,
        this.#files.key,
        ...(this.#files.clientCa ? [this.#files.clientCa] : []),
      ];
      const stamp = stampOf(paths);
      // A failed reload leaves #current's stamp, so a half-written file is retried on the next tick.
      if (stamp !== this.#current.stamp) this.reload("file changed");
    }, ms);
  }

  /** Stops watching. */
  close(): void {
    clearInterval(this.#timer);
  }

  #identityUpdate(): grpc.experimental.IdentityCertificateUpdate {
    return { certificate: this.#current.certificate, privateKey: this.#current.privateKey };
  }

  #caUpdate(): grpc.experimental.CaCertificateUpdate | null {
    return this.#current.ca ? { caCertificate: this.#current.ca } : null;
  }

  /** @inheritdoc */
  addCaCertificateListener(listener: CaListener): void {
    this.#ca.add(listener);
    // Asynchronously: grpc-js registers its context watcher only after adding the provider's listener.
    queueMicrotask(() => this.#ca.has(listener) && listener(this.#caUpdate()));
  }

  /** @inheritdoc */
  removeCaCertificateListener(listener: CaListener): void {
    this.#ca.delete(listener);
  }

  /** @inheritdoc */
  addIdentityCertificateListener(listener: IdentityListener): void {
    this.#identity.add(listener);
    queueMicrotask(() => this.#identity.has(listener) && listener(this.#identityUpdate()));
  }

  /** @inheritdoc */
  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.#identity.delete(listener);
  }
}
