// Prismatic joint: limits, motor, the line and angle it keeps.

#include <cmath>

#include <gtest/gtest.h>

#include "engine/dynamics/joints/joint_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicRect;
using testing::AddStaticAnchor;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;

TEST(PrismaticJointTest, LimitsHoldUnderHundredTimesBodyWeight) {
  // A block on a 45-degree rail resting on one of its limits, its weight
  // made 100 times larger, gravity pulling it into that limit and (being
  // off the rail's line) also twisting it.
  for (float sign : {1.0f, -1.0f}) {
    WorldDef def;
    def.gravity = {0.0f, sign * 10.0f};
    auto world = MakeWorld(def);
    const Vec2 origin{0.0f, 5.0f};
    const BodyId ground = AddStaticAnchor(world.get(), origin);
    const Vec2 axis = Normalize(Vec2{1.0f, 1.0f});
    const float limit = 1.0f;
    // Its anchor (0.3 m right of its center) starts on the limit.
    const BodyId slider = AddDynamicRect(world.get(), origin + (sign * limit) * axis - Vec2{0.3f, 0.0f},
                                         0.5f, 0.25f);
    ASSERT_TRUE(world->SetGravityScale(slider, 100.0f).ok());
    PrismaticJointDef jd;
    jd.body_a = ground;
    jd.body_b = slider;
    jd.local_anchor_b = {0.3f, 0.0f};  // the rail runs off the center of mass
    jd.local_axis_a = axis;
    jd.enable_limit = true;
    jd.lower_translation = -limit;
    jd.upper_translation = limit;
    const JointId joint = world->CreatePrismaticJoint(jd).value();
    float worst = 0.0f, worst_off_line = 0.0f, worst_angle = 0.0f;
    for (int i = 0; i < 240; ++i) {
      ASSERT_TRUE(world->Step(kDt).ok());
      worst = std::max(worst, sign * world->GetJointTranslation(joint).value() - limit);
      const Vec2 anchor = testing::WorldPoint(*world, slider, {0.3f, 0.0f});
      worst_off_line = std::max(worst_off_line, std::abs(Cross(axis, anchor - origin)));
      worst_angle = std::max(worst_angle, std::abs(world->GetBody(slider)->angle));
    }
    EXPECT_LT(worst, 0.01f) << "sign " << sign;
    EXPECT_LT(worst_off_line, 0.01f);
    EXPECT_LT(worst_angle, kPi / 180.0f);
  }
}

TEST(PrismaticJointTest, MotorDrivesAtSpeedAgainstGravity) {
  auto world = MakeWorld();
  const BodyId ground = AddStaticAnchor(world.get());
  const BodyId lift = AddDynamicRect(world.get(), {0.0f, 0.0f}, 0.5f, 0.5f);
  PrismaticJointDef jd;
  jd.body_a = ground;
  jd.body_b = lift;
  jd.local_axis_a = {0.0f, 1.0f};
  jd.enable_motor = true;
  jd.motor_speed = 2.0f;
  jd.max_motor_force = 100.0f;  // weight is 10 N
  const JointId joint = world->CreatePrismaticJoint(jd).value();
  testing::StepN(world.get(), 60);
  EXPECT_NEAR(world->GetBody(lift)->linear_velocity.y, 2.0f, 0.02f * 2.0f);
  EXPECT_NEAR(world->GetJointTranslation(joint).value(), 2.0f, 0.1f);
  // The motor carries the weight.
  EXPECT_NEAR(world->GetJointReactionForce(joint)->y, 10.0f, 0.2f);
}

}  // namespace
}  // namespace atl
