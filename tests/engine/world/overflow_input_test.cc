// Inputs that are finite and of the right sign but so extreme that single
// precision overflows inside the solver (found by the scene and command
// fuzzers): refused with a clear error, the world unchanged; the largest
// accepted values step without producing infinities.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "atoll/constants.h"
#include "atoll/snapshot.h"
#include "atoll/world.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

using ::testing::HasSubstr;
using testing::MakeWorld;

BodyId Dynamic(World* world, Vec2 p) {
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.position = p;
  return world->CreateBody(def).value();
}

// A limb joint of the fuzzer's ragdolls: a revolute joint with a lower
// limit and a weak motor.
RevoluteJointDef LimbJoint(BodyId a, BodyId b, Vec2 anchor_a, Vec2 anchor_b) {
  RevoluteJointDef jd;
  jd.body_a = a;
  jd.body_b = b;
  jd.local_anchor_a = anchor_a;
  jd.local_anchor_b = anchor_b;
  jd.enable_limit = true;
  jd.lower_angle = -2.2f;
  jd.upper_angle = 0.0f;
  jd.enable_motor = true;
  jd.max_motor_torque = 3.0f;
  return jd;
}

void ExpectFinite(const World& world) {
  for (BodyId id : world.GetBodyIds()) {
    const BodyInfo b = *world.GetBody(id);
    EXPECT_TRUE(IsValid(b.transform.p)) << id.index;
    EXPECT_TRUE(IsFinite(b.angular_velocity)) << id.index;
    EXPECT_TRUE(IsValid(b.linear_velocity)) << id.index;
  }
}

TEST(OverflowInputTest, ShapesTooLightToInvertAreRefusedAndTheBodyIsUnchanged) {
  auto world = MakeWorld();
  const BodyId body = Dynamic(world.get(), {0.0f, 5.0f});
  const std::string before = SaveSnapshot(*world);
  ShapeDef def;
  // A radius whose area underflows, and a density that leaves the inertia
  // below what 1/I can hold.
  absl::Status s = world->CreateCircleShape(body, def, Circle{{0, 0}, 1.0e-20f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("below the least a body can hold"));
  def.density = 1.0e-30f;
  s = world->CreateCircleShape(body, def, Circle{{0, 0}, 0.01f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = world->CreateCapsuleShape(body, def, Capsule{{0, 0}, {1, 0}, 1.0e-37f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  // Too heavy: a density of 7e20 (found by the scene fuzzer in a ragdoll).
  def.density = 7.5e20f;
  s = world->CreateCapsuleShape(body, def, Capsule{{0, -0.35f}, {0, 0.35f}, 0.25f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("above the most a body can hold"));
  EXPECT_EQ(SaveSnapshot(*world), before);
  // A millimetre circle of ordinary density is fine, and steps.
  def.density = 1.0f;
  ASSERT_TRUE(world->CreateCircleShape(body, def, Circle{{0, 0}, 0.001f}).ok());
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
  ExpectFinite(*world);
}

TEST(OverflowInputTest, SpringsStifferThanTheLimitAreRefusedAndTheLimitSteps) {
  auto world = MakeWorld();
  const BodyId ground = world->CreateBody(BodyDef()).value();
  const BodyId wheel = Dynamic(world.get(), {0.0f, 2.0f});
  ASSERT_TRUE(world->CreateCircleShape(wheel, ShapeDef(), Circle{{0, 0}, 0.5f}).ok());
  RevoluteJointDef jd;
  jd.body_a = ground;
  jd.body_b = wheel;
  jd.local_anchor_a = {0.0f, 2.0f};
  jd.enable_spring = true;
  jd.hertz = 1.0e30f;
  absl::Status s = world->CreateRevoluteJoint(jd).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("kMaxSpringHertz"));
  jd.hertz = 1.0f;
  jd.damping_ratio = 1.0e30f;
  EXPECT_EQ(world->CreateRevoluteJoint(jd).status().code(), absl::StatusCode::kInvalidArgument);
  jd.damping_ratio = 0.5f;
  const JointId joint = world->CreateRevoluteJoint(jd).value();
  const std::string before = SaveSnapshot(*world);
  EXPECT_EQ(world->SetSpring(joint, 1.0e30f, 0.5f).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetSpring(joint, 1.0f, 1.0e30f).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SaveSnapshot(*world), before);
  // The limits themselves are safe: a spun wheel on the stiffest, most
  // damped spring stays finite.
  ASSERT_TRUE(world->SetSpring(joint, kMaxSpringHertz, kMaxDampingRatio).ok());
  ASSERT_TRUE(world->SetAngularVelocity(wheel, 50.0f).ok());
  for (int i = 0; i < 120; ++i) ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
  ExpectFinite(*world);

  WorldDef def;
  def.contact_damping_ratio = 1.0e30f;
  EXPECT_EQ(World::Create(def).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(OverflowInputTest, BodyValuesBeyondTheBoundsAreRefusedAndTheWorldIsUnchanged) {
  auto world = MakeWorld();
  const BodyId ball = Dynamic(world.get(), {0.0f, 5.0f});
  ASSERT_TRUE(world->CreateCircleShape(ball, ShapeDef(), Circle{{0, 0}, 0.3f}).ok());
  const std::string before = SaveSnapshot(*world);
  // A gravity scale of -2.3e38 (found by the scene fuzzer) made the
  // gravity kick infinite and the body's box NaN.
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.gravity_scale = -2.3e38f;
  absl::Status s = world->CreateBody(def).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("kMaxGravityScale"));
  def.gravity_scale = 1.0f;
  def.linear_velocity = {0.0f, 2.0f * kMaxBodySpeed};
  EXPECT_THAT(std::string(world->CreateBody(def).status().message()),
              HasSubstr("kMaxBodySpeed"));
  def.linear_velocity = {0.0f, 0.0f};
  def.angular_velocity = -2.0f * kMaxBodyAngularSpeed;
  EXPECT_THAT(std::string(world->CreateBody(def).status().message()),
              HasSubstr("kMaxBodyAngularSpeed"));
  EXPECT_EQ(world->SetGravityScale(ball, 1.01f * kMaxGravityScale).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetLinearVelocity(ball, {2.0f * kMaxBodySpeed, 0.0f}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetAngularVelocity(ball, 2.0f * kMaxBodyAngularSpeed).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->ApplyForceToCenter(ball, {0.0f, 2.0f * kMaxApplied}, true).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->ApplyTorque(ball, -2.0f * kMaxApplied, true).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->ApplyLinearImpulse(ball, {2.0f * kMaxApplied, 0.0f}, {0, 5}, true).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->ApplyAngularImpulse(ball, 2.0f * kMaxApplied, true).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SaveSnapshot(*world), before);
  WorldDef world_def;
  world_def.gravity = {0.0f, -2.0f * kMaxGravity};
  s = World::Create(world_def).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("kMaxGravity"));
}

TEST(OverflowInputTest, TheLargestAngularImpulseOnTheLightestBodyTurnsAtMostTheRotationCap) {
  // The lightest circle a body can hold, hit by the largest angular impulse:
  // 1e9 / ~1e-18 kg m^2 would spin it at ~1e27 rad/s, and the rotation
  // integration of such a speed overflows. The solver caps the turn per
  // substep at kMaxRotation, so it spins at exactly kMaxRotation / h.
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  def.enable_sleep = false;
  auto world = World::Create(def).value();
  const BodyId ball = Dynamic(world.get(), {0.0f, 0.0f});
  ShapeDef shape;
  shape.density = 1.0f;
  ASSERT_TRUE(world->CreateCircleShape(ball, shape, Circle{{0, 0}, 0.001f}).ok());
  ASSERT_TRUE(world->ApplyAngularImpulse(ball, kMaxApplied, true).ok());
  const float dt = 1.0f / 60.0f;
  const float h = dt / static_cast<float>(def.substep_count);
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(world->Step(dt).ok());
    const BodyInfo b = *world->GetBody(ball);
    ASSERT_TRUE(IsValid(b.transform.q)) << i;
    EXPECT_NEAR(b.transform.q.c * b.transform.q.c + b.transform.q.s * b.transform.q.s, 1.0f,
                1e-5f);
    EXPECT_FLOAT_EQ(b.angular_velocity, kMaxRotation / h) << i;
  }
  ExpectFinite(*world);
}

TEST(OverflowInputTest, AJointClosingAHugeGapMovesBodiesNoFasterThanTheSpeedCaps) {
  // A ragdoll-like chain whose first link is pinned to the ground 230 m
  // away by a rigid revolute joint, with limits, motors and one link a
  // hundred million times lighter than the others (found by the scene
  // fuzzer): the solve answers such a gap with speeds that grew from step
  // to step until a body's box was NaN. Between two steps each body moves
  // at most the world's speed cap (plus the contact push) and turns at most
  // kMaxRotation per substep.
  WorldDef def;
  def.enable_sleep = false;
  // Two substeps, so the turn cap per step (pi/2) is below the half turn an
  // angle difference can show.
  def.substep_count = 2;
  auto world = World::Create(def).value();
  const BodyId ground = world->CreateBody(BodyDef()).value();
  ASSERT_TRUE(world->CreateSegmentShape(ground, ShapeDef(), Segment{{-50, 0}, {50, 0}}).ok());
  std::vector<BodyId> links;
  for (int i = 0; i < 5; ++i) {
    const BodyId link = Dynamic(world.get(), {0.0f, 1.0f + 0.6f * static_cast<float>(i)});
    const float radius = i == 3 ? 6.5e-9f : 0.1f;
    ASSERT_TRUE(world
                    ->CreateCapsuleShape(link, ShapeDef(),
                                         Capsule{{0.0f, -0.25f}, {0.0f, 0.25f}, radius})
                    .ok());
    links.push_back(link);
  }
  RevoluteJointDef far;
  far.body_a = links[0];
  far.body_b = ground;
  far.local_anchor_a = {0.4f, -230.4f};
  ASSERT_TRUE(world->CreateRevoluteJoint(far).ok());
  for (int i = 0; i + 1 < 5; ++i) {
    ASSERT_TRUE(world->CreateRevoluteJoint(LimbJoint(links[i], links[i + 1], {0.0f, 0.3f},
                                                     {0.0f, -0.3f}))
                    .ok());
  }
  const float dt = 1.0f / 60.0f;
  const float max_move = (def.maximum_linear_speed + def.contact_push_max_velocity) * dt;
  const float max_turn = kMaxRotation * static_cast<float>(def.substep_count);
  std::vector<BodyInfo> before;
  for (BodyId id : links) before.push_back(*world->GetBody(id));
  for (int step = 0; step < 300; ++step) {
    ASSERT_TRUE(world->Step(dt).ok());
    ExpectFinite(*world);
    for (size_t k = 0; k < links.size(); ++k) {
      const BodyInfo now = *world->GetBody(links[k]);
      EXPECT_LE(Length(now.world_center - before[k].world_center), max_move * 1.0001f)
          << "step " << step << " link " << k;
      const Rot turn = InvMulRot(before[k].transform.q, now.transform.q);
      EXPECT_LE(Abs(Atan2(turn.s, turn.c)), max_turn * 1.0001f) << "step " << step << " link " << k;
      before[k] = now;
    }
    if (::testing::Test::HasFailure()) break;
  }
}

TEST(OverflowInputTest, AWorldThatDivergesStopsWithAnErrorInsteadOfANaN) {
  // Two limbs on a rigid revolute joint whose anchors start 4.9 km apart,
  // under a third body (found by the scene fuzzer): the 3x3 pin-and-limit
  // solve is so badly conditioned that a velocity comes out NaN. The world
  // stops at that step with an error naming the body, refuses to step on,
  // and does so deterministically: restored to its start it stops at the
  // same step.
  auto world = MakeWorld();
  ShapeDef shape;
  shape.friction = 0.6f;
  const BodyId torso = Dynamic(world.get(), {-3.0f, 3.2f});
  ASSERT_TRUE(
      world->CreateCapsuleShape(torso, shape, Capsule{{0, -0.35f}, {0, 0.35f}, 0.25f}).ok());
  const BodyId upper = Dynamic(world.get(), {-2.85f, 2.5f});
  ASSERT_TRUE(
      world->CreateCapsuleShape(upper, shape, Capsule{{0, -0.25f}, {0, 0.25f}, 0.12f}).ok());
  const BodyId lower = Dynamic(world.get(), {-2.85f, 1.9f});
  ASSERT_TRUE(
      world->CreateCapsuleShape(lower, shape, Capsule{{0, -0.25f}, {0, 0.25f}, 0.11f}).ok());
  ASSERT_TRUE(world
                  ->CreateRevoluteJoint(
                      LimbJoint(upper, lower, {0.0f, -4915.2f}, {0.0f, 0.3f}))
                  .ok());
  const std::string start = SaveSnapshot(*world);

  auto run_until_divergence = [&]() -> int64_t {
    for (int step = 0; step < 60; ++step) {
      const absl::Status s = world->Step(1.0f / 60.0f);
      if (s.ok()) continue;
      EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
      EXPECT_THAT(std::string(s.message()), HasSubstr("diverged"));
      const int64_t at = world->step_count();
      const absl::Status again = world->Step(1.0f / 60.0f);
      EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
      EXPECT_EQ(again.message(), s.message());
      EXPECT_EQ(world->step_count(), at);
      return at;
    }
    return -1;
  };
  const int64_t first = run_until_divergence();
  ASSERT_GE(first, 0) << "the world no longer diverges: find another badly conditioned case";
  ASSERT_TRUE(RestoreSnapshot(start, world.get()).ok());
  EXPECT_EQ(run_until_divergence(), first);
}

}  // namespace
}  // namespace atl
