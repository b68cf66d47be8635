// Atoll — convex hull of a point cloud, the first step of building a polygon.

#ifndef ATOLL_HULL_H_
#define ATOLL_HULL_H_

#include <cstdint>
#include <span>

#include "absl/status/statusor.h"
#include "atoll/constants.h"
#include "atoll/math.h"

namespace atl {

/// A convex hull: 3..kMaxPolygonVertices points in counter-clockwise order,
/// no two closer than kLinearSlop, none within kLinearSlop of the line
/// through its neighbours. Pass it to MakePolygon.
struct Hull {
  Vec2 points[kMaxPolygonVertices];
  int32_t count = 0;
};

/// Computes the convex hull of `points` (any number, any order). Points
/// closer than kLinearSlop to a hull neighbour are welded (the earlier one in
/// sorted order is kept) and hull vertices that lie within kLinearSlop of the
/// line through their neighbours are dropped, so nearly-degenerate input
/// cannot produce slivers. The result is deterministic: it depends only on
/// the set of point values, not on their order.
///
/// Errors (InvalidArgument, message names the problem): fewer than 3 points,
/// a non-finite point, a coordinate beyond kWorldBound, fewer than 3 points
/// that are kLinearSlop apart, all points collinear, or a hull that needs more
/// than kMaxPolygonVertices vertices.
absl::StatusOr<Hull> ComputeHull(std::span<const Vec2> points);

/// OK when `hull` is usable by MakePolygon: count in 3..kMaxPolygonVertices,
/// finite coordinates within kWorldBound, strictly convex and
/// counter-clockwise with edges at least kLinearSlop long. Useful for hulls
/// that were not made by ComputeHull.
absl::Status ValidateHull(const Hull& hull);

}  // namespace atl

#endif  // ATOLL_HULL_H_
