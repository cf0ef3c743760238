// arcpath from C++: PutMap -> Plan (a tank) -> follow in time -> Stream with Progress and a spliced update.
// Usage: example [HOST:PORT] (build with CMake, see CMakeLists.txt and examples/README.md).
// Prints "OK ..." as its last line when the followed paths end at the goal and the splice joins exactly.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "arcpath/v1/arcpath.grpc.pb.h"
#include "follower.hpp"

namespace pb = arcpath::v1;

namespace {

const char* kMapId = "example-cpp";

// A Moving AI map: open floor inside a wall border.
std::string box_map(int width, int height) {
  std::string text = "type octile\nheight " + std::to_string(height) + "\nwidth " + std::to_string(width) + "\nmap\n";
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) text += (x == 0 || y == 0 || x == width - 1 || y == height - 1) ? '@' : '.';
    text += '\n';
  }
  return text;
}

// Copies wire Segments into follower segments.
follower::Path from_wire(const google::protobuf::RepeatedPtrField<pb::Segment>& segments) {
  follower::Path path;
  for (const pb::Segment& s : segments) {
    follower::Seg seg;
    seg.start = {s.start().x(), s.start().y(), s.start().heading()};
    seg.length = s.length();
    seg.curvature = s.curvature();
    seg.direction = s.direction();
    seg.start_speed = s.start_speed();
    seg.end_speed = s.end_speed();
    seg.duration = s.duration();
    path.push_back(seg);
  }
  return path;
}

int fail(const std::string& message) {
  std::printf("FAIL cpp: %s\n", message.c_str());
  return 1;
}

std::unique_ptr<grpc::ClientContext> context() {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(2));
  return ctx;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string address = argc > 1 ? argv[1] : "127.0.0.1:50051";
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  // A server started a moment ago (`npm start &`) may not listen yet: wait for it rather than fail at once.
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(30))) {
    return fail("no arcpath server at " + address + " after 30 s (start one: npm start)");
  }
  auto stub = pb::Pathfinder::NewStub(channel);

  // 1. Upload a map (40 x 20 tiles, walls around).
  pb::PutMapRequest put;
  put.set_id(kMapId);
  put.set_movingai(box_map(40, 20));
  pb::MapInfo info;
  grpc::Status status = stub->PutMap(context().get(), put, &info);
  if (!status.ok()) return fail("PutMap: " + status.error_message());
  std::printf("map %s version %s, %ux%u\n", info.id().c_str(), info.version().c_str(), info.width(), info.height());

  // 2. Plan for a tank (circle footprint r 0.9, turning radius 1.5, speed limits) with the HYBRID planner.
  pb::PlanRequest request;
  request.mutable_map()->set_id(kMapId);
  request.mutable_unit()->set_name("tank");
  request.mutable_start()->set_x(3.5);
  request.mutable_start()->set_y(10.5);
  request.mutable_start()->set_heading(0);
  pb::Goal& goal = *request.mutable_goal();
  goal.set_x(36.5);
  goal.set_y(10.5);
  goal.set_tolerance(0.5);
  request.set_planner(pb::PLANNER_HYBRID);
  pb::PlanResponse plan;
  status = stub->Plan(context().get(), request, &plan);
  if (!status.ok()) return fail("Plan: " + status.error_message());
  if (plan.status() != pb::PLAN_STATUS_FOUND) {
    return fail("plan status " + pb::PlanStatus_Name(plan.status()) + ": " + plan.message());
  }
  const follower::Path path = from_wire(plan.segments());
  std::printf("plan: %zu segments, length %.3f, %.3f s, cost %.3f\n", path.size(), plan.length(), plan.duration(),
              plan.cost());

  // 3. Follow it by the clock: where the tank is every second, and at the end.
  const double total = follower::duration_of(path);
  for (int t = 0; t <= static_cast<int>(total); t++) {
    const follower::Pose p = follower::pose_at_time(path, t);
    std::printf("  t=%2d s  x=%7.3f y=%7.3f heading=%6.3f\n", t, p.x, p.y, p.heading);
  }
  const follower::Pose end = follower::pose_at_time(path, total);
  const double miss = std::hypot(end.x - goal.x(), end.y - goal.y());
  if (miss > goal.tolerance() + 1e-6) return fail("followed plan ends " + std::to_string(miss) + " from the goal");

  // 4. Stream: the same request; then report progress, block the path with a wall and apply the update.
  auto stream_ctx = context();
  auto stream = stub->Stream(stream_ctx.get());
  pb::StreamRequest first;
  *first.mutable_plan() = request;
  if (!stream->Write(first)) return fail("Stream: write failed");
  follower::Path current;
  pb::PathUpdate u;
  auto next = [&]() {
    if (!stream->Read(&u)) return false;
    std::printf("update %lu %s: replace_from_segment %d at %.3f, %d segments\n",
                static_cast<unsigned long>(u.sequence()), pb::UpdateKind_Name(u.kind()).c_str(),
                u.replace_from_segment(), u.replace_from_distance(), u.plan().segments_size());
    return true;
  };
  std::set<int> seen;
  while (!seen.count(pb::UPDATE_KIND_INITIAL) || !seen.count(pb::UPDATE_KIND_REFINED)) {
    if (!next()) return fail("Stream ended: " + stream->Finish().error_message());
    seen.insert(u.kind());
    current = follower::splice(current, u.replace_from_segment(), u.replace_from_distance(),
                               from_wire(u.plan().segments()));
  }
  // The tank has driven 6 tiles: say where it is, then wall off the straight way (a door stays at the bottom).
  const follower::Pose here = follower::pose_at_distance(current, 6);
  pb::StreamRequest progress;
  progress.mutable_progress()->set_distance(6);
  progress.mutable_progress()->mutable_pose()->set_x(here.x);
  progress.mutable_progress()->mutable_pose()->set_y(here.y);
  progress.mutable_progress()->mutable_pose()->set_heading(here.heading);
  if (!stream->Write(progress)) return fail("Stream: write failed");
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  pb::PatchMapRequest patch;
  patch.mutable_map()->set_id(kMapId);
  pb::TileEdit* wall = patch.add_edits();
  wall->set_x(22);
  wall->set_y(1);
  wall->set_width(1);
  wall->set_height(15);
  wall->set_tile("@");
  status = stub->PatchMap(context().get(), patch, &info);
  if (!status.ok()) return fail("PatchMap: " + status.error_message());
  do {
    if (!next()) return fail("Stream ended: " + stream->Finish().error_message());
  } while (u.kind() != pb::UPDATE_KIND_REPLANNED);
  stream->WritesDone();
  stream_ctx->TryCancel();
  if (u.replace_from_segment() < 0) return fail("the replanned update holds a whole path, not a splice");
  const follower::Path before = current;
  const follower::Path fresh = from_wire(u.plan().segments());
  current = follower::splice(current, u.replace_from_segment(), u.replace_from_distance(), fresh);
  // Exact splice: the kept part ends where the replacement starts, and the whole path still joins.
  const follower::Pose kept_end = follower::pose_on(before[u.replace_from_segment()], u.replace_from_distance());
  const double splice_gap = follower::gap(kept_end, fresh.at(0).start);
  const double joins = follower::worst_join(current);
  const follower::Pose final_pose = follower::pose_at_time(current, follower::duration_of(current));
  const double miss2 = std::hypot(final_pose.x - goal.x(), final_pose.y - goal.y());
  std::printf("spliced path: %zu segments, %.3f s; splice gap %.3g, worst join %.3g\n", current.size(),
              follower::duration_of(current), splice_gap, joins);
  if (splice_gap > 1e-9 || joins > 1e-6) return fail("the splice does not join");
  if (miss2 > goal.tolerance() + 1e-6) return fail("followed spliced path ends " + std::to_string(miss2) + " from the goal");
  std::printf("OK cpp: followed plan ends %.4f and spliced stream path %.4f from the goal (tolerance %.1f); "
              "splice gap %.1e\n", miss, miss2, goal.tolerance(), splice_gap);
  return 0;
}
