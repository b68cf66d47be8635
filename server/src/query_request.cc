#include "query_request.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "atoll/hull.h"

namespace atl::server {
namespace {

absl::Status Invalid(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

// Prefixes an engine error with the field path that caused it.
absl::Status WithField(const absl::Status& s, const std::string& field) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(field, ": ", s.message()));
}

Vec2 ToVec2(const v1::Vec2& v) { return {v.x(), v.y()}; }

absl::Status CheckScalar(float x, const std::string& field, float bound) {
  if (!std::isfinite(x)) return Invalid(field, "must be finite");
  if (std::fabs(x) > bound) {
    return Invalid(field,
                   absl::StrCat("must be within +-", bound, ", got ", x));
  }
  return absl::OkStatus();
}

// Each component finite and within +-bound, named "<field>.x" / "<field>.y".
absl::Status CheckVec(const v1::Vec2& v, const std::string& field,
                      float bound) {
  if (absl::Status s = CheckScalar(v.x(), field + ".x", bound); !s.ok()) {
    return s;
  }
  return CheckScalar(v.y(), field + ".y", bound);
}

// A polygon whose points are exactly the vertices of their convex hull.
// ComputeHull would silently replace a concave outline by its hull (what a
// ShapeSpec wants); a query asked about a concave shape would then answer
// for a bigger one, so such points are refused instead.
absl::StatusOr<Polygon> ToConvexPolygon(const v1::PolygonGeometry& polygon,
                                        const std::string& field) {
  const int n = polygon.points_size();
  if (n < 3 || n > kMaxPolygonVertices) {
    return Invalid(
        field + ".points",
        absl::StrCat("wants 3..", kMaxPolygonVertices, " points, got ", n));
  }
  std::vector<Vec2> points;
  points.reserve(n);
  for (int i = 0; i < n; ++i) {
    const std::string point_field = absl::StrCat(field, ".points[", i, "]");
    if (absl::Status s = CheckVec(polygon.points(i), point_field, kWorldBound);
        !s.ok()) {
      return s;
    }
    points.push_back(ToVec2(polygon.points(i)));
  }
  absl::StatusOr<Hull> hull = ComputeHull(points);
  if (!hull.ok()) return WithField(hull.status(), field + ".points");
  if (hull->count != n) {
    return Invalid(
        field + ".points",
        absl::StrCat("not convex: the convex hull keeps ", hull->count,
                     " of the ", n,
                     " points (a concave, repeated or collinear point)"));
  }
  absl::StatusOr<Polygon> out = MakePolygon(*hull, polygon.radius());
  if (!out.ok()) return WithField(out.status(), field);
  return out;
}

absl::StatusOr<ShapeGeometry> ToGeometry(const v1::QueryShape& shape) {
  switch (shape.geometry_case()) {
    case v1::QueryShape::kCircle: {
      const Circle c{ToVec2(shape.circle().center()), shape.circle().radius()};
      if (absl::Status s = ValidateCircle(c); !s.ok()) {
        return WithField(s, "shape.circle");
      }
      return ShapeGeometry(c);
    }
    case v1::QueryShape::kCapsule: {
      const Capsule c{ToVec2(shape.capsule().center1()),
                      ToVec2(shape.capsule().center2()),
                      shape.capsule().radius()};
      if (absl::Status s = ValidateCapsule(c); !s.ok()) {
        return WithField(s, "shape.capsule");
      }
      return ShapeGeometry(c);
    }
    case v1::QueryShape::kPolygon: {
      absl::StatusOr<Polygon> polygon =
          ToConvexPolygon(shape.polygon(), "shape.polygon");
      if (!polygon.ok()) return polygon.status();
      return ShapeGeometry(*polygon);
    }
    case v1::QueryShape::kBox: {
      const v1::BoxGeometry& b = shape.box();
      absl::StatusOr<Polygon> polygon = MakeOffsetBox(
          b.half_width(), b.half_height(), ToVec2(b.center()), b.angle());
      if (!polygon.ok()) return WithField(polygon.status(), "shape.box");
      return ShapeGeometry(*polygon);
    }
    case v1::QueryShape::GEOMETRY_NOT_SET:
      break;
  }
  return Invalid("shape", "no geometry (set circle, capsule, polygon or box)");
}

}  // namespace

Filter ToQueryFilter(const v1::FilterSpec* filter) {
  Filter out;
  if (filter != nullptr) {
    out.category_bits = filter->category_bits();
    out.mask_bits = filter->mask_bits();
    out.group_index = filter->group_index();
  }
  return out;
}

absl::StatusOr<RayQuery> ToRayQuery(const v1::CastRayRequest& request) {
  if (!request.has_ray()) return Invalid("ray", "required");
  const v1::Ray& ray = request.ray();
  if (absl::Status s = CheckVec(ray.origin(), "ray.origin", kQueryPointBound);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckVec(ray.translation(), "ray.translation",
                                kQueryTranslationBound);
      !s.ok()) {
    return s;
  }
  if (ray.translation().x() == 0.0f && ray.translation().y() == 0.0f) {
    return Invalid("ray.translation", "zero-length ray");
  }
  return RayQuery{
      ToVec2(ray.origin()), ToVec2(ray.translation()),
      ToQueryFilter(request.has_filter() ? &request.filter() : nullptr)};
}

absl::StatusOr<AabbQuery> ToAabbQuery(const v1::OverlapAabbRequest& request) {
  if (!request.has_aabb()) return Invalid("aabb", "required");
  const v1::Aabb& aabb = request.aabb();
  if (absl::Status s = CheckVec(aabb.lower(), "aabb.lower", kQueryPointBound);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckVec(aabb.upper(), "aabb.upper", kQueryPointBound);
      !s.ok()) {
    return s;
  }
  if (aabb.lower().x() > aabb.upper().x()) {
    return Invalid("aabb", absl::StrCat("lower.x > upper.x (", aabb.lower().x(),
                                        " > ", aabb.upper().x(), ")"));
  }
  if (aabb.lower().y() > aabb.upper().y()) {
    return Invalid("aabb", absl::StrCat("lower.y > upper.y (", aabb.lower().y(),
                                        " > ", aabb.upper().y(), ")"));
  }
  return AabbQuery{
      AABB{ToVec2(aabb.lower()), ToVec2(aabb.upper())},
      ToQueryFilter(request.has_filter() ? &request.filter() : nullptr)};
}

absl::StatusOr<ShapeQuery> ToShapeQuery(
    const v1::OverlapShapeRequest& request) {
  if (!request.has_shape()) return Invalid("shape", "required");
  const v1::QueryShape& shape = request.shape();
  absl::StatusOr<ShapeGeometry> geometry = ToGeometry(shape);
  if (!geometry.ok()) return geometry.status();
  if (absl::Status s =
          CheckVec(shape.position(), "shape.position", kQueryPointBound);
      !s.ok()) {
    return s;
  }
  if (absl::Status s =
          CheckScalar(shape.angle(), "shape.angle", kQueryAngleBound);
      !s.ok()) {
    return s;
  }
  return ShapeQuery{
      *geometry, Transform{ToVec2(shape.position()), MakeRot(shape.angle())},
      ToQueryFilter(request.has_filter() ? &request.filter() : nullptr)};
}

}  // namespace atl::server
