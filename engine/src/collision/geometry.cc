// Shape construction helpers, validation, bounding boxes and extents.

#include "atoll/geometry.h"

#include "absl/strings/str_cat.h"
#include "atoll/assert.h"
#include "collision/checks.h"

namespace atl {
namespace {

// Centroid of a counter-clockwise convex polygon. The triangle fan is taken
// about the first vertex, not the origin, so a polygon far from its body
// origin does not lose precision to cancellation.
Vec2 PolygonCentroid(const Vec2* vertices, int32_t count) {
  const Vec2 origin = vertices[0];
  Vec2 sum = {0.0f, 0.0f};
  float area = 0.0f;
  for (int32_t i = 1; i + 1 < count; ++i) {
    const Vec2 e1 = vertices[i] - origin;
    const Vec2 e2 = vertices[i + 1] - origin;
    const float a = 0.5f * Cross(e1, e2);
    sum = MulAdd(sum, a * (1.0f / 3.0f), e1 + e2);
    area += a;
  }
  ATOLL_ASSERT(area > 0.0f);
  return MulAdd(origin, 1.0f / area, sum);
}

Polygon BoxFromCorners(float hx, float hy, float radius) {
  Polygon box;
  box.count = 4;
  box.vertices[0] = {-hx, -hy};
  box.vertices[1] = {hx, -hy};
  box.vertices[2] = {hx, hy};
  box.vertices[3] = {-hx, hy};
  box.normals[0] = {0.0f, -1.0f};
  box.normals[1] = {1.0f, 0.0f};
  box.normals[2] = {0.0f, 1.0f};
  box.normals[3] = {-1.0f, 0.0f};
  box.radius = radius;
  box.centroid = {0.0f, 0.0f};
  return box;
}

absl::Status CheckExtents(float hx, float hy) {
  if (absl::Status s = internal::CheckLength("box: half-width hx", hx, false);
      !s.ok()) {
    return s;
  }
  return internal::CheckLength("box: half-height hy", hy, false);
}

}  // namespace

// ---------------------------------------------------------------------------
// Construction

absl::StatusOr<Polygon> MakePolygon(const Hull& hull, float radius) {
  if (absl::Status s = ValidateHull(hull); !s.ok()) return s;
  if (absl::Status s = internal::CheckLength("polygon: radius", radius, true);
      !s.ok()) {
    return s;
  }
  Polygon polygon;
  polygon.count = hull.count;
  polygon.radius = radius;
  for (int32_t i = 0; i < hull.count; ++i) {
    polygon.vertices[i] = hull.points[i];
  }
  for (int32_t i = 0; i < hull.count; ++i) {
    const Vec2 edge =
        polygon.vertices[(i + 1) % hull.count] - polygon.vertices[i];
    polygon.normals[i] = Normalize(RightPerp(edge));
  }
  polygon.centroid = PolygonCentroid(polygon.vertices, polygon.count);
  return polygon;
}

absl::StatusOr<Polygon> MakeBox(float hx, float hy) {
  if (absl::Status s = CheckExtents(hx, hy); !s.ok()) return s;
  return BoxFromCorners(hx, hy, 0.0f);
}

absl::StatusOr<Polygon> MakeSquare(float h) { return MakeBox(h, h); }

absl::StatusOr<Polygon> MakeRoundedBox(float hx, float hy, float radius) {
  if (absl::Status s = CheckExtents(hx, hy); !s.ok()) return s;
  if (absl::Status s = internal::CheckLength("box: radius", radius, true);
      !s.ok()) {
    return s;
  }
  return BoxFromCorners(hx, hy, radius);
}

absl::StatusOr<Polygon> MakeOffsetBox(float hx, float hy, Vec2 center,
                                      float angle) {
  if (absl::Status s = CheckExtents(hx, hy); !s.ok()) return s;
  if (absl::Status s = internal::CheckPoint("box: center", center); !s.ok()) {
    return s;
  }
  if (!IsFinite(angle)) {
    return absl::InvalidArgumentError(
        absl::StrCat("box: angle ", angle, " is not finite"));
  }
  const Transform xf{center, MakeRot(angle)};
  Polygon box = BoxFromCorners(hx, hy, 0.0f);
  for (int32_t i = 0; i < 4; ++i) {
    box.vertices[i] = TransformPoint(xf, box.vertices[i]);
    box.normals[i] = RotateVector(xf.q, box.normals[i]);
  }
  box.centroid = center;
  for (int32_t i = 0; i < 4; ++i) {
    if (absl::Status s = internal::CheckPoint(
            absl::StrCat("box: corner ", i), box.vertices[i]);
        !s.ok()) {
      return s;
    }
  }
  return box;
}

absl::StatusOr<std::vector<ChainSegment>> MakeChainSegments(
    std::span<const Vec2> points, bool loop) {
  const size_t n = points.size();
  const size_t min_points = loop ? 3 : 2;
  if (n < min_points) {
    return absl::InvalidArgumentError(
        absl::StrCat("chain: ", n, " points given; ", loop ? "a loop" : "a chain",
                     " needs at least ", min_points));
  }
  for (size_t i = 0; i < n; ++i) {
    if (absl::Status s =
            internal::CheckPoint(absl::StrCat("chain: point ", i), points[i]);
        !s.ok()) {
      return s;
    }
  }
  const size_t edge_count = loop ? n : n - 1;
  for (size_t i = 0; i < edge_count; ++i) {
    const size_t j = (i + 1) % n;
    if (DistanceSquared(points[i], points[j]) < kLinearSlop * kLinearSlop) {
      return absl::InvalidArgumentError(
          absl::StrCat("chain: points ", i, " and ", j, " are closer than ",
                       kLinearSlop, " m"));
    }
  }
  if (loop) {
    bool bends = false;
    for (size_t i = 2; i < n && !bends; ++i) {
      const Vec2 e = points[1] - points[0];
      const float length = Length(e);
      bends = Abs(Cross(e, points[i] - points[0])) > kLinearSlop * length;
    }
    if (!bends) {
      return absl::InvalidArgumentError(absl::StrCat(
          "chain: the loop's points are all collinear (within ", kLinearSlop,
          " m)"));
    }
  }

  std::vector<ChainSegment> segments(edge_count);
  for (size_t i = 0; i < edge_count; ++i) {
    ChainSegment& c = segments[i];
    c.segment.point1 = points[i];
    c.segment.point2 = points[(i + 1) % n];
    if (loop) {
      c.ghost1 = points[(i + n - 1) % n];
      c.ghost2 = points[(i + 2) % n];
      continue;
    }
    // An open end gets a ghost one unit behind the collision side: the
    // corner it forms is convex with the neighbour normal along the
    // segment, so the end vertex collides like a free, rounded end.
    const Vec2 normal = Normalize(RightPerp(c.segment.point2 - c.segment.point1));
    c.ghost1 = i > 0 ? points[i - 1] : c.segment.point1 - normal;
    c.ghost2 = i + 2 < n ? points[i + 2] : c.segment.point2 - normal;
  }
  // The points are checked above; an open end's ghost, a metre behind its
  // edge, can still lie beyond the world bound when the end is near it.
  for (size_t i = 0; i < edge_count; ++i) {
    if (absl::Status s = ValidateChainSegment(segments[i]); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("chain edge ", i, ": ", s.message()));
    }
  }
  return segments;
}

// ---------------------------------------------------------------------------
// Validation

absl::Status ValidateCircle(const Circle& circle) {
  if (absl::Status s = internal::CheckPoint("circle: center", circle.center);
      !s.ok()) {
    return s;
  }
  return internal::CheckLength("circle: radius", circle.radius, false);
}

absl::Status ValidateCapsule(const Capsule& capsule) {
  if (absl::Status s = internal::CheckPoint("capsule: center1", capsule.center1);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = internal::CheckPoint("capsule: center2", capsule.center2);
      !s.ok()) {
    return s;
  }
  if (DistanceSquared(capsule.center1, capsule.center2) <
      kLinearSlop * kLinearSlop) {
    return absl::InvalidArgumentError(absl::StrCat(
        "capsule: centers are closer than ", kLinearSlop,
        " m; use a circle"));
  }
  return internal::CheckLength("capsule: radius", capsule.radius, false);
}

absl::Status ValidateSegment(const Segment& segment) {
  if (absl::Status s = internal::CheckPoint("segment: point1", segment.point1);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = internal::CheckPoint("segment: point2", segment.point2);
      !s.ok()) {
    return s;
  }
  if (DistanceSquared(segment.point1, segment.point2) <
      kLinearSlop * kLinearSlop) {
    return absl::InvalidArgumentError(absl::StrCat(
        "segment: points are closer than ", kLinearSlop, " m"));
  }
  return absl::OkStatus();
}

absl::Status ValidateChainSegment(const ChainSegment& chain_segment) {
  if (absl::Status s = ValidateSegment(chain_segment.segment); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("chain ", s.message()));
  }
  if (absl::Status s =
          internal::CheckPoint("chain segment: ghost1", chain_segment.ghost1);
      !s.ok()) {
    return s;
  }
  return internal::CheckPoint("chain segment: ghost2", chain_segment.ghost2);
}

absl::Status ValidatePolygon(const Polygon& polygon) {
  if (polygon.count < 3 || polygon.count > kMaxPolygonVertices) {
    return absl::InvalidArgumentError(
        absl::StrCat("polygon: vertex count ", polygon.count,
                     " is outside 3..", kMaxPolygonVertices));
  }
  Hull hull;
  hull.count = polygon.count;
  for (int32_t i = 0; i < polygon.count; ++i) {
    hull.points[i] = polygon.vertices[i];
  }
  if (absl::Status s = ValidateHull(hull); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("polygon ", s.message()));
  }
  if (absl::Status s = internal::CheckLength("polygon: radius", polygon.radius,
                                             true);
      !s.ok()) {
    return s;
  }
  for (int32_t i = 0; i < polygon.count; ++i) {
    const Vec2 edge =
        polygon.vertices[(i + 1) % polygon.count] - polygon.vertices[i];
    const Vec2 expected = Normalize(RightPerp(edge));
    const Vec2 n = polygon.normals[i];
    if (!IsValid(n) || Abs(LengthSquared(n) - 1.0f) > 1.0e-4f ||
        Dot(n, expected) < 1.0f - 1.0e-4f) {
      return absl::InvalidArgumentError(
          absl::StrCat("polygon: normal ", i, " (", n.x, ", ", n.y,
                       ") is not the outward unit normal of edge ", i));
    }
  }
  // The centroid is the reference point for one-sided chain collision and
  // SAT; it must lie inside.
  for (int32_t i = 0; i < polygon.count; ++i) {
    if (!IsValid(polygon.centroid) ||
        Dot(polygon.normals[i], polygon.centroid - polygon.vertices[i]) >= 0.0f) {
      return absl::InvalidArgumentError(
          absl::StrCat("polygon: centroid (", polygon.centroid.x, ", ",
                       polygon.centroid.y, ") is not inside the polygon"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateShape(const ShapeGeometry& shape) {
  switch (shape.type) {
    case ShapeType::kCircle:
      return ValidateCircle(shape.circle);
    case ShapeType::kCapsule:
      return ValidateCapsule(shape.capsule);
    case ShapeType::kSegment:
      return ValidateSegment(shape.segment);
    case ShapeType::kPolygon:
      return ValidatePolygon(shape.polygon);
    case ShapeType::kChainSegment:
      return ValidateChainSegment(shape.chain_segment);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "shape: unknown type ", static_cast<int>(shape.type)));
}

absl::Status ValidateShapeMass(const ShapeGeometry& shape, float density) {
  if (density == 0.0f) return absl::OkStatus();
  if (shape.type != ShapeType::kCircle && shape.type != ShapeType::kCapsule &&
      shape.type != ShapeType::kPolygon) {
    return absl::OkStatus();
  }
  const MassData md = ComputeShapeMass(shape, density);
  if (md.mass < kMinShapeMass || md.rotational_inertia < kMinShapeInertia) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape: mass ", md.mass, " kg and inertia ", md.rotational_inertia,
        " kg m^2 (density times geometry) are below the least a body can hold (",
        kMinShapeMass, " kg, ", kMinShapeInertia, " kg m^2)"));
  }
  if (md.mass > kMaxShapeMass || md.rotational_inertia > kMaxShapeInertia) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape: mass ", md.mass, " kg and inertia ", md.rotational_inertia,
        " kg m^2 (density times geometry) are above the most a body can hold (",
        kMaxShapeMass, " kg, ", kMaxShapeInertia, " kg m^2)"));
  }
  return absl::OkStatus();
}

absl::Status ValidateDensity(float density) {
  if (!IsFinite(density)) {
    return absl::InvalidArgumentError(
        absl::StrCat("density ", density, " is not finite"));
  }
  if (density < 0.0f) {
    return absl::InvalidArgumentError(
        absl::StrCat("density ", density, " is negative"));
  }
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// Bounds

AABB ComputeShapeAABB(const ShapeGeometry& shape, const Transform& xf) {
  switch (shape.type) {
    case ShapeType::kCircle: {
      const Vec2 c = TransformPoint(xf, shape.circle.center);
      const float r = shape.circle.radius;
      return {{c.x - r, c.y - r}, {c.x + r, c.y + r}};
    }
    case ShapeType::kCapsule: {
      const Vec2 a = TransformPoint(xf, shape.capsule.center1);
      const Vec2 b = TransformPoint(xf, shape.capsule.center2);
      return Inflate({Min(a, b), Max(a, b)}, shape.capsule.radius);
    }
    case ShapeType::kSegment: {
      const Vec2 a = TransformPoint(xf, shape.segment.point1);
      const Vec2 b = TransformPoint(xf, shape.segment.point2);
      return {Min(a, b), Max(a, b)};
    }
    case ShapeType::kChainSegment: {
      const Vec2 a = TransformPoint(xf, shape.chain_segment.segment.point1);
      const Vec2 b = TransformPoint(xf, shape.chain_segment.segment.point2);
      return {Min(a, b), Max(a, b)};
    }
    case ShapeType::kPolygon: {
      const Polygon& p = shape.polygon;
      Vec2 lower = TransformPoint(xf, p.vertices[0]);
      Vec2 upper = lower;
      for (int32_t i = 1; i < p.count; ++i) {
        const Vec2 v = TransformPoint(xf, p.vertices[i]);
        lower = Min(lower, v);
        upper = Max(upper, v);
      }
      return Inflate({lower, upper}, p.radius);
    }
  }
  ATOLL_ASSERT(false && "unknown shape type");
  return {};
}

float ComputeShapeRadius(const ShapeGeometry& shape) {
  switch (shape.type) {
    case ShapeType::kCircle:
      return shape.circle.radius;
    case ShapeType::kCapsule:
      return shape.capsule.radius;
    case ShapeType::kPolygon:
      return shape.polygon.radius;
    case ShapeType::kSegment:
    case ShapeType::kChainSegment:
      break;
  }
  return 0.0f;
}

float ComputeShapeCoreExtent(const ShapeGeometry& shape, Vec2 local_center) {
  switch (shape.type) {
    case ShapeType::kCircle:
      return Distance(shape.circle.center, local_center);
    case ShapeType::kCapsule:
      return Max(Distance(shape.capsule.center1, local_center),
                 Distance(shape.capsule.center2, local_center));
    case ShapeType::kSegment:
      return Max(Distance(shape.segment.point1, local_center),
                 Distance(shape.segment.point2, local_center));
    case ShapeType::kChainSegment:
      return Max(Distance(shape.chain_segment.segment.point1, local_center),
                 Distance(shape.chain_segment.segment.point2, local_center));
    case ShapeType::kPolygon: {
      float max_sq = 0.0f;
      for (int32_t i = 0; i < shape.polygon.count; ++i) {
        max_sq = Max(max_sq,
                     DistanceSquared(shape.polygon.vertices[i], local_center));
      }
      return Sqrt(max_sq);
    }
  }
  ATOLL_ASSERT(false && "unknown shape type");
  return 0.0f;
}

float ComputeShapeExtent(const ShapeGeometry& shape, Vec2 local_center) {
  return ComputeShapeCoreExtent(shape, local_center) + ComputeShapeRadius(shape);
}

float ComputeShapeMinExtent(const ShapeGeometry& shape) {
  switch (shape.type) {
    case ShapeType::kCircle:
      return shape.circle.radius;
    case ShapeType::kCapsule:
      return shape.capsule.radius;
    case ShapeType::kSegment:
    case ShapeType::kChainSegment:
      return kLinearSlop;
    case ShapeType::kPolygon: {
      const Polygon& p = shape.polygon;
      float nearest = Dot(p.normals[0], p.vertices[0] - p.centroid);
      for (int32_t i = 1; i < p.count; ++i) {
        nearest = Min(nearest, Dot(p.normals[i], p.vertices[i] - p.centroid));
      }
      return Max(nearest, 0.0f) + p.radius;
    }
  }
  ATOLL_ASSERT(false && "unknown shape type");
  return 0.0f;
}

Vec2 ComputeShapeCentroid(const ShapeGeometry& shape) {
  switch (shape.type) {
    case ShapeType::kCircle:
      return shape.circle.center;
    case ShapeType::kCapsule:
      return Lerp(shape.capsule.center1, shape.capsule.center2, 0.5f);
    case ShapeType::kSegment:
      return Lerp(shape.segment.point1, shape.segment.point2, 0.5f);
    case ShapeType::kChainSegment:
      return Lerp(shape.chain_segment.segment.point1, shape.chain_segment.segment.point2, 0.5f);
    case ShapeType::kPolygon:
      return shape.polygon.centroid;
  }
  ATOLL_ASSERT(false && "unknown shape type");
  return {0.0f, 0.0f};
}

}  // namespace atl
