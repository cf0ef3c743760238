"""arcpath from Python: PutMap -> Plan (a tank) -> follow in time -> Stream with Progress and a spliced update.

Usage: python3 example.py [HOST:PORT]   (stubs generated as examples/python/run.sh does; see examples/README.md)
Prints "OK ..." as its last line when the followed paths end at the goal and the splice joins exactly.
"""

import math
import queue
import sys
import threading

import grpc

from arcpath.v1 import arcpath_pb2 as pb
from arcpath.v1 import arcpath_pb2_grpc as pb_grpc

import arcpath_follower as follower

MAP_ID = "example-python"


def box_map(width, height):
    """A Moving AI map: open floor inside a wall border."""
    rows = ["".join("@" if x in (0, width - 1) or y in (0, height - 1) else "." for x in range(width))
            for y in range(height)]
    return "type octile\nheight %d\nwidth %d\nmap\n%s\n" % (height, width, "\n".join(rows))


def main(address):
    channel = grpc.insecure_channel(address)
    # A server started a moment ago (`npm start &`) may not listen yet: wait for it rather than fail at once.
    try:
        grpc.channel_ready_future(channel).result(timeout=30)
    except grpc.FutureTimeoutError:
        return fail("no arcpath server at %s after 30 s (start one: npm start)" % address)
    stub = pb_grpc.PathfinderStub(channel)

    # 1. Upload a map (40 x 20 tiles, walls around).
    info = stub.PutMap(pb.PutMapRequest(id=MAP_ID, movingai=box_map(40, 20)))
    print("map %s version %s, %dx%d" % (info.id, info.version, info.width, info.height))

    # 2. Plan for a tank (circle footprint r 0.9, turning radius 1.5, speed limits) with the HYBRID planner.
    start = pb.Pose(x=3.5, y=10.5, heading=0.0)
    goal = pb.Goal(x=36.5, y=10.5, tolerance=0.5)
    request = pb.PlanRequest(map=pb.MapRef(id=MAP_ID), unit=pb.UnitProfile(name="tank"), start=start, goal=goal,
                             planner=pb.PLANNER_HYBRID)
    plan = stub.Plan(request, timeout=60)
    if plan.status != pb.PLAN_STATUS_FOUND:
        return fail("plan status %s: %s" % (pb.PlanStatus.Name(plan.status), plan.message))
    path = follower.from_wire(plan.segments)
    print("plan: %d segments, length %.3f, %.3f s, cost %.3f" % (len(path), plan.length, plan.duration, plan.cost))

    # 3. Follow it by the clock: where the tank is every second, and at the end.
    total = follower.duration_of(path)
    for t in range(int(total) + 1):
        p = follower.pose_at_time(path, t)
        print("  t=%2d s  x=%7.3f y=%7.3f heading=%6.3f" % (t, p.x, p.y, p.heading))
    end = follower.pose_at_time(path, total)
    miss = math.hypot(end.x - goal.x, end.y - goal.y)
    if miss > goal.tolerance + 1e-6:
        return fail("followed plan ends %.6f from the goal" % miss)

    # 4. Stream: the same request; then report progress, block the path with a wall and apply the update.
    outgoing = queue.Queue()
    outgoing.put(pb.StreamRequest(plan=request))

    def requests():
        while True:
            message = outgoing.get()
            if message is None:
                return
            yield message

    updates = stub.Stream(requests(), timeout=120)
    current = []

    def next_update():
        u = next(updates)
        print("update %d %s: replace_from_segment %d at %.3f, %d segments" % (
            u.sequence, pb.UpdateKind.Name(u.kind), u.replace_from_segment, u.replace_from_distance,
            len(u.plan.segments)))
        return u

    kinds = set()
    while not {pb.UPDATE_KIND_INITIAL, pb.UPDATE_KIND_REFINED} <= kinds:
        u = next_update()
        kinds.add(u.kind)
        current = follower.splice(current, u.replace_from_segment, u.replace_from_distance,
                                  follower.from_wire(u.plan.segments))
    # The tank has driven 6 tiles: say where it is, then wall off the straight way (a door stays at the bottom).
    here = follower.pose_at_distance(current, 6.0)
    outgoing.put(pb.StreamRequest(progress=pb.Progress(distance=6.0, pose=pb.Pose(x=here.x, y=here.y,
                                                                                  heading=here.heading))))
    threading.Event().wait(0.1)
    stub.PatchMap(pb.PatchMapRequest(map=pb.MapRef(id=MAP_ID),
                                     edits=[pb.TileEdit(x=22, y=1, width=1, height=15, tile="@")]))
    while True:
        u = next_update()
        if u.kind == pb.UPDATE_KIND_REPLANNED:
            break
    outgoing.put(None)  # half-close our side; the server ends the stream
    updates.cancel()
    if u.replace_from_segment < 0:
        return fail("the replanned update holds a whole path, not a splice")
    before = current
    current = follower.splice(current, u.replace_from_segment, u.replace_from_distance,
                              follower.from_wire(u.plan.segments))
    # Exact splice: the kept part ends where the replacement starts, and the whole path still joins.
    kept_end = follower.pose_on(before[u.replace_from_segment], u.replace_from_distance)
    splice_gap = follower.gap(kept_end, follower.from_wire(u.plan.segments[:1])[0].start)
    joins = follower.worst_join(current)
    final = follower.pose_at_time(current, follower.duration_of(current))
    miss2 = math.hypot(final.x - goal.x, final.y - goal.y)
    print("spliced path: %d segments, %.3f s; splice gap %.3g, worst join %.3g" % (
        len(current), follower.duration_of(current), splice_gap, joins))
    if splice_gap > 1e-9 or joins > 1e-6:
        return fail("the splice does not join: gap %.3g, worst join %.3g" % (splice_gap, joins))
    if miss2 > goal.tolerance + 1e-6:
        return fail("followed spliced path ends %.6f from the goal" % miss2)
    print("OK python: followed plan ends %.4f and spliced stream path %.4f from the goal (tolerance %.1f); "
          "splice gap %.1e" % (miss, miss2, goal.tolerance, splice_gap))
    return 0


def fail(message):
    print("FAIL python: " + message)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:50051"))
