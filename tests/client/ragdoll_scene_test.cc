// Integration: examples/ragdoll_on_chain.json (a ragdoll of capsules on
// limited revolute joints, falling onto a chain terrain) through the real
// atoll-server and atoll binaries. The server's hash chain must equal that
// of the same ragdoll built through the engine API, and a joint naming a
// missing body must be refused by name without creating a world.

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "atoll/client/connection.h"
#include "atoll/geometry.h"
#include "atoll/joint.h"
#include "atoll/snapshot.h"
#include "atoll/v1/world.grpc.pb.h"
#include "atoll/world.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"

namespace atl::client {
namespace {

using ::atl::testing::BinaryPath;
using ::atl::testing::RunCommand;
using ::atl::testing::ServerProcess;
using ::testing::HasSubstr;

const char kExample[] = ATOLL_SOURCE_DIR "/examples/ragdoll_on_chain.json";
constexpr uint32_t kTickRate = 60;

// The example's numbers, written a second time for the engine API.
const std::vector<Vec2> kTerrain = {{16.0f, 4.0f},  {10.0f, 1.5f},  {5.0f, 0.3f},  {0.0f, 0.0f},
                                    {-5.0f, 0.3f}, {-10.0f, 1.5f}, {-16.0f, 4.0f}};

struct Part {
  Vec2 position;
  float half_length;  // the capsule's centers at (0, +-half_length)
  float radius;
  Vec2 velocity;
};
const Part kParts[] = {
    {{-3.0f, 3.2f}, 0.35f, 0.25f, {}},            // 1 torso
    {{-3.0f, 4.0f}, 0.08f, 0.2f, {2.0f, 0.0f}},   // 2 head, pushed forward
    {{-3.4f, 3.3f}, 0.2f, 0.1f, {}},              // 3 left arm
    {{-2.6f, 3.3f}, 0.2f, 0.1f, {}},              // 4 right arm
    {{-3.15f, 2.5f}, 0.25f, 0.12f, {}},           // 5 left thigh
    {{-3.15f, 1.9f}, 0.25f, 0.11f, {}},           // 6 left shin
    {{-2.85f, 2.5f}, 0.25f, 0.12f, {}},           // 7 right thigh
    {{-2.85f, 1.9f}, 0.25f, 0.11f, {}},           // 8 right shin
};

struct Pin {
  int a, b;
  Vec2 anchor_a, anchor_b;
  float lower, upper, max_torque;
};
const Pin kPins[] = {
    {1, 2, {0.0f, 0.45f}, {0.0f, -0.35f}, -0.4f, 0.4f, 2.0f},    // neck
    {1, 3, {-0.4f, 0.3f}, {0.0f, 0.2f}, -2.5f, 0.5f, 2.0f},      // shoulders
    {1, 4, {0.4f, 0.3f}, {0.0f, 0.2f}, -0.5f, 2.5f, 2.0f},
    {1, 5, {-0.15f, -0.4f}, {0.0f, 0.3f}, -0.5f, 1.6f, 4.0f},    // left hip, knee
    {5, 6, {0.0f, -0.3f}, {0.0f, 0.3f}, -2.2f, 0.0f, 3.0f},
    {1, 7, {0.15f, -0.4f}, {0.0f, 0.3f}, -0.5f, 1.6f, 4.0f},     // right hip, knee
    {7, 8, {0.0f, -0.3f}, {0.0f, 0.3f}, -2.2f, 0.0f, 3.0f},
};

// The ragdoll on its terrain through World calls, as a C++ game would
// build it, in a world like the server's (world id 1, default settings).
std::unique_ptr<World> RagdollWorld() {
  WorldDef world_def;
  world_def.world_id = 1;
  std::unique_ptr<World> world = *World::Create(world_def);
  std::vector<BodyId> bodies;
  bodies.push_back(*world->CreateBody(BodyDef()));
  ShapeDef ground;
  ground.density = 0.0f;
  ground.friction = 0.8f;
  EXPECT_TRUE(world->CreateChain(bodies[0], ground, kTerrain, /*loop=*/false).ok());
  for (const Part& part : kParts) {
    BodyDef def;
    def.type = BodyType::kDynamic;
    def.position = part.position;
    def.linear_velocity = part.velocity;
    bodies.push_back(*world->CreateBody(def));
    const Capsule capsule{{0.0f, -part.half_length}, {0.0f, part.half_length}, part.radius};
    EXPECT_TRUE(world->CreateCapsuleShape(bodies.back(), ShapeDef(), capsule).ok());
  }
  for (const Pin& pin : kPins) {
    RevoluteJointDef def;
    def.body_a = bodies[pin.a];
    def.body_b = bodies[pin.b];
    def.local_anchor_a = pin.anchor_a;
    def.local_anchor_b = pin.anchor_b;
    def.enable_limit = true;
    def.lower_angle = pin.lower;
    def.upper_angle = pin.upper;
    // A motor of speed 0: joint friction.
    def.enable_motor = true;
    def.max_motor_torque = pin.max_torque;
    EXPECT_TRUE(world->CreateRevoluteJoint(def).ok());
  }
  return world;
}

// tick -> hash of the "tick T hash H ..." lines `atoll watch` printed.
std::map<uint64_t, uint64_t> WatchedHashes(const std::string& output) {
  std::map<uint64_t, uint64_t> hashes;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    const std::vector<std::string> words = absl::StrSplit(line, ' ');
    uint64_t tick = 0;
    uint64_t hash = 0;
    if (words.size() >= 4 && words[0] == "tick" && words[2] == "hash" &&
        absl::SimpleAtoi(words[1], &tick) && absl::SimpleHexAtoi(words[3], &hash)) {
      hashes[tick] = hash;
    }
  }
  return hashes;
}

TEST(RagdollSceneTest, ExampleRagdollOnTheServerMatchesTheEngineApiRagdoll) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string flag = "--server=" + (*server)->address();
  std::string output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "create", kExample, flag, "--id=ragdoll",
                        absl::StrCat("--tick_rate=", kTickRate)},
                       &output),
            0)
      << output;
  EXPECT_THAT(output, HasSubstr("created ragdoll: 9 bodies"));
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "watch", "ragdoll", flag, "--ticks=90"}, &output), 0)
      << output;
  EXPECT_THAT(output, ::testing::Not(HasSubstr("differs")));
  const std::map<uint64_t, uint64_t> watched = WatchedHashes(output);
  ASSERT_EQ(watched.size(), 90u) << output;

  std::unique_ptr<World> world = RagdollWorld();
  const float time_step = 1.0f / static_cast<float>(kTickRate);
  bool touched = false;
  for (const auto& [tick, hash] : watched) {
    while (world->step_count() < static_cast<int64_t>(tick)) {
      ASSERT_TRUE(world->Step(time_step).ok());
      touched |= world->GetCounters().touching_contacts > 0;
    }
    ASSERT_EQ(HashWorld(*world), hash) << "tick " << tick << "\n" << output;
  }
  // It fell onto the chain and stayed on top of it.
  EXPECT_TRUE(touched);
  for (BodyId id : world->GetBodyIds()) {
    EXPECT_GT(world->GetBody(id)->transform.p.y, -0.1f) << "body " << id.index;
  }
}

TEST(RagdollSceneTest, AJointNamingAMissingBodyIsRefusedAndNoWorldIsMade) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  v1::CreateWorldRequest request;
  request.set_world_id("ragdoll");
  *request.mutable_scene() = atl::testing::LoadSceneSpec(kExample);
  request.mutable_scene()->mutable_joints(0)->mutable_revolute()->set_body_b(42);
  v1::CreateWorldResponse response;
  const grpc::Status s = atl::testing::TryCreateWorld((*server)->address(), request, &response);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_THAT(s.error_message(), HasSubstr("scene.joints[0].revolute.body_b: no body 42: "
                                           "the scene's bodies are 0..8"));

  // The same through `atoll create`: one line naming the field, exit 1.
  const std::filesystem::path bad = std::filesystem::temp_directory_path() /
                                    absl::StrCat("atoll_bad_ragdoll_", getpid(), ".json");
  std::string json;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(request.scene(), &json).ok());
  std::ofstream(bad) << json;
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "create", bad.string(),
                        "--server=" + (*server)->address(), "--id=ragdoll"},
                       &output),
            1)
      << output;
  std::filesystem::remove(bad);
  EXPECT_THAT(output, HasSubstr("scene.joints[0].revolute.body_b"));

  // Nothing changed: the server has no world.
  auto stub = v1::WorldService::NewStub(MakeChannel((*server)->address()));
  grpc::ClientContext context;
  v1::ListWorldsResponse worlds;
  ASSERT_TRUE(stub->ListWorlds(&context, v1::ListWorldsRequest(), &worlds).ok());
  EXPECT_EQ(worlds.worlds_size(), 0);
}

}  // namespace
}  // namespace atl::client
