// atoll-server — QueryService requests checked and turned into engine
// terms, before any world is touched.
//
// Every refusal is InvalidArgument with a message that starts with the
// field path ("ray.origin.x: must be finite", "aabb: lower.y > upper.y",
// "shape.polygon.points: not convex: ..."), so the service can hand it on
// as it is.

#ifndef ATOLL_SERVER_QUERY_REQUEST_H_
#define ATOLL_SERVER_QUERY_REQUEST_H_

#include "absl/status/statusor.h"
#include "atoll/filter.h"
#include "atoll/geometry.h"
#include "atoll/math.h"
#include "atoll/v1/query.pb.h"

namespace atl::server {

/// Largest |coordinate| of a query point (ray origin, box corner, shape
/// position), m: the bound BodySpec.position has.
inline constexpr float kQueryPointBound = 1.0e5f;
/// Largest |component| of a ray translation, m: corner to corner of the
/// region above.
inline constexpr float kQueryTranslationBound = 2.0e5f;
/// Largest |angle| of a query shape, rad (MakeRot's accurate range).
inline constexpr float kQueryAngleBound = 1.0e5f;

/// A CastRayRequest in engine terms (World::CastRayClosest / CastRayAll).
struct RayQuery {
  Vec2 origin;
  Vec2 translation;
  Filter filter;
};

/// An OverlapAabbRequest in engine terms (World::OverlapAabb).
struct AabbQuery {
  AABB aabb;
  Filter filter;
};

/// An OverlapShapeRequest in engine terms (World::OverlapShape).
struct ShapeQuery {
  ShapeGeometry geometry;
  Transform transform;
  Filter filter;
};

/// The request's filter, or the engine default (atl::Filter{}) when unset.
Filter ToQueryFilter(const v1::FilterSpec* filter);

/// Checks `request.ray` (set, finite, within the bounds above, translation
/// not (0, 0)). InvalidArgument naming the field otherwise.
absl::StatusOr<RayQuery> ToRayQuery(const v1::CastRayRequest& request);

/// Checks `request.aabb` (set, finite, within kQueryPointBound, lower <=
/// upper on both axes). InvalidArgument naming the field otherwise.
absl::StatusOr<AabbQuery> ToAabbQuery(const v1::OverlapAabbRequest& request);

/// Checks `request.shape`: one geometry, valid by the engine's rules
/// (ValidateCircle, ValidateCapsule, MakeOffsetBox, ComputeHull and
/// MakePolygon), a polygon's points all vertices of their convex hull, a
/// finite position within kQueryPointBound and a finite angle within
/// kQueryAngleBound. InvalidArgument naming the field otherwise.
absl::StatusOr<ShapeQuery> ToShapeQuery(const v1::OverlapShapeRequest& request);

}  // namespace atl::server

#endif  // ATOLL_SERVER_QUERY_REQUEST_H_
