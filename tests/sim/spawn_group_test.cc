// Spawn templates that are groups: one SpawnBody command makes several
// bodies and the joints between them, placed rigidly at the spawn pose and
// owned by the spawning slot; bad groups are refused by name.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "atoll/sim/simulation.h"
#include "atoll/snapshot.h"

namespace atl::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr float kHalfPi = 1.57079632679f;

v1::WorldConfig Config(uint32_t max_bodies = 100) {
  v1::WorldConfig in;
  in.set_player_slots(2);
  in.set_max_bodies(max_bodies);
  absl::StatusOr<v1::WorldConfig> config = NormalizeWorldConfig(in, 1000);
  EXPECT_TRUE(config.ok()) << config.status();
  return *config;
}

v1::BodySpec Box(float x, float y) {
  v1::BodySpec b;
  b.set_type(v1::BODY_TYPE_DYNAMIC);
  b.mutable_position()->set_x(x);
  b.mutable_position()->set_y(y);
  b.add_shapes()->mutable_box()->set_half_width(0.25f);
  b.mutable_shapes(0)->mutable_box()->set_half_height(0.25f);
  return b;
}

// Ground (body 0) and template "pair": two boxes 1 m apart along the
// group's x axis, pinned at their midpoint by a revolute joint.
v1::SceneSpec PairScene() {
  v1::SceneSpec spec;
  spec.add_bodies()->set_type(v1::BODY_TYPE_STATIC);
  spec.mutable_physics()->mutable_gravity();  // zero gravity: poses stay put
  v1::BodyTemplate* t = spec.add_templates();
  t->set_name("pair");
  *t->add_bodies() = Box(0.0f, 0.0f);
  *t->add_bodies() = Box(1.0f, 0.0f);
  v1::RevoluteJointSpec* pin = t->add_joints()->mutable_revolute();
  pin->set_body_a(0);
  pin->set_body_b(1);
  pin->mutable_local_anchor_a()->set_x(0.5f);
  pin->mutable_local_anchor_b()->set_x(-0.5f);
  return spec;
}

v1::ConfirmedInput SpawnInput(uint32_t slot, float x, float y, float angle) {
  v1::ConfirmedInput in;
  in.set_slot(slot);
  in.set_sequence(1);
  v1::SpawnBody* sp = in.add_commands()->mutable_spawn_body();
  sp->set_template_name("pair");
  sp->mutable_position()->set_x(x);
  sp->mutable_position()->set_y(y);
  sp->set_angle(angle);
  return in;
}

TEST(SpawnGroupTest,
     OneCommandSpawnsTheGroupPlacedRigidlyAndOwnedByTheSpawner) {
  auto sim = Simulation::Create(PairScene(), Config());
  ASSERT_TRUE(sim.ok()) << sim.status();
  const v1::ConfirmedInput in = SpawnInput(2, 5.0f, 3.0f, kHalfPi);
  std::string field;
  ASSERT_TRUE((*sim)->CheckCommands(2, in.commands(), 0, &field).ok());
  std::vector<CommandFailure> failures;
  ASSERT_TRUE((*sim)->Step({&in, 1}, &failures).ok());
  ASSERT_TRUE(failures.empty()) << failures[0].status;
  const World& world = (*sim)->world();
  const std::vector<BodyId> bodies = world.GetBodyIds();
  ASSERT_EQ(bodies.size(), 3u);
  // The group's (0, 0) and (1, 0) turned a quarter turn about the spawn
  // point (5, 3): (5, 3) and (5, 4), both turned by it.
  const BodyInfo a = *world.GetBody(bodies[1]);
  const BodyInfo b = *world.GetBody(bodies[2]);
  EXPECT_NEAR(a.transform.p.x, 5.0f, 1e-5f);
  EXPECT_NEAR(a.transform.p.y, 3.0f, 1e-5f);
  EXPECT_NEAR(b.transform.p.x, 5.0f, 1e-5f);
  EXPECT_NEAR(b.transform.p.y, 4.0f, 1e-5f);
  EXPECT_NEAR(a.angle, kHalfPi, 1e-5f);
  EXPECT_NEAR(b.angle, kHalfPi, 1e-5f);
  const std::vector<JointId> joints = world.GetJointIds();
  ASSERT_EQ(joints.size(), 1u);
  EXPECT_EQ(*world.GetJointBodyA(joints[0]), bodies[1]);
  EXPECT_EQ(*world.GetJointBodyB(joints[0]), bodies[2]);
  EXPECT_EQ((*sim)->OwnerOf(bodies[1]), 2u);
  EXPECT_EQ((*sim)->OwnerOf(bodies[2]), 2u);
  EXPECT_EQ((*sim)->OwnerOf(joints[0]), 2u);

  // A replica applying the same input gets the same state.
  auto replica = Simulation::Create(PairScene(), Config());
  ASSERT_TRUE(replica.ok());
  ASSERT_TRUE((*replica)->Step({&in, 1}, &failures).ok());
  EXPECT_EQ((*replica)->hash(), (*sim)->hash());
}

TEST(SpawnGroupTest,
     AGroupThatWouldPassTheBodyLimitIsRefusedAndNothingChanges) {
  // Ground + one pair = 3 bodies; a limit of 4 leaves no room for another.
  auto sim = Simulation::Create(PairScene(), Config(4));
  ASSERT_TRUE(sim.ok()) << sim.status();
  const v1::ConfirmedInput first = SpawnInput(1, 0.0f, 2.0f, 0.0f);
  std::vector<CommandFailure> failures;
  ASSERT_TRUE((*sim)->Step({&first, 1}, &failures).ok());
  ASSERT_TRUE(failures.empty());
  const std::string before = SaveSnapshot((*sim)->world());
  const v1::ConfirmedInput second = SpawnInput(1, 3.0f, 2.0f, 0.0f);
  std::string field;
  const absl::Status s = (*sim)->CheckCommands(1, second.commands(), 0, &field);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(field, "input.commands[0].spawn_body");
  EXPECT_THAT(std::string(s.message()), HasSubstr("'pair' adds 2"));
  EXPECT_EQ(SaveSnapshot((*sim)->world()), before);
  ASSERT_TRUE((*sim)->Step({&second, 1}, &failures).ok());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ((*sim)->world().GetBodyIds().size(), 3u);
}

// Spawns queued for a later tick count their groups' bodies, so a second
// input cannot pass the limit by arriving before the first is applied.
TEST(SpawnGroupTest, QueuedGroupSpawnsCountTheirBodies) {
  // Ground + two pairs = 5 bodies: the limit; one pair is queued.
  auto sim = Simulation::Create(PairScene(), Config(5));
  ASSERT_TRUE(sim.ok()) << sim.status();
  const v1::ConfirmedInput queued = SpawnInput(1, 0.0f, 2.0f, 0.0f);
  EXPECT_EQ((*sim)->SpawnedBodies(queued.commands()), 2);
  std::string field;
  ASSERT_TRUE((*sim)->CheckCommands(1, queued.commands(), 0, &field).ok());
  const v1::ConfirmedInput second = SpawnInput(1, 3.0f, 2.0f, 0.0f);
  EXPECT_TRUE((*sim)
                  ->CheckCommands(1, second.commands(), (*sim)->SpawnedBodies(queued.commands()),
                                  &field)
                  .ok());
  const v1::ConfirmedInput third = SpawnInput(1, 6.0f, 2.0f, 0.0f);
  const int pending =
      (*sim)->SpawnedBodies(queued.commands()) + (*sim)->SpawnedBodies(second.commands());
  EXPECT_EQ((*sim)->CheckCommands(1, third.commands(), pending, &field).code(),
            absl::StatusCode::kResourceExhausted);
}

TEST(SpawnGroupTest, BadGroupsAreRefusedByName) {
  struct Case {
    std::function<void(v1::BodyTemplate*)> edit;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::BodyTemplate* t) { *t->mutable_body() = Box(0, 0); },
       "scene.templates[0]: "},
      {[](v1::BodyTemplate* t) { t->clear_bodies(); }, "scene.templates[0]: "},
      {[](v1::BodyTemplate* t) {
         t->mutable_joints(0)->mutable_revolute()->set_body_b(2);
       },
       "scene.templates[0].joints[0].revolute.body_b: "},
      {[](v1::BodyTemplate* t) {
         t->mutable_joints(0)->set_break_force(-1.0f);
       },
       "scene.templates[0].joints[0].break_force: "},
      {[](v1::BodyTemplate* t) {
         t->mutable_bodies(1)->mutable_shapes(0)->mutable_box()->set_half_width(
             -1);
       },
       "scene.templates[0].bodies[1].shapes[0]"},
  };
  for (const Case& c : cases) {
    v1::SceneSpec spec = PairScene();
    c.edit(spec.mutable_templates(0));
    const auto sim = Simulation::Create(spec, Config());
    ASSERT_FALSE(sim.ok()) << c.field;
    EXPECT_EQ(sim.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(sim.status().message()), StartsWith(c.field));
  }
  // A single body with joints has nothing to join.
  v1::SceneSpec spec = PairScene();
  v1::BodyTemplate* t = spec.add_templates();
  t->set_name("lonely");
  *t->mutable_body() = Box(0, 0);
  *t->add_joints() = spec.templates(0).joints(0);
  const auto sim = Simulation::Create(spec, Config());
  ASSERT_FALSE(sim.ok());
  EXPECT_THAT(std::string(sim.status().message()),
              StartsWith("scene.templates[1].joints: "));
}

}  // namespace
}  // namespace atl::sim
