// Revolute joint: motor, limits, spring, reaction.

#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include "engine/dynamics/joints/joint_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicRect;
using testing::AddStaticAnchor;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;

TEST(RevoluteJointTest, MotorReachesTargetSpeedUnderLoad) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  const BodyId ground = AddStaticAnchor(world.get());
  const BodyId wheel = AddDynamicRect(world.get(), {0.0f, 0.0f}, 1.0f, 0.2f, 2.0f);
  RevoluteJointDef jd;
  jd.body_a = ground;
  jd.body_b = wheel;
  jd.enable_motor = true;
  jd.motor_speed = 3.0f;
  jd.max_motor_torque = 50.0f;
  const JointId joint = world->CreateRevoluteJoint(jd).value();
  const float load = 30.0f;  // below the motor's 50 N m
  for (int i = 0; i < 180; ++i) {
    ASSERT_TRUE(world->ApplyTorque(wheel, -load, true).ok());
    ASSERT_TRUE(world->Step(kDt).ok());
  }
  EXPECT_NEAR(world->GetBody(wheel)->angular_velocity, 3.0f, 0.02f * 3.0f);
  // The motor holds the load: its torque on the wheel balances it.
  EXPECT_NEAR(world->GetJointReactionTorque(joint).value(), load, 0.02f * load);
}

TEST(RevoluteJointTest, MotorStallsWhenLoadExceedsMaxTorque) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  const BodyId ground = AddStaticAnchor(world.get());
  const BodyId wheel = AddDynamicRect(world.get(), {0.0f, 0.0f}, 1.0f, 0.2f, 2.0f);
  RevoluteJointDef jd;
  jd.body_a = ground;
  jd.body_b = wheel;
  jd.enable_motor = true;
  jd.motor_speed = 3.0f;
  jd.max_motor_torque = 10.0f;
  const JointId joint = world->CreateRevoluteJoint(jd).value();
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(world->ApplyTorque(wheel, -30.0f, true).ok());
    ASSERT_TRUE(world->Step(kDt).ok());
  }
  EXPECT_LT(world->GetBody(wheel)->angular_velocity, 0.0f);
  EXPECT_NEAR(world->GetJointReactionTorque(joint).value(), 10.0f, 1e-3f);
}

// An arm of half-length `half` pinned at its left end to `pivot`, turned
// by `angle` about the pin.
BodyId AddPinnedArm(World* world, Vec2 pivot, float half, float angle) {
  const BodyId arm = AddDynamicRect(world, pivot, half, 0.1f);
  EXPECT_TRUE(world->SetTransform(arm, pivot + RotateVector(MakeRot(angle), {half, 0.0f}), angle).ok());
  return arm;
}

TEST(RevoluteJointTest, LimitsHoldUnderHundredTimesBodyWeight) {
  // A 2 m arm resting on one of its limits, its weight made 100 times
  // larger (gravity scale), with gravity turning it into that limit.
  for (float sign : {1.0f, -1.0f}) {
    WorldDef def;
    def.gravity = {0.0f, sign * 10.0f};
    auto world = MakeWorld(def);
    const Vec2 pivot{0.0f, 5.0f};
    const BodyId ground = AddStaticAnchor(world.get(), pivot);
    const float limit = 0.25f;
    const BodyId arm = AddPinnedArm(world.get(), pivot, 1.0f, sign * limit);
    ASSERT_TRUE(world->SetGravityScale(arm, 100.0f).ok());
    RevoluteJointDef jd;
    jd.body_a = ground;
    jd.body_b = arm;
    jd.local_anchor_b = {-1.0f, 0.0f};
    jd.enable_limit = true;
    jd.lower_angle = -limit;
    jd.upper_angle = limit;
    const JointId joint = world->CreateRevoluteJoint(jd).value();
    float worst = 0.0f, worst_pin = 0.0f;
    for (int i = 0; i < 240; ++i) {
      ASSERT_TRUE(world->Step(kDt).ok());
      worst = std::max(worst, sign * world->GetJointAngle(joint).value() - limit);
      worst_pin = std::max(worst_pin,
                           Distance(testing::WorldPoint(*world, arm, {-1.0f, 0.0f}), pivot));
    }
    EXPECT_LT(worst, kPi / 180.0f) << "sign " << sign;
    // The pin yields like any soft rigid row (about F / (m_eff (2 pi
    // 60 Hz)^2)): millimetres under 400 N.
    EXPECT_LT(worst_pin, 0.01f);
    // The limit and pin carry the whole load: 100 x weight x cos(limit) at
    // the 1 m lever of the center of mass.
    const float weight = 100.0f * world->GetBody(arm)->mass * 10.0f;
    EXPECT_NEAR(std::abs(world->GetJointReactionTorque(joint).value()), weight * std::cos(limit),
                0.02f * weight);
  }
}

TEST(RevoluteJointTest, SwingingArmStopsAtItsLimit) {
  // Falling from the upper limit onto the lower one at full speed.
  auto world = MakeWorld();
  const Vec2 pivot{0.0f, 5.0f};
  const BodyId ground = AddStaticAnchor(world.get(), pivot);
  const BodyId arm = AddPinnedArm(world.get(), pivot, 1.0f, 1.0f);
  RevoluteJointDef jd;
  jd.body_a = ground;
  jd.body_b = arm;
  jd.local_anchor_b = {-1.0f, 0.0f};
  jd.enable_limit = true;
  jd.lower_angle = -1.0f;
  jd.upper_angle = 1.0f;
  const JointId joint = world->CreateRevoluteJoint(jd).value();
  float lowest = 0.0f;
  for (int i = 0; i < 180; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    lowest = std::min(lowest, world->GetJointAngle(joint).value());
  }
  EXPECT_GT(lowest, -1.0f - kPi / 180.0f);
  EXPECT_FALSE(world->GetBody(arm)->is_awake);
}

TEST(RevoluteJointTest, SpringOscillatesAtItsFrequency) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  def.enable_sleep = false;
  auto world = MakeWorld(def);
  const BodyId ground = AddStaticAnchor(world.get());
  const BodyId wheel = AddDynamicRect(world.get(), {0.0f, 0.0f}, 1.0f, 1.0f);
  ASSERT_TRUE(world->SetAngularVelocity(wheel, 1.0f).ok());
  RevoluteJointDef jd;
  jd.body_a = ground;
  jd.body_b = wheel;
  jd.enable_spring = true;
  jd.hertz = 1.0f;
  const JointId joint = world->CreateRevoluteJoint(jd).value();
  // An undamped spring of 1 Hz: back at angle 0 after each half period,
  // i.e. at t = 0.5, 1.0, ... s; 5.25 s hold ten crossings.
  float previous = 0.0f;
  int sign_changes = 0;
  for (int i = 0; i < 315; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    const float angle = world->GetJointAngle(joint).value();
    if (i > 0 && (angle > 0.0f) != (previous > 0.0f)) ++sign_changes;
    previous = angle;
  }
  EXPECT_EQ(sign_changes, 10);
}

}  // namespace
}  // namespace atl
