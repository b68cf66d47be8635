// Shape construction helpers, validation messages, bounding boxes.

#include "atoll/geometry.h"

#include <cmath>
#include <random>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace atl {
namespace {

using ::testing::HasSubstr;

void ExpectInvalid(const absl::Status& status, const char* substring) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(), HasSubstr(substring));
}

TEST(PolygonTest, MakePolygonComputesOutwardNormalsAndCentroid) {
  const std::vector<Vec2> points = {{0, 0}, {4, 0}, {0, 3}};
  absl::StatusOr<Polygon> p = MakePolygon(*ComputeHull(points), 0.0f);
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->count, 3);
  EXPECT_NEAR(p->centroid.x, 4.0f / 3.0f, 1e-6f);
  EXPECT_NEAR(p->centroid.y, 1.0f, 1e-6f);
  for (int i = 0; i < 3; ++i) {
    const Vec2 mid = Lerp(p->vertices[i], p->vertices[(i + 1) % 3], 0.5f);
    EXPECT_NEAR(Length(p->normals[i]), 1.0f, 1e-6f);
    EXPECT_GT(Dot(p->normals[i], mid - p->centroid), 0.0f);
  }
  EXPECT_TRUE(ValidatePolygon(*p).ok());
}

TEST(PolygonTest, BoxHelpersProduceValidPolygons) {
  absl::StatusOr<Polygon> box = MakeBox(2.0f, 0.5f);
  ASSERT_TRUE(box.ok());
  EXPECT_TRUE(ValidatePolygon(*box).ok());
  EXPECT_EQ(box->vertices[2], (Vec2{2.0f, 0.5f}));

  absl::StatusOr<Polygon> square = MakeSquare(1.5f);
  ASSERT_TRUE(square.ok());
  EXPECT_EQ(square->vertices[0], (Vec2{-1.5f, -1.5f}));

  absl::StatusOr<Polygon> rounded = MakeRoundedBox(1.0f, 1.0f, 0.25f);
  ASSERT_TRUE(rounded.ok());
  EXPECT_EQ(rounded->radius, 0.25f);
  EXPECT_TRUE(ValidatePolygon(*rounded).ok());

  absl::StatusOr<Polygon> offset =
      MakeOffsetBox(1.0f, 0.5f, {3.0f, -1.0f}, 0.5f * kPi);
  ASSERT_TRUE(offset.ok());
  EXPECT_TRUE(ValidatePolygon(*offset).ok());
  EXPECT_EQ(offset->centroid, (Vec2{3.0f, -1.0f}));
  // A quarter turn maps the +x corner (1, 0.5) to (-0.5, 1) about the center.
  EXPECT_NEAR(offset->vertices[2].x, 3.0f - 0.5f, 1e-5f);
  EXPECT_NEAR(offset->vertices[2].y, -1.0f + 1.0f, 1e-5f);
}

TEST(PolygonTest, BoxHelpersRejectBadExtents) {
  ExpectInvalid(MakeBox(0.0f, 1.0f).status(), "hx 0 is not positive");
  ExpectInvalid(MakeBox(1.0f, -1.0f).status(), "hy -1 is not positive");
  ExpectInvalid(MakeBox(NAN, 1.0f).status(), "not finite");
  ExpectInvalid(MakeBox(1.0f, 2.0e4f).status(), "world bound");
  ExpectInvalid(MakeSquare(-2.0f).status(), "not positive");
  ExpectInvalid(MakeRoundedBox(1.0f, 1.0f, -0.1f).status(), "radius");
  ExpectInvalid(MakeRoundedBox(1.0f, 1.0f, NAN).status(), "radius");
  ExpectInvalid(MakeOffsetBox(1.0f, 1.0f, {NAN, 0.0f}, 0.0f).status(),
                "center");
  ExpectInvalid(MakeOffsetBox(1.0f, 1.0f, {0.0f, 0.0f}, INFINITY).status(),
                "angle");
  ExpectInvalid(MakeOffsetBox(1.0f, 1.0f, {9999.5f, 0.0f}, 0.0f).status(),
                "corner");
}

TEST(PolygonTest, MakePolygonRejectsBadRadius) {
  const std::vector<Vec2> points = {{0, 0}, {1, 0}, {0, 1}};
  const Hull hull = *ComputeHull(points);
  ExpectInvalid(MakePolygon(hull, -1.0f).status(), "radius -1 is negative");
  ExpectInvalid(MakePolygon(hull, NAN).status(), "radius");
  EXPECT_TRUE(MakePolygon(hull, 0.0f).ok());
}

TEST(PolygonTest, ValidatePolygonNamesEachProblem) {
  Polygon good = *MakeBox(1.0f, 1.0f);
  ASSERT_TRUE(ValidatePolygon(good).ok());

  Polygon p = good;
  p.count = 9;
  ExpectInvalid(ValidatePolygon(p), "vertex count 9");
  p = good;
  p.vertices[1] = {INFINITY, 0.0f};
  ExpectInvalid(ValidatePolygon(p), "not finite");
  p = good;
  std::swap(p.vertices[1], p.vertices[3]);  // clockwise
  ExpectInvalid(ValidatePolygon(p), "convex");
  p = good;
  p.normals[2] = {0.0f, -1.0f};
  ExpectInvalid(ValidatePolygon(p), "normal 2");
  p = good;
  p.centroid = {5.0f, 0.0f};
  ExpectInvalid(ValidatePolygon(p), "centroid");
  p = good;
  p.radius = -0.5f;
  ExpectInvalid(ValidatePolygon(p), "radius");
}

TEST(ShapeValidationTest, CircleCapsuleSegmentErrorsNameTheField) {
  EXPECT_TRUE(ValidateCircle({{1, 2}, 0.5f}).ok());
  ExpectInvalid(ValidateCircle({{1, 2}, 0.0f}), "circle: radius 0");
  ExpectInvalid(ValidateCircle({{1, 2}, -1.0f}), "circle: radius");
  ExpectInvalid(ValidateCircle({{1, 2}, NAN}), "not finite");
  ExpectInvalid(ValidateCircle({{NAN, 2}, 1.0f}), "circle: center");
  ExpectInvalid(ValidateCircle({{1, -3.0e4f}, 1.0f}), "world bound");
  ExpectInvalid(ValidateCircle({{1, 2}, 1.0e5f}), "exceeds the world bound");

  EXPECT_TRUE(ValidateCapsule({{0, 0}, {1, 0}, 0.2f}).ok());
  ExpectInvalid(ValidateCapsule({{0, 0}, {0.001f, 0}, 0.2f}),
                "use a circle");
  ExpectInvalid(ValidateCapsule({{0, 0}, {1, 0}, 0.0f}), "capsule: radius");
  ExpectInvalid(ValidateCapsule({{0, INFINITY}, {1, 0}, 1.0f}),
                "capsule: center1");

  EXPECT_TRUE(ValidateSegment({{0, 0}, {1, 0}}).ok());
  ExpectInvalid(ValidateSegment({{0, 0}, {0, 0}}), "segment: points");
  ExpectInvalid(ValidateSegment({{0, 0}, {NAN, 0}}), "segment: point2");

  ExpectInvalid(ValidateCapsule({{0, 0}, {NAN, 0}, 1.0f}), "capsule: center2");

  ChainSegment chain{{-1, 0}, {{0, 0}, {1, 0}}, {2, 0}};
  EXPECT_TRUE(ValidateChainSegment(chain).ok());
  ExpectInvalid(ValidateChainSegment({{-1, 0}, {{0, 0}, {0, 0}}, {2, 0}}),
                "chain segment: points are closer");
  chain.ghost1 = {0, 3.0e4f};
  ExpectInvalid(ValidateChainSegment(chain), "ghost1");
  chain.ghost1 = {-1, 0};
  chain.ghost2 = {NAN, 0};
  ExpectInvalid(ValidateChainSegment(chain), "ghost2");

  ExpectInvalid(ValidateDensity(-1.0f), "negative");
  ExpectInvalid(ValidateDensity(NAN), "not finite");
  EXPECT_TRUE(ValidateDensity(0.0f).ok());

  ShapeGeometry unknown;
  unknown.type = static_cast<ShapeType>(17);
  ExpectInvalid(ValidateShape(unknown), "unknown type");
  EXPECT_TRUE(ValidateShape(ShapeGeometry(*MakeBox(1, 1))).ok());
}

TEST(ChainTest, OpenChainMakesOneSegmentPerEdgeWithNeighbourGhosts) {
  const std::vector<Vec2> points = {{0, 0}, {1, 0}, {2, 0.5f}, {3, 0.5f}};
  absl::StatusOr<std::vector<ChainSegment>> chain =
      MakeChainSegments(points, false);
  ASSERT_TRUE(chain.ok()) << chain.status();
  ASSERT_EQ(chain->size(), 3u);
  EXPECT_EQ((*chain)[1].ghost1, points[0]);
  EXPECT_EQ((*chain)[1].segment.point1, points[1]);
  EXPECT_EQ((*chain)[1].segment.point2, points[2]);
  EXPECT_EQ((*chain)[1].ghost2, points[3]);
  // Free ends: the ghost sits behind the collision side (the right of the
  // travel direction is -y here), making a convex corner.
  EXPECT_GT((*chain)[0].ghost1.y, 0.0f);
  EXPECT_GT((*chain)[2].ghost2.y, 0.5f);
  for (const ChainSegment& c : *chain) {
    EXPECT_TRUE(ValidateShape(ShapeGeometry(c)).ok());
  }
}

TEST(ChainTest, LoopWrapsAround) {
  const std::vector<Vec2> points = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  absl::StatusOr<std::vector<ChainSegment>> chain =
      MakeChainSegments(points, true);
  ASSERT_TRUE(chain.ok()) << chain.status();
  ASSERT_EQ(chain->size(), 4u);
  EXPECT_EQ((*chain)[3].segment.point1, points[3]);
  EXPECT_EQ((*chain)[3].segment.point2, points[0]);
  EXPECT_EQ((*chain)[3].ghost2, points[1]);
  EXPECT_EQ((*chain)[0].ghost1, points[3]);
}

TEST(ChainTest, BadChainsAreRejectedWithReasons) {
  const std::vector<Vec2> one = {{0, 0}};
  ExpectInvalid(MakeChainSegments(one, false).status(), "at least 2");
  const std::vector<Vec2> two = {{0, 0}, {1, 0}};
  ExpectInvalid(MakeChainSegments(two, true).status(), "at least 3");
  const std::vector<Vec2> repeated = {{0, 0}, {1, 0}, {1, 0.001f}};
  ExpectInvalid(MakeChainSegments(repeated, false).status(),
                "points 1 and 2 are closer");
  const std::vector<Vec2> closing = {{0, 0}, {1, 0}, {1, 1}, {0, 0.002f}};
  ExpectInvalid(MakeChainSegments(closing, true).status(),
                "points 3 and 0 are closer");
  const std::vector<Vec2> flat = {{0, 0}, {1, 0}, {2, 0}};
  ExpectInvalid(MakeChainSegments(flat, true).status(), "collinear");
  const std::vector<Vec2> nan = {{0, 0}, {NAN, 0}};
  ExpectInvalid(MakeChainSegments(nan, false).status(), "point 1");
  const std::vector<Vec2> far = {{0, 0}, {1.0e6f, 0}};
  ExpectInvalid(MakeChainSegments(far, false).status(), "world bound");
}

// Tight bounds: every shape's AABB contains sampled surface points and each
// face of the box is touched (within rounding) by some point of the shape.
TEST(AabbTest, BoundsAreTightForEveryShape) {
  const Transform xf{{1.0f, -2.0f}, MakeRot(0.7f)};
  const Polygon poly = *MakeRoundedBox(1.0f, 0.5f, 0.1f);
  const std::vector<ShapeGeometry> shapes = {
      ShapeGeometry(Circle{{0.5f, 0.0f}, 0.3f}),
      ShapeGeometry(Capsule{{-1.0f, 0.0f}, {1.0f, 0.5f}, 0.25f}),
      ShapeGeometry(Segment{{-1.0f, 0.0f}, {2.0f, 1.0f}}),
      ShapeGeometry(poly),
      ShapeGeometry(ChainSegment{{-5, 5}, {{0, 0}, {1, 0}}, {7, 7}}),
  };
  for (const ShapeGeometry& shape : shapes) {
    const AABB box = ComputeShapeAABB(shape, xf);
    ASSERT_TRUE(IsValid(box));
    // Support points in the four axis directions, computed independently.
    Vec2 dirs[4] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    for (Vec2 d : dirs) {
      const Vec2 local_d = InvRotateVector(xf.q, d);
      float best = -1e30f;
      std::vector<Vec2> core;
      float radius = 0.0f;
      switch (shape.type) {
        case ShapeType::kCircle:
          core = {shape.circle.center};
          radius = shape.circle.radius;
          break;
        case ShapeType::kCapsule:
          core = {shape.capsule.center1, shape.capsule.center2};
          radius = shape.capsule.radius;
          break;
        case ShapeType::kSegment:
          core = {shape.segment.point1, shape.segment.point2};
          break;
        case ShapeType::kChainSegment:
          core = {shape.chain_segment.segment.point1,
                  shape.chain_segment.segment.point2};
          break;
        case ShapeType::kPolygon:
          core.assign(shape.polygon.vertices,
                      shape.polygon.vertices + shape.polygon.count);
          radius = shape.polygon.radius;
          break;
      }
      for (Vec2 c : core) best = std::fmax(best, Dot(local_d, c) + radius);
      const float extent = best + Dot(d, xf.p);
      const float face = d.x > 0   ? box.upper.x
                         : d.x < 0 ? -box.lower.x
                         : d.y > 0 ? box.upper.y
                                   : -box.lower.y;
      EXPECT_NEAR(face, extent, 1e-5f);
    }
  }
}

TEST(ExtentTest, ExtentReachesFarthestPoint) {
  const ShapeGeometry capsule(Capsule{{-1.0f, 0.0f}, {3.0f, 0.0f}, 0.5f});
  EXPECT_FLOAT_EQ(ComputeShapeExtent(capsule, {0.0f, 0.0f}), 3.5f);
  const ShapeGeometry box(*MakeRoundedBox(3.0f, 4.0f, 1.0f));
  EXPECT_FLOAT_EQ(ComputeShapeExtent(box, {0.0f, 0.0f}), 6.0f);
  const ShapeGeometry segment(Segment{{0, 0}, {0, 2}});
  EXPECT_FLOAT_EQ(ComputeShapeExtent(segment, {0.0f, -1.0f}), 3.0f);
}

TEST(ExtentTest, CoreExtentLeavesOutTheRounding) {
  EXPECT_FLOAT_EQ(ComputeShapeCoreExtent(ShapeGeometry(Circle{{0.0f, 0.0f}, 0.5f}), {0.0f, 0.0f}),
                  0.0f);
  EXPECT_FLOAT_EQ(ComputeShapeCoreExtent(ShapeGeometry(Circle{{1.0f, 0.0f}, 0.5f}), {0.0f, 0.0f}),
                  1.0f);
  const ShapeGeometry capsule(Capsule{{-1.0f, 0.0f}, {3.0f, 0.0f}, 0.5f});
  EXPECT_FLOAT_EQ(ComputeShapeCoreExtent(capsule, {0.0f, 0.0f}), 3.0f);
  const ShapeGeometry box(*MakeRoundedBox(3.0f, 4.0f, 1.0f));
  EXPECT_FLOAT_EQ(ComputeShapeCoreExtent(box, {0.0f, 0.0f}), 5.0f);
  const ShapeGeometry segment(Segment{{0, 0}, {0, 2}});
  EXPECT_FLOAT_EQ(ComputeShapeCoreExtent(segment, {0.0f, -1.0f}), 3.0f);
  // What the core extent leaves out is the rounding.
  EXPECT_FLOAT_EQ(ComputeShapeRadius(capsule), 0.5f);
  EXPECT_FLOAT_EQ(ComputeShapeRadius(box), 1.0f);
  EXPECT_FLOAT_EQ(ComputeShapeRadius(segment), 0.0f);
}

}  // namespace
}  // namespace atl
