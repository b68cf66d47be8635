// Integration: a live world moves between two real atoll-server processes
// (WorldService.ExportWorld / ImportWorld, `atoll migrate`) while simulated
// players predict against it; the players follow the Redirect and the two
// servers' recordings, joined, verify as one hash chain.

#include "atoll/client/migrate.h"

#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include <filesystem>
#include <map>
#include <optional>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "atoll/client/bot.h"
#include "atoll/client/connection.h"
#include "atoll/client/session.h"
#include "atoll/v1/world.grpc.pb.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"

namespace atl::client {
namespace {

using ::atl::testing::BinaryPath;
using ::atl::testing::ServerProcess;
using ::atl::testing::TestWorld;

constexpr uint32_t kTickRate = 240;

std::unique_ptr<v1::WorldService::Stub> Stub(const std::string& address) {
  return v1::WorldService::NewStub(MakeChannel(address));
}

grpc::Status Export(const std::string& address, const std::string& id, v1::WorldExport* out) {
  grpc::ClientContext context;
  v1::ExportWorldRequest request;
  request.set_world_id(id);
  return Stub(address)->ExportWorld(&context, request, out);
}

grpc::Status Import(const std::string& address, const v1::WorldExport& world) {
  grpc::ClientContext context;
  v1::ImportWorldRequest request;
  *request.mutable_world() = world;
  v1::WorldInfo info;
  return Stub(address)->ImportWorld(&context, request, &info);
}

std::vector<v1::WorldInfo> Worlds(const std::string& address) {
  grpc::ClientContext context;
  v1::ListWorldsResponse response;
  EXPECT_TRUE(Stub(address)->ListWorlds(&context, v1::ListWorldsRequest(), &response).ok());
  return {response.worlds().begin(), response.worlds().end()};
}

void WaitForTick(const std::string& address, const std::string& id, uint64_t tick) {
  while (atl::testing::GetWorld(address, id).tick() < tick) absl::SleepFor(absl::Milliseconds(2));
}

TEST(MigrateTest, PlayersFollowTheWorldToAnotherServerWithoutDesync) {
  const std::string dir_a = atl::testing::MakeTempDir();
  const std::string dir_b = atl::testing::MakeTempDir();
  auto a = ServerProcess::Start({"--data_dir=" + dir_a});
  auto b = ServerProcess::Start({"--data_dir=" + dir_b});
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string from = (*a)->address();
  const std::string to = (*b)->address();
  const TestWorld world = atl::testing::CreateArena(from, "moving", 2, kTickRate);

  BotOptions bots;
  bots.address = from;
  bots.world_id = world.id;
  bots.scene = world.scene;
  bots.tokens = world.tokens;
  bots.players = 2;
  bots.ticks = 900;
  bots.injected_latency = absl::Microseconds(12500);  // 6 ticks of round trip
  bots.prediction.prediction_window = 8;
  std::optional<absl::StatusOr<std::vector<BotReport>>> reports;
  std::thread players([&] { reports = RunBots(bots); });

  // A spectator follows too, timing the frames' arrival across the move.
  SessionOptions so;
  so.address = from;
  so.world_id = world.id;
  absl::StatusOr<std::unique_ptr<Session>> spectator = Session::Connect(so);
  ASSERT_TRUE(spectator.ok()) << spectator.status();

  WaitForTick(from, world.id, 300);
  MigrateOptions move;
  move.world_id = world.id;
  move.from = from;
  move.to = to;
  absl::StatusOr<MigrateReport> report = MigrateWorld(move);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_GE(report->tick, 300u);
  std::printf("moved after tick %llu: export %.2f ms (%zu bytes), import %.2f ms, paused %.2f ms\n",
              static_cast<unsigned long long>(report->tick),
              absl::ToDoubleMilliseconds(report->export_time), report->export_bytes,
              absl::ToDoubleMilliseconds(report->import_time),
              absl::ToDoubleMilliseconds(report->paused));

  // The spectator sees every tick once, in order, across the move: the
  // Redirect is the last message from `from`, the frames after it come
  // from `to`.
  uint64_t last_frame = 0;
  absl::Time last_arrival = absl::Now();
  absl::Duration longest_gap;
  bool redirected = false;
  while (last_frame < report->tick + 100) {
    absl::StatusOr<std::optional<v1::ServerMessage>> m = (*spectator)->Next(absl::Seconds(5));
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(m->has_value()) << "no message for 5 s after tick " << last_frame;
    const v1::ServerMessage& msg = **m;
    if (msg.has_redirect()) {
      EXPECT_EQ(msg.redirect().address(), to);
      EXPECT_EQ(msg.redirect().world_id(), world.id);
      EXPECT_EQ(msg.redirect().tick(), report->tick);
      EXPECT_EQ(last_frame, report->tick) << "frames after the export's tick came from `from`";
      ASSERT_TRUE((*spectator)->Follow(msg.redirect(), last_frame).ok());
      redirected = true;
      continue;
    }
    if (!msg.has_frame() || msg.frame().tick() <= last_frame) continue;
    if (last_frame != 0) {
      ASSERT_EQ(msg.frame().tick(), last_frame + 1);
      if (last_frame >= 300) longest_gap = std::max(longest_gap, absl::Now() - last_arrival);
    }
    last_frame = msg.frame().tick();
    last_arrival = absl::Now();
  }
  EXPECT_TRUE(redirected);
  std::printf("longest gap between frames seen by a spectator: %.2f ms (%.2f ticks at %u Hz)\n",
              absl::ToDoubleMilliseconds(longest_gap),
              absl::ToDoubleSeconds(longest_gap) * kTickRate, kTickRate);

  players.join();
  ASSERT_TRUE(reports->ok()) << reports->status();
  for (const BotReport& r : **reports) {
    SCOPED_TRACE(::testing::Message() << "slot " << r.slot);
    EXPECT_EQ(r.redirects, 1u);
    EXPECT_EQ(r.stats.desyncs, 0u);
    for (const DesyncReport& d : r.desyncs) ADD_FAILURE() << d.ToString();
    EXPECT_GE(r.last_tick - r.first_tick, 900u);
    EXPECT_GT(r.last_tick, report->tick + 300);
  }

  // A client that was away during the move (its stream was down) comes
  // back to `from`, is told where the world went and joins it there, as a
  // player and as a spectator. (Resuming at the export's tick would be
  // OUT_OF_RANGE there by now: `to` has stepped 600 ticks since and keeps
  // the checkpoints of the last few seconds.)
  SessionOptions late = so;
  late.slot = 2;
  late.token = world.tokens[1];
  absl::StatusOr<std::unique_ptr<Session>> returning = Session::Connect(late);
  ASSERT_TRUE(returning.ok()) << returning.status();
  EXPECT_EQ((*returning)->options().address, to);
  EXPECT_EQ((*returning)->joined().slot(), 2u);
  EXPECT_GT((*returning)->joined().last_sequence(), 0u);  // slot 2 played before
  absl::StatusOr<std::unique_ptr<Session>> watcher = Session::Connect(so);
  ASSERT_TRUE(watcher.ok()) << watcher.status();
  EXPECT_EQ((*watcher)->options().address, to);

  // The world left `from` and goes on at `to`.
  EXPECT_TRUE(Worlds(from).empty());
  const v1::WorldInfo moved = atl::testing::GetWorld(to, world.id);
  EXPECT_GT(moved.tick(), report->tick);

  // `from` kept its recording up to the export; `to` records from there.
  // Joined, they verify as one chain from tick 0; each player's confirmed
  // hashes are those of the joined recording.
  const std::string first =
      absl::StrCat(dir_a, "/exported/", world.id, "-", report->tick, ".atrec");
  const std::string second = absl::StrCat(dir_b, "/worlds/", world.id, ".atrec");
  ASSERT_TRUE(std::filesystem::exists(first)) << first;
  EXPECT_FALSE(std::filesystem::exists(absl::StrCat(dir_a, "/worlds/", world.id, ".atrec")));
  std::string output;
  EXPECT_EQ(atl::testing::RunCommand({BinaryPath("atoll"), "verify", first, second}, &output), 0)
      << output;
  EXPECT_TRUE(absl::StrContains(output, "ok: ")) << output;
  // The second piece alone starts at the export's checkpoint and verifies
  // too; the first alone ends at the export's tick.
  EXPECT_EQ(atl::testing::RunCommand({BinaryPath("atoll"), "verify", second}, &output), 0)
      << output;
  EXPECT_EQ(atl::testing::RunCommand({BinaryPath("atoll"), "verify", first}, &output), 0)
      << output;
  EXPECT_TRUE(absl::StrContains(output, absl::StrCat("ok: ", report->tick, " ticks verified")))
      << output;
  // In the wrong order they are refused, naming the field.
  EXPECT_EQ(atl::testing::RunCommand({BinaryPath("atoll"), "verify", second, first}, &output), 1);
  EXPECT_TRUE(absl::StrContains(output, "second.checkpoints[0].tick")) << output;
}

TEST(MigrateTest, ImportRefusesBadExportsAndCreatesNothing) {
  auto a = ServerProcess::Start();
  ASSERT_TRUE(a.ok()) << a.status();
  const std::string dir_b = atl::testing::MakeTempDir();
  auto b = ServerProcess::Start({"--data_dir=" + dir_b});
  ASSERT_TRUE(b.ok()) << b.status();
  const std::string from = (*a)->address();
  const std::string to = (*b)->address();
  const TestWorld world = atl::testing::CreateArena(from, "refused", 2, kTickRate);
  WaitForTick(from, world.id, 100);

  // An input accepted for a tick after the export moves with the world.
  SessionOptions so;
  so.address = from;
  so.world_id = world.id;
  so.slot = 1;
  so.token = world.tokens[0];
  absl::StatusOr<std::unique_ptr<Session>> player = Session::Connect(so);
  ASSERT_TRUE(player.ok()) << player.status();
  const uint64_t pending_tick = (*player)->joined().tick() + 100;
  v1::Input input;
  input.set_target_tick(pending_tick);
  input.set_sequence(7);
  *input.add_commands() = atl::testing::Impulse(atl::testing::Body(4), 1, 0);
  ASSERT_TRUE((*player)->SendInput(input).ok());
  absl::SleepFor(absl::Milliseconds(100));  // accepted by now (an Error otherwise)

  v1::WorldExport good;
  grpc::Status s = Export(from, "nope", &good);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StartsWith(s.error_message(), "world_id")) << s.error_message();
  ASSERT_TRUE(Export(from, world.id, &good).ok());
  EXPECT_TRUE(Worlds(from).empty());
  EXPECT_GE(good.checkpoint().tick(), 100u);
  EXPECT_EQ(good.header().tokens_size(), static_cast<int>(world.tokens.size()));
  ASSERT_EQ(good.pending_inputs_size(), 1);
  EXPECT_EQ(good.pending_inputs(0).sequence(), 7u);
  EXPECT_EQ(good.pending_inputs(0).target_tick(), pending_tick);
  EXPECT_EQ(good.accepted_sequence(0), 7u);
  // The player's stream ended without a Redirect (none was asked for).
  while (true) {
    absl::StatusOr<std::optional<v1::ServerMessage>> m = (*player)->Next(absl::Seconds(5));
    if (!m.ok()) {
      EXPECT_TRUE(absl::IsUnavailable(m.status())) << m.status();
      EXPECT_TRUE(absl::StrContains(m.status().message(), "moved")) << m.status();
      break;
    }
    ASSERT_TRUE(m->has_value());
    EXPECT_FALSE((*m)->has_redirect());
  }

  struct Case {
    const char* what;
    std::function<void(v1::WorldExport*)> change;
    grpc::StatusCode code;
    const char* field;
  };
  const std::vector<Case> cases = {
      {"another engine",
       [](v1::WorldExport* w) { w->mutable_header()->set_engine_version("0.0.1"); },
       grpc::StatusCode::FAILED_PRECONDITION, "world.header.engine_version"},
      {"a token missing",
       [](v1::WorldExport* w) { w->mutable_header()->mutable_tokens()->RemoveLast(); },
       grpc::StatusCode::INVALID_ARGUMENT, "world.header.tokens"},
      {"a corrupt snapshot",
       [](v1::WorldExport* w) { w->mutable_checkpoint()->mutable_snapshot()->resize(40); },
       grpc::StatusCode::INVALID_ARGUMENT, "world.checkpoint.snapshot"},
      {"a wrong hash",
       [](v1::WorldExport* w) {
         w->mutable_checkpoint()->set_state_hash(w->checkpoint().state_hash() ^ 1);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "world.checkpoint.state_hash"},
      {"a checkpoint of another tick",
       [](v1::WorldExport* w) { w->mutable_checkpoint()->set_tick(w->checkpoint().tick() + 1); },
       grpc::StatusCode::INVALID_ARGUMENT, "world.checkpoint.tick"},
      {"a pending input of no slot",
       [](v1::WorldExport* w) {
         v1::ConfirmedInput* in = w->add_pending_inputs();
         in->set_slot(7);
         in->set_sequence(1);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "world.pending_inputs[1]"},
      {"a bad world id", [](v1::WorldExport* w) { w->mutable_header()->set_world_id("a b"); },
       grpc::StatusCode::INVALID_ARGUMENT, "world.header.world_id"},
      {"a bad config",
       [](v1::WorldExport* w) { w->mutable_header()->mutable_config()->set_tick_rate_hz(1000); },
       grpc::StatusCode::INVALID_ARGUMENT, "world.header.config.tick_rate_hz"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    v1::WorldExport bad = good;
    c.change(&bad);
    s = Import(to, bad);
    EXPECT_EQ(s.error_code(), c.code) << s.error_message();
    EXPECT_TRUE(absl::StartsWith(s.error_message(), c.field)) << s.error_message();
    EXPECT_TRUE(Worlds(to).empty());
    EXPECT_TRUE(std::filesystem::is_empty(dir_b + "/worlds"));
  }

  // The good export goes on at the next tick, once, and applies the
  // pending input at its tick.
  ASSERT_TRUE(Import(to, good).ok());
  WaitForTick(to, world.id, pending_tick);
  const v1::Recording recorded = atl::testing::GetRecording(to, world.id);
  ASSERT_GT(recorded.ticks_size(), 0);
  EXPECT_EQ(recorded.checkpoints(0).tick(), good.checkpoint().tick());
  EXPECT_EQ(recorded.ticks(0).tick(), good.checkpoint().tick() + 1);
  bool applied = false;
  for (const v1::RecordedTick& t : recorded.ticks()) {
    for (const v1::ConfirmedInput& in : t.inputs()) {
      if (in.slot() == 1 && in.sequence() == 7) applied = t.tick() == pending_tick;
    }
  }
  EXPECT_TRUE(applied);
  s = Import(to, good);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_TRUE(absl::StartsWith(s.error_message(), "world.header.world_id")) << s.error_message();

  // `atoll migrate` checks the target before it stops anything: a world
  // whose id is taken there stays where it is, ticking.
  const TestWorld other = atl::testing::CreateArena(from, world.id, 2, kTickRate);
  MigrateOptions move;
  move.world_id = other.id;
  move.from = from;
  move.to = to;
  absl::StatusOr<MigrateReport> refused = MigrateWorld(move);
  EXPECT_TRUE(absl::IsAlreadyExists(refused.status())) << refused.status();
  const uint64_t tick = atl::testing::GetWorld(from, other.id).tick();
  WaitForTick(from, other.id, tick + 5);
  move.to = from;
  EXPECT_TRUE(absl::IsInvalidArgument(MigrateWorld(move).status()));
}

}  // namespace
}  // namespace atl::client
