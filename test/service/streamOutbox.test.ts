/**
 * The stream outbox (src/service/streamOutbox.ts): updates numbered in order; while the transport is full, the
 * latest path and the latest status are held (earlier ones dropped) and sent on drain, the path whole with the
 * stream's path at that time; a client that reads nothing for the stall limit ends the stream.
 */
import { describe, expect, test } from "vitest";
import type { PlanResult } from "../../src/service/planService.ts";
import { type StreamUpdate, UpdateOutbox } from "../../src/service/streamOutbox.ts";
import type { ServiceError } from "../../src/service/errors.ts";

/** A stand-in path result: the outbox only passes it through. */
const result = (tag: string) => ({ tag }) as unknown as PlanResult;

describe("UpdateOutbox", () => {
  test("sends in order while the client reads; holds the latest path and status while it does not", () => {
    const sent: StreamUpdate[] = [];
    let full = false;
    let current = result("p1");
    const box = new UpdateOutbox(
      (u) => {
        sent.push(u);
        return !full;
      },
      60_000,
      () => current,
      () => {},
    );
    box.send("INITIAL", current, "", "first");
    full = true;
    box.send("REPLANNED", result("p2"), "", "fills the buffer", 3, 0.5);
    box.send("REPLANNED", result("p3"), "", "held, then replaced");
    box.send("STATUS", null, "error", "held status 1");
    box.send("GOAL_CHANGED", result("p4"), "", "latest held path");
    box.send("STATUS", null, "error", "latest held status");
    expect(sent.map((u) => u.sequence)).toEqual([1, 2]);
    expect(sent[1].replaceFromSegment).toBe(3);
    full = false;
    current = result("p5");
    box.stop(); // a stopped outbox does not drain
    box.drain();
    expect(sent.length).toBe(2);
  });

  test("drain sends the held path whole with the current path, then the held status", () => {
    const sent: StreamUpdate[] = [];
    let full = true;
    let current = result("p1");
    const box = new UpdateOutbox(
      (u) => {
        sent.push(u);
        return !full;
      },
      60_000,
      () => current,
      () => {},
    );
    box.send("INITIAL", current, "", "fills the buffer");
    box.send("REPLANNED", result("p2"), "", "held", 4, 1);
    box.send("STATUS", null, "budget_exhausted", "held status");
    full = false;
    current = result("p3");
    box.drain();
    box.stop();
    expect(sent.map((u) => [u.sequence, u.kind, u.status, u.message])).toEqual([
      [1, "INITIAL", "", "fills the buffer"],
      [2, "REPLANNED", "", "held"],
      [3, "STATUS", "budget_exhausted", "held status"],
    ]);
    expect(sent[1].result).toBe(current);
    expect(sent[1].replaceFromSegment).toBe(-1);
    expect(sent[2].result).toBeNull();
  });

  test("unblock lets one final update through to a blocked client", () => {
    const sent: StreamUpdate[] = [];
    const box = new UpdateOutbox(
      (u) => {
        sent.push(u);
        return false;
      },
      60_000,
      () => null,
      () => {},
    );
    box.send("INITIAL", result("p1"), "", "fills the buffer");
    box.send("STATUS", null, "error", "held");
    box.unblock();
    box.send("STATUS", null, "shutdown", "final");
    box.stop();
    expect(sent.map((u) => u.status)).toEqual(["", "shutdown"]);
  });

  test("a client that reads nothing for the stall limit is dropped with RESOURCE_EXHAUSTED", async () => {
    const stalled = new Promise<ServiceError>((resolve) => {
      const box = new UpdateOutbox(() => false, 5, () => null, resolve);
      box.send("INITIAL", result("p1"), "", "fills the buffer");
    });
    const e = await stalled;
    expect(e.code).toBe("RESOURCE_EXHAUSTED");
    expect(e.message).toContain("--stream-stall-ms 5");
  }, 10_000);
});
