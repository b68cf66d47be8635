// Time of impact against a fine brute-force sweep of the motion.

#include "atoll/time_of_impact.h"

#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "test_shapes.h"

namespace atl {
namespace {

using testing::CoreDistance;
using testing::RandomShape;
using testing::ToWorld;

double CoreDistanceAt(const TOIInput& in, double t) {
  const Transform xa = GetSweepTransform(in.sweep_a, static_cast<float>(t));
  const Transform xb = GetSweepTransform(in.sweep_b, static_cast<float>(t));
  return CoreDistance(ToWorld(in.proxy_a, xa), ToWorld(in.proxy_b, xb));
}

double TargetOf(const TOIInput& in) {
  return std::fmax(kLinearSlop,
                   in.proxy_a.radius + in.proxy_b.radius - kLinearSlop);
}

Sweep StillSweep(Vec2 c, Rot q) { return {{0, 0}, c, c, q, q}; }

TEST(SweepTest, TransformInterpolatesCenterAndKeepsLocalCenterOnPath) {
  const Sweep sweep{{0.5f, 0.0f}, {1, 1}, {3, 1}, {1, 0}, MakeRot(1.0f)};
  const Transform start = GetSweepTransform(sweep, 0.0f);
  EXPECT_NEAR(start.p.x, 0.5f, 1e-6f);  // origin = c - R(q) local_center
  EXPECT_NEAR(start.p.y, 1.0f, 1e-6f);
  const Transform end = GetSweepTransform(sweep, 1.0f);
  EXPECT_NEAR(end.q.c, MakeRot(1.0f).c, 1e-6f);
  EXPECT_NEAR(end.q.s, MakeRot(1.0f).s, 1e-6f);
  const Transform mid = GetSweepTransform(sweep, 0.5f);
  const Vec2 center = TransformPoint(mid, sweep.local_center);
  EXPECT_NEAR(center.x, 2.0f, 1e-6f);
  EXPECT_NEAR(center.y, 1.0f, 1e-6f);
  EXPECT_NEAR(mid.q.c * mid.q.c + mid.q.s * mid.q.s, 1.0f, 1e-6f);
}

TEST(TimeOfImpactTest, BulletStopsAtThinWallWithoutTunneling) {
  TOIInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(0.05f, 5.0f)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(Circle{{0, 0}, 0.1f}));
  in.sweep_a = StillSweep({0, 0}, {1, 0});
  // 20 m in one step: the discrete end pose is far past the wall.
  in.sweep_b = {{0, 0}, {-10, 0.5f}, {10, 0.5f}, {1, 0}, {1, 0}};
  const TOIOutput out = TimeOfImpact(in);
  ASSERT_EQ(out.state, TOIState::kHit);
  // The core (the circle's center) stops `target` short of the face.
  const double expected = (-0.05 - TargetOf(in) - -10.0) / 20.0;
  EXPECT_NEAR(out.fraction, expected, kLinearSlop / 20.0);
}

TEST(TimeOfImpactTest, OverlappingAtStartIsReported) {
  TOIInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(1, 1)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(*MakeBox(1, 1)));
  in.sweep_a = StillSweep({0, 0}, {1, 0});
  in.sweep_b = {{0, 0}, {1, 0}, {5, 0}, {1, 0}, {1, 0}};
  const TOIOutput out = TimeOfImpact(in);
  EXPECT_EQ(out.state, TOIState::kOverlapped);
  EXPECT_EQ(out.fraction, 0.0f);
}

TEST(TimeOfImpactTest, ParallelMotionIsSeparated) {
  TOIInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(1, 1)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(*MakeBox(1, 1)));
  in.sweep_a = {{0, 0}, {0, 0}, {10, 0}, {1, 0}, {1, 0}};
  in.sweep_b = {{0, 0}, {0, 3}, {10, 3}, {1, 0}, {1, 0}};
  const TOIOutput out = TimeOfImpact(in);
  EXPECT_EQ(out.state, TOIState::kSeparated);
  EXPECT_EQ(out.fraction, 1.0f);
}

TEST(TimeOfImpactTest, SpinningBarHitsBox) {
  // A 4 m bar spinning a quarter turn about its center sweeps into a box
  // that a purely linear test would never see.
  TOIInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(0.5f, 0.5f)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(*MakeBox(2.0f, 0.05f)));
  in.sweep_a = StillSweep({0.0f, 1.5f}, {1, 0});
  in.sweep_b = {{0, 0}, {0, 0}, {0, 0}, {1, 0}, MakeRot(0.5f * kPi - 0.01f)};
  const TOIOutput out = TimeOfImpact(in);
  ASSERT_EQ(out.state, TOIState::kHit);
  EXPECT_GT(out.fraction, 0.05f);
  EXPECT_LT(out.fraction, 0.95f);
  EXPECT_NEAR(CoreDistanceAt(in, out.fraction), TargetOf(in),
              0.25 * kLinearSlop + 1e-5);
}

// Property: against a fine sweep, TOI never reports a time after the shapes
// first reach the target distance, and at a hit they are at the target.
TEST(TimeOfImpactTest, MatchesBruteForceSweepOfRandomMotions) {
  std::mt19937 rng(404);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  const ShapeType types[] = {ShapeType::kCircle, ShapeType::kCapsule,
                             ShapeType::kPolygon, ShapeType::kSegment};
  int hits = 0, separated = 0, failed = 0;
  const int kSamples = 2000;
  for (int trial = 0; trial < 200; ++trial) {
    TOIInput in;
    in.proxy_a = MakeShapeProxy(RandomShape(&rng, types[trial % 4], 1.5f));
    in.proxy_b = MakeShapeProxy(RandomShape(&rng, types[(trial / 4) % 3], 1.0f));
    const Vec2 start{4.0f * unit(rng), 4.0f * unit(rng)};
    // Every other motion passes through A's neighbourhood.
    const Vec2 end = Vec2{unit(rng), unit(rng)} * (trial % 2 ? 1.0f : 6.0f) - start;
    in.sweep_a = {{0.1f * unit(rng), 0.1f * unit(rng)}, {0, 0},
                  {0.2f * unit(rng), 0.2f * unit(rng)}, MakeRot(3.0f * unit(rng)),
                  {1, 0}};
    in.sweep_a.q2 = MulRot(in.sweep_a.q1, MakeRot(1.2f * unit(rng)));
    in.sweep_b = {{0.1f * unit(rng), 0.1f * unit(rng)}, start, end,
                  MakeRot(3.0f * unit(rng)), {1, 0}};
    in.sweep_b.q2 = MulRot(in.sweep_b.q1, MakeRot(1.5f * unit(rng)));
    const double target = TargetOf(in);
    if (CoreDistanceAt(in, 0.0) < target + kLinearSlop) continue;

    const TOIOutput out = TimeOfImpact(in);
    int first_reach = -1;
    for (int i = 0; i <= kSamples && first_reach < 0; ++i) {
      if (CoreDistanceAt(in, double(i) / kSamples) < target) first_reach = i;
    }
    switch (out.state) {
      case TOIState::kHit: {
        ++hits;
        const double d = CoreDistanceAt(in, out.fraction);
        EXPECT_NEAR(d, target, 0.25 * kLinearSlop + 1e-4) << trial;
        if (first_reach >= 0) {
          EXPECT_LE(out.fraction, first_reach / double(kSamples) + 1e-6)
              << trial;
        }
        break;
      }
      case TOIState::kSeparated:
        ++separated;
        EXPECT_EQ(first_reach, -1) << trial;
        break;
      case TOIState::kFailed:
        // Still conservative.
        ++failed;
        if (first_reach >= 0) {
          EXPECT_LE(out.fraction, first_reach / double(kSamples) + 1e-6);
        }
        break;
      default:
        ADD_FAILURE() << "unexpected state " << int(out.state) << " trial "
                      << trial;
    }
  }
  std::printf("toi: %d hits, %d separated, %d failed\n", hits, separated,
              failed);
  EXPECT_GT(hits, 40);
  EXPECT_GT(separated, 30);
  EXPECT_LE(failed, 2);
}

}  // namespace
}  // namespace atl
