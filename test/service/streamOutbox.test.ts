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

/** An outbox over a recording transport, full while `t.full`; `t.current` stands for the stream's path. */
function recorded(full: boolean) {
  const t = { sent: [] as StreamUpdate[], full, current: result("p1") };
  const box = new UpdateOutbox(
    (u) => {
      t.sent.push(u);
      return !t.full;
    },
    60_000,
    () => t.current,
    () => {},
  );
  return { t, box };
}

describe("UpdateOutbox", () => {
  test("sends in order while the client reads; holds while it does not; a stopped outbox sends nothing", () => {
    const { t, box } = recorded(false);
    box.send("INITIAL", t.current, "", "first");
    t.full = true;
    box.send("REPLANNED", result("p2"), "", "fills the buffer", 3, 0.5);
    box.send("REPLANNED", result("p3"), "", "held, then replaced");
    box.send("STATUS", null, "error", "held status 1");
    box.send("GOAL_CHANGED", result("p4"), "", "latest held path");
    box.send("STATUS", null, "error", "latest held status");
    expect(t.sent.map((u) => u.sequence)).toEqual([1, 2]);
    expect(t.sent[1].replaceFromSegment).toBe(3);
    t.full = false;
    box.stop();
    box.drain();
    expect(t.sent.length).toBe(2);
  });

  test("drain sends the latest held path whole with the current path, then the latest held status", () => {
    const { t, box } = recorded(true);
    box.send("INITIAL", t.current, "", "fills the buffer");
    box.send("REPLANNED", result("p2"), "", "held, then replaced", 2, 0);
    box.send("STATUS", null, "error", "held status, then replaced");
    box.send("REPLANNED", result("p3"), "", "held", 4, 1);
    box.send("STATUS", null, "budget_exhausted", "held status");
    t.full = false;
    t.current = result("p5");
    box.drain();
    box.stop();
    expect(t.sent.map((u) => [u.sequence, u.kind, u.status, u.message])).toEqual([
      [1, "INITIAL", "", "fills the buffer"],
      [2, "REPLANNED", "", "held"],
      [3, "STATUS", "budget_exhausted", "held status"],
    ]);
    expect(t.sent[1].result).toBe(t.current);
    expect(t.sent[1].replaceFromSegment).toBe(-1);
    expect(t.sent[2].result).toBeNull();
  });

  test("unblock lets one final update through to a blocked client", () => {
    const { t, box } = recorded(true);
    box.send("INITIAL", t.current, "", "fills the buffer");
    box.send("STATUS", null, "error", "held");
    box.unblock();
    box.send("STATUS", null, "shutdown", "final");
    box.stop();
    expect(t.sent.map((u) => u.status)).toEqual(["", "shutdown"]);
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
