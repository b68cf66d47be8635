// Ray casts against brute-force sampling along the ray, and shape casts
// against a brute-force sweep.

#include "atoll/cast.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "test_shapes.h"

namespace atl {
namespace {

using testing::Contains;
using testing::DVec;
using testing::RandomShape;
using testing::RandomTransform;
using testing::SurfaceDistance;
using testing::ToWorld;
using testing::TypeName;
using testing::WorldShape;

DVec At(const RayCastInput& in, double t) {
  return {in.origin.x + t * in.translation.x, in.origin.y + t * in.translation.y};
}

// Distance from a point to the rounded shape's surface (0 inside).
double PointDistance(const WorldShape& shape, DVec p) {
  WorldShape point;
  point.points = {p};
  return SurfaceDistance(shape, point);
}

TEST(RayCastTest, HitsBoxFaceWithOutwardNormal) {
  const ShapeGeometry box(*MakeBox(1.0f, 1.0f));
  RayCastInput in{{-5.0f, 0.5f}, {10.0f, 0.0f}, 1.0f};
  const CastOutput out = RayCastShape(in, box, {{0.0f, 0.0f}, {1, 0}});
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.fraction, 0.4f, 1e-6f);
  EXPECT_NEAR(out.point.x, -1.0f, 1e-6f);
  EXPECT_NEAR(out.normal.x, -1.0f, 1e-6f);
}

TEST(RayCastTest, RespectsMaxFraction) {
  const ShapeGeometry circle(Circle{{0, 0}, 1.0f});
  RayCastInput in{{-5.0f, 0.0f}, {10.0f, 0.0f}, 0.35f};
  EXPECT_FALSE(RayCastShape(in, circle, kTransformIdentity).hit);
  in.max_fraction = 0.45f;
  EXPECT_TRUE(RayCastShape(in, circle, kTransformIdentity).hit);
}

TEST(RayCastTest, RayStartingInsideSolidShapesMisses) {
  const RayCastInput in{{0.1f, 0.1f}, {10.0f, 3.0f}, 1.0f};
  for (const ShapeGeometry& shape :
       {ShapeGeometry(Circle{{0, 0}, 1.0f}),
        ShapeGeometry(Capsule{{-1, 0}, {1, 0}, 0.5f}),
        ShapeGeometry(*MakeBox(1.0f, 1.0f)),
        ShapeGeometry(*MakeRoundedBox(0.05f, 0.05f, 0.5f))}) {
    EXPECT_FALSE(RayCastShape(in, shape, kTransformIdentity).hit)
        << TypeName(shape.type);
  }
}

TEST(RayCastTest, SegmentIsTwoSidedAndChainSegmentOneSided) {
  const Segment seg{{-1, 0}, {1, 0}};
  const RayCastInput down{{0.0f, 1.0f}, {0.0f, -2.0f}, 1.0f};
  const RayCastInput up{{0.0f, -1.0f}, {0.0f, 2.0f}, 1.0f};

  CastOutput out = RayCastShape(down, ShapeGeometry(seg), kTransformIdentity);
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.normal.y, 1.0f, 1e-6f);
  out = RayCastShape(up, ShapeGeometry(seg), kTransformIdentity);
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.normal.y, -1.0f, 1e-6f);

  // Collision side of (-1,0)->(1,0) is the right: -y.
  const ChainSegment chain{{-2, 0}, seg, {2, 0}};
  out = RayCastShape(up, ShapeGeometry(chain), kTransformIdentity);
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.normal.y, -1.0f, 1e-6f);
  EXPECT_FALSE(RayCastShape(down, ShapeGeometry(chain), kTransformIdentity).hit);

  const RayCastInput parallel{{-5.0f, 0.0f}, {10.0f, 0.0f}, 1.0f};
  EXPECT_FALSE(RayCastShape(parallel, ShapeGeometry(seg), kTransformIdentity).hit);
}

// Property: on random rays against random solid shapes the reported hit is
// on the surface and no sample before it is inside; a miss has no sample
// inside.
TEST(RayCastTest, MatchesBruteForceSamplingAlongRay) {
  std::mt19937 rng(77);
  std::uniform_real_distribution<float> coord(-4.0f, 4.0f);
  const ShapeType types[] = {ShapeType::kCircle, ShapeType::kCapsule,
                             ShapeType::kPolygon};
  int hits = 0, misses = 0;
  const int kSamples = 1000;
  for (int trial = 0; trial < 900; ++trial) {
    const ShapeType type = types[trial % 3];
    const ShapeGeometry shape = RandomShape(&rng, type, 2.0f);
    const Transform xf = RandomTransform(&rng, 1.0f);
    const WorldShape world = ToWorld(shape, xf);
    RayCastInput in;
    in.origin = {coord(rng), coord(rng)};
    in.translation = Vec2{coord(rng), coord(rng)} - in.origin;
    in.max_fraction = 1.0f;
    if (Contains(world, At(in, 0.0))) continue;
    const CastOutput out = RayCastShape(in, shape, xf);

    int first_inside = -1;
    for (int i = 0; i <= kSamples && first_inside < 0; ++i) {
      if (Contains(world, At(in, double(i) / kSamples))) first_inside = i;
    }
    const double step = 1.0 / kSamples;
    if (!out.hit) {
      ++misses;
      EXPECT_EQ(first_inside, -1) << TypeName(type) << " trial " << trial;
      continue;
    }
    ++hits;
    const double length = Length(in.translation);
    // The hit point is on the surface ...
    EXPECT_LT(PointDistance(world, At(in, out.fraction)), 1e-4)
        << TypeName(type) << " trial " << trial;
    EXPECT_NEAR(out.point.x, At(in, out.fraction).x, 1e-4);
    EXPECT_NEAR(out.point.y, At(in, out.fraction).y, 1e-4);
    // ... the first one along the ray (no sample before it is inside) ...
    if (first_inside >= 0) {
      EXPECT_GE(first_inside * step, out.fraction - 1e-4 / length)
          << TypeName(type) << " trial " << trial;
      EXPECT_LE(out.fraction, first_inside * step + 1e-6);
    }
    // ... and the normal is a unit vector facing the ray.
    EXPECT_NEAR(Length(out.normal), 1.0f, 1e-5f);
    EXPECT_LT(Dot(out.normal, in.translation), 0.0f);
    // Stepping out along the normal leaves the shape.
    const DVec outside{out.point.x + 1e-3 * out.normal.x,
                       out.point.y + 1e-3 * out.normal.y};
    EXPECT_FALSE(Contains(world, outside)) << TypeName(type) << " " << trial;
  }
  EXPECT_GT(hits, 150);
  EXPECT_GT(misses, 150);
}

TEST(RayCastTest, SegmentHitsMatchAnalyticIntersection) {
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> coord(-3.0, 3.0);
  int hits = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const Vec2 p1{float(coord(rng)), float(coord(rng))};
    const Vec2 p2{float(coord(rng)), float(coord(rng))};
    RayCastInput in;
    in.origin = {float(coord(rng)), float(coord(rng))};
    in.translation = {float(coord(rng)), float(coord(rng))};
    // Solve origin + t d = p1 + s e in double (Cramer).
    const double dx = in.translation.x, dy = in.translation.y;
    const double ex = p2.x - p1.x, ey = p2.y - p1.y;
    const double rx = p1.x - in.origin.x, ry = p1.y - in.origin.y;
    const double det = dx * (-ey) - dy * (-ex);
    if (std::fabs(det) < 1e-3) continue;
    const double t = (rx * (-ey) - ry * (-ex)) / det;
    const double s = (dx * ry - dy * rx) / det;
    const bool expected = t >= 0 && t <= 1 && s >= 0 && s <= 1;
    // Skip grazing cases within rounding of an end.
    if (std::fabs(t) < 1e-4 || std::fabs(t - 1) < 1e-4 || std::fabs(s) < 1e-4 ||
        std::fabs(s - 1) < 1e-4) {
      continue;
    }
    const CastOutput out =
        RayCastShape(in, ShapeGeometry(Segment{p1, p2}), kTransformIdentity);
    ASSERT_EQ(out.hit, expected) << trial;
    if (expected) {
      ++hits;
      EXPECT_NEAR(out.fraction, t, 1e-4 * (1 + std::fabs(t))) << trial;
    }
  }
  EXPECT_GT(hits, 200);
}

// Property: a shape cast's fraction is where a fine brute-force sweep first
// finds the shapes touching.
TEST(ShapeCastTest, MatchesBruteForceSweep) {
  std::mt19937 rng(31);
  std::uniform_real_distribution<float> coord(-6.0f, 6.0f);
  const ShapeType types[] = {ShapeType::kCircle, ShapeType::kCapsule,
                             ShapeType::kSegment, ShapeType::kPolygon};
  int hits = 0, misses = 0;
  const int kSamples = 2000;
  for (int trial = 0; trial < 300; ++trial) {
    ShapeCastPairInput in;
    const ShapeGeometry a = RandomShape(&rng, types[trial % 4], 2.0f);
    const ShapeGeometry b = RandomShape(&rng, types[(trial / 4) % 4], 1.5f);
    in.proxy_a = MakeShapeProxy(a);
    in.proxy_b = MakeShapeProxy(b);
    in.transform_a = RandomTransform(&rng, 0.5f);
    in.transform_b = RandomTransform(&rng, 0.5f);
    in.transform_b.p = {coord(rng), coord(rng)};
    // Aim near A half the time so hits and misses both occur.
    const Vec2 aim = Vec2{coord(rng), coord(rng)} * (trial % 2 ? 0.25f : 1.5f);
    in.translation_b = 2.0f * (aim - in.transform_b.p);
    in.max_fraction = 1.0f;
    const WorldShape wa = ToWorld(in.proxy_a, in.transform_a);
    const auto distance_at = [&](double t) {
      Transform xf = in.transform_b;
      xf.p = MulAdd(xf.p, static_cast<float>(t), in.translation_b);
      return SurfaceDistance(wa, ToWorld(in.proxy_b, xf));
    };
    if (distance_at(0.0) < 0.01) continue;
    const CastOutput out = ShapeCast(in);

    int first_touch = -1;
    for (int i = 0; i <= kSamples && first_touch < 0; ++i) {
      if (distance_at(double(i) / kSamples) <= 0.0) first_touch = i;
    }
    if (!out.hit) {
      ++misses;
      EXPECT_EQ(first_touch, -1) << trial;
      continue;
    }
    ++hits;
    // A real (near) contact: within the tolerance of touching ...
    const double gap = distance_at(out.fraction);
    EXPECT_LE(gap, 0.25 * kLinearSlop + 1e-5) << trial;
    // ... and the first: no sampled contact before it.
    if (first_touch >= 0) {
      EXPECT_LE(out.fraction, first_touch / double(kSamples) + 1e-6) << trial;
    }
    EXPECT_NEAR(Length(out.normal), 1.0f, 1e-4f);
    EXPECT_LT(Dot(out.normal, in.translation_b), 0.0f);
  }
  EXPECT_GT(hits, 60);
  EXPECT_GT(misses, 60);
}

TEST(ShapeCastTest, InitiallyTouchingHitsAtZeroAndMovingAwayMisses) {
  ShapeCastPairInput in;
  in.proxy_a = MakeShapeProxy(ShapeGeometry(*MakeBox(1, 1)));
  in.proxy_b = MakeShapeProxy(ShapeGeometry(Circle{{0, 0}, 0.5f}));
  in.transform_b.p = {1.2f, 0.0f};
  in.translation_b = {5.0f, 0.0f};
  CastOutput out = ShapeCast(in);
  EXPECT_TRUE(out.hit);
  EXPECT_EQ(out.fraction, 0.0f);

  in.transform_b.p = {3.0f, 0.0f};
  out = ShapeCast(in);
  EXPECT_FALSE(out.hit);

  in.translation_b = {-5.0f, 0.0f};
  out = ShapeCast(in);
  ASSERT_TRUE(out.hit);
  EXPECT_NEAR(out.fraction, 0.3f, kLinearSlop / 5.0f);
  EXPECT_NEAR(out.point.x, 1.0f, 1e-5f);
  EXPECT_NEAR(out.normal.x, 1.0f, 1e-5f);
}

}  // namespace
}  // namespace atl
