// Long chains and welded structures: stretch, sag and sleep.

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/snapshot.h"
#include "dynamics/island.h"
#include "engine/dynamics/joints/joint_test_util.h"
#include "world/world_state.h"

namespace atl {
namespace {

using testing::AddDynamicRect;
using testing::AddStaticAnchor;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;

TEST(HangingChainTest, FortyLinksHangWithinOnePercentStretchAndSleep) {
  auto world = MakeWorld();
  const Vec2 top{0.0f, 50.0f};
  const BodyId anchor = AddStaticAnchor(world.get(), top);
  const int kLinks = 40;
  // 1 m links, 40 m in all. The stretch is the sum of the joints' soft
  // yield under the weight they carry, which does not depend on the link
  // length: 0.5 m links would stretch twice as much relative to their length.
  const float half = 0.5f;
  std::vector<BodyId> links;
  BodyId previous = anchor;
  for (int i = 0; i < kLinks; ++i) {
    const float y = top.y - half - 2.0f * half * static_cast<float>(i);
    const BodyId link = AddDynamicRect(world.get(), {0.0f, y}, 0.1f, half);
    RevoluteJointDef jd;
    jd.body_a = previous;
    jd.body_b = link;
    jd.local_anchor_a = i == 0 ? Vec2{0.0f, 0.0f} : Vec2{0.0f, -half};
    jd.local_anchor_b = {0.0f, half};
    ASSERT_TRUE(world->CreateRevoluteJoint(jd).ok());
    links.push_back(link);
    previous = link;
  }
  const float rest_length = 2.0f * half * kLinks;
  bool slept = false;
  float worst_stretch = 0.0f;
  for (int step = 0; step < 1200 && !slept; ++step) {
    ASSERT_TRUE(world->Step(kDt).ok());
    // Length along the chain: sum of pin gaps plus link lengths, measured
    // from the anchor to the bottom of the last link.
    const Vec2 bottom = testing::WorldPoint(*world, links.back(), {0.0f, -half});
    float gaps = 0.0f;
    for (int i = 1; i < kLinks; ++i) {
      gaps += Distance(testing::WorldPoint(*world, links[i - 1], {0.0f, -half}),
                       testing::WorldPoint(*world, links[i], {0.0f, half}));
    }
    gaps += Distance(top, testing::WorldPoint(*world, links[0], {0.0f, half}));
    worst_stretch = std::max(worst_stretch, gaps / rest_length);
    EXPECT_LE(Distance(top, bottom), rest_length * 1.01f);
    slept = !world->GetBody(links.back())->is_awake;
  }
  EXPECT_LT(worst_stretch, 0.01f);
  EXPECT_TRUE(slept) << "the chain never fell asleep";
  EXPECT_EQ(world->GetCounters().awake_bodies, 0);
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

// A chain released horizontally swings down with nothing to feed it: no
// damping, no motor, no collisions between its links. Its kinetic plus
// potential energy may only fall (the soft joints dissipate some); a joint
// solver that pumped energy would show it at the bottom of the swing.
TEST(RevoluteChainTest, TenLinksNeverGainEnergy) {
  WorldDef def;
  def.enable_sleep = false;
  auto world = MakeWorld(def);
  const Vec2 pivot{0.0f, 20.0f};
  const BodyId anchor = AddStaticAnchor(world.get(), pivot);
  const float half = 0.5f;
  std::vector<BodyId> links;
  BodyId previous = anchor;
  for (int i = 0; i < 10; ++i) {
    BodyDef bd;
    bd.type = BodyType::kDynamic;
    bd.position = {pivot.x + half + 2.0f * half * static_cast<float>(i), pivot.y};
    const BodyId link = world->CreateBody(bd).value();
    ShapeDef sd;
    sd.filter.group_index = -1;  // links never touch each other
    ASSERT_TRUE(world->CreatePolygonShape(link, sd, MakeBox(half, 0.1f).value()).ok());
    RevoluteJointDef jd;
    jd.body_a = previous;
    jd.body_b = link;
    jd.local_anchor_a = i == 0 ? Vec2{0.0f, 0.0f} : Vec2{half, 0.0f};
    jd.local_anchor_b = {-half, 0.0f};
    ASSERT_TRUE(world->CreateRevoluteJoint(jd).ok());
    links.push_back(link);
    previous = link;
  }
  const float g = -def.gravity.y;
  auto energy = [&]() {
    double e = 0.0;
    for (BodyId b : links) {
      const BodyInfo info = world->GetBody(b).value();
      e += 0.5 * info.mass * LengthSquared(info.linear_velocity) +
           0.5 * info.inertia * info.angular_velocity * info.angular_velocity +
           info.mass * g * info.world_center.y;
    }
    return e;
  };
  const double start = energy();
  // The energy scale: the chain's weight times the 5 m its center falls.
  const double scale = 10.0 * world->GetBody(links[0])->mass * g * 5.0;
  double highest = start;
  for (int step = 0; step < 600; ++step) {
    ASSERT_TRUE(world->Step(kDt).ok());
    highest = std::max(highest, energy());
  }
  EXPECT_LE(highest, start + 1e-4 * scale);
  // It did swing: the energy was not simply frozen.
  EXPECT_LT(energy(), start);
}

// Soft-step joints are stiff springs (WorldDef::joint_hertz, at most a
// quarter of the substep rate), and every weld of a cantilever carries the
// weight of all segments beyond it on the effective mass of one: at the
// default 4 substeps and 60 Hz this 20 m beam droops up to 3.7 m at the tip
// and rocks for seconds. Stiff structures take more substeps; at 16
// substeps and 240 Hz the tip dips 0.23 m once and settles 0.11 m low.
TEST(HangingChainTest, WeldedCantileverStaysNearItsRigidPose) {
  WorldDef def;
  def.substep_count = 16;
  def.joint_hertz = 240.0f;
  auto world = MakeWorld(def);
  const BodyId wall = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  const int kSegments = 10;
  const float half = 1.0f;  // a 20 m beam of 2 m segments, 0.5 m thick
  std::vector<BodyId> beam;
  BodyId previous = wall;
  for (int i = 0; i < kSegments; ++i) {
    const BodyId segment =
        AddDynamicRect(world.get(), {half + 2.0f * half * static_cast<float>(i), 10.0f}, half, 0.25f);
    WeldJointDef jd;
    jd.body_a = previous;
    jd.body_b = segment;
    jd.local_anchor_a = i == 0 ? Vec2{0.0f, 0.0f} : Vec2{half, 0.0f};
    jd.local_anchor_b = {-half, 0.0f};
    ASSERT_TRUE(world->CreateWeldJoint(jd).ok());
    beam.push_back(segment);
    previous = segment;
  }
  const float length = 2.0f * half * kSegments;
  float worst = 0.0f;
  for (int step = 0; step < 300; ++step) {
    ASSERT_TRUE(world->Step(kDt).ok());
    const Vec2 tip = testing::WorldPoint(*world, beam.back(), {half, 0.0f});
    worst = std::max(worst, Distance(tip, {length, 10.0f}));
  }
  EXPECT_LT(worst, 0.02f * length);
}

}  // namespace
}  // namespace atl
