// Pendulums against the small-angle period 2 pi sqrt(L / g).

#include <cmath>

#include <gtest/gtest.h>

#include "engine/dynamics/joints/joint_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicCircle;
using testing::AddStaticAnchor;
using testing::MakeWorld;

// Steps until `count` upward zero crossings of x (center of mass relative
// to the pivot) have passed and returns the mean time between them, with
// each crossing time interpolated linearly inside its step.
float MeasurePeriod(World* world, BodyId bob, float pivot_x, int count, float dt) {
  float previous_x = world->GetBody(bob)->world_center.x - pivot_x;
  float first = -1.0f, last = -1.0f;
  int crossings = 0;
  for (int step = 1; step < 20000 && crossings <= count; ++step) {
    EXPECT_TRUE(world->Step(dt).ok());
    const float x = world->GetBody(bob)->world_center.x - pivot_x;
    if (previous_x < 0.0f && x >= 0.0f) {
      const float t = dt * (static_cast<float>(step - 1) + previous_x / (previous_x - x));
      if (crossings == 0) first = t;
      last = t;
      ++crossings;
    }
    previous_x = x;
  }
  EXPECT_GT(crossings, count);
  return (last - first) / static_cast<float>(count);
}

TEST(PendulumTest, DistanceJointPeriodMatchesSmallAngleFormula) {
  WorldDef def;
  def.enable_sleep = false;
  for (float length : {0.5f, 1.0f, 3.0f}) {
    auto world = MakeWorld(def);
    const BodyId pivot = AddStaticAnchor(world.get(), {0.0f, 10.0f});
    const float angle = 0.05f;
    const Vec2 start{length * std::sin(angle), 10.0f - length * std::cos(angle)};
    const BodyId bob = AddDynamicCircle(world.get(), start, 0.02f * length);
    DistanceJointDef jd;
    jd.body_a = pivot;
    jd.body_b = bob;
    jd.length = length;
    ASSERT_TRUE(world->CreateDistanceJoint(jd).ok());
    const float period = MeasurePeriod(world.get(), bob, 0.0f, 5, 1.0f / 60.0f);
    const float expected = 2.0f * kPi * std::sqrt(length / 10.0f);
    EXPECT_NEAR(period, expected, 0.01f * expected) << "length " << length;
  }
}

TEST(PendulumTest, RevoluteJointWithOffsetPointMassMatchesFormula) {
  WorldDef def;
  def.enable_sleep = false;
  auto world = MakeWorld(def);
  const float length = 2.0f;
  const BodyId pivot = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  // A body whose mass sits in a small circle `length` below its origin: the
  // origin is pinned, so the circle swings like a point mass on a rod.
  BodyDef bd;
  bd.type = BodyType::kDynamic;
  bd.position = {0.0f, 10.0f};
  bd.angle = 0.05f;
  const BodyId arm = world->CreateBody(bd).value();
  ASSERT_TRUE(world->CreateCircleShape(arm, ShapeDef(), Circle{{0.0f, -length}, 0.02f}).ok());
  RevoluteJointDef jd;
  jd.body_a = pivot;
  jd.body_b = arm;
  ASSERT_TRUE(world->CreateRevoluteJoint(jd).ok());
  const float period = MeasurePeriod(world.get(), arm, 0.0f, 5, 1.0f / 60.0f);
  // The small circle's own inertia lengthens the period by
  // sqrt(1 + r^2 / (2 L^2)), far below the tolerance.
  const float expected = 2.0f * kPi * std::sqrt(length / 10.0f);
  EXPECT_NEAR(period, expected, 0.01f * expected);
}

}  // namespace
}  // namespace atl
