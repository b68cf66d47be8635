// World API contracts: validation, ids, events, destruction.

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "atoll/world.h"
#include "world/world_state.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicBox;
using testing::AddGround;
using testing::BoxOrDie;
using testing::MakeWorld;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(WorldApiTest, RejectsBadWorldDefs) {
  WorldDef def;
  def.substep_count = 0;
  auto w = World::Create(def);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("substep_count"), std::string::npos);
  def = WorldDef();
  def.gravity.y = kNaN;
  EXPECT_NE(World::Create(def).status().message().find("gravity"), std::string::npos);
}

TEST(WorldApiTest, BadDefsAreRejectedAndNothingChanges) {
  auto world = MakeWorld();
  const BodyId box = AddDynamicBox(world.get(), {0.0f, 1.0f}, 0.5f);
  const WorldCounters before = world->GetCounters();

  BodyDef bad;
  bad.type = BodyType::kDynamic;
  bad.position.x = kNaN;
  auto body = world->CreateBody(bad);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(body.status().message().find("position"), std::string::npos);

  ShapeDef negative;
  negative.density = -1.0f;
  auto shape = world->CreatePolygonShape(box, negative, BoxOrDie(0.5f, 0.5f));
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("density"), std::string::npos);

  // A "polygon" with two points cannot be made, and a hand-built one with
  // count 2 is refused by the world.
  const Vec2 two[] = {{0.0f, 0.0f}, {1.0f, 0.0f}};
  EXPECT_FALSE(ComputeHull(two).ok());
  Polygon degenerate = BoxOrDie(0.5f, 0.5f);
  degenerate.count = 2;
  EXPECT_FALSE(world->CreatePolygonShape(box, ShapeDef(), degenerate).ok());

  EXPECT_FALSE(world->Step(0.0f).ok());
  EXPECT_FALSE(world->Step(kNaN).ok());

  const WorldCounters after = world->GetCounters();
  EXPECT_EQ(after.bodies, before.bodies);
  EXPECT_EQ(after.shapes, before.shapes);
  EXPECT_EQ(world->step_count(), 0);
  EXPECT_EQ(world->GetBody(box)->mass, 1.0f);  // 1 m^2 at density 1
}

// An open chain whose end lies near the world bound has its ghost vertex
// (a metre behind the end) beyond it: refused with the edge named
// (MakeChainSegments checks it), and no edge of it added.
TEST(WorldApiTest, ChainWithAGhostBeyondTheWorldBoundIsRefusedWhole) {
  auto world = MakeWorld();
  auto ground = world->CreateBody(BodyDef());
  ASSERT_TRUE(ground.ok());
  const WorldCounters before = world->GetCounters();
  // The first edge runs down the bound; its open end's ghost lies a metre
  // outside.
  const Vec2 points[] = {{kWorldBound, 5.0f}, {kWorldBound, 0.0f}, {0.0f, 0.0f}};
  auto ids = world->CreateChain(*ground, ShapeDef(), points, /*loop=*/false);
  ASSERT_FALSE(ids.ok());
  EXPECT_EQ(ids.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ids.status().message().find("chain edge 0"), std::string::npos) << ids.status();
  EXPECT_EQ(world->GetCounters().shapes, before.shapes);
}

TEST(WorldApiTest, StaleAndForeignIdsAreRejected) {
  auto world = MakeWorld();
  const BodyId box = AddDynamicBox(world.get(), {0.0f, 1.0f}, 0.5f);
  ASSERT_TRUE(world->DestroyBody(box).ok());
  EXPECT_EQ(world->GetBody(box).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world->DestroyBody(box).code(), absl::StatusCode::kNotFound);
  // The slot is reused with a new generation; the old id stays dead.
  const BodyId reused = AddDynamicBox(world.get(), {0.0f, 1.0f}, 0.5f);
  EXPECT_EQ(reused.index, box.index);
  EXPECT_NE(reused.generation, box.generation);
  EXPECT_FALSE(world->IsValid(box));
  EXPECT_TRUE(world->IsValid(reused));

  BodyId foreign = reused;
  foreign.world = 7;
  EXPECT_EQ(world->SetLinearVelocity(foreign, {1.0f, 0.0f}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->GetBody(BodyId{}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetTransform(reused, {kNaN, 0.0f}, 0.0f).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->GetBody(reused)->transform.p.y, 1.0f);
}

TEST(WorldApiTest, ContactBeginAndEndEvents) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  const BodyId a = AddDynamicBox(world.get(), {-2.0f, 0.0f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {2.0f, 0.0f}, 0.5f);
  ASSERT_TRUE(world->SetLinearVelocity(a, {2.0f, 0.0f}).ok());
  int begins = 0;
  for (int i = 0; i < 120 && begins == 0; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    begins += static_cast<int>(world->events().contact_begin.size());
  }
  ASSERT_EQ(begins, 1);
  ASSERT_TRUE(world->SetLinearVelocity(a, {-5.0f, 0.0f}).ok());
  ASSERT_TRUE(world->SetLinearVelocity(b, {5.0f, 0.0f}).ok());
  int ends = 0;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    ends += static_cast<int>(world->events().contact_end.size());
  }
  EXPECT_EQ(ends, 1);
}

TEST(WorldApiTest, DestroyingBodyMidContactEndsContactsCleanly) {
  auto world = MakeWorld();
  AddGround(world.get());
  const BodyId box = AddDynamicBox(world.get(), {0.0f, 0.5f}, 0.5f);
  const BodyId top = AddDynamicBox(world.get(), {0.0f, 1.5f}, 0.5f);
  testing::StepN(world.get(), 30);
  ASSERT_EQ(world->GetCounters().touching_contacts, 2);
  ASSERT_TRUE(world->DestroyBody(box).ok());
  // Nothing references the dead body.
  const WorldState& s = world->state();
  for (int32_t c = 0; c < s.contact_ids.Capacity(); ++c) {
    if (!s.contact_ids.IsAlive(c)) continue;
    EXPECT_NE(s.contacts[c].body_a, static_cast<int32_t>(box.index));
    EXPECT_NE(s.contacts[c].body_b, static_cast<int32_t>(box.index));
  }
  EXPECT_EQ(ValidateIslands(s), "");
  // Both its contacts end, reported with the next step; the box on top woke.
  EXPECT_TRUE(world->GetBody(top)->is_awake);
  ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
  EXPECT_EQ(world->events().contact_end.size(), 2u);
}

TEST(WorldApiTest, SensorReportsVisitorsAndExertsNothing) {
  auto world = MakeWorld();
  BodyDef sensor_body;
  sensor_body.position = {0.0f, 5.0f};
  const BodyId zone = world->CreateBody(sensor_body).value();
  ShapeDef sensor_def;
  sensor_def.is_sensor = true;
  const ShapeId sensor = world->CreatePolygonShape(zone, sensor_def, BoxOrDie(2.0f, 1.0f)).value();
  const BodyId ball = AddDynamicBox(world.get(), {0.0f, 10.0f}, 0.25f);
  int begin = 0, end = 0;
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    for (const SensorBeginEvent& e : world->events().sensor_begin) {
      EXPECT_EQ(e.sensor, sensor);
      ++begin;
    }
    end += static_cast<int>(world->events().sensor_end.size());
  }
  EXPECT_EQ(begin, 1);
  EXPECT_EQ(end, 1);
  // It fell straight through: 2 s of free fall from 10 m is 20 m.
  EXPECT_LT(world->GetBody(ball)->transform.p.y, -5.0f);
}

TEST(WorldApiTest, HitEventsReportFastImpacts) {
  auto world = MakeWorld();
  AddGround(world.get());
  BodyDef bd;
  bd.type = BodyType::kDynamic;
  bd.position = {0.0f, 3.0f};
  bd.linear_velocity = {0.0f, -8.0f};
  const BodyId ball = world->CreateBody(bd).value();
  ShapeDef sd;
  sd.enable_hit_events = true;
  ASSERT_TRUE(world->CreateCircleShape(ball, sd, Circle{{0.0f, 0.0f}, 0.25f}).ok());
  float speed = 0.0f;
  for (int i = 0; i < 60 && speed == 0.0f; ++i) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    for (const ContactHitEvent& e : world->events().contact_hit) speed = e.approach_speed;
  }
  // v^2 = 8^2 + 2 g (3 - 0.25) at impact.
  EXPECT_NEAR(speed, std::sqrt(64.0f + 2.0f * 10.0f * 2.75f), 0.5f);
}

TEST(WorldApiTest, RayCastFindsTheNearestShape) {
  auto world = MakeWorld();
  AddGround(world.get());
  const BodyId box = AddDynamicBox(world.get(), {3.0f, 0.5f}, 0.5f);
  auto hit = world->CastRayClosest({-10.0f, 0.5f}, {20.0f, 0.0f});
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(world->GetShapeBody(hit->shape).value(), box);
  EXPECT_NEAR(hit->point.x, 2.5f, 1e-4f);
  EXPECT_NEAR(hit->normal.x, -1.0f, 1e-5f);
  const auto all = world->CastRayAll({3.0f, 5.0f}, {0.0f, -10.0f});
  ASSERT_EQ(all.size(), 2u);  // the box, then the ground
  EXPECT_LT(all[0].fraction, all[1].fraction);
  EXPECT_EQ(world->OverlapAabb({{2.9f, 0.4f}, {3.1f, 0.6f}}).size(), 1u);
}

}  // namespace
}  // namespace atl
