#include "server/service_test_util.h"

#include <google/protobuf/util/json_util.h>

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "atoll/client/connection.h"
#include "atoll/server/simulation.h"
#include "atoll/sim/frame_events.h"

namespace atl::testing {

// What a user writes in a scene file (protobuf's JSON mapping).
constexpr char kDuelJson[] = R"json({
  "materials": [{"name": "rubber", "density": 1, "friction": 0.8, "restitution": 0.3}],
  "bodies": [
    {"type": "BODY_TYPE_STATIC",
     "shapes": [{"box": {"halfWidth": 20, "halfHeight": 0.5}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": -2, "y": 1.5}, "ownerSlot": 1,
     "shapes": [{"box": {"halfWidth": 0.5, "halfHeight": 0.5}, "material": "rubber"}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 2, "y": 1.5}, "ownerSlot": 2,
     "disallowSleep": true,
     "shapes": [{"circle": {"radius": 0.5}, "material": "rubber"}]},
    {"type": "BODY_TYPE_KINEMATIC", "position": {"x": 0, "y": 5}, "ownerSlot": 1,
     "shapes": [{"capsule": {"center1": {"x": -1}, "center2": {"x": 1}, "radius": 0.2}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": 0, "y": 2.5},
     "shapes": [{"polygon": {"points": [{"x": -0.5}, {"x": 0.5}, {"y": 0.8}]}}]}
  ],
  "templates": [{"name": "ball",
                 "body": {"type": "BODY_TYPE_DYNAMIC",
                          "shapes": [{"circle": {"radius": 0.25}, "material": "rubber"}]}}]
})json";

v1::SceneSpec DuelScene() {
  v1::SceneSpec spec;
  const auto status = google::protobuf::util::JsonStringToMessage(kDuelJson, &spec);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return spec;
}

grpc::Status TryCreateWorld(const std::string& address, const v1::CreateWorldRequest& request,
                            v1::CreateWorldResponse* response) {
  auto stub = v1::WorldService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return stub->CreateWorld(&context, request, response);
}

v1::CreateWorldResponse CreateWorld(const std::string& address,
                                    const v1::CreateWorldRequest& request) {
  v1::CreateWorldResponse response;
  const grpc::Status s = TryCreateWorld(address, request, &response);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return response;
}

void DestroyWorld(const std::string& address, const std::string& world_id) {
  auto stub = v1::WorldService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::DestroyWorldRequest request;
  request.set_world_id(world_id);
  v1::DestroyWorldResponse response;
  const grpc::Status s = stub->DestroyWorld(&context, request, &response);
  EXPECT_TRUE(s.ok()) << s.error_message();
}

v1::WorldInfo GetWorld(const std::string& address, const std::string& world_id) {
  auto stub = v1::WorldService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::GetWorldRequest request;
  request.set_world_id(world_id);
  v1::WorldInfo info;
  const grpc::Status s = stub->GetWorld(&context, request, &info);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return info;
}

v1::Recording GetRecording(const std::string& address, const std::string& world_id,
                           bool header_only) {
  auto stub = v1::WorldService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::GetRecordingRequest request;
  request.set_world_id(world_id);
  request.set_header_only(header_only);
  v1::Recording recording;
  const grpc::Status s = stub->GetRecording(&context, request, &recording);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return recording;
}

v1::BodyRef Body(uint32_t index, uint32_t generation) {
  v1::BodyRef ref;
  ref.set_index(index);
  ref.set_generation(generation);
  return ref;
}

v1::Command Impulse(const v1::BodyRef& body, float x, float y) {
  v1::Command c;
  *c.mutable_apply_impulse()->mutable_body() = body;
  c.mutable_apply_impulse()->mutable_impulse()->set_x(x);
  c.mutable_apply_impulse()->mutable_impulse()->set_y(y);
  return c;
}

std::string MakeTempDir() {
  // Removed when the test binary exits (its servers are stopped by then),
  // so a run of the suite leaves nothing in /tmp.
  struct Made {
    std::vector<std::string> dirs;
    ~Made() {
      for (const std::string& d : dirs) {
        std::error_code ignored;
        std::filesystem::remove_all(d, ignored);
      }
    }
  };
  static Made made;
  std::string pattern = ::testing::TempDir() + "atoll_service_XXXXXX";
  char* dir = mkdtemp(pattern.data());
  EXPECT_NE(dir, nullptr);
  if (dir != nullptr) made.dirs.push_back(pattern);
  return pattern;
}

v1::Join JoinFor(const v1::CreateWorldResponse& world, uint32_t slot) {
  v1::Join join;
  join.set_world_id(world.world().world_id());
  join.set_slot(slot);
  join.set_token(world.tokens(slot - 1).token());
  join.set_resume_from_tick(0);
  return join;
}

v1::ClientMessage InputMessage(uint64_t sequence, uint64_t target_tick,
                               std::vector<v1::Command> commands) {
  v1::ClientMessage m;
  m.mutable_input()->set_sequence(sequence);
  m.mutable_input()->set_target_tick(target_tick);
  for (v1::Command& c : commands) *m.mutable_input()->add_commands() = std::move(c);
  return m;
}

::testing::AssertionResult ResimulateStream(const std::vector<v1::ServerMessage>& messages,
                                            const v1::SceneSpec& spec,
                                            const v1::WorldConfig& config, uint64_t* last_tick) {
  std::unique_ptr<server::Simulation> sim;
  for (const v1::ServerMessage& m : messages) {
    if (sim == nullptr) {
      if (!m.has_snapshot()) continue;
      const v1::Snapshot& s = m.snapshot();
      absl::StatusOr<std::unique_ptr<server::Simulation>> made;
      if (s.tick() == 0) {
        made = server::Simulation::Create(spec, config);
      } else {
        v1::Checkpoint cp;
        cp.set_tick(s.tick());
        cp.set_snapshot(s.data());
        *cp.mutable_owners() = s.owners();
        *cp.mutable_joint_owners() = s.joint_owners();
        cp.set_state_hash(s.state_hash());
        made = server::Simulation::Restore(spec, config, cp);
      }
      if (!made.ok()) return ::testing::AssertionFailure() << made.status();
      sim = *std::move(made);
      if (sim->hash() != s.state_hash()) {
        return ::testing::AssertionFailure() << "snapshot of tick " << s.tick()
                                             << " does not match the local world";
      }
      continue;
    }
    if (!m.has_frame()) continue;
    const v1::Frame& f = m.frame();
    if (f.tick() <= sim->tick()) continue;  // repeated after a collapse
    if (f.tick() != sim->tick() + 1) {
      return ::testing::AssertionFailure() << "gap: frame " << f.tick() << " after tick "
                                           << sim->tick();
    }
    std::vector<v1::ConfirmedInput> inputs(f.inputs().begin(), f.inputs().end());
    if (absl::Status s = sim->Step(inputs, nullptr); !s.ok()) {
      return ::testing::AssertionFailure() << s;
    }
    if (sim->hash() != f.state_hash()) {
      return ::testing::AssertionFailure() << "tick " << f.tick() << ": local hash " << sim->hash()
                                           << " != server hash " << f.state_hash();
    }
    // The events too: the server's Frame and the local step's, field for
    // field in engine order.
    v1::Frame local, remote;
    sim::AppendStepEvents(sim->world(), &local);
    *remote.mutable_events() = f.events();
    *remote.mutable_sensor_events() = f.sensor_events();
    *remote.mutable_joint_breaks() = f.joint_breaks();
    if (local.SerializeAsString() != remote.SerializeAsString()) {
      return ::testing::AssertionFailure() << "tick " << f.tick() << ": local events "
                                           << local.ShortDebugString() << " != server events "
                                           << remote.ShortDebugString();
    }
  }
  if (sim == nullptr) return ::testing::AssertionFailure() << "no snapshot in the stream";
  *last_tick = sim->tick();
  return ::testing::AssertionSuccess();
}

std::vector<std::pair<uint64_t, uint64_t>> FrameHashes(
    const std::vector<v1::ServerMessage>& messages) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const v1::ServerMessage& m : messages) {
    if (m.has_frame()) out.emplace_back(m.frame().tick(), m.frame().state_hash());
  }
  return out;
}

}  // namespace atl::testing
