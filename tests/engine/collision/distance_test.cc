// GJK distance and segment distance against brute force.

#include "atoll/distance.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "test_shapes.h"

namespace atl {
namespace {

using testing::CoreDistance;
using testing::RandomShape;
using testing::RandomTransform;
using testing::SurfaceDistance;
using testing::ToWorld;

TEST(DistanceTest, SeparatedBoxesGiveGapWitnessesAndNormal) {
  DistanceInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(1.0f, 1.0f)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(*MakeBox(0.5f, 0.5f)));
  in.transform_a = {{0.0f, 0.0f}, {1.0f, 0.0f}};
  in.transform_b = {{4.0f, 0.25f}, {1.0f, 0.0f}};
  SimplexCache cache;
  const DistanceOutput out = ShapeDistance(in, &cache);
  EXPECT_NEAR(out.distance, 2.5f, 1e-6f);
  EXPECT_NEAR(out.normal.x, 1.0f, 1e-6f);
  EXPECT_NEAR(out.normal.y, 0.0f, 1e-6f);
  EXPECT_NEAR(out.point_a.x, 1.0f, 1e-6f);
  EXPECT_NEAR(out.point_b.x, 3.5f, 1e-6f);
  EXPECT_NEAR(out.point_a.y, out.point_b.y, 1e-6f);
  EXPECT_GE(out.point_a.y, -0.25f);
  EXPECT_LE(out.point_a.y, 1.0f);
}

TEST(DistanceTest, OverlappingShapesHaveZeroDistance) {
  DistanceInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(1.0f, 1.0f)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(*MakeBox(1.0f, 1.0f)));
  in.transform_b = {{1.5f, 0.5f}, MakeRot(0.3f)};
  const DistanceOutput out = ShapeDistance(in, nullptr);
  EXPECT_EQ(out.distance, 0.0f);
  EXPECT_EQ(out.simplex_count, 3);
}

TEST(DistanceTest, UseRadiiMeasuresBetweenRoundedSurfaces) {
  DistanceInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(Circle{{0, 0}, 0.5f}));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(Circle{{0, 0}, 0.25f}));
  in.transform_b = {{3.0f, 4.0f}, {1, 0}};
  in.use_radii = true;
  DistanceOutput out = ShapeDistance(in, nullptr);
  EXPECT_NEAR(out.distance, 5.0f - 0.75f, 1e-6f);
  EXPECT_NEAR(out.point_a.x, 0.3f, 1e-6f);
  EXPECT_NEAR(out.point_b.y, 4.0f - 0.2f, 1e-6f);

  in.transform_b = {{0.6f, 0.0f}, {1, 0}};  // rounded surfaces overlap
  out = ShapeDistance(in, nullptr);
  EXPECT_EQ(out.distance, 0.0f);
  EXPECT_NEAR(out.point_a.x, 0.3f, 1e-6f);
  EXPECT_EQ(out.point_a, out.point_b);
}

// Property: for random pairs of every shape kind, GJK agrees with the
// brute-force double-precision distance.
TEST(DistanceTest, MatchesBruteForceOnRandomShapePairs) {
  std::mt19937 rng(2024);
  const ShapeType types[] = {ShapeType::kCircle, ShapeType::kCapsule,
                             ShapeType::kSegment, ShapeType::kPolygon};
  int separated = 0, overlapping = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const ShapeGeometry a = RandomShape(&rng, types[trial % 4], 2.0f);
    const ShapeGeometry b = RandomShape(&rng, types[(trial / 4) % 4], 2.0f);
    DistanceInput in;
    in.proxy_a = MakeShapeProxy(a);
    in.proxy_b = MakeShapeProxy(b);
    in.transform_a = RandomTransform(&rng, 2.0f);
    in.transform_b = RandomTransform(&rng, 2.0f);
    in.use_radii = trial % 2 == 0;
    const DistanceOutput out = ShapeDistance(in, nullptr);
    const auto wa = ToWorld(in.proxy_a, in.transform_a);
    const auto wb = ToWorld(in.proxy_b, in.transform_b);
    const double expected =
        in.use_radii ? SurfaceDistance(wa, wb) : CoreDistance(wa, wb);
    ASSERT_NEAR(out.distance, expected, 1e-4) << "trial " << trial;
    if (expected > 1e-3) {
      ++separated;
      // The witnesses are that far apart along the normal.
      const Vec2 d = out.point_b - out.point_a;
      EXPECT_NEAR(Length(d), out.distance, 1e-4) << trial;
      EXPECT_NEAR(Dot(d, out.normal), out.distance, 1e-4) << trial;
    } else {
      ++overlapping;
    }
  }
  EXPECT_GT(separated, 1000);
  EXPECT_GT(overlapping, 500);
}

TEST(DistanceTest, WarmCacheReproducesResultInFewerIterations) {
  std::mt19937 rng(5);
  int cold_iterations = 0, warm_iterations = 0;
  for (int trial = 0; trial < 500; ++trial) {
    DistanceInput in;
    in.proxy_a = MakeShapeProxy(ShapeGeometry(testing::RandomPolygonWithCount(&rng, 8, 2.0f, 0.0f)));
    in.proxy_b = MakeShapeProxy(ShapeGeometry(testing::RandomPolygonWithCount(&rng, 8, 2.0f, 0.0f)));
    in.transform_a = RandomTransform(&rng, 0.5f);
    in.transform_b = RandomTransform(&rng, 0.5f);
    in.transform_b.p += Vec2{3.0f, 0.0f};
    SimplexCache cache;
    const DistanceOutput cold = ShapeDistance(in, &cache);
    const DistanceOutput warm = ShapeDistance(in, &cache);
    EXPECT_NEAR(cold.distance, warm.distance, 1e-5f);
    cold_iterations += cold.iterations;
    warm_iterations += warm.iterations;
  }
  EXPECT_LT(warm_iterations, cold_iterations / 2);
}

TEST(DistanceTest, StaleCacheFromLargerProxyIsIgnored) {
  DistanceInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(Circle{{0, 0}, 1.0f}));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(Circle{{0, 0}, 1.0f}));
  in.transform_b.p = {5.0f, 0.0f};
  SimplexCache cache;
  cache.count = 2;
  cache.index_a[1] = 7;
  const DistanceOutput out = ShapeDistance(in, &cache);
  EXPECT_NEAR(out.distance, 5.0f, 1e-6f);
}

TEST(DistanceTest, DistanceIsTranslationInvariantFarFromOrigin) {
  DistanceInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(1.0f, 1.0f)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(*MakeBox(1.0f, 1.0f)));
  in.transform_a = {{5000.0f, -5000.0f}, MakeRot(0.2f)};
  in.transform_b = {{5000.0f, -4997.0f}, MakeRot(0.2f)};
  const DistanceOutput far = ShapeDistance(in, nullptr);
  in.transform_a.p = {0.0f, 0.0f};
  in.transform_b.p = {0.0f, 3.0f};
  const DistanceOutput near = ShapeDistance(in, nullptr);
  EXPECT_GT(near.distance, 0.5f);
  // Float spacing at 5000 is 0.0005; the relative computation loses no more.
  EXPECT_NEAR(far.distance, near.distance, 1e-3f);
}

TEST(SegmentDistanceTest, CrossingParallelAndEndpointCases) {
  SegmentDistanceResult r =
      SegmentDistance({-1, 0}, {1, 0}, {0, -1}, {0, 1});
  EXPECT_NEAR(r.distance_squared, 0.0f, 1e-12f);
  EXPECT_NEAR(r.fraction1, 0.5f, 1e-6f);
  EXPECT_NEAR(r.fraction2, 0.5f, 1e-6f);

  r = SegmentDistance({0, 0}, {2, 0}, {1, 1}, {3, 1});  // parallel overlap
  EXPECT_NEAR(r.distance_squared, 1.0f, 1e-6f);
  EXPECT_NEAR(r.closest1.y, 0.0f, 1e-6f);
  EXPECT_NEAR(r.closest2.y, 1.0f, 1e-6f);
  EXPECT_NEAR(r.closest1.x, r.closest2.x, 1e-6f);

  r = SegmentDistance({0, 0}, {1, 0}, {2, 1}, {3, 2});  // endpoint-endpoint
  EXPECT_NEAR(r.distance_squared, 2.0f, 1e-6f);
  EXPECT_EQ(r.fraction1, 1.0f);
  EXPECT_EQ(r.fraction2, 0.0f);

  r = SegmentDistance({0, 0}, {0, 0}, {-1, 1}, {1, 1});  // point vs segment
  EXPECT_NEAR(r.distance_squared, 1.0f, 1e-6f);
  EXPECT_NEAR(r.fraction2, 0.5f, 1e-6f);
}

TEST(SegmentDistanceTest, MatchesBruteForceSampling) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> c(-2.0f, 2.0f);
  for (int trial = 0; trial < 300; ++trial) {
    const Vec2 p1{c(rng), c(rng)}, q1{c(rng), c(rng)}, p2{c(rng), c(rng)},
        q2{c(rng), c(rng)};
    const SegmentDistanceResult r = SegmentDistance(p1, q1, p2, q2);
    double best = 1e300;
    const int n = 200;
    for (int i = 0; i <= n; ++i) {
      for (int j = 0; j <= n; ++j) {
        const double s = double(i) / n, t = double(j) / n;
        const double dx = (p1.x + s * (q1.x - p1.x)) - (p2.x + t * (q2.x - p2.x));
        const double dy = (p1.y + s * (q1.y - p1.y)) - (p2.y + t * (q2.y - p2.y));
        best = std::fmin(best, std::sqrt(dx * dx + dy * dy));
      }
    }
    const double got = std::sqrt(r.distance_squared);
    EXPECT_LE(got, best + 1e-5) << trial;
    EXPECT_GE(got, best - 0.03) << trial;  // sampling resolution
  }
}

}  // namespace
}  // namespace atl
