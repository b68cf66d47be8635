// Two players and a spectator on the real atoll-server binary; kill -9 and
// recovery from --data_dir.

#include <signal.h>
#include <sys/wait.h>
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "atoll/client/connection.h"
#include "atoll/v1/replay.grpc.pb.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

v1::CreateWorldRequest DuelRequest(const std::string& id) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  *request.mutable_scene() = DuelScene();
  request.mutable_config()->set_tick_rate_hz(240);
  request.mutable_config()->set_player_slots(2);
  request.mutable_config()->set_input_delay_ticks(2);
  request.mutable_config()->set_snapshot_every_ticks(100);
  request.mutable_config()->set_checkpoint_every_ticks(120);
  return request;
}

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override { data_dir_ = MakeTempDir(); }
  void TearDown() override { std::filesystem::remove_all(data_dir_); }
  std::string data_dir_;
};

TEST_F(SessionTest, TwoPlayersAndSpectatorMatchLocalResimulation) {
  auto server = ServerProcess::Start({"--data_dir=" + data_dir_});
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const v1::CreateWorldRequest request = DuelRequest("duel");
  const v1::CreateWorldResponse world = CreateWorld(address, request);
  ASSERT_EQ(world.tokens_size(), 2);

  v1::WatchRequest watch;
  watch.set_world_id("duel");
  watch.set_from_tick(0);
  auto spectator = SessionClient::Watch(address, watch);
  auto p1 = SessionClient::Connect(address, JoinFor(world, 1));
  auto p2 = SessionClient::Connect(address, JoinFor(world, 2));

  constexpr uint64_t kTicks = 600;
  uint64_t seq1 = 0, seq2 = 0;
  uint64_t late_sequence = 0;
  bool spawned = false;
  while (spectator->last_tick() < kTicks - 60) {
    const uint64_t now = spectator->last_tick();
    const float push = (now % 100 < 50) ? 0.4f : -0.4f;
    ASSERT_TRUE(p1->Send(InputMessage(++seq1, 0, {Impulse(Body(1), push, 0.1f)})));
    std::vector<v1::Command> c2 = {Impulse(Body(2), -push, 0.2f)};
    if (!spawned && now > 100) {
      v1::Command spawn;
      spawn.mutable_spawn_body()->set_template_name("ball");
      spawn.mutable_spawn_body()->mutable_position()->set_y(3);
      c2.push_back(spawn);
      spawned = true;
    }
    ASSERT_TRUE(p2->Send(InputMessage(++seq2, now + 3, std::move(c2))));
    if (late_sequence == 0 && now > 50) {
      // Tick 1 is long gone: applied at the next tick and reported late.
      v1::Command teleport;
      *teleport.mutable_set_transform()->mutable_body() = Body(3);
      teleport.mutable_set_transform()->mutable_position()->set_x(1.5f);
      teleport.mutable_set_transform()->mutable_position()->set_y(5);
      late_sequence = ++seq1;
      ASSERT_TRUE(p1->Send(InputMessage(late_sequence, 1, {teleport})));
    }
    absl::SleepFor(absl::Milliseconds(8));
  }
  for (auto* s : {spectator.get(), p1.get(), p2.get()}) {
    ASSERT_TRUE(s->WaitForTick(kTicks, absl::Seconds(20)));
  }

  const v1::WorldConfig& config = world.world().config();
  std::map<uint64_t, uint64_t> reference;
  for (auto* s : {spectator.get(), p1.get(), p2.get()}) {
    const std::vector<v1::ServerMessage> messages = s->messages();
    uint64_t last = 0;
    EXPECT_TRUE(ResimulateStream(messages, request.scene(), config, &last));
    EXPECT_GE(last, kTicks);
    for (const v1::ServerMessage& m : messages) {
      EXPECT_FALSE(m.has_error()) << m.error().message();
    }
    for (const auto& [tick, hash] : FrameHashes(messages)) {
      auto [it, inserted] = reference.emplace(tick, hash);
      EXPECT_EQ(it->second, hash) << "streams disagree at tick " << tick;
    }
  }
  // Every tick from 1 on was seen, by the spectator from the world's start.
  EXPECT_EQ(reference.begin()->first, 1u);

  // The late input was applied after its target and flagged for its sender.
  bool saw_late = false, saw_spawn_owner = false;
  for (const v1::ServerMessage& m : p1->messages()) {
    if (!m.has_frame()) continue;
    for (const v1::ConfirmedInput& in : m.frame().inputs()) {
      if (in.slot() == 1 && in.sequence() == late_sequence) {
        saw_late = in.late() && in.target_tick() == 1 && m.frame().tick() > 1;
      }
    }
  }
  for (const v1::ServerMessage& m : p2->messages()) {
    if (!m.has_snapshot()) continue;
    for (const v1::OwnedBody& o : m.snapshot().owners()) {
      if (o.body().index() >= 5 && o.slot() == 2) saw_spawn_owner = true;
    }
  }
  EXPECT_TRUE(saw_late);
  EXPECT_TRUE(saw_spawn_owner);

  // The server's own recording verifies too.
  auto replay = v1::ReplayService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::VerifyRequest verify;
  *verify.mutable_recording() = GetRecording(address, "duel");
  v1::VerifyResponse verdict;
  ASSERT_TRUE(replay->Verify(&context, verify, &verdict).ok());
  EXPECT_TRUE(verdict.ok());
  EXPECT_GE(verdict.ticks_verified(), kTicks);

  EXPECT_TRUE(p1->Close().ok());
  EXPECT_TRUE(p2->Close().ok());
}

TEST_F(SessionTest, KilledServerRestoresEveryWorldAndContinuesTheHashChain) {
  v1::CreateWorldResponse world;
  v1::Recording before;
  {
    auto server = ServerProcess::Start({"--data_dir=" + data_dir_});
    ASSERT_TRUE(server.ok()) << server.status();
    const std::string address = (*server)->address();
    world = CreateWorld(address, DuelRequest("survivor"));
    v1::CreateWorldRequest other = DuelRequest("other");
    other.mutable_config()->set_tick_rate_hz(120);
    CreateWorld(address, other);
    auto p1 = SessionClient::Connect(address, JoinFor(world, 1));
    for (uint64_t seq = 1; p1->last_tick() < 300; ++seq) {
      ASSERT_TRUE(p1->Send(InputMessage(seq, 0, {Impulse(Body(1), 0.3f, 0.2f)})));
      absl::SleepFor(absl::Milliseconds(10));
    }
    before = GetRecording(address, "survivor");
    ASSERT_GE(before.ticks_size(), 300);
    EXPECT_EQ((*server)->StopWith(SIGKILL), SIGKILL);
  }

  auto server = ServerProcess::Start({"--data_dir=" + data_dir_});
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  EXPECT_NE((*server)->Output().find("restored world survivor"), std::string::npos)
      << (*server)->Output();
  EXPECT_NE((*server)->Output().find("restored world other"), std::string::npos);

  // The old token still plays its slot; the world goes on from where it was.
  v1::Join rejoin = JoinFor(world, 2);
  rejoin.clear_resume_from_tick();
  auto p1 = SessionClient::Connect(address, rejoin);
  const uint64_t restart_tick = GetWorld(address, "survivor").tick();
  ASSERT_TRUE(p1->WaitForTick(restart_tick + 60, absl::Seconds(10)));
  const v1::Recording after = GetRecording(address, "survivor");
  ASSERT_GT(after.ticks_size(), before.ticks_size());
  for (int i = 0; i < before.ticks_size(); ++i) {
    ASSERT_EQ(after.ticks(i).tick(), before.ticks(i).tick());
    ASSERT_EQ(after.ticks(i).state_hash(), before.ticks(i).state_hash()) << "tick " << i + 1;
  }
  for (int i = 1; i < after.ticks_size(); ++i) {
    ASSERT_EQ(after.ticks(i).tick(), after.ticks(i - 1).tick() + 1);
  }
  // Frames after the restart continue the recorded chain.
  uint64_t last = 0;
  EXPECT_TRUE(ResimulateStream(p1->messages(), DuelScene(), world.world().config(), &last));
  // Slot 1 rejoins: Joined says which of its sequence numbers the world
  // already applied (what the recording kept), so it can go on from there.
  uint64_t recorded_sequence = 0;
  for (const v1::RecordedTick& t : after.ticks()) {
    for (const v1::ConfirmedInput& in : t.inputs()) {
      if (in.slot() == 1) recorded_sequence = std::max(recorded_sequence, in.sequence());
    }
  }
  ASSERT_GT(recorded_sequence, 0u);
  v1::Join rejoin1 = JoinFor(world, 1);
  rejoin1.clear_resume_from_tick();
  auto slot1 = SessionClient::Connect(address, rejoin1);
  ASSERT_TRUE(slot1->WaitFor(
      [](const std::vector<v1::ServerMessage>& ms) { return !ms.empty(); }, absl::Seconds(10)));
  ASSERT_TRUE(slot1->messages().front().has_joined());
  EXPECT_EQ(slot1->messages().front().joined().last_sequence(), recorded_sequence);
  EXPECT_EQ(p1->messages().front().joined().last_sequence(), 0u);  // slot 2 never sent
  slot1->Close();

  auto replay = v1::ReplayService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::VerifyRequest verify;
  *verify.mutable_recording() = after;
  v1::VerifyResponse verdict;
  ASSERT_TRUE(replay->Verify(&context, verify, &verdict).ok());
  EXPECT_TRUE(verdict.ok()) << "diverged at " << verdict.first_divergent_tick();
  p1->Close();
}

TEST_F(SessionTest, SigtermEndsSessionsAndSyncsRecordings) {
  auto server = ServerProcess::Start({"--data_dir=" + data_dir_});
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  CreateWorld(address, DuelRequest("calm"));
  v1::WatchRequest watch;
  watch.set_world_id("calm");
  auto spectator = SessionClient::Watch(address, watch);
  ASSERT_TRUE(spectator->WaitForTick(10, absl::Seconds(10)));
  const int status = (*server)->StopWith(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << (*server)->Output();
  EXPECT_EQ(spectator->WaitForEnd(absl::Seconds(10)).error_code(), grpc::StatusCode::UNAVAILABLE);

  // The recording ends with whole records up to the last tick the
  // spectator saw (or later).
  auto restarted = ServerProcess::Start({"--data_dir=" + data_dir_});
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  EXPECT_GE(GetWorld((*restarted)->address(), "calm").tick(), spectator->last_tick());
}

TEST_F(SessionTest, SigtermWithPlayerAndSpectatorExitsWellUnderTheGrace) {
  // A long grace: the exit must not wait for it.
  auto server = ServerProcess::Start({"--shutdown_grace=20s"});
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const v1::CreateWorldResponse world = CreateWorld(address, DuelRequest("quick"));
  auto player = SessionClient::Connect(address, JoinFor(world, 1));
  v1::WatchRequest watch;
  watch.set_world_id("quick");
  auto spectator = SessionClient::Watch(address, watch);
  // A Connect stream that has not sent its Join yet: no world knows it.
  auto stub = v1::SessionService::NewStub(client::MakeChannel(address));
  grpc::ClientContext idle_context;
  auto idle = stub->Connect(&idle_context);
  ASSERT_TRUE(player->WaitForTick(10, absl::Seconds(10)));
  ASSERT_TRUE(spectator->WaitForTick(10, absl::Seconds(10)));
  auto health = client::CheckHealth(address, "", absl::Seconds(5));
  ASSERT_TRUE(health.ok()) << health.status();

  const absl::Time start = absl::Now();
  const int status = (*server)->StopWith(SIGTERM);
  const absl::Duration took = absl::Now() - start;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << (*server)->Output();
  EXPECT_LT(took, absl::Seconds(2)) << (*server)->Output();
  EXPECT_EQ(player->WaitForEnd(absl::Seconds(5)).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(spectator->WaitForEnd(absl::Seconds(5)).error_code(), grpc::StatusCode::UNAVAILABLE);
  v1::ServerMessage m;
  EXPECT_FALSE(idle->Read(&m));
  EXPECT_EQ(idle->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

}  // namespace
}  // namespace atl::testing
