// Linear shape cast by conservative advancement.
//
// At the current fraction GJK gives the gap g between the rounded shapes and
// the unit normal n from A to B. Along that fixed axis the gap can close no
// faster than the approach speed v = -dot(translation, n) (A is static), and
// the projection of the shapes on n bounds their true distance from below,
// so advancing by g / v can never step past the first contact. Each step
// lands on the contact exactly when the closest features are a face and a
// vertex, and converges quickly otherwise.

#include "atoll/cast.h"

namespace atl {
namespace {

constexpr int32_t kMaxCastIterations = 30;
// Stop once the gap is below this.
constexpr float kCastTolerance = 0.25f * kLinearSlop;

}  // namespace

CastOutput ShapeCast(const ShapeCastPairInput& input) {
  CastOutput out;
  const float radius = input.proxy_a.radius + input.proxy_b.radius;

  DistanceInput query;
  query.proxy_a = input.proxy_a;
  query.proxy_b = input.proxy_b;
  query.transform_a = input.transform_a;
  query.use_radii = false;
  SimplexCache cache;

  float fraction = 0.0f;
  for (int32_t iteration = 0; iteration < kMaxCastIterations; ++iteration) {
    query.transform_b = {MulAdd(input.transform_b.p, fraction,
                                input.translation_b),
                         input.transform_b.q};
    const DistanceOutput d = ShapeDistance(query, &cache);
    out.iterations = iteration + 1;
    const float gap = d.distance - radius;
    if (gap < kCastTolerance) {
      out.hit = true;
      out.fraction = fraction;
      out.normal = d.normal;
      // On A's rounded surface; for overlapping cores (only possible at
      // fraction 0) the midpoint of the core witnesses.
      out.point = d.distance > 0.0f
                      ? MulAdd(d.point_a, input.proxy_a.radius, d.normal)
                      : Lerp(d.point_a, d.point_b, 0.5f);
      return out;
    }
    const float approach = -Dot(input.translation_b, d.normal);
    if (approach <= 0.0f) return out;  // moving apart along the gap
    // Aim at half the tolerance so the last step usually ends the loop.
    fraction += (gap - 0.5f * kCastTolerance) / approach;
    if (fraction > input.max_fraction) return out;
  }
  return out;
}

}  // namespace atl
