#include "atoll/hull.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace atl {
namespace {

using ::testing::HasSubstr;

bool IsStrictlyConvexCcw(const Hull& hull) {
  for (int i = 0; i < hull.count; ++i) {
    const Vec2 a = hull.points[i];
    const Vec2 b = hull.points[(i + 1) % hull.count];
    for (int j = 0; j < hull.count; ++j) {
      if (j == i || j == (i + 1) % hull.count) continue;
      if (Cross(b - a, hull.points[j] - a) <= 0.0f) return false;
    }
  }
  return true;
}

TEST(HullTest, SquareWithInteriorPointsKeepsCornersCounterClockwise) {
  const std::vector<Vec2> points = {{1, 1}, {0, 0}, {-1, 1}, {0.5f, 0.2f},
                                    {-1, -1}, {1, -1}, {0, 0.9f}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_TRUE(hull.ok()) << hull.status();
  ASSERT_EQ(hull->count, 4);
  EXPECT_TRUE(IsStrictlyConvexCcw(*hull));
  for (Vec2 corner : {Vec2{1, 1}, Vec2{-1, 1}, Vec2{-1, -1}, Vec2{1, -1}}) {
    EXPECT_TRUE(std::any_of(hull->points, hull->points + hull->count,
                            [&](Vec2 p) { return p == corner; }));
  }
}

TEST(HullTest, DropsDuplicateAndNearDuplicatePoints) {
  const std::vector<Vec2> points = {{0, 0}, {0, 0},     {2, 0},
                                    {2.001f, 0}, {1, 2}, {1, 2.002f}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_TRUE(hull.ok()) << hull.status();
  EXPECT_EQ(hull->count, 3);
  EXPECT_TRUE(IsStrictlyConvexCcw(*hull));
}

TEST(HullTest, DropsCollinearAndNearlyCollinearPoints) {
  // Midpoints of the edges, one bent out by less than the slop.
  const std::vector<Vec2> points = {{0, 0}, {1, 0},     {2, 0},  {2, 1},
                                    {2, 2}, {1, 2.003f}, {0, 2}, {0, 1}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_TRUE(hull.ok()) << hull.status();
  EXPECT_EQ(hull->count, 4);
}

TEST(HullTest, ResultDoesNotDependOnInputOrder) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(-3.0f, 3.0f);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<Vec2> points(6);
    for (Vec2& p : points) p = {coord(rng), coord(rng)};
    absl::StatusOr<Hull> first = ComputeHull(points);
    std::shuffle(points.begin(), points.end(), rng);
    absl::StatusOr<Hull> second = ComputeHull(points);
    ASSERT_EQ(first.ok(), second.ok());
    if (!first.ok()) continue;
    ASSERT_EQ(first->count, second->count);
    for (int i = 0; i < first->count; ++i) {
      EXPECT_EQ(first->points[i], second->points[i]);
    }
  }
}

TEST(HullTest, RandomCloudsGiveConvexHullsContainingEveryPoint) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> coord(-5.0f, 5.0f);
  int built = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<Vec2> points(3 + trial % 6);
    for (Vec2& p : points) p = {coord(rng), coord(rng)};
    absl::StatusOr<Hull> hull = ComputeHull(points);
    if (!hull.ok()) continue;
    ++built;
    EXPECT_TRUE(IsStrictlyConvexCcw(*hull));
    EXPECT_TRUE(ValidateHull(*hull).ok());
    // Dropped points are inside, or within the slop of the outline.
    for (Vec2 p : points) {
      for (int i = 0; i < hull->count; ++i) {
        const Vec2 a = hull->points[i];
        const Vec2 b = hull->points[(i + 1) % hull->count];
        EXPECT_GE(Cross(b - a, p - a) / Length(b - a), -2.0f * kLinearSlop);
      }
    }
  }
  EXPECT_GT(built, 250);
}

TEST(HullTest, FewerThanThreePointsIsAnError) {
  const std::vector<Vec2> points = {{0, 0}, {1, 0}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_FALSE(hull.ok());
  EXPECT_EQ(hull.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(hull.status().message(), HasSubstr("at least 3"));
}

TEST(HullTest, FewerThanThreeDistinctPointsIsAnError) {
  const std::vector<Vec2> points = {{0, 0}, {0.001f, 0}, {1, 1}, {1, 1.001f}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_FALSE(hull.ok());
  EXPECT_THAT(hull.status().message(), HasSubstr("fewer than 3 distinct"));
}

TEST(HullTest, CollinearPointsAreAnError) {
  const std::vector<Vec2> points = {{0, 0}, {1, 1}, {2, 2.001f}, {3, 3}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_FALSE(hull.ok());
  EXPECT_THAT(hull.status().message(), HasSubstr("collinear"));
}

TEST(HullTest, NonFinitePointIsAnError) {
  const std::vector<Vec2> points = {{0, 0}, {1, 0}, {NAN, 1}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_FALSE(hull.ok());
  EXPECT_THAT(hull.status().message(), HasSubstr("point 2"));
  EXPECT_THAT(hull.status().message(), HasSubstr("not finite"));
}

TEST(HullTest, OutOfRangePointIsAnError) {
  const std::vector<Vec2> points = {{0, 0}, {1, 0}, {0, 2.0e4f}};
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_FALSE(hull.ok());
  EXPECT_THAT(hull.status().message(), HasSubstr("world bound"));
}

TEST(HullTest, MoreThanEightHullVerticesIsAnError) {
  std::vector<Vec2> points;
  for (int i = 0; i < 12; ++i) {
    const double a = 2.0 * M_PI * i / 12;
    points.push_back({static_cast<float>(std::cos(a)),
                      static_cast<float>(std::sin(a))});
  }
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ASSERT_FALSE(hull.ok());
  EXPECT_THAT(hull.status().message(), HasSubstr("12 vertices"));
  EXPECT_THAT(hull.status().message(), HasSubstr("at most"));
}

TEST(HullTest, ValidateHullRejectsClockwiseAndStarShapedHulls) {
  Hull clockwise;
  clockwise.count = 3;
  clockwise.points[0] = {0, 0};
  clockwise.points[1] = {0, 1};
  clockwise.points[2] = {1, 0};
  EXPECT_THAT(ValidateHull(clockwise).message(), HasSubstr("convex"));

  Hull star;  // a pentagram turns left at every vertex but winds twice
  star.count = 5;
  for (int i = 0; i < 5; ++i) {
    const double a = 2.0 * M_PI * (2 * i) / 5;
    star.points[i] = {static_cast<float>(std::cos(a)),
                      static_cast<float>(std::sin(a))};
  }
  EXPECT_FALSE(ValidateHull(star).ok());

  Hull short_count;
  short_count.count = 2;
  EXPECT_THAT(ValidateHull(short_count).message(), HasSubstr("count 2"));

  Hull duplicate;
  duplicate.count = 4;
  duplicate.points[0] = {0, 0};
  duplicate.points[1] = {1, 0};
  duplicate.points[2] = {1, 0.001f};
  duplicate.points[3] = {0, 1};
  EXPECT_THAT(ValidateHull(duplicate).message(), HasSubstr("edge 1 is shorter"));

  Hull bad_point = clockwise;
  bad_point.points[1] = {INFINITY, 0};
  EXPECT_THAT(ValidateHull(bad_point).message(), HasSubstr("point 1"));
}

}  // namespace
}  // namespace atl
