// Integration: examples/car_on_chain.json through the real atoll-server and
// atoll binaries. Slot 1 drives the scene's car with wheel-joint motor
// commands while slot 2 spawns a ragdoll and a second car, one SpawnBody
// each: both players' streams re-simulate to the server's hash chain and
// events, the car moves the way its wheels turn, and `atoll verify` passes
// the server's recording and fails it once one tick's events hash is
// altered.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "atoll/client/recording_file.h"
#include "atoll/sim/simulation.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

const char kCarScene[] = ATOLL_SOURCE_DIR "/examples/car_on_chain.json";
constexpr uint32_t kChassis = 1;  // body index of the scene's car

v1::Command Motor(uint32_t joint, float speed) {
  v1::Command c;
  c.mutable_joint()->mutable_joint()->set_index(joint);
  c.mutable_joint()->mutable_joint()->set_generation(1);
  c.mutable_joint()->set_motor_speed(speed);
  return c;
}

v1::Command Spawn(const std::string& name, float x, float y) {
  v1::Command c;
  c.mutable_spawn_body()->set_template_name(name);
  c.mutable_spawn_body()->mutable_position()->set_x(x);
  c.mutable_spawn_body()->mutable_position()->set_y(y);
  return c;
}

TEST(CarSceneTest, TwoPlayersDriveAndSpawnAndEveryReplicaAndTheRecordingAgree) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  v1::CreateWorldRequest request;
  request.set_world_id("cars");
  *request.mutable_scene() = LoadSceneSpec(kCarScene);
  request.mutable_config()->set_tick_rate_hz(120);
  request.mutable_config()->set_player_slots(2);
  request.mutable_config()->set_input_delay_ticks(2);
  const v1::CreateWorldResponse world = CreateWorld(address, request);
  auto p1 = SessionClient::Connect(address, JoinFor(world, 1));
  auto p2 = SessionClient::Connect(address, JoinFor(world, 2));
  ASSERT_TRUE(p1->WaitForTick(30, absl::Seconds(20)));

  // Wheels turning clockwise (negative rad/s) roll the car towards +x.
  ASSERT_TRUE(
      p1->Send(InputMessage(1, 0, {Motor(0, -12.0f), Motor(1, -12.0f)})));
  ASSERT_TRUE(p2->Send(InputMessage(1, 0, {Spawn("ragdoll", 0.0f, 3.0f)})));
  ASSERT_TRUE(p2->Send(InputMessage(2, 0, {Spawn("car", -25.0f, 3.5f)})));
  const uint64_t end = p1->last_tick() + 240;
  for (auto* p : {p1.get(), p2.get()})
    ASSERT_TRUE(p->WaitForTick(end, absl::Seconds(30)));

  for (auto* p : {p1.get(), p2.get()}) {
    const std::vector<v1::ServerMessage> messages = p->messages();
    for (const v1::ServerMessage& m : messages)
      EXPECT_FALSE(m.has_error()) << m.error().message();
    uint64_t last = 0;
    EXPECT_TRUE(ResimulateStream(messages, request.scene(),
                                 world.world().config(), &last));
    EXPECT_GE(last, end);
  }

  // Locally, from the recording: both spawns made their groups (1 + 3 + 4
  // + 3 bodies, 2 + 3 + 2 joints), slot 2 owns the spawned ones, and the
  // driven car went right, on top of the terrain.
  const v1::Recording recording = GetRecording(address, "cars");
  auto sim = sim::Simulation::Create(request.scene(), world.world().config());
  ASSERT_TRUE(sim.ok()) << sim.status();
  const float start_x = (*sim)
                            ->world()
                            .GetBody((*sim)->world().GetBodyIds()[kChassis])
                            ->transform.p.x;
  for (const v1::RecordedTick& t : recording.ticks()) {
    if (t.tick() > end) break;
    std::vector<v1::ConfirmedInput> inputs(t.inputs().begin(),
                                           t.inputs().end());
    std::vector<sim::CommandFailure> failures;
    ASSERT_TRUE((*sim)->Step(inputs, &failures).ok());
    for (const sim::CommandFailure& f : failures) ADD_FAILURE() << f.status;
    ASSERT_EQ((*sim)->hash(), t.state_hash()) << "tick " << t.tick();
  }
  const World& w = (*sim)->world();
  EXPECT_EQ(w.GetBodyIds().size(), 11u);
  EXPECT_EQ(w.GetJointIds().size(), 7u);
  EXPECT_EQ((*sim)->JointOwners().size(), 7u);
  const BodyInfo chassis = *w.GetBody(w.GetBodyIds()[kChassis]);
  EXPECT_GT(chassis.transform.p.x, start_x + 3.0f);
  for (BodyId id : w.GetBodyIds()) {
    EXPECT_GT(w.GetBody(id)->transform.p.y, -0.5f) << "body " << id.index;
  }

  // `atoll verify` on the recording file.
  const std::string path = (std::filesystem::temp_directory_path() /
                            absl::StrCat("atoll_cars_", getpid(), ".atrec"))
                               .string();
  ASSERT_TRUE(client::WriteRecordingFile(path, recording).ok());
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "verify", path}, &output), 0)
      << output;
  EXPECT_THAT(output, ::testing::HasSubstr("ok"));

  // The events are verified too: a recording whose events hash of one tick
  // with inputs was altered fails at that tick, though every state hash
  // still matches.
  v1::Recording altered = recording;
  uint64_t altered_tick = 0;
  for (v1::RecordedTick& t : *altered.mutable_ticks()) {
    if (t.inputs_size() == 0 || t.events_hash() == 0) continue;
    t.set_events_hash(t.events_hash() ^ 1);
    altered_tick = t.tick();
    break;
  }
  ASSERT_NE(altered_tick, 0u);
  ASSERT_TRUE(client::WriteRecordingFile(path, altered).ok());
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "verify", path}, &output), 1)
      << output;
  EXPECT_THAT(output, ::testing::HasSubstr(absl::StrCat(
                          "events diverged at tick ", altered_tick, ":")));
  std::filesystem::remove(path);
  EXPECT_TRUE(p1->Close().ok());
  EXPECT_TRUE(p2->Close().ok());
}

}  // namespace
}  // namespace atl::testing
