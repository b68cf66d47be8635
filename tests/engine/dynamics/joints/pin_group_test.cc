// Pins solved four at a time (dynamics/joints/pin_group.h) must equal the
// scalar revolute joint bit for bit: warm start, biased solve and relax,
// computing or reusing their geometry as the solver does, with a static, a
// kinematic and a -0 velocity among the bodies.

#include "dynamics/joints/pin_group.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "atoll/random.h"
#include "atoll/snapshot.h"
#include "engine/dynamics/joints/joint_test_util.h"
#include "world/world_state.h"

namespace atl {
namespace {

using testing::MakeWorld;

uint32_t Bits(float x) { return std::bit_cast<uint32_t>(x); }

// A dynamic box of random size and pose near `center`.
BodyId AddBody(World* world, Random* rng, Vec2 center, BodyType type = BodyType::kDynamic) {
  BodyDef def;
  def.type = type;
  def.position = center + Vec2{rng->Uniform(-0.2f, 0.2f), rng->Uniform(-0.2f, 0.2f)};
  def.angle = rng->Uniform(-3.0f, 3.0f);
  def.linear_velocity = {rng->Uniform(-1.0f, 1.0f), rng->Uniform(-1.0f, 1.0f)};
  const BodyId id = world->CreateBody(def).value();
  ShapeDef sd;
  sd.density = rng->Uniform(0.5f, 4.0f);
  EXPECT_TRUE(world
                  ->CreatePolygonShape(
                      id, sd, MakeBox(rng->Uniform(0.1f, 1.0f), rng->Uniform(0.1f, 1.0f)).value())
                  .ok());
  return id;
}

TEST(PinGroupTest, FourPinsEqualTheScalarRevoluteJointBitForBit) {
  WorldDef def;
  def.enable_sleep = false;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  Random rng(19);
  // Four pins on disjoint bodies (so they could share a colour): dynamic to
  // dynamic, static to dynamic, dynamic to kinematic, dynamic to dynamic.
  const BodyId ground = world->CreateBody(BodyDef{}).value();
  struct Pair {
    BodyId a, b;
  };
  std::vector<Pair> pairs;
  for (int32_t i = 0; i < 4; ++i) {
    const Vec2 at{4.0f * static_cast<float>(i), 0.0f};
    const BodyId a = i == 1 ? ground : AddBody(world.get(), &rng, at);
    const BodyId b = AddBody(world.get(), &rng, at + Vec2{1.0f, 0.0f},
                             i == 2 ? BodyType::kKinematic : BodyType::kDynamic);
    pairs.push_back({a, b});
  }
  std::vector<int32_t> joints;
  for (const Pair& p : pairs) {
    RevoluteJointDef jd;
    jd.body_a = p.a;
    jd.body_b = p.b;
    jd.local_anchor_a = {rng.Uniform(-1.0f, 1.0f), rng.Uniform(-1.0f, 1.0f)};
    jd.local_anchor_b = {rng.Uniform(-1.0f, 1.0f), rng.Uniform(-1.0f, 1.0f)};
    joints.push_back(static_cast<int32_t>(world->CreateRevoluteJoint(jd).value().index));
  }
  // One step gives every body its solver slot.
  ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
  WorldState& w = world->state();
  for (int32_t j : joints) {
    ASSERT_TRUE(IsPin(w.joints[j]));
    std::get<RevoluteJoint>(w.joints[j].data).linear_impulse = {rng.Uniform(-2.0f, 2.0f),
                                                                 rng.Uniform(-2.0f, 2.0f)};
  }
  // The last pin warm starts with nothing, on a body B turning at -0.
  std::get<RevoluteJoint>(w.joints[joints[3]].data).linear_impulse = {0.0f, 0.0f};
  JointContext ctx;
  ctx.h = 1.0f / 240.0f;
  ctx.inv_h = 240.0f;
  ctx.rigid = MakeSoftness(60.0f, 2.0f, ctx.h);
  std::vector<int32_t> prepared;
  std::vector<JointFrame> frames;
  PrepareJoints(&w, ctx, &prepared, &frames);
  ASSERT_EQ(prepared, joints);

  // Random solver bodies, mid-step, the static stand-in in the last slot.
  int32_t slots = 0;
  for (const JointFrame& f : frames) slots = std::max({slots, f.index_a + 1, f.index_b + 1});
  std::vector<SolverBody> bodies(static_cast<size_t>(slots) + 1);
  for (int32_t i = 0; i < slots; ++i) {
    SolverBody& b = bodies[i];
    b.linear_velocity = {rng.Uniform(-3.0f, 3.0f), rng.Uniform(-3.0f, 3.0f)};
    b.angular_velocity = rng.Uniform(-3.0f, 3.0f);
    b.delta_position = {rng.Uniform(-0.05f, 0.05f), rng.Uniform(-0.05f, 0.05f)};
    b.delta_rotation = MakeRot(rng.Uniform(-0.1f, 0.1f));
  }
  const int32_t static_slot = slots;
  bodies[static_slot] = kStaticSolverBody;
  // With an anchor (-x, +y) the point impulse's turn is -0 too, so only
  // the +0 axial impulse of WarmStartRevoluteJoint makes B's turn +0.
  JointFrame& last = frames[3];
  last.anchor_b = {-0.5f, 0.5f};
  bodies[last.index_b].angular_velocity = -0.0f;
  bodies[last.index_b].delta_rotation = Rot{};

  PinGroup group;
  for (int32_t lane = 0; lane < 4; ++lane) PreparePin(frames[lane], static_slot, &group, lane);
  std::vector<SolverBody> wide = bodies;
  std::vector<SolverBody> scalar = bodies;
  auto expect_equal = [&](const char* pass) {
    for (size_t i = 0; i < bodies.size(); ++i) {
      EXPECT_EQ(std::memcmp(&wide[i], &scalar[i], sizeof(SolverBody)), 0)
          << pass << ", slot " << i;
    }
  };
  // Two substeps' passes in the solver's order, the pins computing their
  // geometry after each position update and reusing it until the next.
  auto warm_start = [&](PinGeometry geometry) {
    WarmStartPins(&group, wide.data(), geometry);
    for (int32_t k = 0; k < 4; ++k) WarmStartJoint(&w, joints[k], frames[k], scalar.data());
  };
  auto solve = [&](bool use_bias, PinGeometry geometry) {
    SolvePins(&group, wide.data(), ctx.rigid, use_bias, geometry);
    for (int32_t k = 0; k < 4; ++k) {
      SolveJoint(&w, ctx, joints[k], frames[k], scalar.data(), use_bias);
    }
  };
  // The same motion for both: turn and move every body, or push it.
  auto integrate = [&](bool positions) {
    for (int32_t i = 0; i < static_slot; ++i) {
      const float h = 1.0f / 240.0f;
      for (std::vector<SolverBody>* v : {&wide, &scalar}) {
        SolverBody& b = (*v)[i];
        if (positions) {
          b.delta_position = MulAdd(b.delta_position, h, b.linear_velocity);
          b.delta_rotation = IntegrateRotation(b.delta_rotation, h * b.angular_velocity);
        } else {
          b.linear_velocity += Vec2{0.0f, -10.0f * h};
        }
      }
    }
  };
  warm_start(PinGeometry::kCompute);
  expect_equal("first warm start");
  solve(/*use_bias=*/true, PinGeometry::kReuse);
  expect_equal("first solve");
  integrate(/*positions=*/true);
  solve(/*use_bias=*/false, PinGeometry::kCompute);
  expect_equal("first relax");
  integrate(/*positions=*/false);
  warm_start(PinGeometry::kReuse);
  expect_equal("second warm start");
  solve(/*use_bias=*/true, PinGeometry::kReuse);
  expect_equal("second solve");
  integrate(/*positions=*/true);
  solve(/*use_bias=*/false, PinGeometry::kCompute);
  expect_equal("second relax");
  EXPECT_NE(std::memcmp(&wide[0], &bodies[0], sizeof(SolverBody)), 0) << "nothing moved";
  for (int32_t lane = 0; lane < 4; ++lane) {
    const Vec2 impulse = std::get<RevoluteJoint>(w.joints[joints[lane]].data).linear_impulse;
    EXPECT_EQ(Bits(group.impulse_x[lane]), Bits(impulse.x)) << "lane " << lane;
    EXPECT_EQ(Bits(group.impulse_y[lane]), Bits(impulse.y)) << "lane " << lane;
  }
}

TEST(PinGroupTest, OnlyBareRevoluteJointsArePins) {
  auto world = MakeWorld();
  Random rng(3);
  const BodyId a = AddBody(world.get(), &rng, {0.0f, 0.0f});
  const BodyId b = AddBody(world.get(), &rng, {1.0f, 0.0f});
  auto revolute = [&](auto tweak) {
    RevoluteJointDef jd;
    jd.body_a = a;
    jd.body_b = b;
    tweak(&jd);
    const JointId id = world->CreateRevoluteJoint(jd).value();
    return IsPin(world->state().joints[id.index]);
  };
  EXPECT_TRUE(revolute([](RevoluteJointDef*) {}));
  EXPECT_FALSE(revolute([](RevoluteJointDef* d) { d->enable_spring = true; }));
  EXPECT_FALSE(revolute([](RevoluteJointDef* d) { d->enable_motor = true; }));
  EXPECT_FALSE(revolute([](RevoluteJointDef* d) { d->enable_limit = true; }));
  WeldJointDef weld;
  weld.body_a = a;
  weld.body_b = b;
  EXPECT_FALSE(IsPin(world->state().joints[world->CreateWeldJoint(weld).value().index]));
}

// The solver keeps last step's joint colouring and pin groups while the
// joints and their bodies' slots stay the same. A joint that stops or
// starts being a pin, or goes, must be laid out anew: a world stepped on
// must match one restored from a snapshot (fresh solver scratch) at once
// after each change.
TEST(PinGroupTest, LayoutFollowsJointChangesBetweenSteps) {
  WorldDef def;
  def.enable_sleep = false;
  auto world = MakeWorld(def);
  Random rng(5);
  const BodyId anchor = world->CreateBody(BodyDef{}).value();
  std::vector<BodyId> links;
  std::vector<JointId> joints;
  BodyId previous = anchor;
  // Longer than ConstraintColours::kColourCount, so colours come round.
  for (int32_t i = 0; i < 40; ++i) {
    const BodyId link = AddBody(world.get(), &rng, {static_cast<float>(i) + 0.5f, 0.0f});
    RevoluteJointDef jd;
    jd.body_a = previous;
    jd.body_b = link;
    const Vec2 pivot{static_cast<float>(i), 0.0f};
    jd.local_anchor_a = testing::LocalPoint(*world, previous, pivot);
    jd.local_anchor_b = testing::LocalPoint(*world, link, pivot);
    joints.push_back(world->CreateRevoluteJoint(jd).value());
    links.push_back(link);
    previous = link;
  }
  auto expect_same_after_restore = [&](const char* change) {
    auto restored = LoadSnapshot(SaveSnapshot(*world)).value();
    for (int32_t step = 0; step < 5; ++step) {
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
      ASSERT_TRUE(restored->Step(1.0f / 60.0f).ok());
    }
    EXPECT_EQ(HashWorld(*world), HashWorld(*restored)) << change;
  };
  testing::StepN(world.get(), 10);
  expect_same_after_restore("pins only");
  // A reached limit: no longer a pin.
  ASSERT_TRUE(world->SetLimits(joints[3], 0.5f, 0.6f).ok());
  ASSERT_TRUE(world->EnableLimit(joints[3], true).ok());
  expect_same_after_restore("limit enabled");
  ASSERT_TRUE(world->EnableLimit(joints[3], false).ok());
  expect_same_after_restore("limit disabled");
  ASSERT_TRUE(world->DestroyJoint(joints[5]).ok());
  expect_same_after_restore("joint destroyed");
  RevoluteJointDef jd;
  jd.body_a = links[4];
  jd.body_b = links[5];
  jd.local_anchor_b = testing::LocalPoint(*world, links[5], world->GetBody(links[4])->world_center);
  ASSERT_TRUE(world->CreateRevoluteJoint(jd).ok());
  expect_same_after_restore("joint created");
  // As many joints as before, one on other bodies: a second pin on links
  // 31 and 32, where joint 31, of joint 7's colour, holds link 31 too.
  ASSERT_TRUE(world->DestroyJoint(joints[7]).ok());
  jd.body_a = links[31];
  jd.body_b = links[32];
  jd.local_anchor_a = {0.0f, 0.0f};
  jd.local_anchor_b = testing::LocalPoint(*world, links[32], world->GetBody(links[31])->world_center);
  ASSERT_TRUE(world->CreateRevoluteJoint(jd).ok());
  expect_same_after_restore("joint replaced");
}

}  // namespace
}  // namespace atl
