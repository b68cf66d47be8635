// Inputs that are finite and of the right sign but so extreme that single
// precision overflows inside the solver (found by the scene and command
// fuzzers): refused with a clear error, the world unchanged; the largest
// accepted values step without producing infinities.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace atl
