// A tiny follower for arcpath paths: the pose at a distance or a time along a path, and the splice of a
// stream's partial update. The formulas are docs/segments.md's; no dependencies (usable from Unity as is).
using System;
using System.Collections.Generic;
using System.Linq;

namespace Arcpath.Follower
{
    /// <summary>A position (tiles) and heading (radians) in the map frame.</summary>
    public readonly record struct Pose(double X, double Y, double Heading);

    /// <summary>One segment as the follower keeps it (a plain copy of the wire Segment's fields it needs).</summary>
    public sealed record Seg(Pose Start, double Length, double Curvature, int Direction,
                             double StartSpeed = 0, double EndSpeed = 0, double Duration = 0);

    /// <summary>Pose at distance and time, cut and splice.</summary>
    public static class PathFollower
    {
        /// <summary>Copies wire Segments (Arcpath.V1.Segment) into follower segments.</summary>
        public static List<Seg> FromWire(IEnumerable<Arcpath.V1.Segment> segments) =>
            segments.Select(s => new Seg(new Pose(s.Start?.X ?? 0, s.Start?.Y ?? 0, s.Start?.Heading ?? 0),
                s.Length, s.Curvature, s.Direction, s.StartSpeed, s.EndSpeed, s.Duration)).ToList();

        // sin(z)/z, by its series near 0 (the server's numerically robust form).
        static double Sinc(double z) => Math.Abs(z) < 1e-4 ? 1 - z * z / 6 + z * z * z * z / 120 : Math.Sin(z) / z;

        /// <summary>The pose u along one segment: heading h0 + d*k*u, the chord form of the integral.</summary>
        public static Pose PoseOn(Seg s, double u)
        {
            double sweep = s.Direction * s.Curvature * u;
            double chord = s.Direction * u * Sinc(sweep / 2);
            double mid = s.Start.Heading + sweep / 2;
            return new Pose(s.Start.X + chord * Math.Cos(mid), s.Start.Y + chord * Math.Sin(mid), s.Start.Heading + sweep);
        }

        /// <summary>The pose at the end of a segment.</summary>
        public static Pose End(Seg s) => PoseOn(s, s.Length);

        /// <summary>Total seconds to drive a timed path (0 when it has no speed profile).</summary>
        public static double Duration(IReadOnlyList<Seg> path) => path.Sum(s => s.Duration);

        /// <summary>The pose `distance` tiles along a path (clamped to its ends).</summary>
        public static Pose PoseAtDistance(IReadOnlyList<Seg> path, double distance)
        {
            foreach (var s in path)
            {
                if (distance <= s.Length) return PoseOn(s, Math.Max(0, distance));
                distance -= s.Length;
            }
            return End(path[^1]);
        }

        /// <summary>Where a unit driving a timed path by the clock is, t seconds after its start: within a
        /// segment the speed is linear in time, so the distance is v0*tau + (v1 - v0)*tau^2/(2T).</summary>
        public static Pose PoseAtTime(IReadOnlyList<Seg> path, double t)
        {
            foreach (var s in path)
            {
                if (t <= s.Duration)
                {
                    double tau = Math.Max(0, t);
                    return PoseOn(s, s.StartSpeed * tau + (s.EndSpeed - s.StartSpeed) * tau * tau / (2 * s.Duration));
                }
                t -= s.Duration;
            }
            return End(path[^1]);
        }

        /// <summary>The first u of a segment as a segment of its own; a timed one keeps its constant
        /// acceleration (speed at u: sqrt(v0^2 + (v1^2 - v0^2) * u / L)).</summary>
        public static Seg Cut(Seg s, double u)
        {
            if (!(s.Duration > 0 && s.Length > 0)) return s with { Length = u };
            double v0 = s.StartSpeed, v1 = s.EndSpeed;
            double vu = Math.Sqrt(Math.Max(0, v0 * v0 + (v1 * v1 - v0 * v0) * u / s.Length));
            return s with { Length = u, EndSpeed = vu, Duration = v0 + vu > 0 ? 2 * u / (v0 + vu) : 0 };
        }

        /// <summary>The path after a stream update (PathUpdate): the update's segments whole when
        /// replaceFromSegment is -1, else the segments before it, that one cut at replaceFromDistance (none of it
        /// at 0), then the update's segments.</summary>
        public static List<Seg> Splice(IReadOnlyList<Seg> path, int replaceFromSegment, double replaceFromDistance,
                                       IEnumerable<Seg> fresh)
        {
            if (replaceFromSegment < 0) return fresh.ToList();
            if (replaceFromSegment >= path.Count)
                throw new ArgumentOutOfRangeException(nameof(replaceFromSegment),
                    $"replace_from_segment {replaceFromSegment} beyond a path of {path.Count} segments");
            var output = path.Take(replaceFromSegment).ToList();
            if (replaceFromDistance > 0) output.Add(Cut(path[replaceFromSegment], replaceFromDistance));
            output.AddRange(fresh);
            return output;
        }

        /// <summary>The larger of the position gap and the heading gap (modulo 2 pi) of two poses.</summary>
        public static double Gap(Pose a, Pose b)
        {
            double dh = Math.Abs(Math.Atan2(Math.Sin(a.Heading - b.Heading), Math.Cos(a.Heading - b.Heading)));
            return Math.Max(Math.Sqrt((a.X - b.X) * (a.X - b.X) + (a.Y - b.Y) * (a.Y - b.Y)), dh);
        }

        /// <summary>The largest gap between a segment's end and the next one's start (0 for a joined path).</summary>
        public static double WorstJoin(IReadOnlyList<Seg> path)
        {
            double worst = 0;
            for (int i = 1; i < path.Count; i++) worst = Math.Max(worst, Gap(End(path[i - 1]), path[i].Start));
            return worst;
        }
    }
}
