// Atoll — ray casts against shapes and linear shape casts.

#ifndef ATOLL_CAST_H_
#define ATOLL_CAST_H_

#include <cstdint>

#include "atoll/distance.h"
#include "atoll/geometry.h"
#include "atoll/math.h"

namespace atl {

/// A ray from `origin` along `translation`: the points
/// origin + t * translation for t in [0, max_fraction].
struct RayCastInput {
  Vec2 origin;
  Vec2 translation;
  float max_fraction = 1.0f;
};

/// Result of a ray cast or shape cast.
struct CastOutput {
  /// Unit surface normal at the hit: for a ray cast the hit shape's outward
  /// normal, for a shape cast pointing from A to B.
  Vec2 normal;
  /// The hit point (for a shape cast, on A's surface).
  Vec2 point;
  /// Fraction of the translation at the hit.
  float fraction = 0.0f;
  int32_t iterations = 0;
  bool hit = false;
};

/// Casts a ray against a shape placed by `transform` (ray in world space;
/// the output is in world space too). A ray that starts inside a solid
/// shape reports no hit, as does a zero-length ray. Segments are hit from
/// either side (normal facing the ray origin); chain segments only from
/// their collision side. Rays parallel to a segment miss it.
CastOutput RayCastShape(const RayCastInput& input, const ShapeGeometry& shape,
                        const Transform& transform);

/// Linear sweep of B against static A: B moves by translation_b * t for t
/// in [0, max_fraction].
struct ShapeCastPairInput {
  ShapeProxy proxy_a;
  ShapeProxy proxy_b;
  Transform transform_a = kTransformIdentity;
  Transform transform_b = kTransformIdentity;
  Vec2 translation_b;
  float max_fraction = 1.0f;
};

/// The first fraction at which the rounded proxies touch (to within
/// kLinearSlop / 4; the reported fraction never passes the true contact),
/// with the contact point on A and the normal from A to B, by conservative
/// advancement along the GJK normal. Shapes that already touch report a hit
/// at fraction 0 (normal zero if the cores overlap). No hit when B moves
/// away, does not reach A within max_fraction, or the advancement has not
/// converged after 30 steps (only for extreme grazing motions; the shapes
/// are then still apart at the last fraction reached).
CastOutput ShapeCast(const ShapeCastPairInput& input);

}  // namespace atl

#endif  // ATOLL_CAST_H_
