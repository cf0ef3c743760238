/**
 * A bare HTTP/2 client for one gRPC streaming call that reads only when told to: it never sends a WINDOW_UPDATE
 * until `read()`, so the server's flow-control window runs out as a client's that stopped reading would (grpc-js
 * clients read eagerly, so they cannot show a slow reader). Only what the slow-reader tests need: one stream, no
 * trailers decoding (HPACK), SETTINGS and PING acknowledged.
 *
 * @module
 */
import * as net from "node:net";

const FRAME = { DATA: 0, HEADERS: 1, RST: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8 };

function frame(type: number, flags: number, stream: number, payload: Uint8Array): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}

/** HPACK "literal header field without indexing, new name" (no Huffman). */
function header(name: string, value: string): Buffer {
  const n = Buffer.from(name);
  const v = Buffer.from(value);
  if (n.length > 126 || v.length > 126) throw new Error("header too long for this client");
  return Buffer.concat([Buffer.from([0, n.length]), n, Buffer.from([v.length]), v]);
}

/** An open call. */
export interface RawCall {
  /** DATA bytes received so far on the call. */
  readonly received: number;
  /** True once the server reset the stream, ended it, or closed the connection. */
  readonly ended: boolean;
  /**
   * Opens the windows wide (on the first call) and returns the gRPC messages received within `ms` (all of them,
   * from the start): call it again to wait for more.
   */
  read(ms: number): Promise<Buffer[]>;
  /** Closes the connection. */
  close(): void;
}

/** Opens `path` on 127.0.0.1:`port` and sends `message` (serialized) as its first message. */
export async function openRawCall(port: number, path: string, message: Buffer): Promise<RawCall> {
  const sock = net.connect(port, "127.0.0.1");
  await new Promise<void>((res, rej) => {
    sock.once("connect", () => res());
    sock.once("error", rej);
  });
  sock.on("error", () => {});
  let inbox = Buffer.alloc(0);
  let data = Buffer.alloc(0);
  let received = 0;
  let ended = false;
  let opened = false;
  sock.on("close", () => (ended = true));
  sock.on("data", (chunk: Buffer) => {
    inbox = Buffer.concat([inbox, chunk]);
    while (inbox.length >= 9) {
      const len = inbox.readUIntBE(0, 3);
      if (inbox.length < 9 + len) break;
      const type = inbox[3];
      const flags = inbox[4];
      const payload = inbox.subarray(9, 9 + len);
      inbox = inbox.subarray(9 + len);
      if (type === FRAME.SETTINGS && !(flags & 1)) sock.write(frame(FRAME.SETTINGS, 1, 0, new Uint8Array()));
      else if (type === FRAME.PING && !(flags & 1)) sock.write(frame(FRAME.PING, 1, 0, payload));
      else if (type === FRAME.DATA) {
        received += len;
        data = Buffer.concat([data, payload]);
        if (flags & 1) ended = true;
      } else if (type === FRAME.HEADERS && flags & 1) ended = true;
      else if (type === FRAME.RST || type === FRAME.GOAWAY) ended = true;
    }
  });
  sock.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
  sock.write(frame(FRAME.SETTINGS, 0, 0, new Uint8Array()));
  const headers = Buffer.concat([
    header(":method", "POST"),
    header(":scheme", "http"),
    header(":path", path),
    header(":authority", `127.0.0.1:${port}`),
    header("content-type", "application/grpc"),
    header("te", "trailers"),
  ]);
  sock.write(frame(FRAME.HEADERS, 4, 1, headers));
  const msg = Buffer.alloc(5 + message.length);
  msg.writeUInt32BE(message.length, 1);
  message.copy(msg, 5);
  sock.write(frame(FRAME.DATA, 0, 1, msg));
  return {
    get received() {
      return received;
    },
    get ended() {
      return ended;
    },
    async read(ms) {
      if (!opened) {
        // Once only: the windows are then at their maximum (2^31 - 1), and a second increment would overflow.
        opened = true;
        const inc = Buffer.alloc(4);
        inc.writeUInt32BE(0x7fff0000);
        sock.write(frame(FRAME.WINDOW_UPDATE, 0, 0, inc));
        sock.write(frame(FRAME.WINDOW_UPDATE, 0, 1, inc));
      }
      await new Promise((r) => setTimeout(r, ms));
      const out: Buffer[] = [];
      let at = 0;
      while (at + 5 <= data.length) {
        const n = data.readUInt32BE(at + 1);
        if (at + 5 + n > data.length) break;
        out.push(data.subarray(at + 5, at + 5 + n));
        at += 5 + n;
      }
      return out;
    },
    close() {
      sock.destroy();
    },
  };
}
