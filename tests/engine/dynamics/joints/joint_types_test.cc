// Distance springs and ropes, wheel, weld springs, motor and target joints.

#include <cmath>

#include <gtest/gtest.h>

#include "engine/dynamics/joints/joint_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicCircle;
using testing::AddDynamicRect;
using testing::AddGround;
using testing::AddStaticAnchor;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;

TEST(DistanceJointTest, SpringSettlesAtStaticDeflection) {
  // A mass on a vertical spring of frequency f settles g / (2 pi f)^2 below
  // the rest length.
  auto world = MakeWorld();
  const BodyId anchor = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  const BodyId bob = AddDynamicCircle(world.get(), {0.0f, 8.0f}, 0.1f);
  DistanceJointDef d;
  d.body_a = anchor;
  d.body_b = bob;
  d.length = 2.0f;
  d.enable_spring = true;
  d.hertz = 2.0f;
  d.damping_ratio = 1.0f;
  ASSERT_TRUE(world->CreateDistanceJoint(d).ok());
  testing::StepN(world.get(), 240);
  const float omega = 2.0f * kPi * 2.0f;
  const float expected = 8.0f - 10.0f / (omega * omega);
  EXPECT_NEAR(world->GetBody(bob)->world_center.y, expected, 0.002f);
}

TEST(DistanceJointTest, RopeIsSlackBelowItsLengthAndTautAtIt) {
  auto world = MakeWorld();
  const BodyId anchor = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  // Starts 1 m below the anchor on a 3 m rope: free fall for 2 m first.
  const BodyId bob = AddDynamicCircle(world.get(), {0.0f, 9.0f}, 0.1f);
  DistanceJointDef d;
  d.body_a = anchor;
  d.body_b = bob;
  d.enable_spring = true;  // zero hertz: no spring force at all
  d.enable_limit = true;
  d.max_length = 3.0f;
  const JointId rope = world->CreateDistanceJoint(d).value();
  testing::StepN(world.get(), 20);  // t = 1/3 s: fell 0.56 m, still slack
  EXPECT_NEAR(world->GetBody(bob)->linear_velocity.y, -10.0f / 3.0f, 0.05f);
  EXPECT_EQ(world->GetJointReactionForce(rope).value(), (Vec2{0.0f, 0.0f}));
  testing::StepN(world.get(), 120);
  const float length = Distance(world->GetBody(bob)->world_center, {0.0f, 10.0f});
  EXPECT_LT(length, 3.0f + 0.01f);
  EXPECT_GT(length, 3.0f - 0.05f);
}

TEST(WheelJointTest, WheelStaysOnItsAxisAndMotorSpinsIt) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  const BodyId chassis = AddStaticAnchor(world.get(), {0.0f, 5.0f});
  const BodyId wheel = AddDynamicCircle(world.get(), {0.0f, 4.0f}, 0.4f);
  WheelJointDef d;
  d.body_a = chassis;
  d.body_b = wheel;
  d.local_anchor_a = {0.0f, -1.0f};
  d.local_axis_a = {0.0f, 1.0f};
  d.hertz = 2.0f;
  d.damping_ratio = 0.5f;
  d.enable_motor = true;
  d.motor_speed = -10.0f;
  d.max_motor_torque = 50.0f;
  const JointId joint = world->CreateWheelJoint(d).value();
  // Kick it sideways and along the axis: the side kick is refused, the axial
  // one rings on the suspension spring and dies out.
  ASSERT_TRUE(world->SetLinearVelocity(wheel, {3.0f, 2.0f}).ok());
  float worst_side = 0.0f;
  for (int i = 0; i < 180; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    worst_side = std::max(worst_side, std::abs(world->GetBody(wheel)->world_center.x));
  }
  EXPECT_LT(worst_side, 0.01f);
  EXPECT_NEAR(world->GetJointTranslation(joint).value(), 0.0f, 0.01f);
  EXPECT_NEAR(world->GetBody(wheel)->angular_velocity, -10.0f, 0.1f);
}

TEST(WheelJointTest, SuspensionCarriesTheChassisAtItsStaticDeflection) {
  // A chassis on one wheel resting on the ground. A joint spring's stiffness
  // is m_eff (2 pi f)^2, m_eff the effective mass of its row (here the
  // reduced mass of chassis and wheel), so it sags by the chassis weight
  // over that.
  auto world = MakeWorld();
  AddGround(world.get());
  const BodyId wheel = AddDynamicCircle(world.get(), {0.0f, 0.5f}, 0.5f);
  const BodyId chassis = AddDynamicRect(world.get(), {0.0f, 2.0f}, 1.0f, 0.25f);
  ASSERT_TRUE(world->SetAngularVelocity(wheel, 0.0f).ok());
  WheelJointDef d;
  d.body_a = chassis;
  d.body_b = wheel;
  d.local_anchor_a = {0.0f, -1.5f};
  d.hertz = 2.0f;
  d.damping_ratio = 1.0f;
  const JointId joint = world->CreateWheelJoint(d).value();
  testing::StepN(world.get(), 240);
  const float omega = 2.0f * kPi * 2.0f;
  const float mc = world->GetBody(chassis)->mass, mw = world->GetBody(wheel)->mass;
  const float stiffness = mc * mw / (mc + mw) * omega * omega;
  // The travel is B's anchor from A's along the axis: positive when the
  // chassis sinks towards the wheel.
  EXPECT_NEAR(world->GetJointTranslation(joint).value(), mc * 10.0f / stiffness, 0.002f);
}

TEST(WeldJointTest, SoftWeldBendsAndSpringsBack) {
  WorldDef def;
  def.enable_sleep = false;
  auto world = MakeWorld(def);
  const BodyId wall = AddStaticAnchor(world.get(), {0.0f, 5.0f});
  const BodyId board = AddDynamicRect(world.get(), {1.0f, 5.0f}, 1.0f, 0.05f);
  WeldJointDef d;
  d.body_a = wall;
  d.body_b = board;
  d.local_anchor_b = {-1.0f, 0.0f};
  d.angular_hertz = 2.0f;
  d.angular_damping_ratio = 0.3f;
  const JointId joint = world->CreateWeldJoint(d).value();
  float lowest = 0.0f;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    lowest = std::min(lowest, world->GetJointAngle(joint).value());
  }
  // A diving board: it bends visibly (a rigid weld would hold within
  // hundredths of a degree) but comes back up from its lowest point.
  EXPECT_LT(lowest, -0.05f);
  EXPECT_GT(world->GetJointAngle(joint).value(), lowest);
}

TEST(MotorJointTest, DrivesBodyToItsOffsetWithBoundedForce) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  const BodyId base = AddStaticAnchor(world.get(), {1.0f, 1.0f});
  const BodyId puck = AddDynamicRect(world.get(), {1.0f, 1.0f}, 0.5f, 0.5f);
  MotorJointDef d;
  d.body_a = base;
  d.body_b = puck;
  d.linear_offset = {3.0f, 0.0f};
  d.angular_offset = 1.0f;
  d.max_force = 200.0f;
  d.max_torque = 50.0f;
  const JointId joint = world->CreateMotorJoint(d).value();
  float most_force = 0.0f, most_torque = 0.0f;
  for (int i = 0; i < 240; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    most_force = std::max(most_force, Length(world->GetJointReactionForce(joint).value()));
    most_torque = std::max(most_torque, std::abs(world->GetJointReactionTorque(joint).value()));
  }
  // It pushed as hard as allowed at first, and never harder.
  EXPECT_NEAR(most_force, 200.0f, 0.01f * 200.0f);
  EXPECT_NEAR(most_torque, 50.0f, 0.01f * 50.0f);
  const BodyInfo b = world->GetBody(puck).value();
  EXPECT_NEAR(b.transform.p.x, 4.0f, 0.01f);
  EXPECT_NEAR(b.transform.p.y, 1.0f, 0.01f);
  EXPECT_NEAR(b.angle, 1.0f, 0.01f);
  // New offsets move it again.
  ASSERT_TRUE(world->SetMotorJointOffsets(joint, {0.0f, 2.0f}, 0.0f).ok());
  testing::StepN(world.get(), 240);
  EXPECT_NEAR(world->GetBody(puck)->transform.p.y, 3.0f, 0.01f);
}

TEST(TargetJointTest, PullsBodyToTargetWithBoundedForce) {
  auto world = MakeWorld();
  const BodyId crate = AddDynamicRect(world.get(), {0.0f, 0.0f}, 0.5f, 0.5f);
  TargetJointDef d;
  d.body = crate;
  d.target = {0.0f, 0.0f};  // grabs the crate at its center
  d.hertz = 5.0f;
  d.damping_ratio = 1.0f;
  d.max_force = 1000.0f;
  const JointId joint = world->CreateTargetJoint(d).value();
  EXPECT_FALSE(world->GetJointBodyA(joint)->IsValid());
  ASSERT_TRUE(world->SetTarget(joint, {3.0f, 2.0f}).ok());
  testing::StepN(world.get(), 120);
  // Held at the target, sagging by its weight over the spring stiffness.
  const float omega = 2.0f * kPi * 5.0f;
  const Vec2 c = world->GetBody(crate)->world_center;
  EXPECT_NEAR(c.x, 3.0f, 0.01f);
  EXPECT_NEAR(c.y, 2.0f - 10.0f / (omega * omega), 0.01f);
  // Too weak to hold the weight: it falls, pulled with exactly max_force.
  ASSERT_TRUE(world->SetMaxMotorForce(joint, 5.0f).ok());
  testing::StepN(world.get(), 60);
  EXPECT_LT(world->GetBody(crate)->world_center.y, 0.0f);
  EXPECT_NEAR(Length(world->GetJointReactionForce(joint).value()), 5.0f, 1e-3f);
}

}  // namespace
}  // namespace atl
