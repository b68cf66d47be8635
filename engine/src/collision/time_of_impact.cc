// Time of impact by conservative advancement.
//
// At time t GJK gives the core distance d and the unit normal n from A to B.
// Project both shapes on the fixed axis n: their separation along it starts
// at d and bounds the true distance from below for as long as it stays
// positive. It shrinks no faster than
//   mu = dot(dcA - dcB, n) + wA * rA + wB * rB
// per unit time, where dc is the (constant) center-of-mass displacement of
// the sweep, w a bound on the rotation rate of the interpolated rotation and
// r the largest distance of a core point from the center of mass. Advancing
// by (d - target) / mu therefore never passes the moment the distance first
// drops to the target.
//
// The rotation rate bound: q(t) = normalize((1 - t) q1 + t q2). The
// unnormalized interpolant has angular rate |cross(q1, q2)| / |q(t)|^2 and
// |q(t)|^2 >= (1 + dot(q1, q2)) / 2 (its value at t = 1/2 for unit q1, q2),
// so w <= 2 |cross| / (1 + dot): twice the tangent of half the turn.

#include "atoll/time_of_impact.h"

#include "atoll/constants.h"

namespace atl {
namespace {

constexpr int32_t kMaxToiIterations = 64;

float RotationRateBound(Rot q1, Rot q2) {
  const float sin_theta = Abs(Cross({q1.c, q1.s}, {q2.c, q2.s}));
  const float half_one_plus_cos = 0.5f * (1.0f + Dot({q1.c, q1.s}, {q2.c, q2.s}));
  // Near a half turn the interpolation degenerates; no finite bound holds.
  if (half_one_plus_cos < 1.0e-6f) return 1.0e6f;
  return sin_theta / half_one_plus_cos;
}

float MaxRadius(const ShapeProxy& proxy, Vec2 local_center) {
  float max_sq = 0.0f;
  for (int32_t i = 0; i < proxy.count; ++i) {
    max_sq = Max(max_sq, DistanceSquared(proxy.points[i], local_center));
  }
  return Sqrt(max_sq);
}

}  // namespace

Transform GetSweepTransform(const Sweep& sweep, float t) {
  const float s = 1.0f - t;
  Transform xf;
  xf.p = {s * sweep.c1.x + t * sweep.c2.x, s * sweep.c1.y + t * sweep.c2.y};
  xf.q = NormalizeRot(
      {s * sweep.q1.c + t * sweep.q2.c, s * sweep.q1.s + t * sweep.q2.s});
  // The sweep moves the center of mass; the body origin hangs off it.
  xf.p -= RotateVector(xf.q, sweep.local_center);
  return xf;
}

TOIOutput TimeOfImpact(const TOIInput& input) {
  TOIOutput out;
  const Sweep& sa = input.sweep_a;
  const Sweep& sb = input.sweep_b;
  const float total_radius = input.proxy_a.radius + input.proxy_b.radius;
  const float target = TOITarget(total_radius);

  const Vec2 relative_motion = (sa.c2 - sa.c1) - (sb.c2 - sb.c1);
  const float angular_bound =
      RotationRateBound(sa.q1, sa.q2) * MaxRadius(input.proxy_a, sa.local_center) +
      RotationRateBound(sb.q1, sb.q2) * MaxRadius(input.proxy_b, sb.local_center);

  DistanceInput query;
  query.proxy_a = input.proxy_a;
  query.proxy_b = input.proxy_b;
  query.proxy_a.radius = 0.0f;
  query.proxy_b.radius = 0.0f;
  query.use_radii = false;
  SimplexCache cache;

  float t = 0.0f;
  for (int32_t iteration = 0; iteration < kMaxToiIterations; ++iteration) {
    query.transform_a = GetSweepTransform(sa, t);
    query.transform_b = GetSweepTransform(sb, t);
    const DistanceOutput d = ShapeDistance(query, &cache);

    if (d.simplex_count == 3 || d.distance <= 0.0f) {
      // Cores overlap. Advancement never steps into overlap, so this is the
      // starting configuration (or rounding at a grazing contact).
      out.state = iteration == 0 ? TOIState::kOverlapped : TOIState::kHit;
      out.fraction = t;
      return out;
    }
    if (d.distance < target + kToiTolerance) {
      out.state = TOIState::kHit;
      out.fraction = t;
      return out;
    }
    const float approach = Dot(relative_motion, d.normal) + angular_bound;
    if (approach <= 0.0f) {
      out.state = TOIState::kSeparated;
      out.fraction = input.max_fraction;
      return out;
    }
    t += (d.distance - target) / approach;
    if (t >= input.max_fraction) {
      out.state = TOIState::kSeparated;
      out.fraction = input.max_fraction;
      return out;
    }
  }
  out.state = TOIState::kFailed;
  out.fraction = t;
  return out;
}

}  // namespace atl
