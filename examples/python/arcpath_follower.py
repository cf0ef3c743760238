"""A tiny follower for arcpath paths: the pose at a distance or a time along a path, and the splice of a
stream's partial update. Works on generated protobuf Segment messages (arcpath_pb2.Segment) or on anything with
the same attribute names. The formulas are docs/segments.md's; standard library only.
"""

import math
from dataclasses import dataclass


@dataclass
class Pose:
    """A position (tiles) and heading (radians) in the map frame."""
    x: float
    y: float
    heading: float


@dataclass
class Seg:
    """One segment as the follower keeps it (a plain copy of the wire Segment's fields it needs)."""
    start: Pose
    length: float
    curvature: float
    direction: int
    start_speed: float = 0.0
    end_speed: float = 0.0
    duration: float = 0.0


def from_wire(segments):
    """Copies wire Segments (arcpath_pb2.Segment) into follower segments."""
    return [Seg(Pose(s.start.x, s.start.y, s.start.heading), s.length, s.curvature, s.direction,
                s.start_speed, s.end_speed, s.duration) for s in segments]


def _sinc(z):
    """sin(z)/z, by its series near 0 (the server's numerically robust form)."""
    return 1 - z * z / 6 + z ** 4 / 120 if abs(z) < 1e-4 else math.sin(z) / z


def pose_on(seg, u):
    """The pose u along one segment: heading h0 + d*k*u, the chord form of the closed-form integral."""
    s = seg.direction * seg.curvature * u
    chord = seg.direction * u * _sinc(s / 2)
    mid = seg.start.heading + s / 2
    return Pose(seg.start.x + chord * math.cos(mid), seg.start.y + chord * math.sin(mid), seg.start.heading + s)


def end_of(seg):
    """The pose at the end of a segment."""
    return pose_on(seg, seg.length)


def length_of(path):
    """Total length of a path (tiles)."""
    return sum(s.length for s in path)


def duration_of(path):
    """Total seconds to drive a timed path (0 when it has no speed profile)."""
    return sum(s.duration for s in path)


def pose_at_distance(path, distance):
    """The pose `distance` tiles along a path (clamped to its ends)."""
    for seg in path:
        if distance <= seg.length:
            return pose_on(seg, max(0.0, distance))
        distance -= seg.length
    return end_of(path[-1])


def _distance_in(seg, tau):
    """Distance along a timed segment tau seconds after its start: the speed is linear in time."""
    tau = min(max(tau, 0.0), seg.duration)
    return seg.start_speed * tau + (seg.end_speed - seg.start_speed) * tau * tau / (2 * seg.duration)


def pose_at_time(path, t):
    """Where a unit driving a timed path by the clock is, t seconds after its start (clamped to the end)."""
    for seg in path:
        if t <= seg.duration:
            return pose_on(seg, _distance_in(seg, t))
        t -= seg.duration
    return end_of(path[-1])


def cut(seg, u):
    """The first u of a segment as a segment of its own. A timed segment keeps its constant acceleration: the
    speed at u is sqrt(v0^2 + (v1^2 - v0^2) * u / L), and the duration follows from the timing identity."""
    piece = Seg(seg.start, u, seg.curvature, seg.direction, seg.start_speed, seg.end_speed, seg.duration)
    if seg.duration > 0 and seg.length > 0:
        v0, v1 = seg.start_speed, seg.end_speed
        vu = math.sqrt(max(0.0, v0 * v0 + (v1 * v1 - v0 * v0) * u / seg.length))
        piece.end_speed = vu
        piece.duration = 2 * u / (v0 + vu) if v0 + vu > 0 else 0.0
    return piece


def splice(path, replace_from_segment, replace_from_distance, new_segments):
    """The path after a stream update (PathUpdate): the update's segments whole when replace_from_segment is -1,
    else the segments before replace_from_segment, that one cut at replace_from_distance (none of it at 0), then
    the update's segments."""
    new = list(new_segments)
    if replace_from_segment < 0:
        return new
    if replace_from_segment >= len(path):
        raise ValueError("replace_from_segment %d beyond a path of %d segments" % (replace_from_segment, len(path)))
    kept = path[:replace_from_segment]
    if replace_from_distance > 0:
        kept.append(cut(path[replace_from_segment], replace_from_distance))
    return kept + new


def gap(a, b):
    """Distance between two poses: the larger of the position gap and the heading gap (modulo 2 pi)."""
    dh = abs(math.atan2(math.sin(a.heading - b.heading), math.cos(a.heading - b.heading)))
    return max(math.hypot(a.x - b.x, a.y - b.y), dh)


def worst_join(path):
    """The largest gap between a segment's end and the next one's start (0 for a well-joined path)."""
    return max([gap(end_of(path[i - 1]), path[i].start) for i in range(1, len(path))], default=0.0)
