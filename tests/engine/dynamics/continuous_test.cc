// Continuous collision: no tunnelling, no effect on slow bodies, the same
// answer from every broad phase and after every rollback.

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/executor.h"
#include "atoll/random.h"
#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "engine/parallel/std_thread_executor.h"
#include "engine/world/world_test_util.h"
#include "world/world_state.h"

namespace atl {
namespace {

using testing::BoxOrDie;
using testing::MakeWorld;

constexpr float kDt = 1.0f / 60.0f;

BodyId AddCircle(World* world, Vec2 position, float radius, Vec2 velocity, bool bullet = false) {
  BodyDef def;
  def.type = BodyType::kDynamic;
  def.position = position;
  def.linear_velocity = velocity;
  def.is_bullet = bullet;
  const BodyId id = world->CreateBody(def).value();
  EXPECT_TRUE(world->CreateCircleShape(id, ShapeDef(), Circle{{0.0f, 0.0f}, radius}).ok());
  return id;
}

// A static wall 5 cm thick and 200 m tall, its faces at x = -0.025 and
// x = +0.025.
void AddThinWall(World* world) {
  BodyDef def;
  const BodyId wall = world->CreateBody(def).value();
  ASSERT_TRUE(world->CreatePolygonShape(wall, ShapeDef(), BoxOrDie(0.025f, 100.0f)).ok());
}

// Fires a 0.1 m circle at 300 m/s at the wall from the left; returns true
// when it ever gets past the wall's middle.
bool FireAtWall(const WorldDef& def, float angle, float y0, float x0) {
  auto world = MakeWorld(def);
  AddThinWall(world.get());
  const Vec2 velocity = 300.0f * Vec2{std::cos(angle), std::sin(angle)};
  const BodyId ball = AddCircle(world.get(), {x0, y0}, 0.1f, velocity);
  for (int step = 0; step < 20; ++step) {
    EXPECT_TRUE(world->Step(kDt).ok());
    if (world->GetBody(ball)->world_center.x > 0.0f) return true;
  }
  return false;
}

TEST(ContinuousTest, FastCircleNeverEndsUpBehindAThinWall) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  Random rng(2024);
  int behind = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    // Up to 80 degrees off the wall's normal, starting 0.2 .. 6 m away
    // (from inside one step's reach to beyond it).
    const float angle = rng.Uniform(-80.0f, 80.0f) * kPi / 180.0f;
    const float y0 = rng.Uniform(-20.0f, 20.0f);
    const float x0 = -rng.Uniform(0.2f, 6.0f);
    if (FireAtWall(def, angle, y0, x0)) ++behind;
  }
  EXPECT_EQ(behind, 0);
}

TEST(ContinuousTest, WithoutContinuousTheSameShotsTunnel) {
  // The check above is not vacuous: the discrete step alone lets these
  // shots through.
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  def.enable_continuous = false;
  Random rng(2024);
  int behind = 0;
  for (int trial = 0; trial < 50; ++trial) {
    const float angle = rng.Uniform(-80.0f, 80.0f) * kPi / 180.0f;
    const float y0 = rng.Uniform(-20.0f, 20.0f);
    const float x0 = -rng.Uniform(0.2f, 6.0f);
    if (FireAtWall(def, angle, y0, x0)) ++behind;
  }
  EXPECT_GT(behind, 25);
}

TEST(ContinuousTest, FastBoxFallingOntoASegmentStaysOnIt) {
  auto world = MakeWorld();
  BodyDef ground_def;
  const BodyId ground = world->CreateBody(ground_def).value();
  // Long enough that nothing slides off its ends (they reach 60 m/s sideways).
  ASSERT_TRUE(world->CreateSegmentShape(ground, ShapeDef(), Segment{{-500.0f, 0.0f}, {500.0f, 0.0f}}).ok());
  std::vector<BodyId> boxes;
  for (int i = 0; i < 10; ++i) {
    BodyDef def;
    def.type = BodyType::kDynamic;
    def.position = {-20.0f + 4.0f * static_cast<float>(i), 5.0f};
    def.angle = 0.3f * static_cast<float>(i);
    def.linear_velocity = {0.0f, -100.0f - 20.0f * static_cast<float>(i)};
    def.angular_velocity = 5.0f;
    const BodyId box = world->CreateBody(def).value();
    ASSERT_TRUE(world->CreatePolygonShape(box, ShapeDef(), BoxOrDie(0.2f, 0.1f)).ok());
    boxes.push_back(box);
  }
  for (int step = 0; step < 120; ++step) {
    ASSERT_TRUE(world->Step(kDt).ok());
    for (BodyId box : boxes) ASSERT_GT(world->GetBody(box)->world_center.y, 0.0f) << "step " << step;
  }
}

// A bullet crosses the path of a box flying across it at 60 m/s. Returns
// whether the bullet ever passed through the box, i.e. its center entered
// the box's inner half (a contact pressed hard may overlap by a few cm, a
// shot through the box crosses its middle): checked at 64 moments per step
// along both bodies' straight-line motion, as continuous collision sees it.
bool BulletPassesThroughBox(bool bullet, float delay) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  BodyDef box_def;
  box_def.type = BodyType::kDynamic;
  box_def.position = {0.0f, -3.0f - 60.0f * delay};
  box_def.linear_velocity = {0.0f, 60.0f};
  const BodyId box = world->CreateBody(box_def).value();
  EXPECT_TRUE(world->CreatePolygonShape(box, ShapeDef(), BoxOrDie(0.5f, 0.5f)).ok());
  const BodyId shot = AddCircle(world.get(), {-12.0f, 0.0f}, 0.05f, {240.0f, 0.0f}, bullet);
  for (int step = 0; step < 30; ++step) {
    const BodyInfo b0 = world->GetBody(box).value(), s0 = world->GetBody(shot).value();
    EXPECT_TRUE(world->Step(kDt).ok());
    const BodyInfo b1 = world->GetBody(box).value(), s1 = world->GetBody(shot).value();
    for (int k = 0; k <= 64; ++k) {
      const float t = static_cast<float>(k) / 64.0f;
      const Vec2 c = Lerp(s0.world_center, s1.world_center, t);
      const Vec2 center = Lerp(b0.world_center, b1.world_center, t);
      const Rot q = NormalizeRot({(1.0f - t) * b0.transform.q.c + t * b1.transform.q.c,
                                  (1.0f - t) * b0.transform.q.s + t * b1.transform.q.s});
      const Vec2 local = InvRotateVector(q, c - center);
      if (std::abs(local.x) < 0.25f && std::abs(local.y) < 0.25f) return true;
    }
  }
  return false;
}

TEST(ContinuousTest, BulletNeverTunnelsThroughAFastMovingBox) {
  int tunnelled = 0, tunnelled_without_bullet = 0;
  for (int i = 0; i < 40; ++i) {
    const float delay = 0.0004f * static_cast<float>(i);  // shift the meeting point
    tunnelled += BulletPassesThroughBox(true, delay) ? 1 : 0;
    tunnelled_without_bullet += BulletPassesThroughBox(false, delay) ? 1 : 0;
  }
  EXPECT_EQ(tunnelled, 0);
  // Without the bullet flag only static shapes stop it: most shots pass.
  EXPECT_GT(tunnelled_without_bullet, 5);
}

TEST(ContinuousTest, BulletHitsABodyThatStoppedEarlierInTheStep) {
  // A box flies into a wall and stops there early in the step; a bullet
  // comes down past the wall's face later in the same step, through where
  // the box now rests. The box's early stop reorders the events: the
  // bullet's impact must be computed against the resting box.
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  BodyDef wall_def;
  wall_def.position = {1.0f, 0.0f};
  const BodyId wall = world->CreateBody(wall_def).value();
  ASSERT_TRUE(world->CreatePolygonShape(wall, ShapeDef(), BoxOrDie(0.1f, 20.0f)).ok());
  BodyDef box_def;
  box_def.type = BodyType::kDynamic;
  box_def.position = {-0.5f, 0.0f};
  box_def.linear_velocity = {300.0f, 0.0f};  // reaches the wall within the first step
  const BodyId box = world->CreateBody(box_def).value();
  ASSERT_TRUE(world->CreatePolygonShape(box, ShapeDef(), BoxOrDie(0.5f, 0.5f)).ok());
  // Straight down the face of the wall, 0.4 m in front of it, crossing
  // y = 0 three quarters into the step.
  const BodyId shot = AddCircle(world.get(), {0.5f, 0.75f * kDt * 400.0f}, 0.05f, {0.0f, -400.0f}, true);
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_EQ(world->profile().continuous_bodies, 2);
  EXPECT_EQ(world->profile().continuous_events, 2);
  const BodyInfo b = world->GetBody(box).value();
  EXPECT_NEAR(b.world_center.x, 1.0f - 0.1f - 0.5f, 0.02f);  // against the wall
  // The bullet stopped on top of the resting box, not inside or below it.
  EXPECT_GT(world->GetBody(shot)->world_center.y, b.world_center.y + 0.5f);
}

TEST(ContinuousTest, APathThatKeepsClearOfStaticShapesRunsNoTimeOfImpact) {
  // A diagonal segment and a turned box, both with boxes that the fast
  // circle's swept box overlaps, but its straight path keeps well clear of
  // both: the path test settles them without a time-of-impact query.
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  BodyDef ground_def;
  const BodyId ground = world->CreateBody(ground_def).value();
  ASSERT_TRUE(world->CreateSegmentShape(ground, ShapeDef(), Segment{{-5.0f, -5.0f}, {5.0f, 5.0f}}).ok());
  ASSERT_TRUE(world->CreatePolygonShape(ground, ShapeDef(),
                                        MakeOffsetBox(0.5f, 0.5f, {0.5f, -1.5f}, 0.7853982f).value())
                  .ok());
  // Parallel to the segment, 0.7 m from it, and 1.4 m from the box's
  // nearest corner.
  const BodyId ball = AddCircle(world.get(), {-3.0f, -2.0f}, 0.1f, {180.0f, 180.0f});
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_EQ(world->profile().continuous_bodies, 1);
  EXPECT_EQ(world->profile().continuous_events, 0);
  EXPECT_EQ(world->profile().continuous_toi_queries, 0);
  EXPECT_NEAR(world->GetBody(ball)->world_center.x, -3.0f + 3.0f, 1e-4f);

  // Aimed across the segment instead: the query runs and stops it in front.
  auto crossing = MakeWorld(def);
  const BodyId wall = crossing->CreateBody(ground_def).value();
  ASSERT_TRUE(crossing->CreateSegmentShape(wall, ShapeDef(), Segment{{-5.0f, -5.0f}, {5.0f, 5.0f}}).ok());
  const BodyId shot = AddCircle(crossing.get(), {-1.0f, 1.0f}, 0.1f, {180.0f, -180.0f});
  ASSERT_TRUE(crossing->Step(kDt).ok());
  EXPECT_GT(crossing->profile().continuous_toi_queries, 0);
  EXPECT_EQ(crossing->profile().continuous_events, 1);
  const Vec2 c = crossing->GetBody(shot)->world_center;
  EXPECT_GT(c.y - c.x, 0.0f);  // still on its own side of the line y = x
}

TEST(ContinuousTest, ABallSpinningAboutItsCenterIsFastOnlyByItsTravel) {
  // 6 cm of travel in a step is under half the 0.2 m radius; a turn of one
  // radian moves the ball's surface 0.19 m but covers no new ground. A box
  // of the same half-width turning as much sweeps its corners 0.27 m.
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = MakeWorld(def);
  AddThinWall(world.get());  // 50 m away: something static to sweep against
  BodyDef body_def;
  body_def.type = BodyType::kDynamic;
  body_def.position = {-50.0f, 0.0f};
  body_def.linear_velocity = {3.6f, 0.0f};
  body_def.angular_velocity = 60.0f;
  const BodyId ball = world->CreateBody(body_def).value();
  ASSERT_TRUE(world->CreateCircleShape(ball, ShapeDef(), Circle{{0.0f, 0.0f}, 0.2f}).ok());
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_EQ(world->profile().continuous_bodies, 0);

  body_def.position = {-50.0f, 10.0f};
  const BodyId box = world->CreateBody(body_def).value();
  ASSERT_TRUE(world->CreatePolygonShape(box, ShapeDef(), BoxOrDie(0.2f, 0.2f)).ok());
  ASSERT_TRUE(world->Step(kDt).ok());
  EXPECT_EQ(world->profile().continuous_bodies, 1);
}

TEST(ContinuousTest, RestoreRecomputesWhatTurningBodiesSweep) {
  // Body::core_extent is derived from the shapes, not saved: a restored
  // world must compute the same value for every kind of body.
  WorldDef def;
  auto world = MakeWorld(def);
  BodyDef body_def;
  body_def.type = BodyType::kDynamic;
  const BodyId pair = world->CreateBody(body_def).value();
  ASSERT_TRUE(world->CreateCircleShape(pair, ShapeDef(), Circle{{-1.0f, 0.0f}, 0.3f}).ok());
  ASSERT_TRUE(world->CreateCircleShape(pair, ShapeDef(), Circle{{2.0f, 0.0f}, 0.3f}).ok());
  body_def.type = BodyType::kKinematic;
  const BodyId rod = world->CreateBody(body_def).value();
  ASSERT_TRUE(
      world->CreateCapsuleShape(rod, ShapeDef(), Capsule{{0.0f, 0.0f}, {0.0f, 4.0f}, 0.5f}).ok());
  const BodyId ground = world->CreateBody(BodyDef()).value();
  ASSERT_TRUE(
      world->CreatePolygonShape(ground, ShapeDef(), *MakeRoundedBox(3.0f, 1.0f, 0.5f)).ok());
  const WorldState& state = world->state();
  // Equal masses: the center of mass is halfway between the circles.
  EXPECT_FLOAT_EQ(state.bodies[pair.index].core_extent, 1.5f);
  EXPECT_FLOAT_EQ(state.bodies[rod.index].core_extent, 4.0f);
  EXPECT_FLOAT_EQ(state.bodies[ground.index].core_extent, std::sqrt(10.0f));
  auto restored = LoadSnapshot(SaveSnapshot(*world), BroadPhaseType::kBatchBvh);
  ASSERT_TRUE(restored.ok()) << restored.status();
  for (BodyId id : {pair, rod, ground}) {
    EXPECT_EQ((*restored)->state().bodies[id.index].core_extent,
              state.bodies[id.index].core_extent);
  }
}

// The hash of `world` as if its continuous flag were `on`: the flag is part
// of the saved settings, so worlds differing only in it never hash equal;
// what must match is everything else.
uint64_t HashWithContinuousFlag(World* world, bool on) {
  const bool saved = world->state().def.enable_continuous;
  world->state().def.enable_continuous = on;
  const uint64_t hash = HashWorld(*world);
  world->state().def.enable_continuous = saved;
  return hash;
}

TEST(ContinuousTest, WithoutFastBodiesOnAndOffGiveIdenticalHashChains) {
  for (const char* name : {"pyramid", "vertical_stack", "many_pyramids"}) {
    SceneDesc desc = MakeScene(name, {.size = std::string(name) == "many_pyramids" ? 2 : 0}).value();
    desc.world.enable_continuous = true;
    auto on = BuildWorld(desc).value();
    desc.world.enable_continuous = false;
    auto off = BuildWorld(desc).value();
    for (int step = 0; step < 180; ++step) {
      ASSERT_TRUE(on->Step(kDt).ok());
      ASSERT_TRUE(off->Step(kDt).ok());
      ASSERT_EQ(on->profile().continuous_bodies, 0) << name << " step " << step;
      ASSERT_EQ(HashWithContinuousFlag(on.get(), true), HashWithContinuousFlag(off.get(), true))
          << name << " step " << step;
    }
  }
}

TEST(ContinuousTest, SlowBodiesAreUntouchedWhileFastOnesAreStopped) {
  // A pyramid settles while fast circles hit a wall next to it: the pyramid
  // is bit-identical with CCD on and off.
  SceneDesc desc = MakeScene("pyramid", {.size = 10}).value();
  const size_t pyramid_bodies = desc.bodies.size();
  SceneBody wall;  // tall enough that nothing falls around it in 2 s
  wall.def.position = {100.0f, 0.0f};
  wall.shapes.push_back({ShapeGeometry(BoxOrDie(0.025f, 50.0f)), ShapeDef()});
  desc.bodies.push_back(wall);
  for (int i = 0; i < 10; ++i) {
    SceneBody ball;
    ball.def.type = BodyType::kDynamic;
    ball.def.position = {90.0f, 2.0f + 1.5f * static_cast<float>(i)};
    ball.def.linear_velocity = {250.0f, 10.0f * static_cast<float>(i - 5)};
    ball.shapes.push_back({ShapeGeometry(Circle{{0.0f, 0.0f}, 0.1f}), ShapeDef()});
    desc.bodies.push_back(ball);
  }
  desc.world.enable_continuous = true;
  auto on = BuildWorld(desc).value();
  desc.world.enable_continuous = false;
  auto off = BuildWorld(desc).value();
  const std::vector<BodyId> ids = on->GetBodyIds();
  int events = 0;
  for (int step = 0; step < 120; ++step) {
    ASSERT_TRUE(on->Step(kDt).ok());
    ASSERT_TRUE(off->Step(kDt).ok());
    events += on->profile().continuous_events;
    for (size_t i = 0; i < pyramid_bodies; ++i) {
      const BodyInfo a = on->GetBody(ids[i]).value(), b = off->GetBody(ids[i]).value();
      ASSERT_TRUE(a.transform == b.transform && a.linear_velocity == b.linear_velocity &&
                  a.angular_velocity == b.angular_velocity)
          << "body " << i << " step " << step;
    }
  }
  EXPECT_GE(events, 10);
  // The balls stayed in front of the wall with CCD and went through without.
  for (size_t i = pyramid_bodies + 1; i < ids.size(); ++i) {
    EXPECT_LT(on->GetBody(ids[i])->world_center.x, 100.0f);
    EXPECT_GT(off->GetBody(ids[i])->world_center.x, 100.0f);
  }
}

// A scene full of fast bodies: `debris_count` fast bodies (every fifth a
// bullet, unless `bullets` is false) against thin statics and each other.
SceneDesc FastScene(uint64_t seed, int debris_count = 30, bool bullets = true) {
  SceneDesc desc = MakeScene("add_pair", {.size = 200, .seed = seed}).value();
  Random rng(seed);
  // A thin static floor and wall, and fast non-bullet debris towards them.
  SceneBody floor;
  floor.shapes.push_back({ShapeGeometry(Segment{{-80.0f, -2.0f}, {80.0f, -2.0f}}), ShapeDef()});
  floor.shapes.push_back({ShapeGeometry(BoxOrDie(0.05f, 20.0f)), ShapeDef()});
  desc.bodies.push_back(floor);
  for (int i = 0; i < debris_count; ++i) {
    SceneBody debris;
    debris.def.type = BodyType::kDynamic;
    debris.def.position = {rng.Uniform(-30.0f, -5.0f), rng.Uniform(0.0f, 15.0f)};
    debris.def.linear_velocity = {rng.Uniform(50.0f, 150.0f), rng.Uniform(-80.0f, 20.0f)};
    debris.def.angular_velocity = rng.Uniform(-20.0f, 20.0f);
    debris.def.is_bullet = bullets && i % 5 == 0;
    debris.shapes.push_back({ShapeGeometry(BoxOrDie(0.1f, 0.05f)), ShapeDef()});
    desc.bodies.push_back(debris);
  }
  return desc;
}

// The hash chain of `desc` over `steps` steps on `executor` (null: the
// serial one); adds the continuous-collision events to *events.
std::vector<uint64_t> ChainOf(const SceneDesc& desc, Executor* executor, int steps, int* events) {
  auto world = BuildWorld(desc).value();
  world->SetExecutor(executor);
  std::vector<uint64_t> chain;
  for (int i = 0; i < steps; ++i) {
    EXPECT_TRUE(world->Step(kDt).ok());
    chain.push_back(HashWorld(*world));
    *events += world->profile().continuous_events;
  }
  return chain;
}

constexpr BroadPhaseType kEveryBroadPhase[] = {BroadPhaseType::kBatchBvh, BroadPhaseType::kKdSap,
                                               BroadPhaseType::kDynamicTree,
                                               BroadPhaseType::kBruteForce};

TEST(ContinuousTest, EveryBroadPhaseGivesTheSameHashChain) {
  SceneDesc desc = FastScene(3);
  std::vector<uint64_t> reference;
  int events = 0;
  for (BroadPhaseType type : kEveryBroadPhase) {
    desc.world.broad_phase = type;
    int type_events = 0;
    const std::vector<uint64_t> chain = ChainOf(desc, nullptr, 150, &type_events);
    if (reference.empty()) {
      reference = chain;
      events = type_events;
    } else {
      EXPECT_EQ(chain, reference) << BroadPhaseTypeName(type);
    }
  }
  EXPECT_GT(events, 20);  // the scene does exercise the event loop
}

// The non-bullets' sweeps against static shapes run in blocks on every
// thread, each thread querying the broad phase at once: the same chain at
// every thread count, with every broad phase.
TEST(ContinuousTest, EveryBroadPhaseGivesTheSameHashChainAtEveryThreadCount) {
  SceneDesc desc = FastScene(5, 700, /*bullets=*/false);
  // Enough bodies for several blocks (256 awake bodies at least each).
  ASSERT_GE(desc.bodies.size(), 900u);
  std::vector<uint64_t> reference;
  int events = 0;
  for (BroadPhaseType type : kEveryBroadPhase) {
    desc.world.broad_phase = type;
    for (int32_t threads : {1, 3, 8}) {
      auto pool = testing::kThreadSanitizer ? testing::MakeStdThreadExecutor(threads)
                                            : MakeThreadPoolExecutor(threads);
      int run_events = 0;
      const std::vector<uint64_t> chain = ChainOf(desc, pool.get(), 30, &run_events);
      if (reference.empty()) {
        reference = chain;
        events = run_events;
      } else {
        EXPECT_EQ(chain, reference) << BroadPhaseTypeName(type) << " at " << threads << " threads";
      }
    }
  }
  EXPECT_GT(events, 500);  // many fast bodies do hit something
}

// A 0.1 m circle at 120 m/s (2 m a step) along y = 0 from x = -20, and a
// thin static wall parked at (0, 50), off its path.
struct WallAhead {
  std::unique_ptr<World> world;
  BodyId ball;
  BodyId wall;
};
WallAhead MakeWallAhead() {
  WallAhead scene;
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  scene.world = MakeWorld(def);
  BodyDef wall_def;
  wall_def.position = {0.0f, 50.0f};
  scene.wall = scene.world->CreateBody(wall_def).value();
  EXPECT_TRUE(scene.world->CreatePolygonShape(scene.wall, ShapeDef(), BoxOrDie(0.025f, 1.0f)).ok());
  scene.ball = AddCircle(scene.world.get(), {-20.0f, 0.0f}, 0.1f, {120.0f, 0.0f});
  return scene;
}

TEST(ContinuousTest, AStaticShapeMovedIntoThePathIsHitAtOnce) {
  // Continuous collision keeps the statics near a fast body's path from
  // step to step; a static moved onto the path just ahead (inside what was
  // kept, as nothing) must stop the body all the same.
  WallAhead scene = MakeWallAhead();
  ASSERT_TRUE(scene.world->Step(kDt).ok());
  ASSERT_EQ(scene.world->profile().continuous_bodies, 1);
  ASSERT_TRUE(scene.world->SetTransform(scene.wall, {-13.0f, 0.0f}, 0.0f).ok());
  for (int step = 0; step < 5; ++step) ASSERT_TRUE(scene.world->Step(kDt).ok());
  EXPECT_LT(scene.world->GetBody(scene.ball)->world_center.x, -13.0f);
}

TEST(ContinuousTest, RestoringInPlaceForgetsWhatWasKeptForTheOldStatics) {
  // Restoring into the same world keeps its scratch memory but rebuilds the
  // broad phase: what continuous collision kept about the old statics (no
  // wall near the path) must not be taken for the new ones'.
  WallAhead scene = MakeWallAhead();
  ASSERT_TRUE(scene.world->Step(kDt).ok());
  ASSERT_TRUE(scene.world->SetTransform(scene.wall, {-13.0f, 0.0f}, 0.0f).ok());
  const std::string saved = SaveSnapshot(*scene.world);
  ASSERT_TRUE(RestoreSnapshot(saved, scene.world.get()).ok());
  auto fresh = LoadSnapshot(saved, BroadPhaseType::kBatchBvh).value();
  for (int step = 0; step < 5; ++step) {
    ASSERT_TRUE(scene.world->Step(kDt).ok());
    ASSERT_TRUE(fresh->Step(kDt).ok());
    ASSERT_EQ(HashWorld(*scene.world), HashWorld(*fresh)) << "step " << step;
  }
  EXPECT_LT(scene.world->GetBody(scene.ball)->world_center.x, -13.0f);
}

TEST(ContinuousTest, RollbackThroughFastMotionIsExact) {
  auto world = BuildWorld(FastScene(4)).value();
  std::vector<std::string> saved;
  std::vector<uint64_t> hashes;
  for (int tick = 0; tick < 120; ++tick) {
    saved.push_back(SaveSnapshot(*world));
    hashes.push_back(HashWorld(*world));
    ASSERT_TRUE(world->Step(kDt).ok());
  }
  hashes.push_back(HashWorld(*world));
  Random rng(9);
  for (int trial = 0; trial < 4; ++trial) {
    const int from = static_cast<int>(rng.Below(120));
    auto replay = LoadSnapshot(saved[from], BroadPhaseType::kKdSap);
    ASSERT_TRUE(replay.ok());
    for (int tick = from; tick < 120; ++tick) {
      ASSERT_EQ(HashWorld(**replay), hashes[tick]) << "from " << from << " diverged at " << tick;
      ASSERT_TRUE((*replay)->Step(kDt).ok());
    }
    EXPECT_EQ(HashWorld(**replay), hashes[120]);
  }
}

}  // namespace
}  // namespace atl
