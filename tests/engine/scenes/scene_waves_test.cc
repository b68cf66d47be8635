// Timed scene waves and drives (SceneDesc::waves, SceneDesc::drives,
// ApplySceneWaves) and the suite scenes that came with them: rain,
// big_mobile, multi_fixture, mild_n2, mostly_static_single.

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "dynamics/island.h"

namespace atl {
namespace {

// Steps `desc` for `steps` steps, applying its waves; the world at the end.
std::unique_ptr<World> RunScene(const SceneDesc& desc, int steps) {
  std::unique_ptr<World> world = BuildWorld(desc).value();
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(ApplySceneWaves(world.get(), desc, i).ok());
    EXPECT_TRUE(world->Step(desc.time_step).ok());
  }
  return world;
}

float Extent(const AABB& b) {
  return Max(Max(Abs(b.lower.x), Abs(b.upper.x)), Max(Abs(b.lower.y), Abs(b.upper.y)));
}

TEST(SceneWavesTest, RainDropsOneColumnEveryEightStepsThenRecyclesTheOldest) {
  // Two columns: drops at steps 0 and 8 fill them (5 floors x 5 ragdolls
  // of 11 bodies and 10 joints each); from step 16 on every drop removes
  // the oldest column first, so the counts stay put.
  const SceneDesc desc = MakeScene("rain", {.size = 2}).value();
  ASSERT_EQ(desc.waves.size(), 125u * 5u);  // a wave per floor per drop
  std::unique_ptr<World> world = BuildWorld(desc).value();
  EXPECT_EQ(world->GetCounters().bodies, 1);  // the floors
  constexpr int32_t kColumnBodies = 5 * 5 * 11, kColumnJoints = 5 * 5 * 10;
  for (int i = 0; i < 40; ++i) {
    const int32_t created = ApplySceneWaves(world.get(), desc, i).value();
    EXPECT_EQ(created, i % 8 == 0 ? kColumnBodies : 0) << "step " << i;
    const int32_t columns = std::min(2, i / 8 + 1);
    EXPECT_EQ(world->GetCounters().bodies, 1 + kColumnBodies * columns) << "step " << i;
    EXPECT_EQ(world->GetCounters().joints, kColumnJoints * columns) << "step " << i;
    ASSERT_TRUE(world->Step(desc.time_step).ok());
  }
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

// Waves at step 0 that each create a pinned pair of circles tagged `tag`
// (user_data), and one at step 3 that removes `removed`.
SceneDesc TaggedPairs(std::vector<uint64_t> removed) {
  SceneDesc d;
  for (uint64_t tag : {1u, 2u}) {
    SceneWave wave;
    for (float x : {0.0f, 1.0f}) {
      SceneBody b;
      b.def.type = BodyType::kDynamic;
      b.def.position = {x + 3.0f * static_cast<float>(tag), 5.0f};
      b.def.user_data = tag;
      b.shapes.push_back({ShapeGeometry(Circle{{0.0f, 0.0f}, 0.4f}), ShapeDef()});
      wave.bodies.push_back(b);
    }
    RevoluteJointDef pin;
    pin.local_anchor_a = {0.5f, 0.0f};
    pin.local_anchor_b = {-0.5f, 0.0f};
    wave.joints.push_back({0, 1, pin});
    d.waves.push_back(wave);
  }
  SceneWave removal;
  removal.step = 3;
  removal.destroy_tags = std::move(removed);
  d.waves.push_back(removal);
  return d;
}

TEST(SceneWavesTest, WaveRemovesExactlyTheTaggedBodiesWithTheirJoints) {
  const SceneDesc desc = TaggedPairs({1, 7});  // no body carries 7
  std::unique_ptr<World> world = RunScene(desc, 3);
  EXPECT_EQ(world->GetCounters().bodies, 4);
  EXPECT_EQ(world->GetCounters().joints, 2);
  ASSERT_EQ(ApplySceneWaves(world.get(), desc, 3).value(), 0);
  EXPECT_EQ(world->GetCounters().bodies, 2);
  EXPECT_EQ(world->GetCounters().joints, 1);
  for (BodyId id : world->GetBodyIds()) EXPECT_EQ(world->GetBody(id)->user_data, 2u);
  ASSERT_TRUE(world->Step(desc.time_step).ok());
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

TEST(SceneWavesTest, RemovalAfterRestoreFindsTheSameBodies) {
  // Removal finds its bodies by tag in the world itself, so a restored
  // world removes what the original removes.
  const SceneDesc desc = TaggedPairs({2});
  std::unique_ptr<World> a = RunScene(desc, 2);
  std::unique_ptr<World> b = World::Create(desc.world).value();
  ASSERT_TRUE(RestoreSnapshot(SaveSnapshot(*a), b.get()).ok());
  for (int i = 2; i < 10; ++i) {
    ASSERT_TRUE(ApplySceneWaves(a.get(), desc, i).ok());
    ASSERT_TRUE(ApplySceneWaves(b.get(), desc, i).ok());
    ASSERT_TRUE(a->Step(desc.time_step).ok());
    ASSERT_TRUE(b->Step(desc.time_step).ok());
  }
  EXPECT_EQ(b->GetCounters().bodies, 2);
  EXPECT_EQ(HashWorld(*a), HashWorld(*b));
}

// A kinematic circle at (1, 2) driven along (1, 2) + (3, -1) sin(2 t).
SceneDesc DrivenCircle(BodyType type) {
  SceneDesc d;
  d.world.gravity = {0.0f, 0.0f};
  SceneBody b;
  b.def.type = type;
  b.def.position = {1.0f, 2.0f};
  b.shapes.push_back({ShapeGeometry(Circle{{0.0f, 0.0f}, 0.5f}), ShapeDef()});
  d.bodies.push_back(b);
  d.drives.push_back({0, {1.0f, 2.0f}, {3.0f, -1.0f}, 2.0f});
  return d;
}

TEST(SceneWavesTest, DriveSteersAKinematicBodyAlongItsPath) {
  const SceneDesc desc = DrivenCircle(BodyType::kKinematic);
  std::unique_ptr<World> world = BuildWorld(desc).value();
  const BodyId id = world->GetBodyIds()[0];
  for (int k = 0; k < 40; ++k) {
    ASSERT_TRUE(ApplySceneWaves(world.get(), desc, k).ok());
    ASSERT_TRUE(world->Step(desc.time_step).ok());
    // After step k the body is at the path's point for time k dt.
    const float sine = MakeRot(2.0f * static_cast<float>(k) * desc.time_step).s;
    const Vec2 p = world->GetBody(id)->transform.p;
    EXPECT_NEAR(p.x, 1.0f + 3.0f * sine, 1e-4f) << "step " << k;
    EXPECT_NEAR(p.y, 2.0f - sine, 1e-4f) << "step " << k;
  }
}

TEST(SceneWavesTest, DriveOfANonKinematicBodyIsRejectedWithItsName) {
  const SceneDesc desc = DrivenCircle(BodyType::kDynamic);
  std::unique_ptr<World> world = BuildWorld(desc).value();
  absl::StatusOr<int32_t> applied = ApplySceneWaves(world.get(), desc, 0);
  ASSERT_FALSE(applied.ok());
  EXPECT_NE(applied.status().message().find("drive 0"), std::string::npos) << applied.status();
}

TEST(SceneWavesTest, RainRecyclingSurvivesSaveAndRestore) {
  // One column: every drop after the first removes the previous one.
  const SceneDesc desc = MakeScene("rain", {.size = 1}).value();
  std::unique_ptr<World> a = BuildWorld(desc).value();
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(ApplySceneWaves(a.get(), desc, i).ok());
    ASSERT_TRUE(a->Step(desc.time_step).ok());
  }
  std::unique_ptr<World> b = World::Create(desc.world).value();
  ASSERT_TRUE(RestoreSnapshot(SaveSnapshot(*a), b.get()).ok());
  for (int i = 12; i < 40; ++i) {
    ASSERT_TRUE(ApplySceneWaves(a.get(), desc, i).ok());
    ASSERT_TRUE(ApplySceneWaves(b.get(), desc, i).ok());
    ASSERT_TRUE(a->Step(desc.time_step).ok());
    ASSERT_TRUE(b->Step(desc.time_step).ok());
  }
  EXPECT_EQ(HashWorld(*a), HashWorld(*b));
}

TEST(SceneWavesTest, SameScriptGivesTheSameWorldTwice) {
  const SceneDesc desc = MakeScene("rain", {.size = 1}).value();
  const uint64_t first = HashWorld(*RunScene(desc, 200));
  const uint64_t second = HashWorld(*RunScene(desc, 200));
  EXPECT_EQ(first, second);
}

TEST(SceneWavesTest, BadWaveJointIsRejectedWithItsName) {
  SceneDesc desc = MakeScene("rain", {.size = 1}).value();
  desc.waves[0].joints[0].body_b = 99;
  std::unique_ptr<World> world = BuildWorld(desc).value();
  absl::StatusOr<int32_t> created = ApplySceneWaves(world.get(), desc, 0);
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.status().message().find("wave 0 joint 0"), std::string::npos) << created.status();
}

TEST(SceneWavesTest, RainRagdollsLandOnTheirFloors) {
  const SceneDesc desc = MakeScene("rain", {.size = 2}).value();
  std::unique_ptr<World> world = RunScene(desc, 300);
  const AABB bounds = world->GetBounds();
  EXPECT_LT(Extent(bounds), desc.bounds);
  EXPECT_GT(bounds.lower.y, -0.5f);  // nothing fell through the lowest floor
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

TEST(SuiteScenesTest, BigMobileKeepsHanging) {
  const SceneDesc desc = MakeScene("big_mobile", {.size = 6}).value();
  EXPECT_EQ(desc.bodies.size(), 1u + 63u);  // anchor + 2^6 - 1 rods
  EXPECT_EQ(desc.joints.size(), 63u);
  std::unique_ptr<World> world = RunScene(desc, 240);
  // The tree swings but stays on its joints: both anchors of every pin are
  // still (nearly) at one point.
  const std::vector<BodyId> ids = world->GetBodyIds();
  for (const SceneJoint& j : desc.joints) {
    const auto& def = std::get<RevoluteJointDef>(j.def);
    const Vec2 a = TransformPoint(world->GetBody(ids[j.body_a])->transform, def.local_anchor_a);
    const Vec2 b = TransformPoint(world->GetBody(ids[j.body_b])->transform, def.local_anchor_b);
    EXPECT_LT(Distance(a, b), 0.05f) << "joint " << j.body_a << "-" << j.body_b;
  }
  EXPECT_GT(world->GetCounters().awake_bodies, 0);  // the leaves set it swinging
  EXPECT_LT(Extent(world->GetBounds()), desc.bounds);
}

TEST(SuiteScenesTest, MultiFixtureTablesLandInTheU) {
  const SceneDesc desc = MakeScene("multi_fixture", {.size = 32}).value();
  EXPECT_EQ(desc.bodies[1].shapes.size(), 3u);   // one top piece + legs
  EXPECT_EQ(desc.bodies[16].shapes.size(), 18u);  // sixteen pieces + legs
  std::unique_ptr<World> world = RunScene(desc, 300);
  const AABB bounds = world->GetBounds();
  EXPECT_GT(bounds.lower.y, -2.5f);
  EXPECT_LT(Extent(bounds), desc.bounds);
}

TEST(SuiteScenesTest, MildN2SeparatesAndStaysInBounds) {
  const SceneDesc desc = MakeScene("mild_n2", {.size = 30}).value();
  std::unique_ptr<World> world = RunScene(desc, 300);
  EXPECT_LT(Extent(world->GetBounds()), desc.bounds);
  EXPECT_GT(world->GetBounds().lower.y, -10.5f);  // the deep ground's bottom
}

TEST(SuiteScenesTest, MostlyStaticSingleIsOneStaticBody) {
  const SceneDesc single = MakeScene("mostly_static_single", {.size = 400}).value();
  const SceneDesc multi = MakeScene("mostly_static", {.size = 400}).value();
  // The same boxes and movers; only the body count differs.
  EXPECT_EQ(CountSceneShapes(single), CountSceneShapes(multi));
  size_t statics = 0;
  for (const SceneBody& b : multi.bodies) statics += b.def.type == BodyType::kStatic ? 1 : 0;
  EXPECT_GT(statics, 300u);
  EXPECT_EQ(single.bodies[0].shapes.size(), statics);
  EXPECT_EQ(single.bodies.size(), multi.bodies.size() - statics + 1);
  std::unique_ptr<World> world = RunScene(single, 120);
  EXPECT_LT(Extent(world->GetBounds()), single.bounds);
}

}  // namespace
}  // namespace atl
