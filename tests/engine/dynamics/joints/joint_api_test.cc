// Joint API contracts: validation, ids, waking, islands, collide_connected.

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/debug_draw.h"
#include "atoll/random.h"
#include "atoll/snapshot.h"
#include "dynamics/island.h"
#include "engine/dynamics/joints/joint_test_util.h"
#include "world/world_state.h"

namespace atl {
namespace {

using testing::AddDynamicBox;
using testing::AddDynamicRect;
using testing::AddGround;
using testing::AddStaticAnchor;
using testing::MakeWorld;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kDt = 1.0f / 60.0f;

// Expects `result` to fail with `code` and a message containing `needle`.
template <typename T>
void ExpectRejected(const absl::StatusOr<T>& result, absl::StatusCode code, const std::string& needle) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_NE(result.status().message().find(needle), std::string::npos) << result.status();
}

TEST(JointApiTest, BadDefsAreRejectedAndNothingChanges) {
  auto world = MakeWorld();
  const BodyId ground = AddGround(world.get());
  const BodyId a = AddDynamicBox(world.get(), {0.0f, 2.0f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {2.0f, 2.0f}, 0.5f);
  const BodyId doomed = AddDynamicBox(world.get(), {4.0f, 2.0f}, 0.5f);
  ASSERT_TRUE(world->DestroyBody(doomed).ok());
  testing::StepN(world.get(), 3);
  const uint64_t before = HashWorld(*world);
  const auto kBad = absl::StatusCode::kInvalidArgument;

  RevoluteJointDef rev;
  rev.body_a = a;
  rev.body_b = b;
  {
    RevoluteJointDef d = rev;
    d.local_anchor_a.x = kNaN;
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "local_anchor_a");
  }
  {
    RevoluteJointDef d = rev;
    d.body_b = doomed;  // stale
    ExpectRejected(world->CreateRevoluteJoint(d), absl::StatusCode::kNotFound, "body_b");
  }
  {
    RevoluteJointDef d = rev;
    d.body_a = BodyId();  // null
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "body_a");
  }
  {
    RevoluteJointDef d = rev;
    d.body_a.world = 7;  // another world's id
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "body_a");
  }
  {
    RevoluteJointDef d = rev;
    d.body_b = a;  // same body twice
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "same body");
  }
  {
    RevoluteJointDef d = rev;
    d.hertz = -1.0f;
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "hertz");
  }
  {
    RevoluteJointDef d = rev;
    d.max_motor_torque = -5.0f;
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "max_motor_torque");
  }
  {
    RevoluteJointDef d = rev;
    d.lower_angle = 0.5f;
    d.upper_angle = -0.5f;
    ExpectRejected(world->CreateRevoluteJoint(d), kBad, "lower_angle");
  }
  {
    DistanceJointDef d;
    d.body_a = a;
    d.body_b = b;
    d.length = kNaN;
    ExpectRejected(world->CreateDistanceJoint(d), kBad, "length");
    d.length = 1.0f;
    d.min_length = 2.0f;
    d.max_length = 1.0f;
    ExpectRejected(world->CreateDistanceJoint(d), kBad, "min_length");
    d.min_length = 0.0f;
    d.damping_ratio = -1.0f;
    ExpectRejected(world->CreateDistanceJoint(d), kBad, "damping_ratio");
  }
  {
    PrismaticJointDef d;
    d.body_a = ground;
    d.body_b = a;
    d.local_axis_a = {0.0f, 0.0f};
    ExpectRejected(world->CreatePrismaticJoint(d), kBad, "local_axis_a");
    d.local_axis_a = {1.0f, 0.0f};
    d.max_motor_force = -1.0f;
    ExpectRejected(world->CreatePrismaticJoint(d), kBad, "max_motor_force");
    d.max_motor_force = 0.0f;
    d.lower_translation = 1.0f;
    ExpectRejected(world->CreatePrismaticJoint(d), kBad, "lower_translation");
  }
  {
    WeldJointDef d;
    d.body_a = a;
    d.body_b = b;
    d.angular_hertz = -2.0f;
    ExpectRejected(world->CreateWeldJoint(d), kBad, "angular_hertz");
    d.angular_hertz = 0.0f;
    d.reference_angle = std::numeric_limits<float>::infinity();
    ExpectRejected(world->CreateWeldJoint(d), kBad, "reference_angle");
  }
  {
    WheelJointDef d;
    d.body_a = a;
    d.body_b = b;
    d.hertz = -1.0f;
    ExpectRejected(world->CreateWheelJoint(d), kBad, "hertz");
  }
  {
    MotorJointDef d;
    d.body_a = a;
    d.body_b = b;
    d.max_force = -1.0f;
    ExpectRejected(world->CreateMotorJoint(d), kBad, "max_force");
    d.max_force = 1.0f;
    d.correction_factor = 1.5f;
    ExpectRejected(world->CreateMotorJoint(d), kBad, "correction_factor");
  }
  {
    TargetJointDef d;
    d.body = a;
    d.target = {kNaN, 0.0f};
    ExpectRejected(world->CreateTargetJoint(d), kBad, "target");
    d.target = {0.0f, 0.0f};
    d.max_force = -1.0f;
    ExpectRejected(world->CreateTargetJoint(d), kBad, "max_force");
    d.max_force = 1.0f;
    d.body = doomed;
    ExpectRejected(world->CreateTargetJoint(d), absl::StatusCode::kNotFound, "body");
  }

  EXPECT_EQ(HashWorld(*world), before);
  EXPECT_EQ(world->GetCounters().joints, 0);
  EXPECT_TRUE(world->GetJointIds().empty());
}

TEST(JointApiTest, StaleForeignAndNullJointIdsAreRejected) {
  auto world = MakeWorld();
  const BodyId a = AddDynamicBox(world.get(), {0.0f, 2.0f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {2.0f, 2.0f}, 0.5f);
  DistanceJointDef d;
  d.body_a = a;
  d.body_b = b;
  d.length = 2.0f;
  const JointId joint = world->CreateDistanceJoint(d).value();
  EXPECT_TRUE(world->IsValid(joint));
  EXPECT_EQ(world->GetJointType(joint).value(), JointType::kDistance);
  EXPECT_EQ(world->GetJointBodyA(joint).value(), a);
  EXPECT_EQ(world->GetJointBodyB(joint).value(), b);
  ASSERT_TRUE(world->DestroyJoint(joint).ok());
  EXPECT_FALSE(world->IsValid(joint));
  EXPECT_EQ(world->DestroyJoint(joint).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world->GetJointReactionForce(joint).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world->SetMotorSpeed(JointId(), 1.0f).code(), absl::StatusCode::kInvalidArgument);
  // The slot is reused with a new generation.
  const JointId reused = world->CreateDistanceJoint(d).value();
  EXPECT_EQ(reused.index, joint.index);
  EXPECT_NE(reused.generation, joint.generation);
  EXPECT_FALSE(world->IsValid(joint));
  JointId foreign = reused;
  foreign.world = 9;
  EXPECT_FALSE(world->IsValid(foreign));
}

TEST(JointApiTest, SettersCheckTypeAndValuesAndChangeNothingOnError) {
  auto world = MakeWorld();
  const BodyId a = AddDynamicBox(world.get(), {0.0f, 2.0f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {1.0f, 2.0f}, 0.5f);
  WeldJointDef wd;
  wd.body_a = a;
  wd.body_b = b;
  wd.local_anchor_a = {0.5f, 0.0f};
  wd.local_anchor_b = {-0.5f, 0.0f};
  const JointId weld = world->CreateWeldJoint(wd).value();
  const uint64_t before = HashWorld(*world);
  EXPECT_EQ(world->SetMotorSpeed(weld, 1.0f).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->EnableLimit(weld, true).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetTarget(weld, {1.0f, 1.0f}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->GetJointTranslation(weld).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetSpring(weld, -1.0f, 0.0f).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HashWorld(*world), before);

  ASSERT_TRUE(world->DestroyJoint(weld).ok());
  RevoluteJointDef rd;
  rd.body_a = a;
  rd.body_b = b;
  const JointId rev = world->CreateRevoluteJoint(rd).value();
  const uint64_t with_revolute = HashWorld(*world);
  EXPECT_EQ(world->SetLimits(rev, 1.0f, -1.0f).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetLimits(rev, -4.0f, 0.0f).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetMaxMotorTorque(rev, kNaN).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(world->SetMotorSpeed(rev, kNaN).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HashWorld(*world), with_revolute);
  EXPECT_TRUE(world->SetLimits(rev, -1.0f, 1.0f).ok());
  EXPECT_TRUE(world->EnableLimit(rev, true).ok());
  EXPECT_TRUE(world->EnableMotor(rev, true).ok());
  EXPECT_TRUE(world->SetMotorSpeed(rev, 2.0f).ok());
  EXPECT_TRUE(world->SetMaxMotorTorque(rev, 5.0f).ok());
  EXPECT_NE(HashWorld(*world), with_revolute);
}

TEST(JointApiTest, CreatingAJointWakesAndMergesBothIslands) {
  auto world = MakeWorld();
  AddGround(world.get());
  const BodyId a = AddDynamicBox(world.get(), {-2.0f, 0.5f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {2.0f, 0.5f}, 0.5f);
  testing::StepN(world.get(), 120);
  ASSERT_FALSE(world->GetBody(a)->is_awake);
  ASSERT_FALSE(world->GetBody(b)->is_awake);
  ASSERT_EQ(world->GetCounters().islands, 2);
  DistanceJointDef d;
  d.body_a = a;
  d.body_b = b;
  d.length = 4.0f;
  ASSERT_TRUE(world->CreateDistanceJoint(d).ok());
  EXPECT_TRUE(world->GetBody(a)->is_awake);
  EXPECT_TRUE(world->GetBody(b)->is_awake);
  EXPECT_EQ(world->GetCounters().islands, 1);
  EXPECT_EQ(ValidateIslands(world->state()), "");
  // Together they fall asleep again, as one island.
  testing::StepN(world.get(), 120);
  EXPECT_FALSE(world->GetBody(a)->is_awake);
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

TEST(JointApiTest, DestroyingAJointWakesBothBodiesAndLeavesNothingDangling) {
  auto world = MakeWorld();
  AddGround(world.get());
  const BodyId a = AddDynamicBox(world.get(), {-2.0f, 0.5f}, 0.5f);
  const BodyId b = AddDynamicBox(world.get(), {2.0f, 0.5f}, 0.5f);
  DistanceJointDef d;
  d.body_a = a;
  d.body_b = b;
  d.length = 4.0f;
  const JointId joint = world->CreateDistanceJoint(d).value();
  testing::StepN(world.get(), 120);
  ASSERT_FALSE(world->GetBody(a)->is_awake);
  const int32_t contacts = world->GetCounters().contacts;

  ASSERT_TRUE(world->DestroyJoint(joint).ok());
  EXPECT_TRUE(world->GetBody(a)->is_awake);
  EXPECT_TRUE(world->GetBody(b)->is_awake);
  EXPECT_EQ(world->GetCounters().joints, 0);
  EXPECT_TRUE(world->GetJointIds().empty());
  EXPECT_TRUE(world->state().bodies[a.index].joints.empty());
  EXPECT_TRUE(world->state().bodies[b.index].joints.empty());
  EXPECT_EQ(ValidateIslands(world->state()), "");
  // Nothing refers to the joint: the next step has no stray events and the
  // island falls apart into one per body.
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_TRUE(world->events().contact_end.empty());
  EXPECT_TRUE(world->events().contact_begin.empty());
  EXPECT_EQ(world->GetCounters().contacts, contacts);
  EXPECT_EQ(ValidateIslands(world->state()), "");
  // Once the two bodies rest again, the island splits into one per body
  // (splitting waits for rest; see UpdateSleep) and both sleep.
  testing::StepN(world.get(), 60);
  EXPECT_EQ(world->GetCounters().islands, 2);
  EXPECT_FALSE(world->GetBody(a)->is_awake);
  EXPECT_FALSE(world->GetBody(b)->is_awake);
  EXPECT_EQ(ValidateIslands(world->state()), "");
  // A snapshot of the world is complete and consistent.
  EXPECT_TRUE(LoadSnapshot(SaveSnapshot(*world)).ok());
}

TEST(JointApiTest, DestroyingABodyDestroysItsJointsAndWakesTheOtherEnds) {
  auto world = MakeWorld();
  const BodyId anchor = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  const BodyId a = AddDynamicBox(world.get(), {0.0f, 9.0f}, 0.25f);
  const BodyId b = AddDynamicBox(world.get(), {0.0f, 8.0f}, 0.25f);
  RevoluteJointDef top;
  top.body_a = anchor;
  top.body_b = a;
  top.local_anchor_b = {0.0f, 1.0f};
  const JointId j1 = world->CreateRevoluteJoint(top).value();
  RevoluteJointDef mid;
  mid.body_a = a;
  mid.body_b = b;
  mid.local_anchor_b = {0.0f, 1.0f};
  const JointId j2 = world->CreateRevoluteJoint(mid).value();
  ASSERT_TRUE(world->SetAwake(a, false).ok());
  ASSERT_FALSE(world->GetBody(b)->is_awake);
  ASSERT_TRUE(world->DestroyBody(a).ok());
  EXPECT_FALSE(world->IsValid(j1));
  EXPECT_FALSE(world->IsValid(j2));
  EXPECT_TRUE(world->GetBody(b)->is_awake);
  EXPECT_TRUE(world->state().bodies[anchor.index].joints.empty());
  EXPECT_TRUE(world->state().bodies[b.index].joints.empty());
  EXPECT_EQ(ValidateIslands(world->state()), "");
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

TEST(JointApiTest, CollideConnectedDecidesWhetherJointedShapesCollide) {
  for (bool collide : {false, true}) {
    WorldDef def;
    def.gravity = {0.0f, 0.0f};
    auto world = MakeWorld(def);
    // Two overlapping boxes, already in contact before the joint exists.
    const BodyId a = AddDynamicBox(world.get(), {0.0f, 0.0f}, 0.5f);
    const BodyId b = AddDynamicBox(world.get(), {0.8f, 0.0f}, 0.5f);
    ASSERT_TRUE(world->Step(kDt).ok());
    ASSERT_EQ(world->GetCounters().touching_contacts, 1);
    RevoluteJointDef d;
    d.body_a = a;
    d.body_b = b;
    d.local_anchor_a = {0.4f, 0.0f};
    d.local_anchor_b = {-0.4f, 0.0f};
    d.collide_connected = collide;
    const JointId joint = world->CreateRevoluteJoint(d).value();
    EXPECT_EQ(world->GetCounters().contacts, collide ? 1 : 0);
    ASSERT_TRUE(world->Step(kDt).ok());
    // The contact's end is reported with the next step's events.
    EXPECT_EQ(world->events().contact_end.size(), collide ? 0u : 1u);
    testing::StepN(world.get(), 30);
    EXPECT_EQ(world->GetCounters().contacts, collide ? 1 : 0);
    // Without the joint they collide again.
    ASSERT_TRUE(world->DestroyJoint(joint).ok());
    ASSERT_TRUE(world->Step(kDt).ok());
    EXPECT_EQ(world->GetCounters().contacts, 1);
  }
}

TEST(JointApiTest, DisabledBodiesIdleTheirJointsAndRelinkWhenEnabled) {
  auto world = MakeWorld();
  const BodyId anchor = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  std::vector<BodyId> links;
  BodyId previous = anchor;
  for (int i = 0; i < 4; ++i) {
    const BodyId link = AddDynamicRect(world.get(), {0.0f, 9.5f - static_cast<float>(i)}, 0.1f, 0.5f);
    RevoluteJointDef d;
    d.body_a = previous;
    d.body_b = link;
    d.local_anchor_a = i == 0 ? Vec2{0.0f, 0.0f} : Vec2{0.0f, -0.5f};
    d.local_anchor_b = {0.0f, 0.5f};
    ASSERT_TRUE(world->CreateRevoluteJoint(d).ok());
    links.push_back(link);
    previous = link;
  }
  testing::StepN(world.get(), 2);
  EXPECT_EQ(world->GetCounters().islands, 1);
  ASSERT_TRUE(world->SetEnabled(links[1], false).ok());
  EXPECT_EQ(ValidateIslands(world->state()), "");
  testing::StepN(world.get(), 2);
  // links[0] hangs alone and links[2..3] fall: two components, still one
  // island flagged for splitting until they rest (ValidateIslands checks
  // exactly that).
  EXPECT_EQ(ValidateIslands(world->state()), "");
  ASSERT_TRUE(world->SetEnabled(links[1], true).ok());
  EXPECT_EQ(world->GetCounters().islands, 1);
  EXPECT_EQ(ValidateIslands(world->state()), "");
  testing::StepN(world.get(), 2);
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

TEST(JointApiTest, IslandsFollowJointsUnderChurn) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto world = MakeWorld();
    AddGround(world.get(), 30.0f);
    Random rng(seed);
    std::vector<BodyId> bodies;
    std::vector<JointId> joints;
    for (int i = 0; i < 60; ++i) {
      bodies.push_back(AddDynamicBox(world.get(), {rng.Uniform(-10.0f, 10.0f), rng.Uniform(1.0f, 20.0f)},
                                     rng.Uniform(0.2f, 0.5f)));
    }
    for (int step = 0; step < 300; ++step) {
      ASSERT_TRUE(world->Step(kDt).ok());
      if (step % 7 == 3) {
        // Join two random bodies with a random joint type.
        const BodyId a = bodies[rng.Below(static_cast<uint32_t>(bodies.size()))];
        const BodyId b = bodies[rng.Below(static_cast<uint32_t>(bodies.size()))];
        if (a.index != b.index) {
          const Vec2 pa = world->GetBody(a)->world_center, pb = world->GetBody(b)->world_center;
          absl::StatusOr<JointId> id;
          if (rng.Below(2) == 0) {
            DistanceJointDef d;
            d.body_a = a;
            d.body_b = b;
            d.length = std::max(0.1f, Distance(pa, pb));
            id = world->CreateDistanceJoint(d);
          } else {
            RevoluteJointDef d;
            d.body_a = a;
            d.body_b = b;
            d.local_anchor_b = testing::LocalPoint(*world, b, pa);
            id = world->CreateRevoluteJoint(d);
          }
          ASSERT_TRUE(id.ok()) << id.status();
          joints.push_back(*id);
        }
      }
      if (step % 11 == 5 && !joints.empty()) {
        const size_t k = rng.Below(static_cast<uint32_t>(joints.size()));
        if (world->IsValid(joints[k])) {
          ASSERT_TRUE(world->DestroyJoint(joints[k]).ok());
        }
        joints.erase(joints.begin() + static_cast<long>(k));
      }
      if (step % 37 == 20) {
        const size_t k = rng.Below(static_cast<uint32_t>(bodies.size()));
        ASSERT_TRUE(world->DestroyBody(bodies[k]).ok());
        bodies.erase(bodies.begin() + static_cast<long>(k));
      }
      ASSERT_EQ(ValidateIslands(world->state()), "") << "seed " << seed << " step " << step;
    }
  }
}

TEST(JointApiTest, ReactionForceOfAHangingBodyIsItsWeight) {
  auto world = MakeWorld();
  const BodyId anchor = AddStaticAnchor(world.get(), {0.0f, 10.0f});
  const BodyId bob = AddDynamicRect(world.get(), {0.0f, 9.0f}, 0.2f, 0.2f, 5.0f);
  RevoluteJointDef d;
  d.body_a = anchor;
  d.body_b = bob;
  d.local_anchor_b = {0.0f, 1.0f};
  const JointId joint = world->CreateRevoluteJoint(d).value();
  EXPECT_EQ(world->GetJointReactionForce(joint).value(), (Vec2{0.0f, 0.0f}));
  testing::StepN(world.get(), 30);
  const float weight = world->GetBody(bob)->mass * 10.0f;
  const Vec2 force = world->GetJointReactionForce(joint).value();
  EXPECT_NEAR(force.x, 0.0f, 1e-3f * weight);
  EXPECT_NEAR(force.y, weight, 1e-3f * weight);
  EXPECT_NEAR(world->GetJointReactionTorque(joint).value(), 0.0f, 1e-3f * weight);
}

TEST(JointApiTest, AMovingKinematicBodyWakesWhatItHolds) {
  auto world = MakeWorld();
  BodyDef kd;
  kd.type = BodyType::kKinematic;
  kd.position = {0.0f, 10.0f};
  const BodyId crane = world->CreateBody(kd).value();
  const BodyId load = AddDynamicBox(world.get(), {0.0f, 8.0f}, 0.25f);
  RevoluteJointDef d;
  d.body_a = crane;
  d.body_b = load;
  d.local_anchor_b = {0.0f, 2.0f};
  ASSERT_TRUE(world->CreateRevoluteJoint(d).ok());
  testing::StepN(world.get(), 120);
  ASSERT_FALSE(world->GetBody(load)->is_awake);
  ASSERT_TRUE(world->SetLinearVelocity(crane, {2.0f, 0.0f}).ok());
  testing::StepN(world.get(), 60);
  EXPECT_TRUE(world->GetBody(load)->is_awake);
  EXPECT_GT(world->GetBody(load)->world_center.x, 1.0f);
  EXPECT_EQ(ValidateIslands(world->state()), "");
}

// Counts what World::Draw hands over.
class CountingDraw : public DebugDraw {
 public:
  void DrawPolygon(std::span<const Vec2>, float, Color, Color) override {}
  void DrawCircle(Vec2, float, Vec2, Color, Color) override {}
  void DrawCapsule(Vec2, Vec2, float, Color, Color) override {}
  void DrawSegment(Vec2, Vec2, Color) override { ++segments; }
  void DrawPoint(Vec2, float, Color) override { ++points; }
  void DrawString(Vec2, std::string_view, Color) override {}
  int segments = 0;
  int points = 0;
};

TEST(JointApiTest, DebugDrawShowsJointsWhenAsked) {
  auto world = MakeWorld();
  const BodyId anchor = AddStaticAnchor(world.get(), {0.0f, 5.0f});
  const BodyId bob = AddDynamicBox(world.get(), {1.0f, 5.0f}, 0.25f);
  RevoluteJointDef d;
  d.body_a = anchor;
  d.body_b = bob;
  d.local_anchor_b = {-1.0f, 0.0f};
  ASSERT_TRUE(world->CreateRevoluteJoint(d).ok());
  TargetJointDef t;
  t.body = bob;
  t.target = {1.0f, 5.0f};
  ASSERT_TRUE(world->CreateTargetJoint(t).ok());
  DebugDrawOptions options;
  options.shapes = false;
  CountingDraw with;
  world->Draw(&with, options);
  EXPECT_EQ(with.segments, 3 + 1);
  EXPECT_EQ(with.points, 2 + 1);
  options.joints = false;
  CountingDraw without;
  world->Draw(&without, options);
  EXPECT_EQ(without.segments + without.points, 0);
}

}  // namespace
}  // namespace atl
