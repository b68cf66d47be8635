// Ray casts against each shape type, in the shape's local frame.
//
// Conventions shared by every shape: fractions are along the full
// translation; a ray starting inside a solid shape does not hit it (the
// caller asked where the ray enters, and it never does); only entry points
// count.

#include "atoll/assert.h"
#include "atoll/cast.h"

namespace atl {
namespace {

CastOutput Miss() { return CastOutput{}; }

CastOutput Hit(Vec2 point, Vec2 normal, float fraction) {
  CastOutput out;
  out.hit = true;
  out.point = point;
  out.normal = normal;
  out.fraction = fraction;
  return out;
}

// Circle: with u the unit direction, the ray's closest approach to the
// center is at distance `along` from the origin; the entry point is
// sqrt(r^2 - miss^2) before it. Working with the unit direction keeps the
// quadratic well scaled whatever the translation length.
CastOutput RayCastCircle(const RayCastInput& in, Vec2 center, float radius) {
  float length = 0.0f;
  const Vec2 u = GetLengthAndNormalize(&length, in.translation);
  if (length == 0.0f) return Miss();
  const Vec2 s = center - in.origin;
  if (LengthSquared(s) < radius * radius) return Miss();  // starts inside
  const float along = Dot(s, u);
  const Vec2 offset = MulSub(s, along, u);  // center relative to the ray
  const float h_sq = radius * radius - LengthSquared(offset);
  if (h_sq < 0.0f) return Miss();
  const float t = along - Sqrt(h_sq);
  if (t < 0.0f || t > in.max_fraction * length) return Miss();
  const Vec2 point = MulAdd(in.origin, t, u);
  return Hit(point, Normalize(point - center), t / length);
}

// Segment p1-p2. `one_sided`: only rays coming from the side RightPerp(p2 -
// p1) points to can hit.
CastOutput RayCastSegment(const RayCastInput& in, Vec2 p1, Vec2 p2,
                          bool one_sided) {
  const Vec2 e = p2 - p1;
  const Vec2 n = Normalize(RightPerp(e));
  const float origin_side = Dot(in.origin - p1, n);
  if (one_sided && origin_side <= 0.0f) return Miss();
  const float denom = Dot(n, in.translation);
  if (denom == 0.0f) return Miss();  // parallel
  const float t = -origin_side / denom;
  if (t < 0.0f || t > in.max_fraction) return Miss();
  const Vec2 q = MulAdd(in.origin, t, in.translation);
  const float s = Dot(q - p1, e);
  if (s < 0.0f || s > Dot(e, e)) return Miss();
  return Hit(q, origin_side > 0.0f ? n : -n, t);
}

// The capsule is the union of its two end discs and the slab between the
// two side lines; a ray that starts outside all of them enters the union
// where it first enters one of them. The slab's end faces lie inside the
// discs, so only its two sides need testing, each one-sided from outside.
CastOutput RayCastCapsule(const RayCastInput& in, const Capsule& capsule) {
  const Vec2 c1 = capsule.center1;
  const Vec2 c2 = capsule.center2;
  const float r = capsule.radius;
  const SegmentDistanceResult inside =
      SegmentDistance(in.origin, in.origin, c1, c2);
  if (inside.distance_squared < r * r) return Miss();

  const Vec2 side = r * Normalize(RightPerp(c2 - c1));
  const CastOutput candidates[4] = {
      RayCastCircle(in, c1, r),
      RayCastCircle(in, c2, r),
      RayCastSegment(in, c1 + side, c2 + side, true),
      RayCastSegment(in, c2 - side, c1 - side, true),
  };
  CastOutput best = Miss();
  for (const CastOutput& c : candidates) {
    if (c.hit && (!best.hit || c.fraction < best.fraction)) best = c;
  }
  return best;
}

// Sharp polygon: clip the ray's parameter interval against every edge's
// half-plane (Cyrus-Beck). The last plane to raise the lower bound is the
// entry face; if none does, the origin is inside.
CastOutput RayCastSharpPolygon(const RayCastInput& in, const Polygon& p) {
  float lower = 0.0f;
  float upper = in.max_fraction;
  int32_t index = -1;
  for (int32_t i = 0; i < p.count; ++i) {
    // Inside the half-plane where dot(n, x - v) <= 0.
    const float numerator = Dot(p.normals[i], p.vertices[i] - in.origin);
    const float denominator = Dot(p.normals[i], in.translation);
    if (denominator == 0.0f) {
      if (numerator < 0.0f) return Miss();  // parallel and outside
      continue;
    }
    const float t = numerator / denominator;
    if (denominator < 0.0f) {
      if (t > lower) {
        lower = t;
        index = i;
      }
    } else if (t < upper) {
      upper = t;
    }
    if (upper < lower) return Miss();
  }
  if (index < 0) return Miss();
  return Hit(MulAdd(in.origin, lower, in.translation), p.normals[index], lower);
}

// Rounded polygon: like the capsule, the union of the core, one disc per
// vertex and one slab per edge; from outside, the ray first enters through a
// disc or the outer face of a slab (the core and the slabs' other faces are
// inside that union).
CastOutput RayCastRoundedPolygon(const RayCastInput& in, const Polygon& p) {
  const float r = p.radius;
  bool inside_core = true;
  float min_distance_sq = 1.0e30f;
  for (int32_t i = 0; i < p.count; ++i) {
    const Vec2 v1 = p.vertices[i];
    const Vec2 v2 = p.vertices[(i + 1) % p.count];
    if (Dot(p.normals[i], in.origin - v1) > 0.0f) inside_core = false;
    min_distance_sq = Min(
        min_distance_sq,
        SegmentDistance(in.origin, in.origin, v1, v2).distance_squared);
  }
  if (inside_core || min_distance_sq < r * r) return Miss();

  CastOutput best = Miss();
  for (int32_t i = 0; i < p.count; ++i) {
    const Vec2 v1 = p.vertices[i];
    const Vec2 v2 = p.vertices[(i + 1) % p.count];
    const Vec2 offset = r * p.normals[i];
    const CastOutput face = RayCastSegment(in, v1 + offset, v2 + offset, true);
    const CastOutput corner = RayCastCircle(in, v1, r);
    for (const CastOutput& c : {face, corner}) {
      if (c.hit && (!best.hit || c.fraction < best.fraction)) best = c;
    }
  }
  return best;
}

CastOutput RayCastLocal(const RayCastInput& in, const ShapeGeometry& shape) {
  switch (shape.type) {
    case ShapeType::kCircle:
      return RayCastCircle(in, shape.circle.center, shape.circle.radius);
    case ShapeType::kCapsule:
      return RayCastCapsule(in, shape.capsule);
    case ShapeType::kSegment:
      return RayCastSegment(in, shape.segment.point1, shape.segment.point2,
                            false);
    case ShapeType::kChainSegment:
      return RayCastSegment(in, shape.chain_segment.segment.point1,
                            shape.chain_segment.segment.point2, true);
    case ShapeType::kPolygon:
      return shape.polygon.radius > 0.0f
                 ? RayCastRoundedPolygon(in, shape.polygon)
                 : RayCastSharpPolygon(in, shape.polygon);
  }
  ATOLL_ASSERT(false && "unknown shape type");
  return Miss();
}

}  // namespace

CastOutput RayCastShape(const RayCastInput& input, const ShapeGeometry& shape,
                        const Transform& transform) {
  if (LengthSquared(input.translation) == 0.0f) return Miss();
  RayCastInput local;
  local.origin = InvTransformPoint(transform, input.origin);
  local.translation = InvRotateVector(transform.q, input.translation);
  local.max_fraction = input.max_fraction;
  CastOutput out = RayCastLocal(local, shape);
  if (out.hit) {
    out.point = TransformPoint(transform, out.point);
    out.normal = RotateVector(transform.q, out.normal);
  }
  return out;
}

}  // namespace atl
