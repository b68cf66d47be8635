// Atoll — engine-wide tuning constants (lengths in meters).
//
// These are part of the deterministic contract: changing one changes
// simulation results, so the golden state hashes change with it.

#ifndef ATOLL_CONSTANTS_H_
#define ATOLL_CONSTANTS_H_

#include <cstdint>

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

}  // namespace atl

#endif  // ATOLL_CONSTANTS_H_
