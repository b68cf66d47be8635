// Validation of the public definition structs.

#include "absl/strings/str_cat.h"
#include "atoll/body.h"
#include "atoll/constants.h"
#include "atoll/joint.h"
#include "atoll/shape.h"
#include "atoll/world_def.h"

namespace atl {
namespace {

absl::Status Bad(const char* what, const char* field, const char* rule) {
  return absl::InvalidArgumentError(absl::StrCat(what, ".", field, " ", rule));
}

bool FiniteVec(Vec2 v) { return IsFinite(v.x) && IsFinite(v.y); }
bool Within(Vec2 v, float bound) { return Abs(v.x) <= bound && Abs(v.y) <= bound; }

}  // namespace

absl::Status ValidateWorldDef(const WorldDef& d) {
  constexpr char kWhat[] = "WorldDef";
  if (!FiniteVec(d.gravity) || !Within(d.gravity, kMaxGravity)) {
    return Bad(kWhat, "gravity", "must be finite and within +-kMaxGravity (1e4) per component");
  }
  if (d.substep_count < 1 || d.substep_count > 64) {
    return Bad(kWhat, "substep_count", "must be in 1..64");
  }
  if (!IsFinite(d.contact_hertz) || d.contact_hertz <= 0.0f) {
    return Bad(kWhat, "contact_hertz", "must be finite and > 0");
  }
  if (!IsFinite(d.contact_damping_ratio) || d.contact_damping_ratio < 0.0f ||
      d.contact_damping_ratio > kMaxDampingRatio) {
    return Bad(kWhat, "contact_damping_ratio", "must be finite and in [0, kMaxDampingRatio]");
  }
  if (!IsFinite(d.joint_hertz) || d.joint_hertz <= 0.0f) {
    return Bad(kWhat, "joint_hertz", "must be finite and > 0");
  }
  if (!IsFinite(d.joint_damping_ratio) || d.joint_damping_ratio < 0.0f ||
      d.joint_damping_ratio > kMaxDampingRatio) {
    return Bad(kWhat, "joint_damping_ratio", "must be finite and in [0, kMaxDampingRatio]");
  }
  if (!IsFinite(d.contact_push_max_velocity) || d.contact_push_max_velocity <= 0.0f) {
    return Bad(kWhat, "contact_push_max_velocity", "must be finite and > 0");
  }
  if (!IsFinite(d.restitution_threshold) || d.restitution_threshold < 0.0f) {
    return Bad(kWhat, "restitution_threshold", "must be finite and >= 0");
  }
  if (!IsFinite(d.hit_event_threshold) || d.hit_event_threshold < 0.0f) {
    return Bad(kWhat, "hit_event_threshold", "must be finite and >= 0");
  }
  if (!IsFinite(d.time_to_sleep) || d.time_to_sleep <= 0.0f) {
    return Bad(kWhat, "time_to_sleep", "must be finite and > 0");
  }
  if (!IsFinite(d.maximum_linear_speed) || d.maximum_linear_speed <= 0.0f) {
    return Bad(kWhat, "maximum_linear_speed", "must be finite and > 0");
  }
  if (d.world_id == 0) return Bad(kWhat, "world_id", "must be nonzero");
  return absl::OkStatus();
}

absl::Status ValidateBodyDef(const BodyDef& d) {
  constexpr char kWhat[] = "BodyDef";
  if (d.type != BodyType::kStatic && d.type != BodyType::kKinematic &&
      d.type != BodyType::kDynamic) {
    return Bad(kWhat, "type", "is not a body type");
  }
  if (!FiniteVec(d.position)) return Bad(kWhat, "position", "must be finite");
  if (!Within(d.position, kWorldBound)) {
    return Bad(kWhat, "position", "must lie within the world bound (1e4 m)");
  }
  if (!IsFinite(d.angle)) return Bad(kWhat, "angle", "must be finite");
  if (!FiniteVec(d.linear_velocity) || !Within(d.linear_velocity, kMaxBodySpeed)) {
    return Bad(kWhat, "linear_velocity", "must be finite and within +-kMaxBodySpeed (1e6)");
  }
  if (!IsFinite(d.angular_velocity) || Abs(d.angular_velocity) > kMaxBodyAngularSpeed) {
    return Bad(kWhat, "angular_velocity",
               "must be finite and within +-kMaxBodyAngularSpeed (1e6)");
  }
  if (!IsFinite(d.linear_damping) || d.linear_damping < 0.0f) {
    return Bad(kWhat, "linear_damping", "must be finite and >= 0");
  }
  if (!IsFinite(d.angular_damping) || d.angular_damping < 0.0f) {
    return Bad(kWhat, "angular_damping", "must be finite and >= 0");
  }
  if (!IsFinite(d.gravity_scale) || Abs(d.gravity_scale) > kMaxGravityScale) {
    return Bad(kWhat, "gravity_scale", "must be finite and within +-kMaxGravityScale (1e3)");
  }
  if (!IsFinite(d.sleep_threshold) || d.sleep_threshold < 0.0f) {
    return Bad(kWhat, "sleep_threshold", "must be finite and >= 0");
  }
  return absl::OkStatus();
}

absl::Status ValidateShapeDef(const ShapeDef& d) {
  constexpr char kWhat[] = "ShapeDef";
  if (!IsFinite(d.density) || d.density < 0.0f) {
    return Bad(kWhat, "density", "must be finite and >= 0");
  }
  if (!IsFinite(d.friction) || d.friction < 0.0f) {
    return Bad(kWhat, "friction", "must be finite and >= 0");
  }
  if (!IsFinite(d.restitution) || d.restitution < 0.0f || d.restitution > 1.0f) {
    return Bad(kWhat, "restitution", "must be in [0, 1]");
  }
  return absl::OkStatus();
}

}  // namespace atl
