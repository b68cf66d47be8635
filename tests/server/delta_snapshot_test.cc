// Delta snapshots on the wire: a session gets deltas against the snapshot
// it acknowledged, and applying them reproduces the server's snapshots byte
// for byte.

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "atoll/delta.h"
#include "atoll/server/server.h"
#include "atoll/snapshot.h"
#include "server/service_test_util.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

constexpr uint32_t kEvery = 10;

class DeltaSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = server::Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    // A ram into a block of boxes: most records change every tick at first.
    v1::CreateWorldRequest request;
    request.set_world_id("smash");
    request.mutable_scene()->mutable_builtin()->set_name("smash");
    request.mutable_scene()->mutable_builtin()->set_size(200);
    request.mutable_config()->set_tick_rate_hz(240);
    request.mutable_config()->set_player_slots(1);
    world_ = CreateWorld(address(), request);
  }

  const std::string& address() const { return server_->address(); }

  v1::Join PlayerJoin() const {
    v1::Join join;
    join.set_world_id("smash");
    join.set_slot(1);
    join.set_token(world_.tokens(0).token());
    join.set_snapshot_every_ticks(kEvery);
    return join;
  }

  std::unique_ptr<server::Server> server_;
  v1::CreateWorldResponse world_;
};

// What a client does: keep every snapshot it acked (by tick), rebuild
// deltas from their base, check the hash and ack.
struct DeltaClient {
  std::map<uint64_t, std::string> snapshots;
  size_t handled = 0;
  int deltas = 0;
  int fulls = 0;
  size_t delta_bytes = 0;
  size_t full_bytes = 0;

  // Handles the messages not seen yet; returns false (with a test failure)
  // on a bad snapshot.
  bool Handle(SessionClient* session, bool ack) {
    const std::vector<v1::ServerMessage> messages = session->messages();
    for (; handled < messages.size(); ++handled) {
      if (!messages[handled].has_snapshot()) continue;
      const v1::Snapshot& s = messages[handled].snapshot();
      std::string bytes;
      if (s.full()) {
        ++fulls;
        full_bytes += s.data().size();
        bytes = s.data();
      } else {
        ++deltas;
        delta_bytes += s.data().size();
        auto base = snapshots.find(s.base_tick());
        if (base == snapshots.end()) {
          ADD_FAILURE() << "delta of tick " << s.tick() << " against tick " << s.base_tick()
                        << ", which the client never acked";
          return false;
        }
        absl::StatusOr<std::string> applied = ApplyDelta(base->second, s.data());
        if (!applied.ok()) {
          ADD_FAILURE() << "tick " << s.tick() << ": " << applied.status();
          return false;
        }
        bytes = *std::move(applied);
        // The server never goes back to an older base.
        snapshots.erase(snapshots.begin(), base);
      }
      absl::StatusOr<std::unique_ptr<World>> world = LoadSnapshot(bytes);
      if (!world.ok()) {
        ADD_FAILURE() << "tick " << s.tick() << ": " << world.status();
        return false;
      }
      EXPECT_EQ(HashWorld(**world), s.state_hash()) << "tick " << s.tick();
      snapshots[s.tick()] = std::move(bytes);
      if (ack) {
        v1::ClientMessage m;
        m.mutable_ack()->set_snapshot_tick(s.tick());
        session->Send(m);
      }
    }
    return true;
  }
};

TEST_F(DeltaSnapshotTest, AppliedDeltasReproduceTheServersSnapshotBytesAndHash) {
  // The spectator on Watch cannot ack: it gets every snapshot in full, the
  // reference for the player's rebuilt ones.
  v1::WatchRequest watch;
  watch.set_world_id("smash");
  watch.set_snapshot_every_ticks(kEvery);
  auto spectator = SessionClient::Watch(address(), watch);
  auto player = SessionClient::Connect(address(), PlayerJoin());

  DeltaClient client;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (client.deltas < 20 && absl::Now() < deadline) {
    ASSERT_TRUE(client.Handle(player.get(), /*ack=*/true));
    absl::SleepFor(absl::Milliseconds(2));
  }
  ASSERT_GE(client.deltas, 20);
  EXPECT_GE(client.fulls, 1);
  // Half the world moves, yet a delta is far smaller than a snapshot.
  const size_t mean_delta = client.delta_bytes / client.deltas;
  const size_t mean_full = client.full_bytes / client.fulls;
  EXPECT_LT(mean_delta * 2, mean_full) << mean_delta << " vs " << mean_full;
  std::printf("delta snapshots: full %zu bytes, delta %zu bytes on average\n", mean_full,
              mean_delta);

  // Byte-identical to the full snapshots the spectator got for the same ticks.
  const uint64_t last = client.snapshots.rbegin()->first;
  ASSERT_TRUE(spectator->WaitForTick(last, absl::Seconds(10)));
  int compared = 0;
  for (const v1::ServerMessage& m : spectator->messages()) {
    if (!m.has_snapshot()) continue;
    EXPECT_TRUE(m.snapshot().full());
    auto it = client.snapshots.find(m.snapshot().tick());
    if (it == client.snapshots.end()) continue;
    EXPECT_EQ(it->second, m.snapshot().data()) << "tick " << m.snapshot().tick();
    ++compared;
  }
  EXPECT_GE(compared, 1);

  // The server reports the base it uses: one the client acked.
  bool reported = false;
  const v1::WorldInfo info = GetWorld(address(), "smash");
  for (const v1::SessionStats& s : info.sessions()) {
    if (s.slot() != 1) continue;
    reported = s.delta_base_tick() > 0 && s.delta_base_tick() <= s.acked_snapshot_tick();
  }
  EXPECT_TRUE(reported);
  EXPECT_TRUE(player->Close().ok());
}

TEST_F(DeltaSnapshotTest, SnapshotsStayFullWithoutAnAckOfAKeptSnapshot) {
  auto player = SessionClient::Connect(address(), PlayerJoin());
  // Ack a tick whose snapshot is never sent: not the join snapshot (of the
  // tick in Joined) and not one at the world's snapshot phase. Nothing to
  // base a delta on.
  ASSERT_TRUE(player->WaitFor(
      [](const std::vector<v1::ServerMessage>& ms) { return !ms.empty(); }, absl::Seconds(10)));
  ASSERT_TRUE(player->messages().front().has_joined());
  const v1::Joined& joined = player->messages().front().joined();
  uint64_t never_sent = joined.tick() + 1;
  if ((never_sent + joined.snapshot_phase()) % kEvery == 0) ++never_sent;
  v1::ClientMessage ack;
  ack.mutable_ack()->set_snapshot_tick(never_sent);
  ASSERT_TRUE(player->Send(ack));
  DeltaClient client;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (client.fulls < 6 && absl::Now() < deadline) {
    ASSERT_TRUE(client.Handle(player.get(), /*ack=*/false));
    absl::SleepFor(absl::Milliseconds(2));
  }
  EXPECT_GE(client.fulls, 6);
  EXPECT_EQ(client.deltas, 0);
  EXPECT_TRUE(player->Close().ok());
}

TEST_F(DeltaSnapshotTest, WorldsCreatedTogetherSnapshotAtTheirOwnPhase) {
  v1::CreateWorldRequest request;
  request.set_world_id("smash2");
  request.mutable_scene()->mutable_builtin()->set_name("smash");
  request.mutable_scene()->mutable_builtin()->set_size(50);
  request.mutable_config()->set_tick_rate_hz(240);
  CreateWorld(address(), request);
  std::vector<uint32_t> phases;
  for (const char* id : {"smash", "smash2"}) {
    v1::WatchRequest watch;
    watch.set_world_id(id);
    watch.set_snapshot_every_ticks(kEvery);
    auto spectator = SessionClient::Watch(address(), watch);
    ASSERT_TRUE(spectator->WaitFor(
        [](const std::vector<v1::ServerMessage>& ms) {
          int snapshots = 0;
          for (const v1::ServerMessage& m : ms) snapshots += m.has_snapshot();
          return snapshots >= 4;
        },
        absl::Seconds(20)));
    const std::vector<v1::ServerMessage> messages = spectator->messages();
    ASSERT_TRUE(messages.front().has_joined());
    const v1::Joined& joined = messages.front().joined();
    ASSERT_LT(joined.snapshot_phase(), kEvery);
    phases.push_back(joined.snapshot_phase());
    // Past the join snapshot (of the tick in Joined), every snapshot falls
    // on the world's phase.
    int periodic = 0;
    for (const v1::ServerMessage& m : messages) {
      if (!m.has_snapshot() || m.snapshot().tick() == joined.tick()) continue;
      EXPECT_EQ((m.snapshot().tick() + joined.snapshot_phase()) % kEvery, 0u)
          << id << " tick " << m.snapshot().tick();
      ++periodic;
    }
    EXPECT_GE(periodic, 3);
  }
  EXPECT_NE(phases[0], phases[1]);
}

TEST_F(DeltaSnapshotTest, AckingSpectatorOnConnectGetsDeltas) {
  v1::Join join;
  join.set_world_id("smash");
  join.set_spectate(true);
  join.set_snapshot_every_ticks(kEvery);
  auto spectator = SessionClient::Connect(address(), join);
  DeltaClient client;
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (client.deltas < 3 && absl::Now() < deadline) {
    ASSERT_TRUE(client.Handle(spectator.get(), /*ack=*/true));
    absl::SleepFor(absl::Milliseconds(2));
  }
  EXPECT_GE(client.deltas, 3);
  // Read-only: an input is refused, the stream goes on.
  ASSERT_TRUE(spectator->Send(InputMessage(1, 0, {Impulse(Body(1), 1, 0)})));
  EXPECT_TRUE(spectator->WaitFor(
      [](const std::vector<v1::ServerMessage>& ms) {
        for (const v1::ServerMessage& m : ms) {
          if (m.has_error() && m.error().code() == 7) return true;
        }
        return false;
      },
      absl::Seconds(10)));
  EXPECT_TRUE(spectator->Close().ok());
}

}  // namespace
}  // namespace atl::testing
