// Atoll — field checks shared by the joint def validators.

#ifndef ATOLL_DYNAMICS_JOINTS_JOINT_CHECKS_H_
#define ATOLL_DYNAMICS_JOINTS_JOINT_CHECKS_H_

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "atoll/constants.h"
#include "atoll/joint.h"
#include "atoll/math.h"

namespace atl::joint_checks {

/// InvalidArgument "<def>.<field> <rule>".
inline absl::Status Bad(const char* def, const char* field, const char* rule) {
  return absl::InvalidArgumentError(absl::StrCat(def, ".", field, " ", rule));
}

/// A finite point within the world bound.
inline absl::Status Point(const char* def, const char* field, Vec2 p) {
  if (!IsFinite(p.x) || !IsFinite(p.y)) return Bad(def, field, "must be finite");
  if (Abs(p.x) > kWorldBound || Abs(p.y) > kWorldBound) {
    return Bad(def, field, "must lie within the world bound (1e4 m)");
  }
  return absl::OkStatus();
}

inline absl::Status Finite(const char* def, const char* field, float v) {
  if (!IsFinite(v)) return Bad(def, field, "must be finite");
  return absl::OkStatus();
}

inline absl::Status NonNegative(const char* def, const char* field, float v) {
  if (!IsFinite(v) || v < 0.0f) return Bad(def, field, "must be finite and >= 0");
  return absl::OkStatus();
}

/// A spring frequency: finite, in [0, kMaxSpringHertz] (> 0 when !allow_zero).
inline absl::Status Hertz(const char* def, const char* field, float v, bool allow_zero = true) {
  if (!IsFinite(v) || v < 0.0f || (!allow_zero && v == 0.0f)) {
    return Bad(def, field, allow_zero ? "must be finite and >= 0" : "must be finite and > 0");
  }
  if (v > kMaxSpringHertz) return Bad(def, field, "must not exceed kMaxSpringHertz (1e6 Hz)");
  return absl::OkStatus();
}

/// A damping ratio: finite, in [0, kMaxDampingRatio].
inline absl::Status Damping(const char* def, const char* field, float v) {
  if (!IsFinite(v) || v < 0.0f) return Bad(def, field, "must be finite and >= 0");
  if (v > kMaxDampingRatio) return Bad(def, field, "must not exceed kMaxDampingRatio (1e6)");
  return absl::OkStatus();
}

/// A finite, nonzero direction.
inline absl::Status Axis(const char* def, const char* field, Vec2 v) {
  if (!IsFinite(v.x) || !IsFinite(v.y)) return Bad(def, field, "must be finite");
  if (Length(v) < 1.0e-6f) return Bad(def, field, "must be nonzero");
  return absl::OkStatus();
}

/// lower <= upper, both finite.
inline absl::Status Range(const char* def, const char* lower_field, float lower, float upper) {
  if (!IsFinite(lower) || !IsFinite(upper)) return Bad(def, lower_field, "and its upper bound must be finite");
  if (lower > upper) return Bad(def, lower_field, "must not exceed the upper bound");
  return absl::OkStatus();
}

}  // namespace atl::joint_checks

#endif  // ATOLL_DYNAMICS_JOINTS_JOINT_CHECKS_H_
