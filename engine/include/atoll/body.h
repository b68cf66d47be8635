// Atoll — rigid bodies: types, definitions and the state a world reports.

#ifndef ATOLL_BODY_H_
#define ATOLL_BODY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "atoll/math.h"

namespace atl {

/// How a body moves.
enum class BodyType : uint8_t {
  /// Never moves; infinite mass. Not part of any island.
  kStatic = 0,
  /// Moves only by the velocity the user sets; infinite mass; pushes dynamic
  /// bodies but is not pushed.
  kKinematic = 1,
  /// Moved by forces, gravity and contacts; finite mass from its shapes.
  kDynamic = 2,
};

/// Everything needed to create a body. Defaults describe a static body at
/// the origin; set `type` for anything that moves.
struct BodyDef {
  BodyType type = BodyType::kStatic;
  /// World position of the body origin, meters. Must be finite, |x|,|y| <= 1e5.
  Vec2 position;
  /// World angle, radians. Must be finite.
  float angle = 0.0f;
  /// Initial velocity of the body origin, m/s. Must be finite.
  Vec2 linear_velocity;
  /// Initial angular velocity, rad/s. Must be finite.
  float angular_velocity = 0.0f;
  /// Velocity damping per second (0 = none). Must be finite and >= 0.
  float linear_damping = 0.0f;
  float angular_damping = 0.0f;
  /// Multiplies world gravity for this body (0 floats, -1 falls up). Finite.
  float gravity_scale = 1.0f;
  /// Speed below which the body counts as resting for sleep, m/s. >= 0.
  float sleep_threshold = 0.05f;
  /// Keeps the body from rotating (infinite rotational inertia).
  bool fixed_rotation = false;
  /// Continuous collision against other dynamic bodies too, not only static
  /// ones. For small fast projectiles; costs more.
  bool is_bullet = false;
  /// May the body's island fall asleep when it comes to rest?
  bool allow_sleep = true;
  /// Create the body awake (true) or asleep.
  bool is_awake = true;
  /// A disabled body takes no part in the simulation until enabled.
  bool is_enabled = true;
  /// Opaque value for the application; part of the snapshot.
  uint64_t user_data = 0;
};

/// Checks every field of `def`; returns InvalidArgument naming the first bad
/// field, or OK.
absl::Status ValidateBodyDef(const BodyDef& def);

/// A body's state as the world reports it (see World::GetBody).
struct BodyInfo {
  BodyType type = BodyType::kStatic;
  /// Pose of the body origin.
  Transform transform;
  /// World position of the center of mass.
  Vec2 world_center;
  /// Center of mass in body coordinates.
  Vec2 local_center;
  float angle = 0.0f;
  Vec2 linear_velocity;
  float angular_velocity = 0.0f;
  float mass = 0.0f;
  /// Rotational inertia about the center of mass.
  float inertia = 0.0f;
  float gravity_scale = 1.0f;
  float linear_damping = 0.0f;
  float angular_damping = 0.0f;
  bool is_awake = false;
  bool is_enabled = true;
  bool is_bullet = false;
  bool fixed_rotation = false;
  bool allow_sleep = true;
  uint64_t user_data = 0;
};

}  // namespace atl

#endif  // ATOLL_BODY_H_
