// A client that never reads cannot hold up the world or other clients, and
// its outbox stays bounded.

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include "atoll/client/connection.h"
#include "atoll/server/server.h"
#include "atoll/v1/session.grpc.pb.h"
#include "server/service_test_util.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

constexpr uint32_t kCapacity = 16;

TEST(SlowClientTest, NeverReadingClientIsCollapsedNotBuffered) {
  server::ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.outbox_capacity = kCapacity;
  auto server = server::Server::Create(options);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();

  // Enough bodies that a snapshot per tick overruns any HTTP/2 window fast.
  v1::CreateWorldRequest request;
  request.set_world_id("busy");
  request.mutable_scene()->mutable_builtin()->set_name("falling_squares");
  request.mutable_scene()->mutable_builtin()->set_size(400);
  request.mutable_config()->set_tick_rate_hz(240);
  request.mutable_config()->set_player_slots(1);
  const v1::CreateWorldResponse world = CreateWorld(address, request);

  // The slow client: joins asking for a snapshot every tick, then never reads.
  auto stub = v1::SessionService::NewStub(client::MakeChannel(address));
  grpc::ClientContext slow_context;
  auto slow = stub->Connect(&slow_context);
  v1::ClientMessage join;
  join.mutable_join()->set_world_id("busy");
  join.mutable_join()->set_slot(1);
  join.mutable_join()->set_token(world.tokens(0).token());
  join.mutable_join()->set_snapshot_every_ticks(1);
  ASSERT_TRUE(slow->Write(join));

  v1::WatchRequest watch;
  watch.set_world_id("busy");
  auto reader = SessionClient::Watch(address, watch);
  ASSERT_TRUE(reader->WaitForTick(1, absl::Seconds(10)));
  const uint64_t start = reader->last_tick();

  // Wait until the slow session has been collapsed a few times (by ticks
  // seen, not by wall-clock time).
  v1::WorldInfo info;
  uint64_t max_length = 0;
  for (int i = 0; i < 2000; ++i) {
    info = GetWorld(address, "busy");
    for (const v1::SessionStats& s : info.sessions()) {
      if (s.slot() == 1) max_length = std::max<uint64_t>(max_length, s.outbox_length());
    }
    bool collapsed = false;
    for (const v1::SessionStats& s : info.sessions()) {
      collapsed |= s.slot() == 1 && s.collapses() >= 3;
    }
    if (collapsed) break;
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_EQ(info.sessions_size(), 2);
  for (const v1::SessionStats& s : info.sessions()) {
    if (s.slot() == 1) {
      EXPECT_GE(s.collapses(), 3u);
      EXPECT_GT(s.dropped_messages(), 0u);
      EXPECT_LE(s.outbox_high_water(), kCapacity);
    } else {
      // The spectator who reads keeps up: never collapsed.
      EXPECT_EQ(s.collapses(), 0u);
    }
  }
  EXPECT_LE(max_length, kCapacity);

  // The reader got every tick, without a gap, while the slow client sat.
  ASSERT_TRUE(reader->WaitForTick(info.tick() + 10, absl::Seconds(10)));
  uint64_t expected = 0;
  for (const auto& [tick, hash] : FrameHashes(reader->messages())) {
    if (expected != 0) {
      ASSERT_EQ(tick, expected) << "gap in the reader's frames";
    }
    expected = tick + 1;
  }
  EXPECT_GT(reader->last_tick(), start);
  slow_context.TryCancel();
}

}  // namespace
}  // namespace atl::testing
