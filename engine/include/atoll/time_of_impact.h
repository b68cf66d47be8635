// Atoll — time of impact between two moving shapes, for continuous
// collision.

#ifndef ATOLL_TIME_OF_IMPACT_H_
#define ATOLL_TIME_OF_IMPACT_H_

#include <cstdint>

#include "atoll/constants.h"
#include "atoll/distance.h"
#include "atoll/math.h"

namespace atl {

/// A body's motion over one step: its center of mass moves linearly from
/// c1 to c2 and its rotation is interpolated from q1 to q2 by normalized
/// linear interpolation (no trigonometry). The rotation between q1 and q2
/// must be less than a half turn.
struct Sweep {
  Vec2 local_center;  ///< center of mass in the body frame
  Vec2 c1;            ///< world center of mass at t = 0
  Vec2 c2;            ///< world center of mass at t = 1
  Rot q1;             ///< rotation at t = 0
  Rot q2;             ///< rotation at t = 1
};

/// The body transform at time t in [0, 1] of the sweep.
Transform GetSweepTransform(const Sweep& sweep, float t);

/// How far TimeOfImpact's stopping distance may lie above its target.
inline constexpr float kToiTolerance = 0.25f * kLinearSlop;

/// The core distance TimeOfImpact aims at for rounded shapes whose radii
/// sum to `total_radius`: a little overlap for the solver.
inline float TOITarget(float total_radius) { return Max(kLinearSlop, total_radius - kLinearSlop); }

/// Input of TimeOfImpact. The proxies are in their bodies' frames.
struct TOIInput {
  ShapeProxy proxy_a;
  ShapeProxy proxy_b;
  Sweep sweep_a;
  Sweep sweep_b;
  /// Only [0, max_fraction] of the sweeps is searched.
  float max_fraction = 1.0f;
};

/// How a time-of-impact query ended.
enum class TOIState : uint8_t {
  kUnknown = 0,
  kFailed,      ///< iteration limit reached; `fraction` is still safe
  kOverlapped,  ///< the cores already overlap at t = 0
  kHit,         ///< the shapes reach the target separation at `fraction`
  kSeparated,   ///< no contact up to max_fraction
};

/// Result of TimeOfImpact: the state and the fraction of the sweep.
struct TOIOutput {
  TOIState state = TOIState::kUnknown;
  float fraction = 0.0f;
};

/// The first time in [0, max_fraction] at which the rounded shapes come
/// within a target distance of touching, by conservative advancement. The
/// target keeps a little overlap for the solver: the core distance aimed at
/// is TOITarget(radius_a + radius_b), reported within kToiTolerance. The
/// advancement uses a bound on how fast the gap can close (linear motion
/// projected on the separating normal plus the rotation rate of the
/// interpolated rotation times each shape's extent), so it never steps past
/// the first contact: at the returned fraction the shapes are no closer than
/// the target minus the tolerance. kFailed keeps this guarantee;
/// kOverlapped reports fraction 0.
TOIOutput TimeOfImpact(const TOIInput& input);

}  // namespace atl

#endif  // ATOLL_TIME_OF_IMPACT_H_
