// Joints a player slot owns: JointCommand and DestroyJoint checked (code,
// field, nothing changed) and applied through the engine's setters; break
// thresholds and owners from the SceneSpec; joint breaks and sensor events
// as Frame fields.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "atoll/sim/frame_events.h"
#include "atoll/sim/simulation.h"
#include "atoll/snapshot.h"

namespace atl::sim {
namespace {

using ::testing::HasSubstr;

constexpr float kG = 10.0f;
const float kNan = std::numeric_limits<float>::quiet_NaN();

v1::WorldConfig Config() {
  v1::WorldConfig in;
  in.set_player_slots(2);
  absl::StatusOr<v1::WorldConfig> config = NormalizeWorldConfig(in, 1000);
  EXPECT_TRUE(config.ok()) << config.status();
  return *config;
}

void SetVec(v1::Vec2* v, float x, float y) {
  v->set_x(x);
  v->set_y(y);
}

// Body 0: a static pivot at (0, 5) without shapes; body 1: a 1 m box of
// density 1 (1 kg) centred on it; joint 0: a revolute pin between them at
// the box's centre, owned by slot 1.
v1::SceneSpec PinnedBox() {
  v1::SceneSpec spec;
  v1::BodySpec* pivot = spec.add_bodies();
  pivot->set_type(v1::BODY_TYPE_STATIC);
  SetVec(pivot->mutable_position(), 0.0f, 5.0f);
  v1::BodySpec* box = spec.add_bodies();
  box->set_type(v1::BODY_TYPE_DYNAMIC);
  SetVec(box->mutable_position(), 0.0f, 5.0f);
  v1::BoxGeometry* g = box->add_shapes()->mutable_box();
  g->set_half_width(0.5f);
  g->set_half_height(0.5f);
  v1::JointSpec* joint = spec.add_joints();
  joint->mutable_revolute()->set_body_a(0);
  joint->mutable_revolute()->set_body_b(1);
  joint->set_owner_slot(1);
  return spec;
}

std::unique_ptr<Simulation> Make(const v1::SceneSpec& spec) {
  absl::StatusOr<std::unique_ptr<Simulation>> sim =
      Simulation::Create(spec, Config());
  EXPECT_TRUE(sim.ok()) << sim.status();
  return sim.ok() ? *std::move(sim) : nullptr;
}

JointId TheJoint(const Simulation& sim) {
  const std::vector<JointId> ids = sim.world().GetJointIds();
  EXPECT_EQ(ids.size(), 1u);
  return ids.empty() ? JointId() : ids[0];
}

v1::ConfirmedInput Input(uint32_t slot, std::vector<v1::Command> commands) {
  v1::ConfirmedInput in;
  in.set_slot(slot);
  in.set_sequence(1);
  for (v1::Command& c : commands) *in.add_commands() = std::move(c);
  return in;
}

v1::Command Change(JointId joint,
                   const std::function<void(v1::JointCommand*)>& set) {
  v1::Command c;
  *c.mutable_joint()->mutable_joint() = ToJointRef(joint);
  set(c.mutable_joint());
  return c;
}

v1::Command Destroy(JointId joint) {
  v1::Command c;
  *c.mutable_destroy_joint()->mutable_joint() = ToJointRef(joint);
  return c;
}

// CheckCommands' verdict on one input of `slot`; *field gets the field.
absl::Status Check(const Simulation& sim, uint32_t slot,
                   std::vector<v1::Command> commands, std::string* field) {
  const v1::ConfirmedInput in = Input(slot, std::move(commands));
  return sim.CheckCommands(slot, in.commands(), 0, field);
}

TEST(JointCommandTest, TheOwnerDrivesARevoluteMotor) {
  std::unique_ptr<Simulation> sim = Make(PinnedBox());
  const JointId joint = TheJoint(*sim);
  EXPECT_EQ(sim->OwnerOf(joint), 1u);
  std::vector<v1::Command> commands = {
      Change(joint, [](v1::JointCommand* j) { j->set_enable_motor(true); }),
      Change(joint,
             [](v1::JointCommand* j) { j->set_max_motor_torque(100.0f); }),
      Change(joint, [](v1::JointCommand* j) { j->set_motor_speed(3.0f); })};
  std::string field;
  ASSERT_TRUE(Check(*sim, 1, commands, &field).ok());
  const v1::ConfirmedInput in = Input(1, commands);
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  EXPECT_TRUE(failures.empty());
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(sim->Step({}, &failures).ok());
  // Gravity has no moment about the box's centre: the motor alone sets
  // the spin.
  const BodyId box = sim->world().GetBodyIds()[1];
  EXPECT_NEAR(sim->world().GetBody(box)->angular_velocity, 3.0f, 0.01f);
}

TEST(JointCommandTest, AnotherSlotsCommandIsRefusedAndChangesNothing) {
  std::unique_ptr<Simulation> sim = Make(PinnedBox());
  std::unique_ptr<Simulation> untouched = Make(PinnedBox());
  const JointId joint = TheJoint(*sim);
  const std::vector<v1::Command> commands = {
      Change(joint, [](v1::JointCommand* j) { j->set_enable_motor(true); })};
  std::string field;
  const absl::Status s = Check(*sim, 2, commands, &field);
  EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(field, "input.commands[0].joint.joint");
  // Applied anyway (a replica re-checks each command when it applies it):
  // it fails the same way and the state stays that of no input.
  const v1::ConfirmedInput in = Input(2, commands);
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].status.code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(untouched->Step({}, &failures).ok());
  EXPECT_EQ(sim->hash(), untouched->hash());
}

TEST(JointCommandTest, BadChangesAreRefusedNamingTheField) {
  std::unique_ptr<Simulation> sim = Make(PinnedBox());
  const JointId joint = TheJoint(*sim);
  const std::string before = SaveSnapshot(sim->world());
  struct Case {
    std::function<void(v1::JointCommand*)> set;
    std::string field;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::JointCommand* j) { j->set_max_motor_force(5.0f); },
       "joint.max_motor_force", "a revolute joint has no such setting"},
      {[](v1::JointCommand* j) { j->set_motor_speed(kNan); },
       "joint.motor_speed", "finite"},
      {[](v1::JointCommand* j) { j->set_max_motor_torque(-1.0f); },
       "joint.max_motor_torque", ">= 0"},
      {[](v1::JointCommand* j) {
         j->mutable_limits()->set_lower(1.0f);
         j->mutable_limits()->set_upper(0.5f);
       },
       "joint.limits", "lower must not exceed upper"},
      {[](v1::JointCommand* j) {
         j->mutable_limits()->set_lower(-4.0f);
         j->mutable_limits()->set_upper(0.5f);
       },
       "joint.limits", "[-pi, pi]"},
      {[](v1::JointCommand* j) { j->mutable_spring()->set_hertz(-2.0f); },
       "joint.spring", ">= 0"},
      {[](v1::JointCommand* j) { SetVec(j->mutable_target(), 1.0f, 1.0f); },
       "joint.target", "no such setting"},
      {[](v1::JointCommand* j) { j->set_distance_length(2.0f); },
       "joint.distance_length", "no such setting"},
      {[](v1::JointCommand*) {}, "joint", "no change set"},
  };
  for (const Case& c : cases) {
    std::string field;
    const absl::Status s = Check(*sim, 1, {Change(joint, c.set)}, &field);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_EQ(field, "input.commands[0]." + c.field);
    EXPECT_THAT(std::string(s.message()), HasSubstr(c.message));
  }
  // A command the check would refuse fails the same way when applied.
  const v1::ConfirmedInput in = Input(
      1, {Change(joint,
                 [](v1::JointCommand* j) { j->set_max_motor_force(5.0f); })});
  std::vector<CommandFailure> failures;
  std::unique_ptr<Simulation> untouched = Make(PinnedBox());
  EXPECT_EQ(SaveSnapshot(sim->world()), before);
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_EQ(failures[0].status.code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(untouched->Step({}, &failures).ok());
  EXPECT_EQ(sim->hash(), untouched->hash());
}

TEST(JointCommandTest, DestroyedOrStaleJointsAreNotFound) {
  std::unique_ptr<Simulation> sim = Make(PinnedBox());
  const JointId joint = TheJoint(*sim);
  std::string field;
  // Destroyed earlier in the same input.
  EXPECT_EQ(Check(*sim, 1,
                  {Destroy(joint), Change(joint,
                                          [](v1::JointCommand* j) {
                                            j->set_enable_limit(true);
                                          })},
                  &field)
                .code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(field, "input.commands[1].joint.joint");
  JointId stale = joint;
  stale.generation += 1;
  EXPECT_EQ(Check(*sim, 1, {Destroy(stale)}, &field).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(field, "input.commands[0].destroy_joint.joint");

  const v1::ConfirmedInput in = Input(1, {Destroy(joint)});
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  EXPECT_TRUE(failures.empty());
  EXPECT_FALSE(sim->world().IsValid(joint));
  EXPECT_TRUE(sim->JointOwners().empty());
  EXPECT_EQ(Check(*sim, 1, {Destroy(joint)}, &field).code(),
            absl::StatusCode::kNotFound);
}

TEST(JointCommandTest, JointOwnersSurviveACheckpoint) {
  std::unique_ptr<Simulation> sim = Make(PinnedBox());
  const JointId joint = TheJoint(*sim);
  std::vector<CommandFailure> failures;
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(sim->Step({}, &failures).ok());
  const v1::Checkpoint cp = sim->SaveCheckpoint({0, 0});
  ASSERT_EQ(cp.joint_owners_size(), 1);
  EXPECT_EQ(cp.joint_owners(0).slot(), 1u);
  absl::StatusOr<std::unique_ptr<Simulation>> restored =
      Simulation::Restore(PinnedBox(), Config(), cp);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->OwnerOf(joint), 1u);
  std::unique_ptr<Simulation> other = Make(PinnedBox());
  ASSERT_TRUE(other->CopyStateFrom(**restored).ok());
  EXPECT_EQ(other->OwnerOf(joint), 1u);
}

TEST(JointCommandTest, AJointBreaksUnderItsLoadAndTheFrameSaysSo) {
  v1::SceneSpec spec = PinnedBox();
  // The box weighs 1 kg * g: a threshold of half that breaks at once.
  spec.mutable_joints(0)->set_break_force(0.5f * kG);
  spec.mutable_joints(0)->mutable_revolute()->set_user_data(9);
  std::unique_ptr<Simulation> sim = Make(spec);
  const JointId joint = TheJoint(*sim);
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({}, &failures).ok());
  v1::Frame frame;
  AppendStepEvents(sim->world(), &frame);
  ASSERT_EQ(frame.joint_breaks_size(), 1);
  const v1::JointBreakEvent& e = frame.joint_breaks(0);
  EXPECT_EQ(e.joint().index(), joint.index);
  EXPECT_EQ(e.joint().generation(), joint.generation);
  EXPECT_EQ(e.body_b().index(), sim->world().GetBodyIds()[1].index);
  EXPECT_NEAR(e.force().y(), kG, 1e-3f * kG);
  EXPECT_EQ(e.user_data(), 9u);
  // The owner entry goes with the joint.
  EXPECT_EQ(sim->OwnerOf(joint), 0u);
  EXPECT_EQ(sim->SaveCheckpoint({0, 0}).joint_owners_size(), 0);
}

TEST(JointCommandTest, BadBreakThresholdsAndOwnersInTheSpecAreRefused) {
  struct Case {
    std::function<void(v1::JointSpec*)> set;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::JointSpec* j) { j->set_break_force(kNan); },
       "scene.joints[0].break_force"},
      {[](v1::JointSpec* j) { j->set_break_force(-1.0f); },
       "scene.joints[0].break_force"},
      {[](v1::JointSpec* j) { j->set_break_torque(-1.0f); },
       "scene.joints[0].break_torque"},
      {[](v1::JointSpec* j) { j->set_owner_slot(3); },
       "scene.joints[0].owner_slot"},
  };
  for (const Case& c : cases) {
    v1::SceneSpec spec = PinnedBox();
    c.set(spec.mutable_joints(0));
    const absl::StatusOr<std::unique_ptr<Simulation>> sim =
        Simulation::Create(spec, Config());
    ASSERT_FALSE(sim.ok()) << c.field;
    EXPECT_EQ(sim.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(sim.status().message()),
                ::testing::StartsWith(c.field + ": "));
  }
  // Infinity is "never".
  v1::SceneSpec spec = PinnedBox();
  spec.mutable_joints(0)->set_break_force(
      std::numeric_limits<float>::infinity());
  EXPECT_TRUE(Simulation::Create(spec, Config()).ok());
}

TEST(JointCommandTest, ABallCrossingASensorBeginsAndEndsASensorEvent) {
  v1::SceneSpec spec;
  v1::BodySpec* zone = spec.add_bodies();
  zone->set_type(v1::BODY_TYPE_STATIC);
  SetVec(zone->mutable_position(), 0.0f, 2.0f);
  v1::ShapeSpec* sensor = zone->add_shapes();
  sensor->mutable_box()->set_half_width(2.0f);
  sensor->mutable_box()->set_half_height(0.5f);
  sensor->set_is_sensor(true);
  v1::BodySpec* ball = spec.add_bodies();
  ball->set_type(v1::BODY_TYPE_DYNAMIC);
  SetVec(ball->mutable_position(), 0.0f, 5.0f);
  ball->add_shapes()->mutable_circle()->set_radius(0.25f);
  std::unique_ptr<Simulation> sim = Make(spec);
  const std::vector<BodyId> bodies = sim->world().GetBodyIds();
  std::vector<v1::SensorEvent> seen;
  std::vector<uint64_t> ticks;
  std::vector<CommandFailure> failures;
  for (int i = 0; i < 90; ++i) {
    ASSERT_TRUE(sim->Step({}, &failures).ok());
    v1::Frame frame;
    AppendStepEvents(sim->world(), &frame);
    for (const v1::SensorEvent& e : frame.sensor_events()) {
      seen.push_back(e);
      ticks.push_back(sim->tick());
    }
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].kind(), v1::SensorEvent::KIND_BEGIN);
  EXPECT_EQ(seen[1].kind(), v1::SensorEvent::KIND_END);
  for (const v1::SensorEvent& e : seen) {
    EXPECT_EQ(e.sensor_body().index(), bodies[0].index);
    EXPECT_EQ(e.visitor_body().index(), bodies[1].index);
  }
  // Free fall from y = 5: the ball's bottom (y - 0.25) meets the zone's top
  // (2.5) after falling 2.25 m, t = sqrt(2 * 2.25 / g) = 0.67 s, and its
  // top leaves the zone's bottom (1.5) after 3.75 m, t = 0.87 s. Sensor
  // overlap is checked at the end of a step, so each is seen within a
  // couple of ticks of 60 Hz.
  EXPECT_NEAR(static_cast<double>(ticks[0]), std::sqrt(2.0 * 2.25 / kG) * 60.0,
              2.0);
  EXPECT_NEAR(static_cast<double>(ticks[1]), std::sqrt(2.0 * 3.75 / kG) * 60.0,
              2.0);
}

}  // namespace
}  // namespace atl::sim
