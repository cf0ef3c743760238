/**
 * StreamWatch, the live viewer's view of open streams: partial updates spliced as a client splices them
 * (segments before replace_from_segment, the first replace_from_distance of that one, then the new ones), each
 * tenant's page told only of its own streams, a page that subscribes late told the current state, closing.
 */
import { describe, expect, test } from "vitest";
import { lineSegment } from "../../src/geometry/segment.ts";
import type { Segment } from "../../src/geometry/types.ts";
import type { StreamUpdate } from "../../src/service/pathStream.ts";
import { StreamWatch, type WatchEvent } from "../../src/server/streamWatch.ts";

/** A straight path of `n` segments of length 2 along +x from (x, 1). */
function line(x: number, n: number): Segment[] {
  const out: Segment[] = [];
  for (let i = 0; i < n; i++) out.push(lineSegment({ x: x + 2 * i, y: 1, heading: 0 }, 2));
  return out;
}

/** An update carrying `segs` (the parts of PlanResult the watch reads). */
function update(seq: number, segs: Segment[], from = -1, distance = 0): StreamUpdate {
  return {
    sequence: seq,
    kind: from < 0 ? "INITIAL" : "REPLANNED",
    result: {
      outcome: { segments: segs, status: "found" },
      mapVersion: { id: "acme~yard" },
      unit: { footprint: { radius: 0.5, width: 0, length: 0 } },
    },
    status: "",
    message: "",
    replaceFromSegment: from,
    replaceFromDistance: distance,
  } as unknown as StreamUpdate;
}

describe("StreamWatch", () => {
  test("a partial update keeps the path before the splice point and the lead's piece", () => {
    const w = new StreamWatch();
    const seen: WatchEvent[] = [];
    w.subscribe("acme", (e) => seen.push(e));
    const id = w.opened("acme");
    w.updated(id, update(1, line(0, 3))); // 0..6
    w.updated(id, update(2, line(3, 2), 1, 1)); // keep seg 0 and 1 tile of seg 1, then 3..7
    const last = seen.at(-1)!;
    expect(last.type).toBe("stream");
    if (last.type !== "stream") return;
    expect(last.map).toBe("yard");
    expect(last.drawing.segmentCount).toBe(4);
    expect(last.drawing.length).toBeCloseTo(2 + 1 + 4, 9);
    expect(last.drawing.segments[1].points).toEqual([2, 1, 3, 1]);
  });

  test("only the stream's tenant is told; a late page gets the current state; closing is told", () => {
    const w = new StreamWatch();
    const other: WatchEvent[] = [];
    w.subscribe("bob", (e) => other.push(e));
    const id = w.opened("acme");
    w.updated(id, update(1, line(0, 2)));
    const late: WatchEvent[] = [];
    w.subscribe("acme", (e) => late.push(e));
    expect(late.map((e) => e.type)).toEqual(["stream"]);
    w.closed(id);
    expect(late.at(-1)).toEqual({ type: "closed", id });
    expect(other).toEqual([]);
    expect(w.size).toBe(0);
  });
});
