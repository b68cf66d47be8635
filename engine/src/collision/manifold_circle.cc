// Pairs with a circle as shape B: circle, capsule, segment and polygon as
// shape A. All give at most one point.

#include "atoll/manifold.h"
#include "collision/manifold_internal.h"

namespace atl {
namespace {

using internal::LocalManifold;

// Contact between A's core point `pa` and a circle core at `c`, along the
// unit `normal` at core distance `distance` (may be <= 0 when the circle's
// center is inside A's core).
LocalManifold PointContact(Vec2 pa, float radius_a, Vec2 c, float radius_b,
                           Vec2 normal, float distance, uint32_t id) {
  LocalManifold m;
  const float separation = distance - radius_a - radius_b;
  if (separation > kSpeculativeDistance) return m;
  const Vec2 surface_a = MulAdd(pa, radius_a, normal);
  const Vec2 surface_b = MulSub(c, radius_b, normal);
  m.normal = normal;
  m.points[0] = Lerp(surface_a, surface_b, 0.5f);
  m.separations[0] = separation;
  m.ids[0] = id;
  m.count = 1;
  return m;
}

// A segment core p1-p2 (radius_a: capsule radius, 0 for a segment) against
// a circle at `c` in A's frame.
LocalManifold SegmentCoreAndCircle(Vec2 p1, Vec2 p2, float radius_a, Vec2 c,
                                   float radius_b) {
  const Vec2 e = p2 - p1;
  const float u = Dot(c - p1, e);
  const float ee = Dot(e, e);
  Vec2 closest;
  uint32_t id;
  if (u <= 0.0f) {
    closest = p1;
    id = MakeFeatureId(FeatureType::kVertex, 0, FeatureType::kVertex, 0);
  } else if (u >= ee) {
    closest = p2;
    id = MakeFeatureId(FeatureType::kVertex, 1, FeatureType::kVertex, 0);
  } else {
    closest = MulAdd(p1, u / ee, e);
    // Face 0 is the right side of p1 -> p2.
    const uint32_t face = Cross(e, c - p1) <= 0.0f ? 0u : 1u;
    id = MakeFeatureId(FeatureType::kFace, face, FeatureType::kVertex, 0);
  }
  float distance = 0.0f;
  Vec2 normal = GetLengthAndNormalize(&distance, c - closest);
  // Center exactly on the core: any perpendicular will do; pick face 0's.
  if (distance == 0.0f) normal = Normalize(RightPerp(e));
  return PointContact(closest, radius_a, c, radius_b, normal, distance, id);
}

Vec2 CircleCenterInA(const Transform& xf_a, const Circle& b,
                     const Transform& xf_b) {
  return TransformPoint(InvMulTransforms(xf_a, xf_b), b.center);
}

}  // namespace

Manifold CollideCircles(const Circle& a, const Transform& xf_a,
                        const Circle& b, const Transform& xf_b) {
  const Vec2 c = CircleCenterInA(xf_a, b, xf_b);
  float distance = 0.0f;
  Vec2 normal = GetLengthAndNormalize(&distance, c - a.center);
  // Concentric circles: push apart along +y rather than not at all.
  if (distance == 0.0f) normal = {0.0f, 1.0f};
  return internal::ToWorldManifold(
      PointContact(a.center, a.radius, c, b.radius, normal, distance,
                   MakeFeatureId(FeatureType::kVertex, 0, FeatureType::kVertex,
                                 0)),
      xf_a, xf_b);
}

Manifold CollideCapsuleAndCircle(const Capsule& a, const Transform& xf_a,
                                 const Circle& b, const Transform& xf_b) {
  return internal::ToWorldManifold(
      SegmentCoreAndCircle(a.center1, a.center2, a.radius,
                           CircleCenterInA(xf_a, b, xf_b), b.radius),
      xf_a, xf_b);
}

Manifold CollideSegmentAndCircle(const Segment& a, const Transform& xf_a,
                                 const Circle& b, const Transform& xf_b) {
  return internal::ToWorldManifold(
      SegmentCoreAndCircle(a.point1, a.point2, 0.0f,
                           CircleCenterInA(xf_a, b, xf_b), b.radius),
      xf_a, xf_b);
}

Manifold CollidePolygonAndCircle(const Polygon& a, const Transform& xf_a,
                                 const Circle& b, const Transform& xf_b) {
  const Vec2 c = CircleCenterInA(xf_a, b, xf_b);
  // The face the center lies farthest outside of. If the center is outside
  // the core, the closest core point is on that face or one of its ends.
  int32_t face = 0;
  float separation = -1.0e30f;
  for (int32_t i = 0; i < a.count; ++i) {
    const float s = Dot(a.normals[i], c - a.vertices[i]);
    if (s > separation) {
      separation = s;
      face = i;
    }
  }
  const float radius = a.radius + b.radius;
  if (separation > kSpeculativeDistance + radius) return {};

  const int32_t next = face + 1 < a.count ? face + 1 : 0;
  const Vec2 v1 = a.vertices[face];
  const Vec2 v2 = a.vertices[next];
  LocalManifold m;
  if (separation > 0.0f && Dot(c - v1, v2 - v1) < 0.0f) {
    const float distance = Distance(c, v1);
    m = PointContact(v1, a.radius, c, b.radius, (1.0f / distance) * (c - v1),
                     distance,
                     MakeFeatureId(FeatureType::kVertex, face,
                                   FeatureType::kVertex, 0));
  } else if (separation > 0.0f && Dot(c - v2, v1 - v2) < 0.0f) {
    const float distance = Distance(c, v2);
    m = PointContact(v2, a.radius, c, b.radius, (1.0f / distance) * (c - v2),
                     distance,
                     MakeFeatureId(FeatureType::kVertex, next,
                                   FeatureType::kVertex, 0));
  } else {
    const Vec2 n = a.normals[face];
    m = PointContact(MulSub(c, separation, n), a.radius, c, b.radius, n,
                     separation,
                     MakeFeatureId(FeatureType::kFace, face,
                                   FeatureType::kVertex, 0));
  }
  return internal::ToWorldManifold(m, xf_a, xf_b);
}

}  // namespace atl
