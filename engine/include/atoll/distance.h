// Atoll — distance between convex shapes (GJK) and between segments.

#ifndef ATOLL_DISTANCE_H_
#define ATOLL_DISTANCE_H_

#include <cstdint>
#include <span>

#include "atoll/constants.h"
#include "atoll/geometry.h"
#include "atoll/math.h"

namespace atl {

/// A convex shape as the distance routines see it: the convex hull of
/// 1..kMaxPolygonVertices points, rounded by `radius`.
struct ShapeProxy {
  Vec2 points[kMaxPolygonVertices];
  int32_t count = 0;
  float radius = 0.0f;
};

/// A proxy over `points` (1..kMaxPolygonVertices of them, asserted) with
/// rounding `radius` (>= 0, asserted). The points must be in convex
/// position or interior; duplicates are harmless.
ShapeProxy MakeProxy(std::span<const Vec2> points, float radius);

/// The proxy of a shape in its body frame: a circle is one point plus its
/// radius, a capsule two, a segment or chain segment its two points (ghosts
/// excluded), a polygon its vertices and radius.
ShapeProxy MakeShapeProxy(const ShapeGeometry& shape);

/// The simplex GJK ended with, kept between calls for the same pair so the
/// next query starts where the last one stopped (usually finishing in one
/// or two iterations). Zero-initialize (count = 0) for a cold start. A cache
/// whose indices do not fit the proxies is ignored.
struct SimplexCache {
  uint16_t count = 0;
  uint8_t index_a[3] = {0, 0, 0};
  uint8_t index_b[3] = {0, 0, 0};
};

/// Input of ShapeDistance.
struct DistanceInput {
  ShapeProxy proxy_a;
  ShapeProxy proxy_b;
  Transform transform_a = kTransformIdentity;
  Transform transform_b = kTransformIdentity;
  /// Measure between the rounded surfaces instead of the core hulls.
  bool use_radii = false;
};

/// Result of ShapeDistance, in world space.
struct DistanceOutput {
  Vec2 point_a;  ///< closest point on A
  Vec2 point_b;  ///< closest point on B
  /// Unit vector from A to B along the closest points; zero when they
  /// overlap.
  Vec2 normal;
  /// Distance between the closest points; 0 when the shapes overlap.
  float distance = 0.0f;
  int32_t iterations = 0;
  /// 1: vertex-vertex, 2: vertex-edge, 3: overlap.
  int32_t simplex_count = 0;
};

/// Closest points and distance between two convex proxies by GJK. With
/// `use_radii` the rounded surfaces are measured (and overlapping rounded
/// shapes report distance 0 with both points at the midpoint of the core
/// witnesses). `cache` may be null; otherwise it seeds the search and is
/// updated. Never fails: degenerate input ends the iteration early with the
/// best answer found.
DistanceOutput ShapeDistance(const DistanceInput& input, SimplexCache* cache);

/// Closest points between segments p1-q1 and p2-q2.
struct SegmentDistanceResult {
  Vec2 closest1;
  Vec2 closest2;
  float fraction1 = 0.0f;  ///< closest1 = p1 + fraction1 * (q1 - p1)
  float fraction2 = 0.0f;  ///< closest2 = p2 + fraction2 * (q2 - p2)
  float distance_squared = 0.0f;
};

/// Closest points between two segments (either may be a point). For
/// parallel overlapping segments one of the closest pairs is returned.
SegmentDistanceResult SegmentDistance(Vec2 p1, Vec2 q1, Vec2 p2, Vec2 q2);

}  // namespace atl

#endif  // ATOLL_DISTANCE_H_
