// Integration: simulated players predicting and rolling back against the
// real atoll-server binary, with injected latency, reconnects and a late
// spectator. The worlds tick at 240 Hz so that 1 200 ticks take 5 s; latency
// is scaled in ticks: 100 ms round trip at 60 Hz is 6 ticks, 25 ms at 240 Hz.

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>

#include "atoll/client/bot.h"
#include "atoll/client/predicted_world.h"
#include "atoll/client/session.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"

namespace atl::client {
namespace {

using ::atl::testing::ServerProcess;
using ::atl::testing::TestWorld;

constexpr uint32_t kTickRate = 240;
// 6 ticks of round trip at 240 Hz, injected as half each way.
const absl::Duration kOneWayLatency = absl::Microseconds(12500);

BotOptions BotsFor(const std::string& address, const TestWorld& world, int players,
                   uint64_t ticks) {
  BotOptions options;
  options.address = address;
  options.world_id = world.id;
  options.scene = world.scene;
  options.tokens = world.tokens;
  options.players = players;
  options.ticks = ticks;
  options.injected_latency = kOneWayLatency;
  options.prediction.prediction_window = 8;
  return options;
}

// Every tick two sources both have must carry the same hash.
void ExpectSameHashes(const std::map<uint64_t, uint64_t>& a, const std::map<uint64_t, uint64_t>& b,
                      size_t* common) {
  for (const auto& [tick, hash] : a) {
    auto it = b.find(tick);
    if (it == b.end()) continue;
    ++*common;
    ASSERT_EQ(hash, it->second) << "tick " << tick;
  }
}

std::map<uint64_t, uint64_t> RecordedHashes(const std::string& address, const std::string& id) {
  const v1::Recording recording = atl::testing::GetRecording(address, id);
  std::map<uint64_t, uint64_t> out;
  for (const v1::RecordedTick& t : recording.ticks()) out[t.tick()] = t.state_hash();
  return out;
}

TEST(PredictionTest, FourPlayersWithLatencyStayInSyncFor1200Ticks) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const TestWorld world = atl::testing::CreateArena(address, "four", 4, kTickRate);

  absl::StatusOr<std::vector<BotReport>> reports =
      RunBots(BotsFor(address, world, 4, 1200));
  ASSERT_TRUE(reports.ok()) << reports.status();
  const std::map<uint64_t, uint64_t> recorded = RecordedHashes(address, world.id);
  for (const BotReport& r : *reports) {
    SCOPED_TRACE(::testing::Message() << "slot " << r.slot);
    std::printf("slot %u: %llu rollbacks, %llu frames re-simulated, mean %.3f ms, max %.3f ms\n",
                r.slot, static_cast<unsigned long long>(r.stats.rollbacks),
                static_cast<unsigned long long>(r.stats.frames_resimulated),
                r.stats.mean_rollback_ms(), r.stats.max_rollback_ms);
    EXPECT_EQ(r.stats.desyncs, 0u);
    for (const DesyncReport& d : r.desyncs) ADD_FAILURE() << d.ToString();
    EXPECT_GE(r.last_tick - r.first_tick, 1200u);
    EXPECT_GT(r.stats.rollbacks, 0u);
    EXPECT_GT(r.stats.frames_resimulated, r.stats.rollbacks);
    EXPECT_LE(r.stats.max_prediction_depth, 8);
    EXPECT_GT(r.inputs_sent, 1000u);
    size_t common = 0;
    ExpectSameHashes(r.hashes, recorded, &common);
    EXPECT_GE(common, 1200u);
  }
}

TEST(PredictionTest, DroppedStreamReconnectsAndContinuesWithoutDesync) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const TestWorld world = atl::testing::CreateArena(address, "drop", 2, kTickRate);

  BotOptions options = BotsFor(address, world, 2, 600);
  options.drop_stream_at_tick = 300;
  absl::StatusOr<std::vector<BotReport>> reports = RunBots(options);
  ASSERT_TRUE(reports.ok()) << reports.status();
  const BotReport& dropped = (*reports)[0];
  EXPECT_EQ(dropped.reconnects, 1u);
  const std::map<uint64_t, uint64_t> recorded = RecordedHashes(address, world.id);
  for (const BotReport& r : *reports) {
    EXPECT_EQ(r.stats.desyncs, 0u) << "slot " << r.slot;
    EXPECT_GE(r.last_tick - r.first_tick, 600u);
    size_t common = 0;
    ExpectSameHashes(r.hashes, recorded, &common);
    EXPECT_GE(common, 600u);
  }
  // The frames after the drop were confirmed without a gap: the resumed
  // stream replayed them from the checkpoint before the drop.
  EXPECT_EQ(dropped.stats.resyncs, 0u);
}

TEST(PredictionTest, SpectatorJoiningAtTick500SeesTheSameHashes) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const TestWorld world = atl::testing::CreateArena(address, "late", 1, kTickRate);

  std::optional<absl::StatusOr<std::vector<BotReport>>> reports;
  std::thread bots([&] { reports = RunBots(BotsFor(address, world, 1, 900)); });
  while (atl::testing::GetWorld(address, world.id).tick() < 500) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  SessionOptions so;
  so.address = address;
  so.world_id = world.id;  // slot 0: a spectator
  absl::StatusOr<std::unique_ptr<Session>> spectator = Session::Connect(so);
  ASSERT_TRUE(spectator.ok()) << spectator.status();
  EXPECT_GE((*spectator)->joined().tick(), 500u);
  std::unique_ptr<PredictedWorld> replica;
  std::map<uint64_t, uint64_t> server_hashes;
  while (replica == nullptr || replica->confirmed_tick() < 800) {
    absl::StatusOr<std::optional<v1::ServerMessage>> m = (*spectator)->Next(absl::Seconds(5));
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(m->has_value());
    if (replica == nullptr) {
      ASSERT_TRUE((*m)->has_snapshot());
      auto made = PredictedWorld::Create(world.scene, (*spectator)->joined().config(),
                                         (*m)->snapshot(), PredictionOptions());
      ASSERT_TRUE(made.ok()) << made.status();
      replica = *std::move(made);
      continue;
    }
    ASSERT_TRUE(replica->OnServerMessage(**m).ok());
    if ((*m)->has_frame()) server_hashes[(*m)->frame().tick()] = (*m)->frame().state_hash();
  }
  bots.join();
  ASSERT_TRUE(reports->ok()) << reports->status();
  EXPECT_EQ(replica->stats().desyncs, 0u);
  EXPECT_EQ(replica->predicted_tick(), replica->confirmed_tick());  // spectators never predict
  size_t common = 0;
  ExpectSameHashes(replica->confirmed_hashes(), server_hashes, &common);
  EXPECT_GE(common, 250u);
  common = 0;
  ExpectSameHashes(replica->confirmed_hashes(), (**reports)[0].hashes, &common);
  EXPECT_GE(common, 250u);
  common = 0;
  ExpectSameHashes(replica->confirmed_hashes(), RecordedHashes(address, world.id), &common);
  EXPECT_GE(common, 250u);
}

TEST(ClientSessionTest, BadTokenUnknownWorldAndUnreachableServerFailClearly) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const TestWorld world = atl::testing::CreateArena(address, "guarded", 1, 60);
  SessionOptions so;
  so.address = address;
  so.world_id = world.id;
  so.slot = 1;
  so.token = "not-the-token";
  absl::StatusOr<std::unique_ptr<Session>> s = Session::Connect(so);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(s.status())) << s.status();
  EXPECT_NE(s.status().message().find("join.token"), absl::string_view::npos) << s.status();

  so.world_id = "nowhere";
  so.token = world.tokens[0];
  s = Session::Connect(so);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsNotFound(s.status())) << s.status();

  (*server)->StopWith(SIGKILL);
  so.world_id = world.id;
  s = Session::Connect(so);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(absl::IsUnavailable(s.status())) << s.status();
  EXPECT_NE(s.status().message().find(address), absl::string_view::npos) << s.status();
}

}  // namespace
}  // namespace atl::client
