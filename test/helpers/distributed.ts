/**
 * Helpers of the distributed-mode tests: a bordered open field, a Stream call read update by update, and a
 * replica's open-stream count from its Prometheus metrics (`--metrics-listen`).
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import { walledRoomText } from "./movingai.ts";
import type { TestServer } from "./server.ts";

/** An open w x h field with a border, as MovingAI text. */
export function field(w = 40, h = 20): string {
  return walledRoomText(w, h);
}

/** A decoded stream update. */
// deno-lint-ignore no-explicit-any
export type Update = any;

/** An open Stream call. */
export interface OpenStream {
  /** The call. */
  stream: grpc.ClientDuplexStream<unknown, Update>;
  /** How the stream ended (a status name such as "OK" or "UNAVAILABLE"), or null while open. */
  readonly closed: string | null;
  /** The error it ended with, if any. */
  readonly error: grpc.ServiceError | null;
  /** The next update and when it came; null after `ms` (30 s unless told) or once the stream ended. */
  next(ms?: number): Promise<{ u: Update; at: number } | null>;
}

/** Opens a stream on `client` (a Pathfinder client) and sends `first` as its plan. */
// deno-lint-ignore no-explicit-any
export function openStream(client: any, first: object): OpenStream {
  const s = client.Stream();
  const queue: { u: Update; at: number }[] = [];
  const waiters: ((x: { u: Update; at: number } | null) => void)[] = [];
  let closed: string | null = null;
  let error: grpc.ServiceError | null = null;
  const done = (e?: grpc.ServiceError) => {
    if (e) error ??= e;
    closed ??= e ? grpc.status[e.code] : "OK";
    for (const w of waiters.splice(0)) w(null);
  };
  s.on("data", (u: Update) => {
    const x = { u, at: performance.now() };
    const w = waiters.shift();
    if (w) w(x);
    else queue.push(x);
  });
  s.on("error", (e: grpc.ServiceError) => done(e));
  s.on("end", () => done());
  s.write({ plan: first });
  return {
    stream: s,
    get closed() {
      return closed;
    },
    get error() {
      return error;
    },
    next(ms = 30_000) {
      if (queue.length > 0) return Promise.resolve(queue.shift()!);
      if (closed !== null) return Promise.resolve(null);
      return new Promise((res) => {
        const waiter = (x: { u: Update; at: number } | null) => {
          clearTimeout(timer);
          res(x);
        };
        // A wait that times out leaves the queue: otherwise the next update would go to it and be lost.
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          res(null);
        }, ms);
        waiters.push(waiter);
      });
    },
  };
}

/** The port of a replica's metrics listener (started with `--metrics-listen 127.0.0.1:0`). */
export function metricsPort(srv: TestServer): number {
  const m = /ARCPATH_METRICS_READY port=(\d+)/.exec(srv.output());
  if (!m) throw new Error("the replica was not started with --metrics-listen");
  return Number(m[1]);
}

/** How many Stream calls a replica has open (its arcpath_streams_open gauge). */
export async function streamsOpen(srv: TestServer): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort(srv)}/metrics`)).text();
  const m = /^arcpath_streams_open(?:\{[^}]*\})? (\d+)/m.exec(text);
  if (!m) throw new Error("no arcpath_streams_open in the metrics");
  return Number(m[1]);
}
