// Spin and gravity commands on an owned body: closed-form effects, refusals
// by field.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "atoll/sim/simulation.h"

namespace atl::sim {
namespace {

constexpr float kDt = 1.0f / 60.0f;

// A 1 m box of density 1 (m = 1 kg, I = m (w^2 + h^2) / 12 = 1/6 kg m^2)
// owned by slot 1, in a world with gravity.
std::unique_ptr<Simulation> OwnedBox() {
  v1::SceneSpec spec;
  v1::BodySpec* box = spec.add_bodies();
  box->set_type(v1::BODY_TYPE_DYNAMIC);
  box->set_owner_slot(1);
  box->mutable_position()->set_y(10.0f);
  box->add_shapes()->mutable_box()->set_half_width(0.5f);
  box->mutable_shapes(0)->mutable_box()->set_half_height(0.5f);
  v1::WorldConfig in;
  in.set_player_slots(2);
  auto sim = Simulation::Create(spec, NormalizeWorldConfig(in, 100).value());
  EXPECT_TRUE(sim.ok()) << sim.status();
  return *std::move(sim);
}

v1::ConfirmedInput Input(uint32_t slot, const v1::Command& c) {
  v1::ConfirmedInput in;
  in.set_slot(slot);
  in.set_sequence(1);
  *in.add_commands() = c;
  return in;
}

BodyInfo Box(const Simulation& sim) {
  return *sim.world().GetBody(sim.world().GetBodyIds()[0]);
}

TEST(BodyCommandTest, AngularImpulseAndTorqueSpinTheBoxByTheirClosedForm) {
  std::unique_ptr<Simulation> sim = OwnedBox();
  v1::Command c;
  *c.mutable_apply_angular_impulse()->mutable_body() = ToBodyRef(sim->world().GetBodyIds()[0]);
  c.mutable_apply_angular_impulse()->set_impulse(0.5f);
  v1::ConfirmedInput in = Input(1, c);
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  ASSERT_TRUE(failures.empty());
  EXPECT_NEAR(Box(*sim).angular_velocity, 0.5f * 6.0f, 1e-4f);

  std::unique_ptr<Simulation> torqued = OwnedBox();
  v1::Command t;
  *t.mutable_apply_torque()->mutable_body() = ToBodyRef(torqued->world().GetBodyIds()[0]);
  t.mutable_apply_torque()->set_torque(2.0f);
  in = Input(1, t);
  ASSERT_TRUE(torqued->Step({&in, 1}, &failures).ok());
  ASSERT_TRUE(failures.empty());
  EXPECT_NEAR(Box(*torqued).angular_velocity, 2.0f * kDt * 6.0f, 1e-4f);
}

TEST(BodyCommandTest, GravityScaleZeroFloats) {
  std::unique_ptr<Simulation> sim = OwnedBox();
  v1::Command c;
  *c.mutable_set_gravity_scale()->mutable_body() = ToBodyRef(sim->world().GetBodyIds()[0]);
  c.mutable_set_gravity_scale()->set_scale(0.0f);
  const v1::ConfirmedInput in = Input(1, c);
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(sim->Step({}, &failures).ok());
  EXPECT_EQ(Box(*sim).transform.p.y, 10.0f);
  EXPECT_EQ(Box(*sim).gravity_scale, 0.0f);
}

TEST(BodyCommandTest, BadSpinAndGravityCommandsAreRefusedByField) {
  std::unique_ptr<Simulation> sim = OwnedBox();
  const v1::BodyRef box = ToBodyRef(sim->world().GetBodyIds()[0]);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  v1::Command torque;
  *torque.mutable_apply_torque()->mutable_body() = box;
  torque.mutable_apply_torque()->set_torque(nan);
  v1::Command impulse;
  *impulse.mutable_apply_angular_impulse()->mutable_body() = box;
  impulse.mutable_apply_angular_impulse()->set_impulse(nan);
  v1::Command gravity;
  *gravity.mutable_set_gravity_scale()->mutable_body() = box;
  gravity.mutable_set_gravity_scale()->set_scale(
      std::numeric_limits<float>::infinity());
  for (const auto& [command, field] :
       {std::pair{torque, std::string("apply_torque")},
        std::pair{impulse, std::string("apply_angular_impulse")},
        std::pair{gravity, std::string("set_gravity_scale")}}) {
    std::string got;
    v1::ConfirmedInput in = Input(1, command);
    absl::Status s = sim->CheckCommands(1, in.commands(), 0, &got);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_EQ(got, "input.commands[0]." + field);
    // Another slot's body.
    s = sim->CheckCommands(2, in.commands(), 0, &got);
    EXPECT_EQ(s.code(), absl::StatusCode::kPermissionDenied) << field;
    EXPECT_EQ(got, "input.commands[0]." + field + ".body");
  }
}

// A replay applies recorded inputs without CheckCommands: the values are
// checked again when each command is applied (an impulse of -1.7e38 made a
// velocity infinite and aborted the command fuzzer's replica).
TEST(BodyCommandTest, ReplayedCommandsBeyondTheBoundsFailAndChangeNothing) {
  std::unique_ptr<Simulation> sim = OwnedBox();
  std::unique_ptr<Simulation> untouched = OwnedBox();
  const v1::BodyRef box = ToBodyRef(sim->world().GetBodyIds()[0]);
  v1::Command impulse;
  *impulse.mutable_apply_impulse()->mutable_body() = box;
  impulse.mutable_apply_impulse()->mutable_impulse()->set_x(-1.7e38f);
  v1::Command spin;
  *spin.mutable_set_angular_velocity()->mutable_body() = box;
  spin.mutable_set_angular_velocity()->set_velocity(1e30f);
  v1::ConfirmedInput in = Input(1, impulse);
  *in.add_commands() = spin;
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({&in, 1}, &failures).ok());
  ASSERT_EQ(failures.size(), 2u);
  for (const CommandFailure& f : failures) {
    EXPECT_EQ(f.status.code(), absl::StatusCode::kInvalidArgument) << f.status;
  }
  EXPECT_THAT(std::string(failures[0].status.message()),
              ::testing::StartsWith("apply_impulse: impulse"));
  ASSERT_TRUE(untouched->Step({}, &failures).ok());
  EXPECT_EQ(sim->hash(), untouched->hash());
}

}  // namespace
}  // namespace atl::sim
