// A tiny follower for arcpath paths: the pose at a distance or a time along a path, and the splice of a
// stream's partial update. The formulas are docs/segments.md's; header-only, standard library only.
#pragma once

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace follower {

// A position (tiles) and heading (radians) in the map frame.
struct Pose {
  double x = 0, y = 0, heading = 0;
};

// One segment as the follower keeps it (a plain copy of the wire Segment's fields it needs).
struct Seg {
  Pose start;
  double length = 0, curvature = 0;
  int direction = 1;
  double start_speed = 0, end_speed = 0, duration = 0;
};

using Path = std::vector<Seg>;

// sin(z)/z, by its series near 0 (the server's numerically robust form).
inline double sinc(double z) {
  return std::abs(z) < 1e-4 ? 1 - z * z / 6 + z * z * z * z / 120 : std::sin(z) / z;
}

// The pose u along one segment: heading h0 + d*k*u, the chord form of the closed-form integral.
inline Pose pose_on(const Seg& s, double u) {
  const double sweep = s.direction * s.curvature * u;
  const double chord = s.direction * u * sinc(sweep / 2);
  const double mid = s.start.heading + sweep / 2;
  return {s.start.x + chord * std::cos(mid), s.start.y + chord * std::sin(mid), s.start.heading + sweep};
}

// The pose at the end of a segment.
inline Pose end_of(const Seg& s) { return pose_on(s, s.length); }

// Total seconds to drive a timed path (0 when it has no speed profile).
inline double duration_of(const Path& path) {
  double t = 0;
  for (const Seg& s : path) t += s.duration;
  return t;
}

// The pose `distance` tiles along a path (clamped to its ends).
inline Pose pose_at_distance(const Path& path, double distance) {
  for (const Seg& s : path) {
    if (distance <= s.length) return pose_on(s, std::max(0.0, distance));
    distance -= s.length;
  }
  return end_of(path.back());
}

// Where a unit driving a timed path by the clock is, t seconds after its start: within a segment the speed is
// linear in time, so the distance is v0*tau + (v1 - v0)*tau^2/(2T).
inline Pose pose_at_time(const Path& path, double t) {
  for (const Seg& s : path) {
    if (t <= s.duration) {
      const double tau = std::max(0.0, t);
      return pose_on(s, s.start_speed * tau + (s.end_speed - s.start_speed) * tau * tau / (2 * s.duration));
    }
    t -= s.duration;
  }
  return end_of(path.back());
}

// The first u of a segment as a segment of its own. A timed segment keeps its constant acceleration: the speed
// at u is sqrt(v0^2 + (v1^2 - v0^2) * u / L), and the duration follows from the timing identity.
inline Seg cut(const Seg& s, double u) {
  Seg piece = s;
  piece.length = u;
  if (s.duration > 0 && s.length > 0) {
    const double v0 = s.start_speed, v1 = s.end_speed;
    const double vu = std::sqrt(std::max(0.0, v0 * v0 + (v1 * v1 - v0 * v0) * u / s.length));
    piece.end_speed = vu;
    piece.duration = v0 + vu > 0 ? 2 * u / (v0 + vu) : 0;
  }
  return piece;
}

// The path after a stream update (PathUpdate): the update's segments whole when replace_from_segment is -1,
// else the segments before replace_from_segment, that one cut at replace_from_distance (none of it at 0), then
// the update's segments.
inline Path splice(const Path& path, int replace_from_segment, double replace_from_distance, const Path& fresh) {
  if (replace_from_segment < 0) return fresh;
  const size_t i = static_cast<size_t>(replace_from_segment);
  if (i >= path.size()) {
    throw std::out_of_range("replace_from_segment " + std::to_string(i) + " beyond a path of " +
                            std::to_string(path.size()) + " segments");
  }
  Path out(path.begin(), path.begin() + static_cast<long>(i));
  if (replace_from_distance > 0) out.push_back(cut(path[i], replace_from_distance));
  out.insert(out.end(), fresh.begin(), fresh.end());
  return out;
}

// The distance between two poses: the larger of the position gap and the heading gap (modulo 2 pi).
inline double gap(const Pose& a, const Pose& b) {
  const double dh = std::abs(std::atan2(std::sin(a.heading - b.heading), std::cos(a.heading - b.heading)));
  return std::max(std::hypot(a.x - b.x, a.y - b.y), dh);
}

// The largest gap between a segment's end and the next one's start (0 for a joined path).
inline double worst_join(const Path& path) {
  double worst = 0;
  for (size_t i = 1; i < path.size(); i++) worst = std::max(worst, gap(end_of(path[i - 1]), path[i].start));
  return worst;
}

}  // namespace follower
