#include "atoll/math.h"

#include <gtest/gtest.h>

namespace atl {
namespace {

TEST(MathTest, TransformRoundTripsPoints) {
  const Transform t{{1.5f, -2.0f}, NormalizeRot({0.6f, 0.8f})};
  const Vec2 p{3.0f, 4.0f};
  const Vec2 back = InvTransformPoint(t, TransformPoint(t, p));
  EXPECT_NEAR(back.x, p.x, 1e-5f);
  EXPECT_NEAR(back.y, p.y, 1e-5f);
}

TEST(MathTest, InvMulTransformsUndoesMul) {
  const Transform a{{1.0f, 2.0f}, NormalizeRot({0.0f, 1.0f})};
  const Transform b{{-3.0f, 0.5f}, NormalizeRot({0.8f, -0.6f})};
  const Transform rel = InvMulTransforms(a, MulTransforms(a, b));
  EXPECT_NEAR(rel.p.x, b.p.x, 1e-5f);
  EXPECT_NEAR(rel.p.y, b.p.y, 1e-5f);
  EXPECT_NEAR(rel.q.c, b.q.c, 1e-6f);
  EXPECT_NEAR(rel.q.s, b.q.s, 1e-6f);
}

TEST(MathTest, Solve22InvertsMatrix) {
  const Mat22 m{{4.0f, 1.0f}, {2.0f, 3.0f}};
  const Vec2 x{0.5f, -1.25f};
  const Vec2 solved = Solve22(m, MulMV(m, x));
  EXPECT_NEAR(solved.x, x.x, 1e-6f);
  EXPECT_NEAR(solved.y, x.y, 1e-6f);
}

TEST(MathTest, SingularMatrixSolvesToZero) {
  const Mat22 m{{1.0f, 2.0f}, {2.0f, 4.0f}};
  const Vec2 solved = Solve22(m, {1.0f, 1.0f});
  EXPECT_EQ(solved.x, 0.0f);
  EXPECT_EQ(solved.y, 0.0f);
}

TEST(MathTest, AabbOverlapIncludesTouchingEdges) {
  const AABB a{{0.0f, 0.0f}, {1.0f, 1.0f}};
  EXPECT_TRUE(Overlaps(a, {{1.0f, 0.0f}, {2.0f, 1.0f}}));
  EXPECT_FALSE(Overlaps(a, {{1.0f + 1e-6f, 0.0f}, {2.0f, 1.0f}}));
  EXPECT_TRUE(Contains(Union(a, {{2.0f, 2.0f}, {3.0f, 3.0f}}), a));
  EXPECT_FLOAT_EQ(Perimeter(a), 4.0f);
}

TEST(MathTest, NormalizeOfZeroIsZero) {
  const Vec2 n = Normalize({0.0f, 0.0f});
  EXPECT_EQ(n.x, 0.0f);
  EXPECT_EQ(n.y, 0.0f);
  float length = 0.0f;
  const Vec2 u = GetLengthAndNormalize(&length, {3.0f, 4.0f});
  EXPECT_FLOAT_EQ(length, 5.0f);
  EXPECT_FLOAT_EQ(u.x, 0.6f);
}

TEST(MathTest, IntegrateRotationStaysUnit) {
  Rot q;
  for (int i = 0; i < 1000; ++i) q = IntegrateRotation(q, 0.05f);
  EXPECT_NEAR(q.c * q.c + q.s * q.s, 1.0f, 1e-6f);
}

}  // namespace
}  // namespace atl
