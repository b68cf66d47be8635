// The solver against closed forms: free fall, inclines, bounce, momentum.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/world.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicBox;
using testing::AddGround;
using testing::BoxOrDie;
using testing::MakeWorld;

TEST(MotionLawsTest, FreeFallMatchesHalfGTSquared) {
  auto world = MakeWorld();
  const BodyId body = AddDynamicBox(world.get(), {0.0f, 100.0f}, 0.5f);
  const float dt = 1.0f / 60.0f;
  for (int i = 0; i < 120; ++i) ASSERT_TRUE(world->Step(dt).ok());
  const float t = 120 * dt;
  const float expected = 0.5f * 10.0f * t * t;
  const float fallen = 100.0f - world->GetBody(body)->transform.p.y;
  EXPECT_NEAR(fallen, expected, 0.005f * expected);
  EXPECT_NEAR(world->GetBody(body)->linear_velocity.y, -10.0f * t, 0.005f * 10.0f * t);
}

// A box on a static slope of angle theta. Gravity is tilted instead of the
// ground, which is the same physics and keeps the geometry axis-aligned.
struct Incline {
  std::unique_ptr<World> world;
  BodyId box;
};

Incline MakeIncline(float theta, float friction) {
  WorldDef def;
  def.gravity = {10.0f * std::sin(theta), -10.0f * std::cos(theta)};
  def.enable_sleep = false;  // otherwise resting proves nothing
  Incline in{MakeWorld(def), {}};
  AddGround(in.world.get(), 500.0f, friction);
  ShapeDef sd;
  sd.friction = friction;
  in.box = AddDynamicBox(in.world.get(), {0.0f, 0.5f}, 0.5f, 0.0f, sd);
  return in;
}

TEST(MotionLawsTest, BoxHoldsOnInclineWhenFrictionSuffices) {
  const float theta = 0.3f;                       // tan = 0.309
  Incline in = MakeIncline(theta, 0.35f);          // mu >= tan(theta)
  testing::StepN(in.world.get(), 30);              // settle
  const float x0 = in.world->GetBody(in.box)->transform.p.x;
  testing::StepN(in.world.get(), 300);             // 5 s
  const float drift = std::abs(in.world->GetBody(in.box)->transform.p.x - x0);
  EXPECT_LT(drift, 0.001f);
}

TEST(MotionLawsTest, BoxSlidesWithCoulombAcceleration) {
  const float theta = 0.5f;
  const float mu = 0.2f;
  Incline in = MakeIncline(theta, mu);
  testing::StepN(in.world.get(), 30);
  const float v0 = in.world->GetBody(in.box)->linear_velocity.x;
  testing::StepN(in.world.get(), 120);  // 2 s
  const float v1 = in.world->GetBody(in.box)->linear_velocity.x;
  const float measured = (v1 - v0) / 2.0f;
  const float expected = 10.0f * (std::sin(theta) - mu * std::cos(theta));
  EXPECT_NEAR(measured, expected, 0.03f * expected);
}

TEST(MotionLawsTest, BounceApexRatioIsRestitutionSquared) {
  WorldDef def;
  def.enable_sleep = false;
  auto world = MakeWorld(def);
  ShapeDef ground_def;
  ground_def.restitution = 0.0f;
  AddGround(world.get());
  BodyDef bd;
  bd.type = BodyType::kDynamic;
  bd.position = {0.0f, 5.0f};
  const BodyId ball = world->CreateBody(bd).value();
  ShapeDef sd;
  sd.restitution = 0.8f;
  ASSERT_TRUE(world->CreateCircleShape(ball, sd, Circle{{0.0f, 0.0f}, 0.25f}).ok());

  // Track the apex after the first bounce: height above the resting point.
  const float drop = 5.0f - 0.25f;
  float apex = 0.0f;
  bool bounced = false;
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    const BodyInfo b = world->GetBody(ball).value();
    if (!bounced && b.linear_velocity.y > 0.0f) bounced = true;
    if (bounced) {
      apex = std::max(apex, b.transform.p.y - 0.25f);
      if (b.linear_velocity.y < 0.0f && apex > 0.0f) break;
    }
  }
  ASSERT_TRUE(bounced);
  EXPECT_NEAR(apex / drop, 0.8f * 0.8f, 0.05f * 0.64f);
}

TEST(MotionLawsTest, CollisionConservesMomentum) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  BodyDef a;
  a.type = BodyType::kDynamic;
  a.position = {-2.0f, 0.0f};
  a.linear_velocity = {3.0f, 0.0f};
  BodyDef b = a;
  b.position = {2.0f, 0.3f};
  b.linear_velocity = {-1.0f, 0.5f};
  const BodyId ia = world->CreateBody(a).value();
  const BodyId ib = world->CreateBody(b).value();
  ShapeDef heavy;
  heavy.density = 3.0f;
  heavy.restitution = 0.5f;
  ASSERT_TRUE(world->CreateCircleShape(ia, heavy, Circle{{0.0f, 0.0f}, 0.5f}).ok());
  ASSERT_TRUE(world->CreatePolygonShape(ib, ShapeDef(), BoxOrDie(0.6f, 0.4f)).ok());

  auto momentum = [&]() {
    const BodyInfo x = world->GetBody(ia).value(), y = world->GetBody(ib).value();
    return x.mass * x.linear_velocity + y.mass * y.linear_velocity;
  };
  const Vec2 before = momentum();
  bool touched = false;
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    touched = touched || !world->events().contact_begin.empty();
  }
  ASSERT_TRUE(touched);
  const Vec2 after = momentum();
  const float scale = Length(before);
  EXPECT_NEAR(after.x, before.x, 1e-4f * scale);
  EXPECT_NEAR(after.y, before.y, 1e-4f * scale);
}

// Bodies faster than WorldDef::maximum_linear_speed are slowed to it along
// their direction, the same way in every lane of the solver's four-wide
// integration and in its scalar tail; kinematic bodies are not capped.
TEST(MotionLawsTest, SpeedIsCappedAtTheWorldMaximum) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  def.maximum_linear_speed = 10.0f;
  auto world = MakeWorld(def);
  std::vector<BodyId> bodies;
  // Seven: four lanes and a tail of three, a kinematic body in each.
  auto kinematic = [](int i) { return i == 2 || i == 5; };
  for (int i = 0; i < 7; ++i) {
    BodyDef d;
    d.type = kinematic(i) ? BodyType::kKinematic : BodyType::kDynamic;
    d.position = {10.0f * static_cast<float>(i), 0.0f};
    d.linear_velocity = {30.0f, 40.0f};
    const BodyId id = world->CreateBody(d).value();
    ASSERT_TRUE(world->CreateCircleShape(id, ShapeDef(), Circle{{0.0f, 0.0f}, 0.5f}).ok());
    bodies.push_back(id);
  }
  ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
  const Vec2 first = world->GetBody(bodies[0])->linear_velocity;
  EXPECT_NEAR(first.x, 6.0f, 1e-5f);
  EXPECT_NEAR(first.y, 8.0f, 1e-5f);
  for (int i = 1; i < 7; ++i) {
    const Vec2 v = world->GetBody(bodies[i])->linear_velocity;
    if (kinematic(i)) {
      EXPECT_EQ(v, (Vec2{30.0f, 40.0f})) << "kinematic";
    } else {
      EXPECT_EQ(v, first) << "body " << i;
    }
  }
}

}  // namespace
}  // namespace atl
