#!/usr/bin/python3
"""Independent segment follower for arcpath paths (plain Python 3, standard library only).

Reads a JSON list of paths (from a file named on the command line, or stdin). Each path has "start",
"segments" (or "updates": a stream's PathUpdate messages, applied as a client does: whole paths, or the rest
replaced from replace_from_segment at replace_from_distance) and optionally "goal" (and "ignoreGoalHeading"); each segment has the proto JSON fields kind,
start {x, y, heading}, end, length, curvature, direction. For every segment it integrates the contract itself:

    heading(u) = h0 + d*k*u,  x' = d*cos(heading),  y' = d*sin(heading)
    k == 0:  x = x0 + d*u*cos(h0),            y = y0 + d*u*sin(h0)
    k != 0:  x = x0 + (sin(h0 + d*k*u) - sin(h0))/k,  y = y0 - (cos(h0 + d*k*u) - cos(h0))/k

and checks: the first segment starts at the path's start, consecutive segments join, each integrated end
equals the stated end, and the last end equals the goal (positions and headings within 1e-6, headings
compared modulo 2*pi). A path may say "turnInPlace": true (a unit with turning radius 0: headings may jump
between segments, positions must still join) and "goalTolerance": t (the end must be within t of the goal
position; with "goal.heading" absent or "ignoreGoalHeading", the heading is not compared).

Timed paths (segments with start_speed, end_speed, duration) are also followed in time, as a client driving
the path by the clock does: within a segment the speed is linear in time, v(tau) = v0 + (v1 - v0) * tau / T,
so the distance along it is u(tau) = v0*tau + (v1 - v0)*tau^2 / (2T). Checks: every segment of positive length
has a duration, speeds are >= 0, the timing identity length = (v0 + v1) / 2 * T holds within 1e-6 relative
(so following in time ends every segment exactly at its end), the speed is continuous across joints without a
cusp, and with "maxSpeed" no speed exceeds it and no two poses sampled in time are farther apart than maxSpeed
times the time between them. "timeSamples": [{t, x, y, heading}] (the golden vectors) are poses the path must
be at, at those times from its start. Prints "N passed, M failed" and exits 1 if any path failed.
"""

import json
import math
import sys

TOLERANCE = 1e-6


def heading_gap(a, b):
    """Absolute difference of two headings modulo 2*pi, in [0, pi]."""
    d = math.fmod(a - b, 2 * math.pi)
    if d < 0:
        d += 2 * math.pi
    return min(d, 2 * math.pi - d)


def pose_gap(p, q):
    return max(math.hypot(p["x"] - q["x"], p["y"] - q["y"]), heading_gap(p["heading"], q["heading"]))


def integrate(seg):
    """The pose at the end of a segment, from its start, length, curvature and direction."""
    x0, y0, h0 = seg["start"].get("x", 0.0), seg["start"].get("y", 0.0), seg["start"].get("heading", 0.0)
    u = float(seg.get("length", 0.0))
    k = float(seg.get("curvature", 0.0))
    d = int(seg.get("direction", 0))
    if k == 0:
        return {"x": x0 + d * u * math.cos(h0), "y": y0 + d * u * math.sin(h0), "heading": h0}
    h1 = h0 + d * k * u
    return {"x": x0 + (math.sin(h1) - math.sin(h0)) / k, "y": y0 - (math.cos(h1) - math.cos(h0)) / k, "heading": h1}


def timing(seg):
    """(start_speed, end_speed, duration) of a segment; zeros when it has no speed profile."""
    return float(seg.get("start_speed", 0.0)), float(seg.get("end_speed", 0.0)), float(seg.get("duration", 0.0))


def distance_at(seg, tau):
    """Distance along a timed segment tau seconds after its start (speed linear in time)."""
    v0, v1, T = timing(seg)
    tau = min(max(tau, 0.0), T)
    return v0 * tau + (v1 - v0) * tau * tau / (2 * T)


def pose_along(seg, u):
    """The pose u along a segment (the contract's closed form)."""
    piece = dict(seg)
    piece["start"] = normalize_pose(seg.get("start", {}))
    piece["length"] = u
    return integrate(piece)


def pose_at_time(segments, t):
    """Where a unit following a timed path by the clock is, t seconds after its start."""
    for seg in segments:
        T = timing(seg)[2]
        if t <= T:
            return pose_along(seg, distance_at(seg, t))
        t -= T
    last = segments[-1]
    return pose_along(last, float(last.get("length", 0.0)))


def check_timing(path, segments):
    """Problems of a timed path followed in time (empty for an untimed one)."""
    problems = []
    if not any(timing(seg)[2] > 0 for seg in segments):
        return problems
    max_speed = path.get("maxSpeed")
    previous = None
    for i, seg in enumerate(segments):
        v0, v1, T = timing(seg)
        L = float(seg.get("length", 0.0))
        if L > 0 and not T > 0:
            problems.append("segment %d: no duration in a timed path" % i)
            continue
        if v0 < 0 or v1 < 0:
            problems.append("segment %d: negative speed" % i)
        if max_speed is not None and max(v0, v1) > max_speed * (1 + 1e-9):
            problems.append("segment %d: speed %.6g above max_speed %.6g" % (i, max(v0, v1), max_speed))
        if T > 0:
            gap = abs((v0 + v1) / 2 * T - L)
            if gap > TOLERANCE * max(1.0, L):
                problems.append("segment %d: length %.9g but (v0 + v1) / 2 * duration = %.9g" % (i, L, (v0 + v1) / 2 * T))
        if previous is not None and previous.get("direction") == seg.get("direction"):
            if abs(timing(previous)[1] - v0) > 1e-6 * max(1.0, v0):
                problems.append("segment %d: speed jumps from %.9g to %.9g at the joint" % (i, timing(previous)[1], v0))
        previous = seg
    if problems:
        return problems
    # Follow by the clock: poses every 0.05 s, never faster than max_speed between two of them.
    total = sum(timing(seg)[2] for seg in segments)
    steps = max(1, int(math.ceil(total / 0.05)))
    last = pose_at_time(segments, 0.0)
    for j in range(1, steps + 1):
        t = total * j / steps
        here = pose_at_time(segments, t)
        if max_speed is not None:
            moved = math.hypot(here["x"] - last["x"], here["y"] - last["y"])
            if moved > max_speed * (total / steps) * (1 + 1e-6) + TOLERANCE:
                problems.append("at t=%.3f: moved %.6g in %.3g s, faster than max_speed" % (t, moved, total / steps))
                break
        last = here
    end = pose_along(segments[-1], float(segments[-1].get("length", 0.0)))
    if pose_gap(last, end) > TOLERANCE:
        problems.append("following in time ends %.3g from the path's end" % pose_gap(last, end))
    for sample in path.get("timeSamples", []):
        here = pose_at_time(segments, float(sample["t"]))
        if pose_gap(here, normalize_pose(sample)) > TOLERANCE:
            problems.append("at t=%s: pose differs from the sample by %.3g" % (sample["t"], pose_gap(here, normalize_pose(sample))))
    return problems


def normalize_pose(p):
    return {"x": float(p.get("x", 0.0)), "y": float(p.get("y", 0.0)), "heading": float(p.get("heading", 0.0))}


def check_path(path):
    """Returns a list of problems (empty when the path is fine)."""
    problems = []
    segments = path.get("segments", [])
    previous_end = normalize_pose(path["start"]) if "start" in path else None
    for i, raw in enumerate(segments):
        seg = dict(raw)
        seg["start"] = normalize_pose(raw.get("start", {}))
        kind = raw.get("kind")
        direction = raw.get("direction")
        if direction not in (1, -1):
            problems.append("segment %d: direction %r is not +1 or -1" % (i, direction))
            continue
        if not float(raw.get("length", 0.0)) >= 0:
            problems.append("segment %d: negative length" % i)
        is_line = kind in ("SEGMENT_KIND_LINE", "LINE", 1)
        is_arc = kind in ("SEGMENT_KIND_ARC", "ARC", 2)
        if not (is_line or is_arc) or (is_line != (float(raw.get("curvature", 0.0)) == 0)):
            problems.append("segment %d: kind %r does not match curvature %r" % (i, kind, raw.get("curvature")))
        if previous_end is not None:
            if path.get("turnInPlace"):
                gap = math.hypot(previous_end["x"] - seg["start"]["x"], previous_end["y"] - seg["start"]["y"])
            else:
                gap = pose_gap(previous_end, seg["start"])
            if gap > TOLERANCE:
                problems.append("segment %d: does not join the previous end (gap %.3g)" % (i, gap))
        end = integrate(seg)
        stated = normalize_pose(raw.get("end", {}))
        if pose_gap(end, stated) > TOLERANCE:
            problems.append("segment %d: integrated end differs from stated end by %.3g" % (i, pose_gap(end, stated)))
        previous_end = end
    if not problems:
        problems.extend(check_timing(path, segments))
    goal = path.get("goal")
    if goal is not None and previous_end is not None:
        has_heading = "heading" in goal and not path.get("ignoreGoalHeading")
        goal = normalize_pose(goal)
        position_gap = math.hypot(previous_end["x"] - goal["x"], previous_end["y"] - goal["y"])
        allowed = TOLERANCE + float(path.get("goalTolerance", 0.0))
        gap = max(position_gap - allowed + TOLERANCE, heading_gap(previous_end["heading"], goal["heading"]) if has_heading else 0.0)
        if gap > TOLERANCE:
            problems.append("path end differs from goal by %.3g" % gap)
    return problems


def cut(seg, u):
    """The first u of a segment as a segment of its own (the contract's closed form gives its end); a timed
    segment keeps its constant acceleration: the speed at u is sqrt(v0^2 + (v1^2 - v0^2) * u / L)."""
    piece = dict(seg)
    L = float(seg.get("length", 0.0))
    piece["length"] = u
    piece["start"] = normalize_pose(seg.get("start", {}))
    piece["end"] = integrate(piece)
    v0, v1, T = timing(seg)
    if T > 0 and L > 0:
        vu = math.sqrt(max(0.0, v0 * v0 + (v1 * v1 - v0 * v0) * u / L))
        piece["end_speed"] = vu
        piece["duration"] = 2 * u / (v0 + vu) if v0 + vu > 0 else 0.0
    return piece


def apply_updates(updates):
    """A stream client's path after each update: whole (replace_from_segment -1), or the segments before
    replace_from_segment, that segment cut at replace_from_distance (none of it at 0), then the update's."""
    path = []
    for u in updates:
        plan = u.get("plan") or {}
        new = plan.get("segments", [])
        index = int(u.get("replace_from_segment", -1))
        if index < 0:
            path = list(new)
            continue
        at = float(u.get("replace_from_distance", 0.0))
        # index == len(path) at distance 0 appends (a stream's rest after a PLAN_STATUS_PARTIAL prefix).
        if index > len(path) or (index == len(path) and at > 0):
            raise ValueError("replace_from_segment %d beyond a path of %d segments" % (index, len(path)))
        path = path[:index] + ([cut(path[index], at)] if at > 0 else []) + list(new)
    return path


def main(argv):
    text = open(argv[1]).read() if len(argv) > 1 and argv[1] != "-" else sys.stdin.read()
    paths = json.loads(text)
    # A path may be given as a stream's updates instead of segments: the client's path after applying them.
    for path in paths:
        if "updates" in path:
            path["segments"] = apply_updates(path["updates"])
    passed = failed = 0
    for index, path in enumerate(paths):
        problems = check_path(path)
        if problems:
            failed += 1
            for problem in problems:
                print("path %d (%s): %s" % (index, path.get("name", "?"), problem), file=sys.stderr)
        else:
            passed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
