// Integration: sensor events, joint commands and joint breaks through the
// real atoll-server binary. examples/sensor_door.json: a ball rolls
// through a sensor towards a door held shut by a prismatic motor; the
// player who owns the door's joint opens it when the sensor reports the
// ball. A breakable hook: a weight hangs from a joint that a player's pull
// breaks. Every stream is re-simulated locally, events included, and the
// server's recording verifies.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "atoll/client/connection.h"
#include "atoll/sim/simulation.h"
#include "atoll/v1/replay.grpc.pb.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

const char kDoorScene[] = ATOLL_SOURCE_DIR "/examples/sensor_door.json";
constexpr uint32_t kBall = 3;  // body indices of the example
constexpr uint32_t kDoor = 2;

v1::WorldConfig DoorConfig() {
  v1::WorldConfig config;
  config.set_tick_rate_hz(60);
  config.set_player_slots(1);
  config.set_input_delay_ticks(1);
  config.set_snapshot_every_ticks(120);
  return config;
}

v1::Command OpenDoor(float speed) {
  v1::Command c;
  c.mutable_joint()->mutable_joint()->set_index(0);
  c.mutable_joint()->mutable_joint()->set_generation(1);
  c.mutable_joint()->set_motor_speed(speed);
  return c;
}

float BodyX(const sim::Simulation& sim, uint32_t index) {
  for (BodyId id : sim.world().GetBodyIds()) {
    if (id.index == index) return sim.world().GetBody(id)->transform.p.x;
  }
  ADD_FAILURE() << "no body " << index;
  return 0.0f;
}

// The first tick whose Frame reports a sensor begin, if any.
std::optional<uint64_t> SensorBeginTick(
    const std::vector<v1::ServerMessage>& messages) {
  for (const v1::ServerMessage& m : messages) {
    if (!m.has_frame()) continue;
    for (const v1::SensorEvent& e : m.frame().sensor_events()) {
      if (e.kind() == v1::SensorEvent::KIND_BEGIN) return m.frame().tick();
    }
  }
  return std::nullopt;
}

// Steps `sim` to `tick` applying each stream Frame's confirmed inputs.
void Replay(const std::vector<v1::ServerMessage>& messages, uint64_t tick,
            sim::Simulation* sim) {
  for (const v1::ServerMessage& m : messages) {
    if (!m.has_frame() || m.frame().tick() != sim->tick() + 1 ||
        sim->tick() >= tick)
      continue;
    std::vector<v1::ConfirmedInput> inputs(m.frame().inputs().begin(),
                                           m.frame().inputs().end());
    ASSERT_TRUE(sim->Step(inputs, nullptr).ok());
  }
}

TEST(JointEventsTest, ShutDoorStopsTheBall) {
  // The control, without a server: nobody opens the door, so the ball
  // stays on the sensor's side of it.
  auto sim = sim::Simulation::Create(
      LoadSceneSpec(kDoorScene),
      sim::NormalizeWorldConfig(DoorConfig(), 1000).value());
  ASSERT_TRUE(sim.ok()) << sim.status();
  for (int i = 0; i < 360; ++i) ASSERT_TRUE((*sim)->Step({}, nullptr).ok());
  EXPECT_LT(BodyX(**sim, kBall), 2.0f - 0.2f - 0.5f + 0.05f);
  EXPECT_NEAR(BodyX(**sim, kDoor), 2.0f, 0.01f);
}

TEST(JointEventsTest, ThePlayerOpensTheDoorWhenTheSensorSeesTheBall) {
  const std::string data_dir = MakeTempDir();
  auto server = ServerProcess::Start({"--data_dir=" + data_dir});
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  v1::CreateWorldRequest request;
  request.set_world_id("door");
  *request.mutable_scene() = LoadSceneSpec(kDoorScene);
  *request.mutable_config() = DoorConfig();
  const v1::CreateWorldResponse world = CreateWorld(address, request);
  auto player = SessionClient::Connect(address, JoinFor(world, 1));

  // React to the stream as a game client would.
  ASSERT_TRUE(player->WaitFor(
      [](const std::vector<v1::ServerMessage>& m) {
        return SensorBeginTick(m).has_value();
      },
      absl::Seconds(20)));
  const uint64_t seen = *SensorBeginTick(player->messages());
  ASSERT_TRUE(player->Send(InputMessage(1, 0, {OpenDoor(4.0f)})));
  const uint64_t end = seen + 180;
  ASSERT_TRUE(player->WaitForTick(end, absl::Seconds(20)));
  const std::vector<v1::ServerMessage> messages = player->messages();
  for (const v1::ServerMessage& m : messages)
    EXPECT_FALSE(m.has_error()) << m.error().message();

  // Hashes and every event list, re-simulated locally from the stream.
  uint64_t last = 0;
  EXPECT_TRUE(ResimulateStream(messages, request.scene(),
                               world.world().config(), &last));
  EXPECT_GE(last, end);
  // The sensor reported the ball's arrival when it reached the zone's left
  // edge (x = -3) and its departure later; the door went up and let it
  // through.
  auto sim = sim::Simulation::Create(request.scene(), world.world().config());
  ASSERT_TRUE(sim.ok());
  Replay(messages, seen - 1, sim->get());
  EXPECT_LT(BodyX(**sim, kBall), -3.0f + 0.5f);
  Replay(messages, end, sim->get());
  EXPECT_GT(BodyX(**sim, kBall), 2.5f);
  bool left_sensor = false;
  for (const v1::ServerMessage& m : messages) {
    if (!m.has_frame()) continue;
    for (const v1::SensorEvent& e : m.frame().sensor_events()) {
      if (e.kind() != v1::SensorEvent::KIND_END) continue;
      left_sensor = true;
      EXPECT_EQ(e.visitor_body().index(), kBall);
      EXPECT_EQ(e.sensor_body().index(), 1u);
    }
  }
  EXPECT_TRUE(left_sensor);

  // The recording verifies tick for tick.
  auto replay = v1::ReplayService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::VerifyRequest verify;
  *verify.mutable_recording() = GetRecording(address, "door");
  v1::VerifyResponse verdict;
  ASSERT_TRUE(replay->Verify(&context, verify, &verdict).ok());
  EXPECT_TRUE(verdict.ok()) << verdict.ShortDebugString();
  EXPECT_GE(verdict.ticks_verified(), end);
  EXPECT_TRUE(player->Close().ok());
  std::filesystem::remove_all(data_dir);
}

TEST(JointEventsTest, AtollWatchPrintsEachSensorEvent) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string flag = "--server=" + (*server)->address();
  std::string output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "create", kDoorScene, flag,
                        "--id=door", "--slots=1"},
                       &output),
            0)
      << output;
  ASSERT_EQ(
      RunCommand({BinaryPath("atoll"), "watch", "door", flag, "--ticks=150"},
                 &output),
      0)
      << output;
  // The ball (body 3, shape 3) reaches the sensor (body 1, shape 1) after
  // about 72 ticks.
  EXPECT_THAT(output,
              ::testing::ContainsRegex("tick [0-9]+ sensor begin: shape 3 "
                                       "\\(body 3\\) entered sensor shape 1 "
                                       "\\(body 1\\)"));
}

// A 1 kg box hangs from a static hook by a revolute joint that breaks
// beyond 15 N; slot 1 owns the box and pulls it down with 20 N from a tick
// of its choosing: the weight alone (10 N) holds, weight and pull do not.
v1::SceneSpec HookScene() {
  v1::SceneSpec spec;
  v1::BodySpec* hook = spec.add_bodies();
  hook->set_type(v1::BODY_TYPE_STATIC);
  hook->mutable_position()->set_y(5.0f);
  v1::BodySpec* box = spec.add_bodies();
  box->set_type(v1::BODY_TYPE_DYNAMIC);
  box->mutable_position()->set_y(5.0f);
  box->set_owner_slot(1);
  box->add_shapes()->mutable_box()->set_half_width(0.5f);
  box->mutable_shapes(0)->mutable_box()->set_half_height(0.5f);
  v1::JointSpec* joint = spec.add_joints();
  joint->mutable_revolute()->set_body_a(0);
  joint->mutable_revolute()->set_body_b(1);
  joint->mutable_revolute()->set_user_data(5);
  joint->set_break_force(15.0f);
  return spec;
}

TEST(JointEventsTest, AJointBreaksAtTheSameTickOnTheServerAndInReplay) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  v1::CreateWorldRequest request;
  request.set_world_id("hook");
  *request.mutable_scene() = HookScene();
  request.mutable_config()->set_tick_rate_hz(120);
  request.mutable_config()->set_player_slots(1);
  const v1::CreateWorldResponse world = CreateWorld(address, request);
  auto player = SessionClient::Connect(address, JoinFor(world, 1));
  ASSERT_TRUE(player->WaitForTick(30, absl::Seconds(20)));
  // Nothing broke under the weight alone.
  for (const v1::ServerMessage& m : player->messages()) {
    if (m.has_frame()) {
      EXPECT_EQ(m.frame().joint_breaks_size(), 0) << m.frame().tick();
    }
  }
  v1::Command pull;
  *pull.mutable_apply_force()->mutable_body() = Body(1);
  pull.mutable_apply_force()->mutable_force()->set_y(-20.0f);
  ASSERT_TRUE(player->Send(InputMessage(1, 0, {pull})));
  ASSERT_TRUE(player->WaitFor(
      [](const std::vector<v1::ServerMessage>& messages) {
        for (const v1::ServerMessage& m : messages) {
          if (m.has_frame() && m.frame().joint_breaks_size() > 0) return true;
        }
        return false;
      },
      absl::Seconds(20)));
  const uint64_t last = player->last_tick();
  ASSERT_TRUE(player->WaitForTick(last + 10, absl::Seconds(20)));
  const std::vector<v1::ServerMessage> messages = player->messages();

  // It broke in the step that applied the pull, reported once, with the
  // joint's id, bodies, user data and a reaction of weight plus pull.
  uint64_t pulled_at = 0, broke_at = 0;
  for (const v1::ServerMessage& m : messages) {
    if (!m.has_frame()) continue;
    if (m.frame().inputs_size() > 0) pulled_at = m.frame().tick();
    for (const v1::JointBreakEvent& e : m.frame().joint_breaks()) {
      EXPECT_EQ(broke_at, 0u) << "a second break";
      broke_at = m.frame().tick();
      EXPECT_EQ(e.joint().index(), 0u);
      EXPECT_EQ(e.joint().generation(), 1u);
      EXPECT_EQ(e.body_b().index(), 1u);
      EXPECT_EQ(e.user_data(), 5u);
      EXPECT_NEAR(e.force().y(), 30.0f, 0.3f);
    }
  }
  EXPECT_NE(pulled_at, 0u);
  EXPECT_EQ(broke_at, pulled_at);
  // ResimulateStream compares each Frame's events with the local step's:
  // the replica breaks the joint at the same tick, with the same numbers.
  uint64_t verified = 0;
  EXPECT_TRUE(ResimulateStream(messages, request.scene(),
                               world.world().config(), &verified));
  EXPECT_GT(verified, broke_at);
  EXPECT_TRUE(player->Close().ok());
}

}  // namespace
}  // namespace atl::testing
