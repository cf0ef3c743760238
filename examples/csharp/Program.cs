// arcpath from C#: PutMap -> Plan (a tank) -> follow in time -> Stream with Progress and a spliced update.
// Usage: dotnet run -- [http://HOST:PORT]   (plaintext HTTP/2; see examples/README.md for Unity)
// Prints "OK ..." as its last line when the followed paths end at the goal and the splice joins exactly.
using System.Text;
using Arcpath.Follower;
using Arcpath.V1;
using Grpc.Net.Client;

const string MapId = "example-csharp";
string address = args.Length > 0 ? args[0] : "http://127.0.0.1:50051";
using var channel = GrpcChannel.ForAddress(address);
var client = new Pathfinder.PathfinderClient(channel);
var deadline = DateTime.UtcNow.AddMinutes(2);

// 1. Upload a map (40 x 20 tiles, walls around). A server started a moment ago (`npm start &`) may not listen
// yet: retry while it is unavailable, for up to 30 s, rather than fail at once.
var put = new PutMapRequest { Id = MapId, Movingai = BoxMap(40, 20) };
MapInfo info;
for (var wait = DateTime.UtcNow.AddSeconds(30); ; await Task.Delay(500))
{
    try { info = await client.PutMapAsync(put, deadline: deadline); break; }
    catch (Grpc.Core.RpcException e) when (e.StatusCode == Grpc.Core.StatusCode.Unavailable && DateTime.UtcNow < wait) { }
}
Console.WriteLine($"map {info.Id} version {info.Version}, {info.Width}x{info.Height}");

// 2. Plan for a tank (circle footprint r 0.9, turning radius 1.5, speed limits) with the HYBRID planner.
var goal = new Goal { X = 36.5, Y = 10.5, Tolerance = 0.5 };
var request = new PlanRequest
{
    Map = new MapRef { Id = MapId },
    Unit = new UnitProfile { Name = "tank" },
    Start = new Arcpath.V1.Pose { X = 3.5, Y = 10.5, Heading = 0 },
    Goal = goal,
    Planner = Planner.Hybrid,
};
var plan = await client.PlanAsync(request, deadline: deadline);
if (plan.Status != PlanStatus.Found) return Fail($"plan status {plan.Status}: {plan.Message}");
var path = PathFollower.FromWire(plan.Segments);
Console.WriteLine($"plan: {path.Count} segments, length {plan.Length:F3}, {plan.Duration:F3} s, cost {plan.Cost:F3}");

// 3. Follow it by the clock: where the tank is every second, and at the end.
double total = PathFollower.Duration(path);
for (int t = 0; t <= (int)total; t++)
{
    var p = PathFollower.PoseAtTime(path, t);
    Console.WriteLine($"  t={t,2} s  x={p.X,7:F3} y={p.Y,7:F3} heading={p.Heading,6:F3}");
}
var end = PathFollower.PoseAtTime(path, total);
double miss = Math.Sqrt(Math.Pow(end.X - goal.X, 2) + Math.Pow(end.Y - goal.Y, 2));
if (miss > goal.Tolerance + 1e-6) return Fail($"followed plan ends {miss:F6} from the goal");

// 4. Stream: the same request; then report progress, block the path with a wall and apply the update.
using var stream = client.Stream(deadline: deadline);
await stream.RequestStream.WriteAsync(new StreamRequest { Plan = request });
List<Seg> current = new();
async Task<PathUpdate> Next()
{
    if (!await stream.ResponseStream.MoveNext(CancellationToken.None)) throw new InvalidOperationException("stream ended");
    var u = stream.ResponseStream.Current;
    Console.WriteLine($"update {u.Sequence} {u.Kind}: replace_from_segment {u.ReplaceFromSegment} at " +
                      $"{u.ReplaceFromDistance:F3}, {u.Plan.Segments.Count} segments");
    return u;
}
var seen = new HashSet<UpdateKind>();
while (!seen.Contains(UpdateKind.Initial) || !seen.Contains(UpdateKind.Refined))
{
    var u = await Next();
    seen.Add(u.Kind);
    current = PathFollower.Splice(current, u.ReplaceFromSegment, u.ReplaceFromDistance, PathFollower.FromWire(u.Plan.Segments));
}
// The tank has driven 6 tiles: say where it is, then wall off the straight way (a door stays at the bottom).
var here = PathFollower.PoseAtDistance(current, 6);
await stream.RequestStream.WriteAsync(new StreamRequest
{
    Progress = new Progress { Distance = 6, Pose = new Arcpath.V1.Pose { X = here.X, Y = here.Y, Heading = here.Heading } },
});
await Task.Delay(100);
await client.PatchMapAsync(new PatchMapRequest
{
    Map = new MapRef { Id = MapId },
    Edits = { new TileEdit { X = 22, Y = 1, Width = 1, Height = 15, Tile = "@" } },
}, deadline: deadline);
PathUpdate replanned;
do replanned = await Next(); while (replanned.Kind != UpdateKind.Replanned);
await stream.RequestStream.CompleteAsync();
if (replanned.ReplaceFromSegment < 0) return Fail("the replanned update holds a whole path, not a splice");
var before = current;
var fresh = PathFollower.FromWire(replanned.Plan.Segments);
current = PathFollower.Splice(current, replanned.ReplaceFromSegment, replanned.ReplaceFromDistance, fresh);
// Exact splice: the kept part ends where the replacement starts, and the whole path still joins.
var keptEnd = PathFollower.PoseOn(before[replanned.ReplaceFromSegment], replanned.ReplaceFromDistance);
double spliceGap = PathFollower.Gap(keptEnd, fresh[0].Start);
double joins = PathFollower.WorstJoin(current);
var final = PathFollower.PoseAtTime(current, PathFollower.Duration(current));
double miss2 = Math.Sqrt(Math.Pow(final.X - goal.X, 2) + Math.Pow(final.Y - goal.Y, 2));
Console.WriteLine($"spliced path: {current.Count} segments, {PathFollower.Duration(current):F3} s; " +
                  $"splice gap {spliceGap:G3}, worst join {joins:G3}");
if (spliceGap > 1e-9 || joins > 1e-6) return Fail("the splice does not join");
if (miss2 > goal.Tolerance + 1e-6) return Fail($"followed spliced path ends {miss2:F6} from the goal");
Console.WriteLine($"OK csharp: followed plan ends {miss:F4} and spliced stream path {miss2:F4} from the goal " +
                  $"(tolerance {goal.Tolerance:F1}); splice gap {spliceGap:E1}");
return 0;

static int Fail(string message)
{
    Console.WriteLine("FAIL csharp: " + message);
    return 1;
}

// A Moving AI map: open floor inside a wall border.
static string BoxMap(int width, int height)
{
    var b = new StringBuilder($"type octile\nheight {height}\nwidth {width}\nmap\n");
    for (int y = 0; y < height; y++)
    {
        for (int x = 0; x < width; x++) b.Append(x == 0 || y == 0 || x == width - 1 || y == height - 1 ? '@' : '.');
        b.Append('\n');
    }
    return b.ToString();
}
