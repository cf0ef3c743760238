// Command example uses arcpath from Go: PutMap -> Plan (a tank) -> follow in time -> Stream with Progress and
// a spliced update. Usage: example [HOST:PORT] (build as examples/go/run.sh does; see examples/README.md).
// Prints "OK ..." as its last line when the followed paths end at the goal and the splice joins exactly.
package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	pb "arcpath.dev/arcpath/v1"
	"arcpath.dev/example/follower"
	"google.golang.org/grpc"
)

const mapID = "example-go"

// boxMap is a Moving AI map: open floor inside a wall border.
func boxMap(width, height int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "type octile\nheight %d\nwidth %d\nmap\n", height, width)
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			if x == 0 || y == 0 || x == width-1 || y == height-1 {
				b.WriteByte('@')
			} else {
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// fromWire copies wire Segments into follower segments.
func fromWire(segments []*pb.Segment) []follower.Seg {
	out := make([]follower.Seg, len(segments))
	for i, s := range segments {
		st := s.GetStart()
		out[i] = follower.Seg{
			Start:  follower.Pose{X: st.GetX(), Y: st.GetY(), Heading: st.GetHeading()},
			Length: s.GetLength(), Curvature: s.GetCurvature(), Direction: s.GetDirection(),
			StartSpeed: s.GetStartSpeed(), EndSpeed: s.GetEndSpeed(), Duration: s.GetDuration(),
		}
	}
	return out
}

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL go: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	address := "127.0.0.1:50051"
	if len(os.Args) > 1 {
		address = os.Args[1]
	}
	// A server started a moment ago (`npm start &`) may not listen yet: wait for it rather than fail at once.
	dialCtx, dialCancel := context.WithTimeout(context.Background(), 30*time.Second)
	conn, err := grpc.DialContext(dialCtx, address, grpc.WithInsecure(), grpc.WithBlock())
	dialCancel()
	if err != nil {
		fail("no arcpath server at %s after 30 s (start one: npm start): %v", address, err)
	}
	defer conn.Close()
	client := pb.NewPathfinderClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// 1. Upload a map (40 x 20 tiles, walls around).
	info, err := client.PutMap(ctx, &pb.PutMapRequest{Id: mapID, Grid: &pb.PutMapRequest_Movingai{Movingai: boxMap(40, 20)}})
	if err != nil {
		fail("PutMap: %v", err)
	}
	fmt.Printf("map %s version %s, %dx%d\n", info.GetId(), info.GetVersion(), info.GetWidth(), info.GetHeight())

	// 2. Plan for a tank (circle footprint r 0.9, turning radius 1.5, speed limits) with the HYBRID planner.
	goal := &pb.Goal{X: 36.5, Y: 10.5, Tolerance: 0.5}
	request := &pb.PlanRequest{
		Map: &pb.MapRef{Id: mapID}, Unit: &pb.UnitProfile{Name: "tank"},
		Start: &pb.Pose{X: 3.5, Y: 10.5, Heading: 0}, Goal: goal, Planner: pb.Planner_PLANNER_HYBRID,
	}
	plan, err := client.Plan(ctx, request)
	if err != nil {
		fail("Plan: %v", err)
	}
	if plan.GetStatus() != pb.PlanStatus_PLAN_STATUS_FOUND {
		fail("plan status %v: %s", plan.GetStatus(), plan.GetMessage())
	}
	path := fromWire(plan.GetSegments())
	fmt.Printf("plan: %d segments, length %.3f, %.3f s, cost %.3f\n", len(path), plan.GetLength(), plan.GetDuration(), plan.GetCost())

	// 3. Follow it by the clock: where the tank is every second, and at the end.
	total := follower.Duration(path)
	for t := 0; t <= int(total); t++ {
		p := follower.PoseAtTime(path, float64(t))
		fmt.Printf("  t=%2d s  x=%7.3f y=%7.3f heading=%6.3f\n", t, p.X, p.Y, p.Heading)
	}
	end := follower.PoseAtTime(path, total)
	miss := math.Hypot(end.X-goal.X, end.Y-goal.Y)
	if miss > goal.Tolerance+1e-6 {
		fail("followed plan ends %.6f from the goal", miss)
	}

	// 4. Stream: the same request; then report progress, block the path with a wall and apply the update.
	stream, err := client.Stream(ctx)
	if err != nil {
		fail("Stream: %v", err)
	}
	if err := stream.Send(&pb.StreamRequest{Msg: &pb.StreamRequest_Plan{Plan: request}}); err != nil {
		fail("Stream send: %v", err)
	}
	var current []follower.Seg
	next := func() *pb.PathUpdate {
		u, err := stream.Recv()
		if err != nil {
			fail("Stream recv: %v", err)
		}
		fmt.Printf("update %d %v: replace_from_segment %d at %.3f, %d segments\n", u.GetSequence(), u.GetKind(),
			u.GetReplaceFromSegment(), u.GetReplaceFromDistance(), len(u.GetPlan().GetSegments()))
		return u
	}
	apply := func(u *pb.PathUpdate) {
		spliced, err := follower.Splice(current, u.GetReplaceFromSegment(), u.GetReplaceFromDistance(), fromWire(u.GetPlan().GetSegments()))
		if err != nil {
			fail("%v", err)
		}
		current = spliced
	}
	seen := map[pb.UpdateKind]bool{}
	for !seen[pb.UpdateKind_UPDATE_KIND_INITIAL] || !seen[pb.UpdateKind_UPDATE_KIND_REFINED] {
		u := next()
		seen[u.GetKind()] = true
		apply(u)
	}
	// The tank has driven 6 tiles: say where it is, then wall off the straight way (a door stays at the bottom).
	here := follower.PoseAtDistance(current, 6)
	progress := &pb.Progress{Distance: 6, Pose: &pb.Pose{X: here.X, Y: here.Y, Heading: here.Heading}}
	if err := stream.Send(&pb.StreamRequest{Msg: &pb.StreamRequest_Progress{Progress: progress}}); err != nil {
		fail("Stream send: %v", err)
	}
	time.Sleep(100 * time.Millisecond)
	wall := &pb.TileEdit{X: 22, Y: 1, Width: 1, Height: 15, Value: &pb.TileEdit_Tile{Tile: "@"}}
	if _, err := client.PatchMap(ctx, &pb.PatchMapRequest{Map: &pb.MapRef{Id: mapID}, Edits: []*pb.TileEdit{wall}}); err != nil {
		fail("PatchMap: %v", err)
	}
	var u *pb.PathUpdate
	for u = next(); u.GetKind() != pb.UpdateKind_UPDATE_KIND_REPLANNED; u = next() {
	}
	stream.CloseSend()
	if u.GetReplaceFromSegment() < 0 {
		fail("the replanned update holds a whole path, not a splice")
	}
	before := current
	apply(u)
	// Exact splice: the kept part ends where the replacement starts, and the whole path still joins.
	keptEnd := follower.PoseOn(before[u.GetReplaceFromSegment()], u.GetReplaceFromDistance())
	spliceGap := follower.Gap(keptEnd, fromWire(u.GetPlan().GetSegments()[:1])[0].Start)
	joins := follower.WorstJoin(current)
	final := follower.PoseAtTime(current, follower.Duration(current))
	miss2 := math.Hypot(final.X-goal.X, final.Y-goal.Y)
	fmt.Printf("spliced path: %d segments, %.3f s; splice gap %.3g, worst join %.3g\n", len(current), follower.Duration(current), spliceGap, joins)
	if spliceGap > 1e-9 || joins > 1e-6 {
		fail("the splice does not join: gap %.3g, worst join %.3g", spliceGap, joins)
	}
	if miss2 > goal.Tolerance+1e-6 {
		fail("followed spliced path ends %.6f from the goal", miss2)
	}
	fmt.Printf("OK go: followed plan ends %.4f and spliced stream path %.4f from the goal (tolerance %.1f); splice gap %.1e\n",
		miss, miss2, goal.Tolerance, spliceGap)
}
