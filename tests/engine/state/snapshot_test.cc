// Snapshots: canonical, complete (rollback equivalence) and defensive.

#include "atoll/snapshot.h"

#include <gtest/gtest.h>

#include <cstring>

#include "atoll/random.h"
#include "atoll/scene.h"
#include "dynamics/contact.h"
#include "world/world_state.h"
#include "engine/world/world_test_util.h"

namespace atl {
namespace {

// A busy world: falling mixed shapes on a ground, so there are contacts,
// islands, sleeping and waking.
std::unique_ptr<World> BusyWorld(uint64_t seed) {
  return BuildWorld(MakeScene("mixed_static_dynamic", {.size = 200, .seed = seed}).value()).value();
}

TEST(SnapshotTest, SaveLoadSaveIsByteIdentical) {
  auto world = BusyWorld(1);
  testing::StepN(world.get(), 90);
  const std::string first = SaveSnapshot(*world);
  auto loaded = LoadSnapshot(first);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(SaveSnapshot(**loaded), first);
  EXPECT_EQ(HashWorld(**loaded), HashWorld(*world));
}

// HashWorld hashes the body as it writes it, a chunk at a time; the value
// is defined as the XXH3 of the whole body, which SaveSnapshot's trailer
// holds. Checked for a world whose body spans many chunks, one that fits in
// one, and with a scratch buffer that already holds something.
TEST(SnapshotTest, HashWorldIsTheXxh3OfTheSnapshotBody) {
  auto trailer = [](const std::string& snapshot) {
    uint64_t hash = 0;
    std::memcpy(&hash, snapshot.data() + snapshot.size() - sizeof(hash), sizeof(hash));
    return hash;
  };
  auto world = BusyWorld(2);
  testing::StepN(world.get(), 90);
  const std::string snapshot = SaveSnapshot(*world);
  ASSERT_GT(snapshot.size(), 64u * 1024);
  std::string scratch(1000, 'x');
  EXPECT_EQ(HashWorld(*world, &scratch), trailer(snapshot));
  EXPECT_EQ(HashWorld(*world), trailer(snapshot));
  auto small = BuildWorld(MakeScene("pyramid", {.size = 2}).value()).value();
  const std::string small_snapshot = SaveSnapshot(*small);
  ASSERT_LT(small_snapshot.size(), 16u * 1024);
  EXPECT_EQ(HashWorld(*small, &scratch), trailer(small_snapshot));
}

TEST(SnapshotTest, RestoreThenStepEqualsSteppingOn) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    auto world = BusyWorld(seed);
    Random rng(seed);
    std::vector<std::string> saved;
    std::vector<uint64_t> hashes;
    for (int tick = 0; tick < 240; ++tick) {
      saved.push_back(SaveSnapshot(*world));
      hashes.push_back(HashWorld(*world));
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    }
    hashes.push_back(HashWorld(*world));
    // Restore at random ticks into a fresh world and re-step to the end.
    for (int trial = 0; trial < 5; ++trial) {
      const int from = static_cast<int>(rng.Below(240));
      auto replay = LoadSnapshot(saved[from]);
      ASSERT_TRUE(replay.ok());
      for (int tick = from; tick < 240; ++tick) {
        ASSERT_EQ(HashWorld(**replay), hashes[tick]) << "seed " << seed << " from " << from
                                                     << " diverged at " << tick;
        ASSERT_TRUE((*replay)->Step(1.0f / 60.0f).ok());
      }
      EXPECT_EQ(HashWorld(**replay), hashes[240]);
    }
  }
}

TEST(SnapshotTest, HashIgnoresBroadPhaseStrategy) {
  SceneDesc desc = MakeScene("falling_squares", {.size = 150}).value();
  std::vector<uint64_t> reference;
  for (BroadPhaseType type : {BroadPhaseType::kBatchBvh, BroadPhaseType::kKdSap,
                              BroadPhaseType::kDynamicTree, BroadPhaseType::kBruteForce}) {
    desc.world.broad_phase = type;
    auto world = BuildWorld(desc).value();
    std::vector<uint64_t> chain;
    for (int i = 0; i < 120; ++i) {
      ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
      chain.push_back(HashWorld(*world));
    }
    if (reference.empty()) {
      reference = chain;
    } else {
      EXPECT_EQ(chain, reference) << BroadPhaseTypeName(type);
    }
  }
}

TEST(SnapshotTest, BadBlobsAreRejectedAndWorldIsUnchanged) {
  auto world = BusyWorld(2);
  testing::StepN(world.get(), 30);
  const std::string good = SaveSnapshot(*world);
  const uint64_t before = HashWorld(*world);

  std::string truncated = good.substr(0, good.size() / 2);
  absl::Status s = RestoreSnapshot(truncated, world.get());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("truncated"), std::string::npos) << s;

  std::string corrupted = good;
  corrupted[corrupted.size() / 2] ^= 0x40;
  s = RestoreSnapshot(corrupted, world.get());
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;

  std::string wrong_version = good;
  wrong_version[8] = 99;
  s = RestoreSnapshot(wrong_version, world.get());
  EXPECT_NE(s.message().find("version"), std::string::npos) << s;

  std::string not_snapshot = "hello, world, this is not a snapshot at all";
  EXPECT_NE(RestoreSnapshot(not_snapshot, world.get()).message().find("magic"), std::string::npos);
  EXPECT_FALSE(RestoreSnapshot(std::string(), world.get()).ok());

  EXPECT_EQ(HashWorld(*world), before);
  EXPECT_TRUE(world->Step(1.0f / 60.0f).ok());
}

// Restore skips validating a geometry the restored world already holds
// bit for bit; a changed one is still validated.
TEST(SnapshotTest, BadGeometryIsRejectedEvenOverAValidShape) {
  auto world = BusyWorld(3);
  testing::StepN(world.get(), 10);
  const uint64_t before = HashWorld(*world);
  auto copy = LoadSnapshot(SaveSnapshot(*world)).value();
  WorldState& s = copy->state();
  int32_t poked = -1;
  for (int32_t i = 0; i < s.shape_ids.Capacity() && poked < 0; ++i) {
    if (!s.shape_ids.IsAlive(i) || s.shapes[i].geometry.type != ShapeType::kPolygon) continue;
    // A vertex pulled inside the polygon breaks convexity.
    Polygon& p = s.shapes[i].geometry.polygon;
    p.vertices[0] = 0.1f * p.vertices[0] + 0.9f * p.centroid;
    poked = i;
  }
  ASSERT_GE(poked, 0);
  const std::string bad = SaveSnapshot(*copy);
  const absl::Status status = RestoreSnapshot(bad, world.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("shape"), std::string::npos) << status;
  EXPECT_EQ(HashWorld(*world), before);
  // The untouched snapshot restores over the same world.
  EXPECT_TRUE(RestoreSnapshot(SaveSnapshot(*world), world.get()).ok());
  EXPECT_EQ(HashWorld(*world), before);
}

// Between steps every live contact carries kContactPersisted (the contact
// manager relies on it); a snapshot contact without it is malformed.
TEST(SnapshotTest, ContactWithoutPersistedFlagIsRejected) {
  auto world = BusyWorld(4);
  testing::StepN(world.get(), 40);
  const uint64_t before = HashWorld(*world);
  auto copy = LoadSnapshot(SaveSnapshot(*world)).value();
  WorldState& s = copy->state();
  int32_t poked = -1;
  for (int32_t i = 0; i < s.contact_ids.Capacity() && poked < 0; ++i) {
    if (!s.contact_ids.IsAlive(i)) continue;
    EXPECT_NE(s.contacts[i].flags & kContactPersisted, 0u);
    s.contacts[i].flags &= ~kContactPersisted;
    poked = i;
  }
  ASSERT_GE(poked, 0) << "the scene should have contacts by now";
  const absl::Status status = RestoreSnapshot(SaveSnapshot(*copy), world.get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find("contact"), std::string::npos) << status;
  EXPECT_EQ(HashWorld(*world), before);
}

// Every joint type, with motors, limits and springs at work, on a ground
// with a few loose boxes hitting them.
std::unique_ptr<World> JointWorld() {
  auto world = testing::MakeWorld();
  const BodyId ground = testing::AddGround(world.get(), 40.0f);
  auto box = [&](Vec2 p, float h) { return testing::AddDynamicBox(world.get(), p, h); };
  // A chain of revolute links with limits hanging from the ground body.
  BodyId previous = ground;
  for (int i = 0; i < 6; ++i) {
    const BodyId link = box({-10.0f + 0.5f * static_cast<float>(i), 8.0f}, 0.25f);
    RevoluteJointDef d;
    d.body_a = previous;
    d.body_b = link;
    d.local_anchor_a = i == 0 ? Vec2{-10.25f, 9.0f} : Vec2{0.25f, 0.0f};
    d.local_anchor_b = {-0.25f, 0.0f};
    d.enable_limit = i % 2 == 0;
    d.lower_angle = -0.5f;
    d.upper_angle = 0.5f;
    EXPECT_TRUE(world->CreateRevoluteJoint(d).ok());
    previous = link;
  }
  const BodyId a = box({0.0f, 3.0f}, 0.5f), b = box({2.0f, 3.0f}, 0.5f), c = box({4.0f, 3.0f}, 0.5f);
  DistanceJointDef dist;
  dist.body_a = a;
  dist.body_b = b;
  dist.length = 2.0f;
  dist.enable_spring = true;
  dist.hertz = 3.0f;
  dist.damping_ratio = 0.2f;
  EXPECT_TRUE(world->CreateDistanceJoint(dist).ok());
  WeldJointDef weld;
  weld.body_a = b;
  weld.body_b = c;
  weld.local_anchor_a = {1.0f, 0.0f};
  weld.local_anchor_b = {-1.0f, 0.0f};
  weld.angular_hertz = 4.0f;
  EXPECT_TRUE(world->CreateWeldJoint(weld).ok());
  const BodyId slider = box({8.0f, 1.0f}, 0.5f);
  PrismaticJointDef pris;
  pris.body_a = ground;
  pris.body_b = slider;
  pris.local_anchor_a = {8.0f, 2.0f};
  pris.enable_motor = true;
  pris.motor_speed = 1.0f;
  pris.max_motor_force = 50.0f;
  pris.enable_limit = true;
  pris.lower_translation = -1.0f;
  pris.upper_translation = 2.0f;
  EXPECT_TRUE(world->CreatePrismaticJoint(pris).ok());
  const BodyId wheel = box({12.0f, 1.0f}, 0.4f);
  WheelJointDef wh;
  wh.body_a = slider;
  wh.body_b = wheel;
  wh.local_anchor_a = {4.0f, 0.0f};
  wh.enable_motor = true;
  wh.motor_speed = 3.0f;
  wh.max_motor_torque = 20.0f;
  EXPECT_TRUE(world->CreateWheelJoint(wh).ok());
  const BodyId puck = box({-4.0f, 1.0f}, 0.3f);
  MotorJointDef mot;
  mot.body_a = ground;
  mot.body_b = puck;
  mot.linear_offset = {-3.0f, 3.0f};
  mot.max_force = 30.0f;
  EXPECT_TRUE(world->CreateMotorJoint(mot).ok());
  TargetJointDef tgt;
  tgt.body = box({-6.0f, 4.0f}, 0.3f);
  tgt.target = {-6.0f, 4.0f};
  tgt.max_force = 100.0f;
  const JointId target = world->CreateTargetJoint(tgt).value();
  EXPECT_TRUE(world->SetTarget(target, {-7.0f, 6.0f}).ok());
  for (int i = 0; i < 8; ++i) box({-2.0f + static_cast<float>(i), 10.0f + static_cast<float>(i)}, 0.3f);
  return world;
}

TEST(SnapshotTest, JointsRoundTripAndRollBackExactly) {
  auto world = JointWorld();
  std::vector<std::string> saved;
  std::vector<uint64_t> hashes;
  for (int tick = 0; tick < 240; ++tick) {
    saved.push_back(SaveSnapshot(*world));
    hashes.push_back(HashWorld(*world));
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
  }
  hashes.push_back(HashWorld(*world));
  const std::string last = SaveSnapshot(*world);
  auto loaded = LoadSnapshot(last);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(SaveSnapshot(**loaded), last);
  EXPECT_EQ((*loaded)->GetCounters().joints, world->GetCounters().joints);
  Random rng(5);
  for (int trial = 0; trial < 6; ++trial) {
    const int from = static_cast<int>(rng.Below(240));
    // Any broad phase: the strategy never changes results.
    auto replay = LoadSnapshot(saved[from], trial % 2 == 0 ? BroadPhaseType::kBatchBvh
                                                           : BroadPhaseType::kDynamicTree);
    ASSERT_TRUE(replay.ok());
    for (int tick = from; tick < 240; ++tick) {
      ASSERT_EQ(HashWorld(**replay), hashes[tick]) << "from " << from << " diverged at " << tick;
      ASSERT_TRUE((*replay)->Step(1.0f / 60.0f).ok());
    }
    EXPECT_EQ(HashWorld(**replay), hashes[240]);
  }
}

TEST(SnapshotTest, JointImpulsesAreState) {
  // Two worlds equal but for one joint's warm-start impulse must hash
  // differently: the impulse shapes the next step.
  auto world = JointWorld();
  testing::StepN(world.get(), 10);
  const uint64_t h0 = HashWorld(*world);
  auto& joint = world->state().joints[world->GetJointIds().front().index];
  std::get<RevoluteJoint>(joint.data).linear_impulse.x += 1e-3f;
  EXPECT_NE(HashWorld(*world), h0);
}

TEST(SnapshotTest, RecycledManifoldBaseIsState) {
  // A recycled contact's manifold is moved from the poses it was computed
  // at: two worlds equal but for those poses step differently, so they
  // must hash differently and the base must survive a round trip.
  auto world = BusyWorld(5);
  testing::StepN(world.get(), 120);
  WorldState& s = world->state();
  int32_t recycled = -1;
  for (int32_t i = 0; i < s.contact_ids.Capacity() && recycled < 0; ++i) {
    if (s.contact_ids.IsAlive(i) && (s.contacts[i].flags & kContactRecycle) != 0) recycled = i;
  }
  ASSERT_GE(recycled, 0) << "resting polygons should keep a manifold base";
  const std::string saved = SaveSnapshot(*world);
  EXPECT_EQ(SaveSnapshot(*LoadSnapshot(saved).value()), saved);
  const uint64_t h0 = HashWorld(*world);
  s.contacts[recycled].base.transform_b.p.x += 1e-3f;
  EXPECT_NE(HashWorld(*world), h0);
}

TEST(SnapshotTest, HashChangesWhenAnythingChanges) {
  auto world = BusyWorld(3);
  const uint64_t h0 = HashWorld(*world);
  const BodyId first = world->GetBodyIds().back();
  ASSERT_TRUE(world->SetLinearVelocity(first, {0.0f, 1e-3f}).ok());
  EXPECT_NE(HashWorld(*world), h0);
}

}  // namespace
}  // namespace atl
