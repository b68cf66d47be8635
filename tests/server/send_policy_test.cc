// The overload policy (WorldHost, docs/protocol.md "Overload"): a tick that
// starts late reduces what the world sends — snapshots four times rarer, a
// lagging session collapsed at half its outbox — and says so in the stream
// and in WorldInfo; two seconds of ticks on time restore it. Ticks are never
// skipped for it. Driven tick by tick with chosen lateness, no scheduler.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "world_host.h"

namespace atl::server {
namespace {

constexpr uint32_t kRate = 60;
constexpr uint32_t kEvery = 10;
const absl::Duration kPeriod = absl::Seconds(1) / kRate;

// Keeps every message written; the test decides when a write is done.
class RecordingSink final : public MessageSink<v1::ServerMessage> {
 public:
  void StartMessageWrite(const v1::ServerMessage* message) override {
    messages.push_back(*message);
    writing = true;
  }
  void FinishCall(const grpc::Status&) override {}
  std::vector<v1::ServerMessage> messages;
  bool writing = false;
};

struct Watched {
  std::shared_ptr<WorldHost> host;
  RecordingSink sink;
  std::shared_ptr<Outbox> outbox;

  // Completes every write, as a client that keeps up.
  void Drain() {
    while (sink.writing) {
      sink.writing = false;
      outbox->OnWriteDone(true);
    }
  }
  // Snapshots and SendPolicy messages received since message `from`.
  int Snapshots(size_t from) const {
    int n = 0;
    for (size_t i = from; i < sink.messages.size(); ++i) n += sink.messages[i].has_snapshot();
    return n;
  }
  std::vector<v1::SendPolicy> Policies(size_t from) const {
    std::vector<v1::SendPolicy> out;
    for (size_t i = from; i < sink.messages.size(); ++i) {
      if (sink.messages[i].has_send_policy()) out.push_back(sink.messages[i].send_policy());
    }
    return out;
  }
};

std::unique_ptr<Watched> WatchedPyramid(uint32_t outbox_capacity, uint32_t phase = 0) {
  v1::SceneSpec spec;
  spec.mutable_builtin()->set_name("pyramid");
  spec.mutable_builtin()->set_size(5);
  v1::WorldConfig config;
  config.set_tick_rate_hz(kRate);
  config.set_snapshot_every_ticks(kEvery);
  absl::StatusOr<v1::WorldConfig> normalized = sim::NormalizeWorldConfig(config, 100000);
  EXPECT_TRUE(normalized.ok()) << normalized.status();
  auto w = std::make_unique<Watched>();
  std::vector<v1::SlotToken> tokens;
  absl::StatusOr<std::shared_ptr<WorldHost>> host =
      WorldHost::Create("w", spec, *normalized, "", WorldHostOptions{.phase = phase}, &tokens);
  EXPECT_TRUE(host.ok()) << host.status();
  w->host = *host;
  w->outbox = std::make_shared<Outbox>(&w->sink, outbox_capacity);
  v1::WatchRequest watch;
  watch.set_world_id("w");
  EXPECT_TRUE(w->host->Watch(watch, w->outbox).ok());
  w->Drain();
  return w;
}

TEST(SendPolicyTest, ALateTickSlowsSnapshotsUntilTwoSecondsOnTimeAndSaysSo) {
  std::unique_ptr<Watched> w = WatchedPyramid(256);
  // On time (and a quarter period late is still on time): a snapshot every
  // 10 ticks, no policy message.
  size_t mark = w->sink.messages.size();
  for (int i = 0; i < 60; ++i) {
    w->host->Tick(i == 30 ? kPeriod / 4 : absl::ZeroDuration());
    w->Drain();
  }
  EXPECT_EQ(w->Snapshots(mark), 6);
  EXPECT_TRUE(w->Policies(mark).empty());

  // One tick a third of a period late: sends reduced, said once.
  mark = w->sink.messages.size();
  w->host->Tick(kPeriod / 3);
  w->Drain();
  std::vector<v1::SendPolicy> policies = w->Policies(mark);
  ASSERT_EQ(policies.size(), 1u);
  EXPECT_TRUE(policies[0].reduced());
  EXPECT_EQ(policies[0].snapshot_every_ticks(), kEvery * kSnapshotSlowdown);
  EXPECT_TRUE(absl::StrContains(policies[0].reason(), "tick 61 started 5.6 ms late"))
      << policies[0].reason();

  // 119 ticks on time (under two seconds): still reduced, a snapshot every
  // 40 ticks (ticks 80, 120, 160 of 62..180).
  mark = w->sink.messages.size();
  for (int i = 0; i < 119; ++i) {
    w->host->Tick(absl::ZeroDuration());
    w->Drain();
  }
  EXPECT_EQ(w->Snapshots(mark), 3);
  EXPECT_TRUE(w->Policies(mark).empty());
  EXPECT_EQ(w->host->Info().reduced_send_ticks(), 120u);

  // The 120th on-time tick restores the sends, said once.
  mark = w->sink.messages.size();
  w->host->Tick(absl::ZeroDuration());
  w->Drain();
  policies = w->Policies(mark);
  ASSERT_EQ(policies.size(), 1u);
  EXPECT_FALSE(policies[0].reduced());
  EXPECT_EQ(policies[0].snapshot_every_ticks(), kEvery);
  EXPECT_EQ(w->host->Info().reduced_send_ticks(), 120u);
  mark = w->sink.messages.size();
  for (int i = 0; i < 20; ++i) {
    w->host->Tick(absl::ZeroDuration());
    w->Drain();
  }
  EXPECT_EQ(w->Snapshots(mark), 2);

  // Every tick was stepped, late or not.
  EXPECT_EQ(w->host->tick(), 201u);
}

// While sends are reduced the periodic snapshots are a quarter of the usual
// ones: still on the phase Joined announced.
TEST(SendPolicyTest, ReducedSnapshotsKeepTheJoinedPhase) {
  // A quarter of any period: phase 2 of 10 ticks, 10 of 40.
  std::unique_ptr<Watched> w = WatchedPyramid(256, 0x40000000u);
  ASSERT_TRUE(w->sink.messages.front().has_joined());
  const uint32_t phase = w->sink.messages.front().joined().snapshot_phase();
  ASSERT_EQ(phase, 2u);
  const size_t mark = w->sink.messages.size();
  w->host->Tick(kPeriod / 3);  // reduced from here on
  w->Drain();
  for (int i = 0; i < 100; ++i) {
    w->host->Tick(absl::ZeroDuration());
    w->Drain();
  }
  int snapshots = 0;
  for (size_t i = mark; i < w->sink.messages.size(); ++i) {
    const v1::ServerMessage& m = w->sink.messages[i];
    if (!m.has_snapshot()) continue;
    EXPECT_EQ((m.snapshot().tick() + phase) % (kEvery * kSnapshotSlowdown), 0u)
        << "tick " << m.snapshot().tick();
    ++snapshots;
  }
  EXPECT_EQ(snapshots, 2);  // ticks 38 and 78 of 2..102 (phase 2, every 40)
}

TEST(SendPolicyTest, ALaggingSessionIsCollapsedAtHalfItsOutboxWhileReduced) {
  // Normal sends: a client that reads nothing is collapsed only when its
  // outbox of 40 is full.
  std::unique_ptr<Watched> normal = WatchedPyramid(40);
  uint32_t longest = 0;
  for (int i = 0; i < 100; ++i) {
    normal->host->Tick(absl::ZeroDuration());
    longest = std::max(longest, normal->outbox->stats().length);
  }
  EXPECT_EQ(longest, 40u);
  EXPECT_GE(normal->outbox->stats().collapses, 1u);

  // Reduced (every tick late): collapsed as soon as it holds more than 20,
  // to the newest snapshot and frame.
  std::unique_ptr<Watched> reduced = WatchedPyramid(40);
  longest = 0;
  for (int i = 0; i < 100; ++i) {
    reduced->host->Tick(kPeriod / 2);
    longest = std::max(longest, reduced->outbox->stats().length);
  }
  EXPECT_LE(longest, 21u);
  EXPECT_GE(reduced->outbox->stats().collapses, 4u);
  EXPECT_EQ(reduced->host->tick(), 100u);
}

}  // namespace
}  // namespace atl::server
