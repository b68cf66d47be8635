// PredictedWorld against a local "server" Simulation: rollback reproduces
// the confirmed state, and a desync is reported with the differing body and
// resolved from the next snapshot.

#include "atoll/client/predicted_world.h"

#include <gtest/gtest.h>

#include "atoll/delta.h"
#include "atoll/sim/simulation.h"
#include "atoll/snapshot.h"
#include "client/client_test_util.h"

namespace atl::client {
namespace {

v1::WorldConfig Config() {
  v1::WorldConfig config;
  config.set_player_slots(4);
  config.set_tick_rate_hz(60);
  return *sim::NormalizeWorldConfig(config, 100000);
}

v1::Snapshot SnapshotOf(const sim::Simulation& s) {
  const v1::Checkpoint cp = s.SaveCheckpoint({});
  v1::Snapshot snap;
  snap.set_tick(cp.tick());
  snap.set_full(true);
  snap.set_data(cp.snapshot());
  *snap.mutable_owners() = cp.owners();
  snap.set_state_hash(cp.state_hash());
  return snap;
}

v1::ConfirmedInput Push(uint32_t slot, uint64_t sequence, uint32_t body, float x) {
  v1::ConfirmedInput in;
  in.set_slot(slot);
  in.set_sequence(sequence);
  v1::ApplyImpulse* impulse = in.add_commands()->mutable_apply_impulse();
  impulse->mutable_body()->set_index(body);
  impulse->mutable_body()->set_generation(1);
  impulse->mutable_impulse()->set_x(x);
  return in;
}

// Steps the server one tick with `inputs` and returns its Frame.
v1::Frame ServerStep(sim::Simulation* server, std::vector<v1::ConfirmedInput> inputs) {
  EXPECT_TRUE(server->Step(inputs, nullptr).ok());
  v1::Frame frame;
  frame.set_tick(server->tick());
  for (auto& in : inputs) *frame.add_inputs() = std::move(in);
  frame.set_state_hash(server->hash());
  return frame;
}

TEST(PredictedWorldTest, RollbackMakesThePredictionEqualTheConfirmedState) {
  const v1::SceneSpec spec = atl::testing::ArenaScene();
  auto server = sim::Simulation::Create(spec, Config());
  ASSERT_TRUE(server.ok()) << server.status();
  PredictionOptions options;
  options.local_slot = 1;
  options.prediction_window = 8;
  auto world = PredictedWorld::Create(spec, Config(), SnapshotOf(**server), options);
  ASSERT_TRUE(world.ok()) << world.status();
  PredictedWorld& pw = **world;

  // Slot 2 pushes its circle (body 5) every tick with a changing impulse,
  // so repeating its last input is always wrong.
  for (uint64_t t = 1; t <= 40; ++t) {
    const v1::Frame frame =
        ServerStep(server->get(), {Push(2, t, 5, static_cast<float>(t % 7) - 3.0f)});
    ASSERT_TRUE(pw.OnFrame(frame).ok());
    ASSERT_TRUE(pw.PredictTo(t + 8).ok());
    EXPECT_EQ(pw.confirmed().hash(), (*server)->hash());
    EXPECT_EQ(pw.predicted_tick(), t + 8);
  }
  EXPECT_EQ(pw.stats().desyncs, 0u);
  EXPECT_GT(pw.stats().rollbacks, 30u);
  // Each rollback re-simulates the 7 ticks predicted beyond the new
  // confirmed tick.
  EXPECT_EQ(pw.stats().frames_resimulated, pw.stats().rollbacks * 7);

  // When the confirmed inputs stop changing, prediction holds: re-simulate
  // from the confirmed state and compare with the predicted world.
  const uint64_t rollbacks = pw.stats().rollbacks;
  for (uint64_t t = 41; t <= 60; ++t) {
    ASSERT_TRUE(pw.OnFrame(ServerStep(server->get(), {Push(2, t, 5, 1.0f)})).ok());
    ASSERT_TRUE(pw.PredictTo(t + 8).ok());
  }
  EXPECT_LE(pw.stats().rollbacks, rollbacks + 2);
  auto check = sim::Simulation::Create(spec, Config());
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE((*check)->CopyStateFrom(pw.confirmed()).ok());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE((*check)->Step(std::vector{Push(2, 0, 5, 1.0f)}, nullptr).ok());
  EXPECT_EQ((*check)->hash(), HashWorld(pw.predicted().world()));
}

TEST(PredictedWorldTest, DesyncIsReportedWithTheBodyAndResolvedFromTheSnapshot) {
  const v1::SceneSpec spec = atl::testing::ArenaScene();
  auto server = sim::Simulation::Create(spec, Config());
  ASSERT_TRUE(server.ok());
  auto world = PredictedWorld::Create(spec, Config(), SnapshotOf(**server), PredictionOptions());
  ASSERT_TRUE(world.ok());
  PredictedWorld& pw = **world;

  // The server applies an impulse to body 6 that its Frame does not carry.
  v1::Frame frame = ServerStep(server->get(), {Push(3, 1, 6, 4.0f)});
  frame.clear_inputs();
  ASSERT_TRUE(pw.OnFrame(frame).ok());
  EXPECT_EQ(pw.stats().desyncs, 1u);
  EXPECT_TRUE(pw.awaiting_snapshot());
  EXPECT_TRUE(pw.TakeDesyncs().empty());  // waits for the snapshot to diff
  ASSERT_TRUE(pw.OnSnapshot(SnapshotOf(**server)).ok());
  std::vector<DesyncReport> reports = pw.TakeDesyncs();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].tick, 1u);
  EXPECT_EQ(reports[0].server_hash, (*server)->hash());
  EXPECT_NE(reports[0].local_hash, (*server)->hash());
  EXPECT_EQ(reports[0].diff_tick, 1u);
  ASSERT_FALSE(reports[0].diffs.empty());
  EXPECT_EQ(reports[0].diffs[0].index, 6u);
  EXPECT_NE(reports[0].ToString().find("body 6"), std::string::npos) << reports[0].ToString();
  // Resynchronized: the next frames check out.
  EXPECT_FALSE(pw.awaiting_snapshot());
  EXPECT_EQ(pw.confirmed().hash(), (*server)->hash());
  ASSERT_TRUE(pw.OnFrame(ServerStep(server->get(), {})).ok());
  EXPECT_EQ(pw.stats().desyncs, 1u);
  EXPECT_EQ(pw.stats().resyncs, 1u);
}

TEST(PredictedWorldTest, DeltaSnapshotsApplyToTheirBase) {
  const v1::SceneSpec spec = atl::testing::ArenaScene();
  auto server = sim::Simulation::Create(spec, Config());
  ASSERT_TRUE(server.ok());
  const v1::Snapshot base = SnapshotOf(**server);
  auto world = PredictedWorld::Create(spec, Config(), base, PredictionOptions());
  ASSERT_TRUE(world.ok());
  // The client missed ticks 1..10 (a collapsed outbox); the server sends a
  // delta of tick 10 against the tick-0 snapshot the client acknowledged.
  for (uint64_t t = 1; t <= 10; ++t) ServerStep(server->get(), {Push(1, t, 4, 1.0f)});
  v1::Snapshot delta = SnapshotOf(**server);
  absl::StatusOr<std::string> bytes = MakeDelta(base.data(), delta.data());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  delta.set_full(false);
  delta.set_base_tick(0);
  delta.set_data(*bytes);
  ASSERT_TRUE((*world)->OnSnapshot(delta).ok());
  EXPECT_EQ((*world)->confirmed_tick(), 10u);
  EXPECT_EQ((*world)->confirmed().hash(), (*server)->hash());
  EXPECT_EQ((*world)->stats().desyncs, 0u);

  delta.set_base_tick(5);  // never received
  EXPECT_TRUE(absl::IsFailedPrecondition((*world)->OnSnapshot(delta)));
}

}  // namespace
}  // namespace atl::client
