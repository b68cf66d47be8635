// Every kind of bad request gets its error code with the offending field
// named, and leaves the world as if it had never been sent.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "atoll/client/connection.h"
#include "atoll/server/server.h"
#include "atoll/server/simulation.h"
#include "server/service_test_util.h"
#include "support/session_client.h"

namespace atl::testing {
namespace {

using ::testing::HasSubstr;

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.max_worlds = 2;
    options.max_bodies_per_world = 8;
    options.max_message_bytes = 64 << 10;
    auto server = server::Server::Create(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    address_ = server_->address();
  }

  v1::CreateWorldRequest Duel(const std::string& id) {
    v1::CreateWorldRequest request;
    request.set_world_id(id);
    *request.mutable_scene() = DuelScene();
    request.mutable_config()->set_tick_rate_hz(240);
    request.mutable_config()->set_player_slots(2);
    request.mutable_config()->set_max_commands_per_tick(4);
    return request;
  }

  // Expects CreateWorld to fail with `code` and `field` in the message.
  void ExpectCreateFails(const v1::CreateWorldRequest& request, grpc::StatusCode code,
                         const std::string& field) {
    v1::CreateWorldResponse response;
    const grpc::Status s = TryCreateWorld(address_, request, &response);
    EXPECT_EQ(s.error_code(), code) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(field));
  }

  std::unique_ptr<server::Server> server_;
  std::string address_;
};

TEST_F(BadInputTest, CreateWorldNamesTheBadField) {
  v1::CreateWorldRequest r = Duel("a");
  r.mutable_config()->set_tick_rate_hz(1000);
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "config.tick_rate_hz");

  r = Duel("a");
  r.mutable_config()->set_broad_phase("octree");
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "config.broad_phase");

  r = Duel("a");
  r.mutable_scene()->mutable_bodies(2)->mutable_shapes(0)->mutable_circle()->set_radius(-1);
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "scene.bodies[2].shapes[0].circle");

  r = Duel("a");
  r.mutable_scene()->mutable_bodies(1)->mutable_position()->set_x(std::nanf(""));
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "scene.bodies[1]");

  r = Duel("a");
  auto* points = r.mutable_scene()->mutable_bodies(4)->mutable_shapes(0)->mutable_polygon();
  points->mutable_points(2)->set_y(0);  // all three collinear
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "scene.bodies[4].shapes[0].polygon");

  r = Duel("a");
  r.mutable_scene()->mutable_materials(0)->set_density(-1);
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "scene.materials[0].density");

  r = Duel("a");
  r.mutable_scene()->mutable_bodies(1)->mutable_shapes(0)->set_material("steel");
  ExpectCreateFails(r, grpc::StatusCode::NOT_FOUND, "scene.bodies[1].shapes[0].material");

  r = Duel("a");
  r.mutable_scene()->mutable_bodies(1)->set_owner_slot(3);
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "scene.bodies[1].owner_slot");

  r = Duel("a");
  r.mutable_scene()->mutable_builtin()->set_name("no_such_scene");
  ExpectCreateFails(r, grpc::StatusCode::NOT_FOUND, "scene.builtin");

  r = Duel("bad id!");
  ExpectCreateFails(r, grpc::StatusCode::INVALID_ARGUMENT, "world_id");

  r = Duel("a");
  for (int i = 0; i < 4; ++i) *r.mutable_scene()->add_bodies() = r.scene().bodies(4);
  ExpectCreateFails(r, grpc::StatusCode::RESOURCE_EXHAUSTED, "config.max_bodies");

  r = Duel("a");
  r.mutable_scene()->mutable_templates(0)->set_name(std::string(100 << 10, 'x'));
  ExpectCreateFails(r, grpc::StatusCode::RESOURCE_EXHAUSTED, "");

  CreateWorld(address_, Duel("a"));
  ExpectCreateFails(Duel("a"), grpc::StatusCode::ALREADY_EXISTS, "world_id");
  CreateWorld(address_, Duel("b"));
  ExpectCreateFails(Duel("c"), grpc::StatusCode::RESOURCE_EXHAUSTED, "--max_worlds");
}

TEST_F(BadInputTest, JoinFailuresEndTheStreamWithTheirCode) {
  const v1::CreateWorldResponse world = CreateWorld(address_, Duel("w"));
  struct Case {
    std::string world;
    uint32_t slot;
    std::string token;
    grpc::StatusCode code;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"nowhere", 1, world.tokens(0).token(), grpc::StatusCode::NOT_FOUND, "join.world_id"},
      {"w", 3, world.tokens(0).token(), grpc::StatusCode::INVALID_ARGUMENT, "join.slot"},
      {"w", 2, world.tokens(0).token(), grpc::StatusCode::PERMISSION_DENIED, "join.token"},
  };
  for (const Case& c : cases) {
    v1::Join join;
    join.set_world_id(c.world);
    join.set_slot(c.slot);
    join.set_token(c.token);
    auto session = SessionClient::Connect(address_, join);
    const grpc::Status s = session->WaitForEnd(absl::Seconds(10));
    EXPECT_EQ(s.error_code(), c.code) << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(c.field));
  }
  v1::WatchRequest watch;
  watch.set_from_tick(0);
  // Once the world is past its first checkpoints, tick 0 is gone from memory.
  v1::CreateWorldRequest fast = Duel("x");
  fast.mutable_config()->set_checkpoint_every_ticks(1);
  CreateWorld(address_, fast);
  watch.set_world_id("x");
  auto player = SessionClient::Connect(address_, [&] {
    v1::Join j;
    j.set_world_id("w");
    j.set_slot(1);
    j.set_token(world.tokens(0).token());
    return j;
  }());
  ASSERT_TRUE(player->WaitForTick(20, absl::Seconds(10)));
  auto late_watcher = SessionClient::Watch(address_, watch);
  const grpc::Status s = late_watcher->WaitForEnd(absl::Seconds(10));
  EXPECT_EQ(s.error_code(), grpc::StatusCode::OUT_OF_RANGE) << s.error_message();
  EXPECT_THAT(s.error_message(), HasSubstr("from_tick"));
}

TEST_F(BadInputTest, RefusedInputsAreReportedAndChangeNothing) {
  v1::CreateWorldRequest request = Duel("w");
  const v1::CreateWorldResponse world = CreateWorld(address_, request);
  v1::Join join;
  join.set_world_id("w");
  join.set_slot(1);
  join.set_token(world.tokens(0).token());
  auto player = SessionClient::Connect(address_, join);
  ASSERT_TRUE(player->WaitForTick(1, absl::Seconds(10)));

  struct Case {
    v1::ClientMessage message;
    grpc::StatusCode code;
    std::string field;
  };
  std::vector<Case> cases;
  uint64_t seq = 10;
  // An accepted (empty) input, so that an older sequence number is stale.
  ASSERT_TRUE(player->Send(InputMessage(seq, 0, {})));
  {
    v1::Command c = Impulse(Body(1), std::nanf(""), 0);
    cases.push_back({InputMessage(++seq, 0, {c}), grpc::StatusCode::INVALID_ARGUMENT,
                     "input.commands[0].apply_impulse"});
  }
  cases.push_back({InputMessage(++seq, 0, {Impulse(Body(1), 1, 0), Impulse(Body(2), 1, 0)}),
                   grpc::StatusCode::PERMISSION_DENIED, "input.commands[1].apply_impulse.body"});
  cases.push_back({InputMessage(++seq, 0, {Impulse(Body(4), 1, 0)}),
                   grpc::StatusCode::PERMISSION_DENIED, "input.commands[0].apply_impulse.body"});
  cases.push_back({InputMessage(++seq, 0, {Impulse(Body(1, 7), 1, 0)}),
                   grpc::StatusCode::NOT_FOUND, "input.commands[0].apply_impulse.body"});
  cases.push_back({InputMessage(++seq, 0, {Impulse(Body(99), 1, 0)}), grpc::StatusCode::NOT_FOUND,
                   "input.commands[0].apply_impulse.body"});
  cases.push_back({InputMessage(++seq, 1000000, {Impulse(Body(1), 1, 0)}),
                   grpc::StatusCode::INVALID_ARGUMENT, "input.target_tick"});
  cases.push_back({InputMessage(3, 0, {Impulse(Body(1), 1, 0)}),
                   grpc::StatusCode::INVALID_ARGUMENT, "input.sequence"});
  {
    std::vector<v1::Command> many(5, Impulse(Body(1), 1, 0));
    cases.push_back({InputMessage(++seq, 0, many), grpc::StatusCode::RESOURCE_EXHAUSTED,
                     "input.commands"});
  }
  {
    v1::Command c;
    *c.mutable_set_transform()->mutable_body() = Body(1);  // dynamic
    cases.push_back({InputMessage(++seq, 0, {c}), grpc::StatusCode::INVALID_ARGUMENT,
                     "input.commands[0].set_transform.body"});
  }
  {
    v1::Command c;
    c.mutable_spawn_body()->set_template_name("cannon");
    cases.push_back({InputMessage(++seq, 0, {c}), grpc::StatusCode::NOT_FOUND,
                     "input.commands[0].spawn_body.template_name"});
  }
  {
    // 5 bodies + 4 spawns > max_bodies_per_world = 8.
    v1::Command c;
    c.mutable_spawn_body()->set_template_name("ball");
    cases.push_back({InputMessage(++seq, 0, {c, c, c, c}), grpc::StatusCode::RESOURCE_EXHAUSTED,
                     "input.commands[3].spawn_body"});
  }
  {
    v1::Command c;
    cases.push_back({InputMessage(++seq, 0, {c}), grpc::StatusCode::INVALID_ARGUMENT,
                     "input.commands[0]"});
  }
  for (const Case& c : cases) {
    const uint64_t sequence = c.message.input().sequence();
    ASSERT_TRUE(player->Send(c.message));
    ASSERT_TRUE(player->WaitFor(
        [&](const std::vector<v1::ServerMessage>& ms) {
          for (const v1::ServerMessage& m : ms) {
            if (m.has_error() && m.error().input_sequence() == sequence) return true;
          }
          return false;
        },
        absl::Seconds(10)))
        << c.field;
    for (const v1::ServerMessage& m : player->messages()) {
      if (!m.has_error() || m.error().input_sequence() != sequence) continue;
      EXPECT_EQ(m.error().code(), static_cast<int>(c.code)) << m.error().message();
      EXPECT_EQ(m.error().field(), c.field) << m.error().message();
      EXPECT_THAT(m.error().message(), HasSubstr(c.field));
    }
  }
  // The stream is still usable, and nothing above reached the world: every
  // recorded tick is input-free and equals a local world stepped without
  // inputs (same hashes from tick 0 on).
  ASSERT_TRUE(player->Send(InputMessage(++seq, 0, {})));
  const uint64_t now = player->last_tick();
  ASSERT_TRUE(player->WaitForTick(now + 5, absl::Seconds(10)));
  const v1::Recording recording = GetRecording(address_, "w");
  auto sim = server::Simulation::Create(request.scene(), world.world().config());
  ASSERT_TRUE(sim.ok()) << sim.status();
  for (const v1::RecordedTick& t : recording.ticks()) {
    for (const v1::ConfirmedInput& in : t.inputs()) {
      EXPECT_EQ(in.commands_size(), 0) << "tick " << t.tick();
    }
    ASSERT_TRUE((*sim)->Step({}, nullptr).ok());
    ASSERT_EQ((*sim)->hash(), t.state_hash()) << "tick " << t.tick();
  }
  EXPECT_TRUE(player->Close().ok());
}

}  // namespace
}  // namespace atl::testing
