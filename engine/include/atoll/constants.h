// Atoll — engine-wide tuning constants (lengths in meters).
//
// These are part of the deterministic contract: changing one changes
// simulation results, so the golden state hashes change with it.

#ifndef ATOLL_CONSTANTS_H_
#define ATOLL_CONSTANTS_H_

#include <cstdint>

#include "atoll/math.h"

namespace atl {

/// Collision and constraint tolerance. Contacts are allowed to overlap by
/// about this much so they stay touching (and warm-started) between steps;
/// geometry closer than this is treated as coincident (hull welding, chain
/// points, capsule centers).
inline constexpr float kLinearSlop = 0.005f;

/// Contact points are reported while the shapes are still separated by less
/// than this (with a positive separation), so the solver can stop an
/// approaching body before it penetrates. The broad-phase margin must be at
/// least this large.
inline constexpr float kSpeculativeDistance = 4.0f * kLinearSlop;

/// Most vertices a convex polygon may have.
inline constexpr int32_t kMaxPolygonVertices = 8;

/// Largest accepted |coordinate|, radius or extent in meters for shape
/// geometry; the world applies the same bound to body positions. Single
/// precision is spaced 2^-10 ~= 0.001 m at 1e4, a fifth of kLinearSlop, so
/// contacts stay resolvable everywhere inside the bound; at 1e5 the spacing
/// (0.008 m) would already exceed the slop.
inline constexpr float kWorldBound = 1.0e4f;

/// Bounds on what a body is created or set with (BodyDef, WorldDef and the
/// World setters refuse more): within them a step's arithmetic stays far
/// from single precision's overflow (a gravity scale of 1e38 made a
/// velocity infinite). Gravity per component in m/s^2, velocities per
/// component in m/s and rad/s.
inline constexpr float kMaxGravity = 1.0e4f;
inline constexpr float kMaxGravityScale = 1.0e3f;
inline constexpr float kMaxBodySpeed = 1.0e6f;
inline constexpr float kMaxBodyAngularSpeed = 1.0e6f;
/// Largest force (N), torque (N m), linear impulse (N s) or angular impulse
/// (N m s) per component that one World::Apply* call accepts.
inline constexpr float kMaxApplied = 1.0e9f;

/// Largest rotation of a body in one substep, radians (an eighth of a
/// turn): the solver caps angular speed at kMaxRotation / h. At 60 Hz and
/// 4 substeps that is 188 rad/s, 30 turns a second, beyond anything a
/// player can see; faster, the integrated rotation would skip past
/// contacts, and an angular speed in the 1e19 would overflow it.
inline constexpr float kMaxRotation = 0.25f * kPi;

}  // namespace atl

#endif  // ATOLL_CONSTANTS_H_
