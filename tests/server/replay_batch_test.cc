// ReplayService.Verify finds tampering; BatchService.Run matches a local run.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>

#include "atoll/client/connection.h"
#include "atoll/server/server.h"
#include "atoll/server/simulation.h"
#include "atoll/v1/batch.grpc.pb.h"
#include "atoll/v1/replay.grpc.pb.h"
#include "server/service_test_util.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

class ReplayBatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = server::Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    address_ = server_->address();
  }

  grpc::Status Verify(const v1::Recording& recording, v1::VerifyResponse* response) {
    auto stub = v1::ReplayService::NewStub(client::MakeChannel(address_));
    grpc::ClientContext context;
    v1::VerifyRequest request;
    *request.mutable_recording() = recording;
    return stub->Verify(&context, request, response);
  }

  std::unique_ptr<server::Server> server_;
  std::string address_;
};

TEST_F(ReplayBatchTest, VerifyReportsFirstDivergentTickAndBodyDiff) {
  v1::CreateWorldRequest request;
  request.set_world_id("r");
  *request.mutable_scene() = DuelScene();
  request.mutable_config()->set_tick_rate_hz(240);
  request.mutable_config()->set_player_slots(2);
  request.mutable_config()->set_checkpoint_every_ticks(50);
  const v1::CreateWorldResponse world = CreateWorld(address_, request);
  v1::Join join;
  join.set_world_id("r");
  join.set_slot(1);
  join.set_token(world.tokens(0).token());
  auto player = SessionClient::Connect(address_, join);
  for (uint64_t seq = 1; player->last_tick() < 160; ++seq) {
    ASSERT_TRUE(player->Send(InputMessage(seq, 0, {Impulse(Body(1), 0.5f, 0.5f)})));
    absl::SleepFor(absl::Milliseconds(5));
  }
  const v1::Recording recording = GetRecording(address_, "r");
  // Anyone may fetch a recording; the slots' join tokens stay secret.
  EXPECT_EQ(recording.header().tokens_size(), 0);
  EXPECT_EQ(recording.header().world_id(), "r");
  const v1::Recording header = GetRecording(address_, "r", /*header_only=*/true);
  EXPECT_EQ(header.header().tokens_size(), 0);
  EXPECT_EQ(header.header().scene().SerializeAsString(), DuelScene().SerializeAsString());
  EXPECT_EQ(header.ticks_size(), 0);
  EXPECT_EQ(header.checkpoints_size(), 0);
  v1::VerifyResponse verdict;
  ASSERT_TRUE(Verify(recording, &verdict).ok());
  EXPECT_TRUE(verdict.ok());
  EXPECT_EQ(verdict.ticks_verified(), static_cast<uint64_t>(recording.ticks_size()));

  // Change the first recorded impulse: the replay diverges at that tick and
  // the diff at the next checkpoint names slot 1's body.
  v1::Recording tampered = recording;
  int at = -1;
  for (int i = 0; i < tampered.ticks_size() && at < 0; ++i) {
    if (tampered.ticks(i).inputs_size() > 0 && tampered.ticks(i).inputs(0).commands_size() > 0) {
      at = i;
    }
  }
  ASSERT_GE(at, 0);
  ASSERT_LT(tampered.ticks(at).tick(), 100u);
  tampered.mutable_ticks(at)->mutable_inputs(0)->mutable_commands(0)->mutable_apply_impulse()
      ->mutable_impulse()->set_x(5.0f);
  ASSERT_TRUE(Verify(tampered, &verdict).ok());
  EXPECT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.first_divergent_tick(), tampered.ticks(at).tick());
  EXPECT_NE(verdict.expected_hash(), verdict.actual_hash());
  EXPECT_GE(verdict.diff_tick(), verdict.first_divergent_tick());
  bool body1 = false;
  for (const v1::BodyDiff& d : verdict.diffs()) body1 |= d.body().index() == 1;
  EXPECT_TRUE(body1);

  // A gap in the ticks is a malformed recording, named.
  v1::Recording gap = recording;
  gap.mutable_ticks()->DeleteSubrange(5, 1);
  const grpc::Status s = Verify(gap, &verdict);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), ::testing::HasSubstr("recording.ticks[5].tick"));
  player->Close();
}

TEST_F(ReplayBatchTest, BatchRunStreamsProgressAndMatchesALocalRun) {
  auto stub = v1::BatchService::NewStub(client::MakeChannel(address_));
  v1::RunBatchRequest request;
  request.mutable_scene()->mutable_builtin()->set_name("pyramid");
  request.mutable_scene()->mutable_builtin()->set_size(10);
  request.set_steps(120);
  request.set_progress_every(30);
  request.set_broad_phase("kd_sap");
  grpc::ClientContext context;
  auto reader = stub->Run(&context, request);
  v1::BatchUpdate update;
  int progress = 0;
  v1::BatchResult result;
  while (reader->Read(&update)) {
    if (update.has_progress()) ++progress;
    if (update.has_result()) result = update.result();
  }
  ASSERT_TRUE(reader->Finish().ok());
  EXPECT_EQ(progress, 3);
  ASSERT_EQ(result.hash_chain_size(), 120);

  // Locally with the default broad phase: the strategy never changes hashes.
  v1::WorldConfig wanted;
  wanted.set_player_slots(64);
  auto config = server::NormalizeWorldConfig(wanted, 100000);
  ASSERT_TRUE(config.ok()) << config.status();
  auto sim = server::Simulation::Create(request.scene(), *config);
  ASSERT_TRUE(sim.ok()) << sim.status();
  EXPECT_EQ((*sim)->hash(), result.initial_hash());
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE((*sim)->Step({}, nullptr).ok());
    ASSERT_EQ((*sim)->hash(), result.hash_chain(i)) << "step " << i + 1;
  }
  EXPECT_EQ(result.final_hash(), result.hash_chain(119));

  grpc::ClientContext bad_context;
  request.set_steps(0);
  auto bad = stub->Run(&bad_context, request);
  while (bad->Read(&update)) {
  }
  const grpc::Status s = bad->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), ::testing::HasSubstr("steps"));
}

}  // namespace
}  // namespace atl::testing
