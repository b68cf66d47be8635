// Contact recycling (contact_manager.cc): a contact whose bodies stayed
// close to the poses its manifold was computed at moves that manifold with
// them instead of recomputing it. What must hold is the physics: a resting
// box stays where it rests, a sliding box stops where Coulomb friction
// says, and recycling happens where it should (resting and slow contacts),
// not where the contact point rolls (circles).

#include <cmath>

#include <gtest/gtest.h>

#include "atoll/constants.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicBox;
using testing::AddGround;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;

WorldDef AwakeWorld() {
  WorldDef def;
  def.enable_sleep = false;
  return def;
}

TEST(ContactRecyclingTest, RestingBoxRecyclesItsContactAndStaysPut) {
  auto world = MakeWorld(AwakeWorld());
  AddGround(world.get());
  const BodyId box = AddDynamicBox(world.get(), {0.0f, 0.5f}, 0.5f);
  int recycled_steps = 0;
  for (int i = 0; i < 240; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    if (i >= 10 && world->profile().recycled_contacts == 1) ++recycled_steps;
    const BodyInfo info = world->GetBody(box).value();
    ASSERT_NEAR(info.world_center.y, 0.5f, kLinearSlop) << "step " << i;
    ASSERT_NEAR(info.world_center.x, 0.0f, 1e-4f) << "step " << i;
    ASSERT_NEAR(info.angle, 0.0f, 1e-4f) << "step " << i;
  }
  // A box at rest never leaves its manifold's poses: after it settles the
  // narrow phase has nothing to recompute.
  EXPECT_EQ(recycled_steps, 230);
}

// Sliding at 1 m/s a box moves 1.7 cm per step, so its contact is recycled
// on some steps and recomputed on others; either way it decelerates at
// mu g and stops after v^2 / (2 mu g), level and on the surface.
TEST(ContactRecyclingTest, SlidingBoxStopsWhereCoulombFrictionSays) {
  auto world = MakeWorld(AwakeWorld());
  AddGround(world.get(), 50.0f, /*friction=*/0.5f);
  ShapeDef sd;
  sd.friction = 0.5f;
  const BodyId box = AddDynamicBox(world.get(), {0.0f, 0.5f}, 0.5f, 0.0f, sd);
  testing::StepN(world.get(), 30);  // settle
  const float x0 = world->GetBody(box)->world_center.x;
  const float v0 = 1.0f;
  ASSERT_TRUE(world->SetLinearVelocity(box, {v0, 0.0f}).ok());
  int recycled = 0;
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    if (world->GetBody(box)->linear_velocity.x > 0.05f) {
      recycled += world->profile().recycled_contacts;
    }
  }
  EXPECT_GT(recycled, 0) << "a slow slide should recycle its contact on some steps";
  const BodyInfo end = world->GetBody(box).value();
  const float mu = 0.5f, g = 10.0f;
  const float expected = v0 * v0 / (2.0f * mu * g);
  // One step of travel is the resolution of the discrete stop.
  EXPECT_NEAR(end.world_center.x - x0, expected, v0 * kDt);
  EXPECT_NEAR(end.world_center.y, 0.5f, kLinearSlop);
  EXPECT_NEAR(end.angle, 0.0f, 1e-3f);
  EXPECT_LT(Length(end.linear_velocity), 1e-3f);
}

// A rolling ball's contact point does not ride on the ball: its contacts
// are always recomputed, and it rolls on the surface.
TEST(ContactRecyclingTest, CirclesAreNeverRecycled) {
  auto world = MakeWorld(AwakeWorld());
  AddGround(world.get());
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.position = {0.0f, 0.5f};
  def.linear_velocity = {0.5f, 0.0f};
  const BodyId ball = world->CreateBody(def).value();
  Circle circle;
  circle.radius = 0.5f;
  ASSERT_TRUE(world->CreateCircleShape(ball, {}, circle).ok());
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    ASSERT_EQ(world->profile().recycled_contacts, 0) << "step " << i;
    ASSERT_NEAR(world->GetBody(ball)->world_center.y, 0.5f, kLinearSlop) << "step " << i;
  }
}

// A pair the joint rules refused last step is not asked again while no rule
// changed (contact_rule_epoch); a shape index freed and taken by a shape of
// another body is such a change: the new shape's pairs are its own.
TEST(ContactCreationTest, AReusedShapeIndexIsNotRefusedForItsFormerJoint) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  BodyDef body;
  body.type = BodyType::kDynamic;
  const BodyId a = world->CreateBody(body).value();
  const ShapeId old_shape =
      world->CreatePolygonShape(a, ShapeDef{}, testing::BoxOrDie(0.5f, 0.5f)).value();
  const BodyId b = AddDynamicBox(world.get(), {0.8f, 0.0f}, 0.5f);
  RevoluteJointDef joint;
  joint.body_a = a;
  joint.body_b = b;
  joint.local_anchor_a = {0.4f, 0.0f};
  joint.local_anchor_b = {-0.4f, 0.0f};
  ASSERT_TRUE(world->CreateRevoluteJoint(joint).ok());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    ASSERT_EQ(world->GetCounters().contacts, 0) << "step " << i;  // refused every step
  }
  // Body a's shape gives its index to a new body's shape, overlapping b
  // where a's was: no joint between them, so they must touch.
  ASSERT_TRUE(world->DestroyShape(old_shape).ok());
  const BodyId c = world->CreateBody(body).value();
  const ShapeId new_shape =
      world->CreatePolygonShape(c, ShapeDef{}, testing::BoxOrDie(0.5f, 0.5f)).value();
  ASSERT_EQ(new_shape.index, old_shape.index);
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_EQ(world->GetCounters().touching_contacts, 1);
}

// With every body asleep, UpdateContacts and the solver's collection skip
// their passes over the contacts. What must hold: the contacts persist as
// they are, no touch begins or ends, and once a body is woken the world
// goes on exactly as one restored from its snapshot does (a restored
// world's first match searches every pair instead of trusting the last).
TEST(ContactSleepTest, AnAsleepWorldKeepsItsContactsAndWakesAsARestoredOneDoes) {
  auto world = BuildWorld(MakeScene("falling_squares", {.size = 60}).value()).value();
  for (int i = 0; i < 1200 && world->GetCounters().awake_bodies > 0; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
  }
  const WorldCounters asleep = world->GetCounters();
  ASSERT_EQ(asleep.awake_bodies, 0);
  ASSERT_GT(asleep.touching_contacts, 50);
  const std::string snapshot = SaveSnapshot(*world);
  auto restored = LoadSnapshot(snapshot).value();
  for (int i = 0; i < 30; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    ASSERT_TRUE(restored->Step(kDt).ok());
    EXPECT_TRUE(world->events().contact_begin.empty());
    EXPECT_TRUE(world->events().contact_end.empty());
  }
  EXPECT_EQ(world->GetCounters().contacts, asleep.contacts);
  EXPECT_EQ(world->GetCounters().touching_contacts, asleep.touching_contacts);
  EXPECT_EQ(HashWorld(*restored), HashWorld(*world));

  // Wake one box of the heap with a push and let the heap react.
  const BodyId box = world->GetBodyIds().back();
  for (World* w : {world.get(), restored.get()}) {
    const Vec2 center = w->GetBody(box).value().world_center;
    ASSERT_TRUE(w->ApplyLinearImpulse(box, {5.0f, 5.0f}, center, true).ok());
  }
  for (int i = 0; i < 120; ++i) {
    ASSERT_TRUE(world->Step(kDt).ok());
    ASSERT_TRUE(restored->Step(kDt).ok());
  }
  EXPECT_EQ(HashWorld(*restored), HashWorld(*world));
  EXPECT_NE(SaveSnapshot(*world), snapshot);
}

}  // namespace
}  // namespace atl
