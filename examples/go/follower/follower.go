// Package follower is a tiny follower for arcpath paths: the pose at a distance or a time along a path, and
// the splice of a stream's partial update. The formulas are docs/segments.md's; standard library only.
package follower

import (
	"fmt"
	"math"
)

// Pose is a position (tiles) and heading (radians) in the map frame.
type Pose struct{ X, Y, Heading float64 }

// Seg is one segment as the follower keeps it (a plain copy of the wire Segment's fields it needs).
type Seg struct {
	Start                          Pose
	Length, Curvature              float64
	Direction                      int32
	StartSpeed, EndSpeed, Duration float64
}

// sinc is sin(z)/z, by its series near 0 (the server's numerically robust form).
func sinc(z float64) float64 {
	if math.Abs(z) < 1e-4 {
		return 1 - z*z/6 + z*z*z*z/120
	}
	return math.Sin(z) / z
}

// PoseOn is the pose u along one segment: heading h0 + d*k*u, the chord form of the closed-form integral.
func PoseOn(s Seg, u float64) Pose {
	d := float64(s.Direction)
	sweep := d * s.Curvature * u
	chord := d * u * sinc(sweep/2)
	mid := s.Start.Heading + sweep/2
	return Pose{s.Start.X + chord*math.Cos(mid), s.Start.Y + chord*math.Sin(mid), s.Start.Heading + sweep}
}

// End is the pose at the end of a segment.
func End(s Seg) Pose { return PoseOn(s, s.Length) }

// Duration is the total seconds to drive a timed path (0 when it has no speed profile).
func Duration(path []Seg) float64 {
	t := 0.0
	for _, s := range path {
		t += s.Duration
	}
	return t
}

// PoseAtDistance is the pose `distance` tiles along a path (clamped to its ends).
func PoseAtDistance(path []Seg, distance float64) Pose {
	for _, s := range path {
		if distance <= s.Length {
			return PoseOn(s, math.Max(0, distance))
		}
		distance -= s.Length
	}
	return End(path[len(path)-1])
}

// PoseAtTime is where a unit driving a timed path by the clock is, t seconds after its start: within a
// segment the speed is linear in time, so the distance is v0*tau + (v1 - v0)*tau^2/(2T).
func PoseAtTime(path []Seg, t float64) Pose {
	for _, s := range path {
		if t <= s.Duration {
			tau := math.Max(0, t)
			return PoseOn(s, s.StartSpeed*tau+(s.EndSpeed-s.StartSpeed)*tau*tau/(2*s.Duration))
		}
		t -= s.Duration
	}
	return End(path[len(path)-1])
}

// Cut is the first u of a segment as a segment of its own. A timed segment keeps its constant acceleration:
// the speed at u is sqrt(v0^2 + (v1^2 - v0^2) * u / L), and the duration follows from the timing identity.
func Cut(s Seg, u float64) Seg {
	piece := s
	piece.Length = u
	if s.Duration > 0 && s.Length > 0 {
		v0, v1 := s.StartSpeed, s.EndSpeed
		vu := math.Sqrt(math.Max(0, v0*v0+(v1*v1-v0*v0)*u/s.Length))
		piece.EndSpeed = vu
		piece.Duration = 0
		if v0+vu > 0 {
			piece.Duration = 2 * u / (v0 + vu)
		}
	}
	return piece
}

// Splice is the path after a stream update (PathUpdate): the update's segments whole when
// replaceFromSegment is -1, else the segments before replaceFromSegment, that one cut at replaceFromDistance
// (none of it at 0), then the update's segments.
func Splice(path []Seg, replaceFromSegment int32, replaceFromDistance float64, fresh []Seg) ([]Seg, error) {
	if replaceFromSegment < 0 {
		return append([]Seg(nil), fresh...), nil
	}
	i := int(replaceFromSegment)
	if i >= len(path) {
		return nil, fmt.Errorf("replace_from_segment %d beyond a path of %d segments", i, len(path))
	}
	out := append([]Seg(nil), path[:i]...)
	if replaceFromDistance > 0 {
		out = append(out, Cut(path[i], replaceFromDistance))
	}
	return append(out, fresh...), nil
}

// Gap is the distance between two poses: the larger of the position gap and the heading gap (modulo 2 pi).
func Gap(a, b Pose) float64 {
	dh := math.Abs(math.Atan2(math.Sin(a.Heading-b.Heading), math.Cos(a.Heading-b.Heading)))
	return math.Max(math.Hypot(a.X-b.X, a.Y-b.Y), dh)
}

// WorstJoin is the largest gap between a segment's end and the next one's start (0 for a joined path).
func WorstJoin(path []Seg) float64 {
	worst := 0.0
	for i := 1; i < len(path); i++ {
		worst = math.Max(worst, Gap(End(path[i-1]), path[i].Start))
	}
	return worst
}
