// Breakable joints: a joint whose reaction exceeds its thresholds is
// destroyed at the end of the step's solve and reported.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "atoll/snapshot.h"
#include "engine/dynamics/joints/joint_test_util.h"

namespace atl {
namespace {

using testing::AddDynamicRect;
using testing::AddStaticAnchor;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;
constexpr float kG = 10.0f;

// A 2 kg box hanging from a static pivot by a revolute joint at its center.
struct Hanging {
  std::unique_ptr<World> world;
  BodyId box;
  JointId joint;
  float weight = 0.0f;  // N
};

Hanging MakeHanging() {
  Hanging h;
  h.world = MakeWorld();
  const BodyId pivot = AddStaticAnchor(h.world.get(), {0.0f, 10.0f});
  h.box = AddDynamicRect(h.world.get(), {0.0f, 10.0f}, 0.5f, 0.5f, 2.0f);
  RevoluteJointDef jd;
  jd.body_a = pivot;
  jd.body_b = h.box;
  jd.user_data = 77;
  h.joint = h.world->CreateRevoluteJoint(jd).value();
  h.weight = h.world->GetBody(h.box)->mass * kG;
  return h;
}

TEST(JointBreakTest, NewJointNeverBreaks) {
  Hanging h = MakeHanging();
  const auto t = h.world->GetJointBreakThresholds(h.joint).value();
  EXPECT_EQ(t.first, kInfinity);
  EXPECT_EQ(t.second, kInfinity);
}

TEST(JointBreakTest, HoldsAWeightBelowItsForceThreshold) {
  Hanging h = MakeHanging();
  ASSERT_TRUE(
      h.world->SetJointBreakThresholds(h.joint, 1.1f * h.weight, kInfinity)
          .ok());
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(h.world->Step(kDt).ok());
    ASSERT_TRUE(h.world->events().joint_break.empty()) << "step " << i;
  }
  ASSERT_TRUE(h.world->IsValid(h.joint));
  // It carries the weight: the reaction on the box is m g upwards.
  const Vec2 f = h.world->GetJointReactionForce(h.joint).value();
  EXPECT_NEAR(f.y, h.weight, 1e-3f * h.weight);
  EXPECT_NEAR(f.x, 0.0f, 1e-3f * h.weight);
}

TEST(JointBreakTest,
     BreaksOnTheFirstStepUnderAWeightAboveItsThresholdAndTheBodyFallsFree) {
  Hanging h = MakeHanging();
  ASSERT_TRUE(
      h.world->SetJointBreakThresholds(h.joint, 0.9f * h.weight, kInfinity)
          .ok());
  ASSERT_TRUE(h.world->Step(kDt).ok());
  const auto& breaks = h.world->events().joint_break;
  ASSERT_EQ(breaks.size(), 1u);
  EXPECT_EQ(breaks[0].joint, h.joint);
  EXPECT_EQ(breaks[0].body_b, h.box);
  EXPECT_TRUE(breaks[0].body_a.IsValid());
  EXPECT_EQ(breaks[0].user_data, 77u);
  EXPECT_NEAR(breaks[0].force.y, h.weight, 1e-3f * h.weight);
  EXPECT_FALSE(h.world->IsValid(h.joint));
  EXPECT_TRUE(h.world->GetJointIds().empty());
  // The joint held during the step that broke it; from then on the box is
  // in free fall: after n more steps its velocity is -g n dt.
  const float v0 = h.world->GetBody(h.box)->linear_velocity.y;
  EXPECT_NEAR(v0, 0.0f, 1e-4f);
  const int n = 30;
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(h.world->Step(kDt).ok());
    EXPECT_TRUE(h.world->events().joint_break.empty());
  }
  EXPECT_NEAR(h.world->GetBody(h.box)->linear_velocity.y, -kG * n * kDt, 1e-3f);
}

// A 2 m beam welded at its left end to a static pivot: the weld carries
// the beam's weight m g and its moment m g L / 2 about the end.
TEST(JointBreakTest,
     WeldBreaksOnlyWhenTheBeamsMomentExceedsTheTorqueThreshold) {
  for (const float share : {0.8f, 1.25f}) {
    auto world = MakeWorld();
    const BodyId pivot = AddStaticAnchor(world.get(), {0.0f, 5.0f});
    const BodyId beam =
        AddDynamicRect(world.get(), {1.0f, 5.0f}, 1.0f, 0.1f, 1.0f);
    WeldJointDef jd;
    jd.body_a = pivot;
    jd.body_b = beam;
    jd.local_anchor_a = {0.0f, 0.0f};
    jd.local_anchor_b = {-1.0f, 0.0f};
    const JointId joint = world->CreateWeldJoint(jd).value();
    const float moment = world->GetBody(beam)->mass * kG * 1.0f;
    ASSERT_TRUE(
        world->SetJointBreakThresholds(joint, kInfinity, share * moment).ok());
    int broke_at = -1;
    for (int i = 0; i < 300 && broke_at < 0; ++i) {
      ASSERT_TRUE(world->Step(kDt).ok());
      if (!world->events().joint_break.empty()) {
        broke_at = i;
        EXPECT_GT(std::abs(world->events().joint_break[0].torque),
                  share * moment);
      }
    }
    if (share < 1.0f) {
      EXPECT_EQ(broke_at, 0) << "share " << share;
    } else {
      EXPECT_EQ(broke_at, -1) << "share " << share;
      EXPECT_NEAR(world->GetJointReactionTorque(joint).value(), moment,
                  0.01f * moment);
    }
  }
}

// A growing downward pull F = k t on the hanging box: the joint breaks at
// the first step whose load m g + F exceeds the threshold, the same step in
// a copy restored from a snapshot taken before it.
TEST(JointBreakTest,
     BreaksWhenTheLoadCrossesTheThresholdAndReplaysFromASnapshot) {
  Hanging h = MakeHanging();
  const float threshold = 2.0f * h.weight;
  ASSERT_TRUE(
      h.world->SetJointBreakThresholds(h.joint, threshold, kInfinity).ok());
  const float k = 0.05f * h.weight;  // N per step
  // Load at step s (pull applied during s): weight + k (s + 1).
  const int expected = static_cast<int>(std::floor((threshold - h.weight) / k));
  auto run = [&](World* world, int from, int to, std::string* snapshot_at_10) {
    int broke_at = -1;
    for (int s = from; s < to; ++s) {
      if (s == 10 && snapshot_at_10 != nullptr)
        *snapshot_at_10 = SaveSnapshot(*world);
      EXPECT_TRUE(
          world->ApplyForceToCenter(h.box, {0.0f, -k * (s + 1)}, true).ok());
      EXPECT_TRUE(world->Step(kDt).ok());
      if (!world->events().joint_break.empty() && broke_at < 0) broke_at = s;
    }
    return broke_at;
  };
  std::string snapshot;
  const int broke_at = run(h.world.get(), 0, 40, &snapshot);
  EXPECT_NEAR(broke_at, expected, 1);
  auto copy = MakeWorld();
  ASSERT_TRUE(RestoreSnapshot(snapshot, copy.get()).ok());
  EXPECT_EQ(copy->GetJointBreakThresholds(h.joint).value().first, threshold);
  EXPECT_EQ(run(copy.get(), 10, 40, nullptr), broke_at);
  EXPECT_EQ(HashWorld(*copy), HashWorld(*h.world));
}

TEST(JointBreakTest, BadThresholdsAreRefusedAndChangeNothing) {
  Hanging h = MakeHanging();
  ASSERT_TRUE(h.world->SetJointBreakThresholds(h.joint, 5.0f, 6.0f).ok());
  const std::string before = SaveSnapshot(*h.world);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const auto& [force, torque] :
       {std::pair{-1.0f, 1.0f}, std::pair{1.0f, -1.0f}, std::pair{nan, 1.0f},
        std::pair{1.0f, nan}, std::pair{-kInfinity, 1.0f}}) {
    const absl::Status s =
        h.world->SetJointBreakThresholds(h.joint, force, torque);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument)
        << force << " " << torque;
    EXPECT_NE(s.message().find("must be >= 0"), std::string::npos)
        << s.message();
  }
  EXPECT_EQ(SaveSnapshot(*h.world), before);
  ASSERT_TRUE(h.world->DestroyJoint(h.joint).ok());
  EXPECT_EQ(h.world->SetJointBreakThresholds(h.joint, 1.0f, 1.0f).code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace atl
