// Atoll — the solver's dense per-body arrays.

#ifndef ATOLL_DYNAMICS_SOLVER_BODY_H_
#define ATOLL_DYNAMICS_SOLVER_BODY_H_

#include <cstdint>

#include "atoll/math.h"

namespace atl {

/// The hot state the constraint loops read and write: velocity and the
/// motion since the start of the step. Kept at 32 bytes so two share a
/// cache line.
struct SolverBody {
  Vec2 linear_velocity;
  float angular_velocity = 0.0f;
  /// The square of the fastest push-out (ApplyPushes) that moved the body
  /// this step, zero if none: faster than its sleep threshold, it may not
  /// fall asleep. Carried through the velocity passes as is.
  float pushed = 0.0f;
  /// Translation of the center of mass since the step began.
  Vec2 delta_position;
  /// Rotation since the step began.
  Rot delta_rotation;
};
static_assert(sizeof(SolverBody) == 32, "SolverBody is hot; keep it small");

/// The constant part of a body during a step. Eight floats wide like
/// SolverBody, so the velocity integration can read four bodies' rows at
/// once and transpose them (solver.cc).
struct SolverBodyParams {
  /// What one substep of gravity (times the body's gravity scale) and the
  /// user's force and torque add to the velocities: h (g + F / m) and
  /// h T / I, the same every substep. Zero for a kinematic body.
  Vec2 linear_kick;
  float angular_kick = 0.0f;
  float inv_mass = 0.0f;
  /// What one substep's implicit damping scales the velocities by,
  /// 1 / (1 + h c) for damping c and substep h: the same every substep.
  float linear_damping_scale = 1.0f;
  float angular_damping_scale = 1.0f;
  float inv_inertia = 0.0f;
  int32_t body = 0;
};
static_assert(sizeof(SolverBodyParams) == 32, "SolverBodyParams is eight floats");

/// Stands in for static bodies (and any body outside the solver): no
/// velocity, no motion, never written.
inline constexpr SolverBody kStaticSolverBody{};

/// Soft constraint coefficients for one substep length (soft step): a
/// spring of `hertz` with `damping_ratio`, expressed as a velocity bias rate
/// and the mass/impulse scaling that make an implicit spring out of an
/// impulse solver.
struct Softness {
  float bias_rate = 0.0f;
  float mass_scale = 1.0f;
  float impulse_scale = 0.0f;
};

/// The softness of a spring with frequency `hertz` and `zeta` for substep h.
/// Rigid (bias 0, scales 1/0) when hertz is 0.
inline Softness MakeSoftness(float hertz, float zeta, float h) {
  if (hertz == 0.0f) return {0.0f, 1.0f, 0.0f};
  const float omega = 2.0f * kPi * hertz;
  const float a1 = 2.0f * zeta + h * omega;
  const float a2 = h * omega * a1;
  const float a3 = 1.0f / (1.0f + a2);
  return {omega / a1, a2 * a3, a3};
}

}  // namespace atl

#endif  // ATOLL_DYNAMICS_SOLVER_BODY_H_
