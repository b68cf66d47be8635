// Atoll — joints: constraints between two bodies.
//
// A joint is made from one of the *JointDef structs below by the matching
// World::Create*Joint call. Anchors are given in the bodies' own frames
// (relative to the body origin), so a def can be filled before or after the
// bodies move; to pin two bodies at a world point p, use
// InvTransformPoint(body transform, p) for each body.
//
// Joints are solved together with contacts in the soft-step solver: rigid
// parts are stiff springs (WorldDef::joint_hertz), the optional springs have
// the frequency and damping you give them. Every limit, motor and spring is
// per joint and can be changed between steps through World setters.
//
// Units: meters, radians, seconds, kilograms; forces in N, torques in N m.
// Angles are measured counter-clockwise, of body B relative to body A, minus
// the joint's reference angle, in (-pi, pi].

#ifndef ATOLL_JOINT_H_
#define ATOLL_JOINT_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "atoll/id.h"
#include "atoll/math.h"

namespace atl {

/// The kinds of joint.
enum class JointType : uint8_t {
  kDistance = 0,
  kRevolute = 1,
  kPrismatic = 2,
  kWeld = 3,
  kWheel = 4,
  kMotor = 5,
  kTarget = 6,
};

/// "distance", "revolute", ... for messages and tools.
std::string_view JointTypeName(JointType type);

/// A length standing for "no bound" in distance-joint limits, meters.
inline constexpr float kJointHugeLength = 1.0e5f;

/// The stiffest spring (Hz) and the highest damping ratio a joint or world
/// accepts. Far above any substep rate, where a spring is already as stiff
/// as the solver can make it; beyond them single precision overflows in the
/// soft-constraint coefficients and the solver would produce infinities.
inline constexpr float kMaxSpringHertz = 1.0e6f;
inline constexpr float kMaxDampingRatio = 1.0e6f;

/// Keeps two anchor points at a distance: a rigid rod, or a spring, with an
/// optional [min_length, max_length] range (a rope is a spring of zero
/// hertz with a maximum length).
struct DistanceJointDef {
  BodyId body_a;
  BodyId body_b;
  /// Anchors in the body frames. Finite, within the world bound.
  Vec2 local_anchor_a;
  Vec2 local_anchor_b;
  /// Rest length, m. Finite, in [kLinearSlop, kJointHugeLength].
  float length = 1.0f;
  /// false: a rigid rod of `length`. true: a spring of `hertz` and
  /// `damping_ratio` towards `length` (hertz 0: no spring force at all).
  bool enable_spring = false;
  /// Spring frequency, Hz, and damping ratio (1 = critical). Finite, >= 0.
  float hertz = 0.0f;
  float damping_ratio = 0.0f;
  /// Keep the length within [min_length, max_length] (used with a spring).
  bool enable_limit = false;
  /// Length range, m: finite, 0 <= min_length <= max_length <=
  /// kJointHugeLength.
  float min_length = 0.0f;
  float max_length = kJointHugeLength;
  /// May the two bodies' shapes collide with each other?
  bool collide_connected = false;
  /// Opaque value for the application; part of the snapshot.
  uint64_t user_data = 0;
};

/// Pins two bodies together at a point; they may turn about it. Optional
/// angle limits, motor and rotational spring.
struct RevoluteJointDef {
  BodyId body_a;
  BodyId body_b;
  /// The pin, in each body's frame. Finite, within the world bound.
  Vec2 local_anchor_a;
  Vec2 local_anchor_b;
  /// Angle of B relative to A (radians) at which the joint angle is zero.
  /// Finite.
  float reference_angle = 0.0f;
  /// A rotational spring pulling the joint angle towards zero.
  bool enable_spring = false;
  /// Spring frequency, Hz, and damping ratio. Finite, >= 0.
  float hertz = 0.0f;
  float damping_ratio = 0.0f;
  /// Keep the joint angle in [lower_angle, upper_angle].
  bool enable_limit = false;
  /// Radians, finite, -pi <= lower_angle <= upper_angle <= pi.
  float lower_angle = 0.0f;
  float upper_angle = 0.0f;
  /// Drive the relative angular velocity towards motor_speed (rad/s) with
  /// at most max_motor_torque (N m, finite, >= 0).
  bool enable_motor = false;
  float motor_speed = 0.0f;
  float max_motor_torque = 0.0f;
  bool collide_connected = false;
  uint64_t user_data = 0;
};

/// Lets body B slide along an axis fixed in body A, without turning
/// relative to A. Optional translation limits, motor and spring.
struct PrismaticJointDef {
  BodyId body_a;
  BodyId body_b;
  Vec2 local_anchor_a;
  Vec2 local_anchor_b;
  /// Slide direction in A's frame; normalized on creation. Finite, nonzero.
  Vec2 local_axis_a = {1.0f, 0.0f};
  /// Angle of B relative to A held by the joint. Finite.
  float reference_angle = 0.0f;
  /// A spring along the axis pulling the translation towards zero.
  bool enable_spring = false;
  float hertz = 0.0f;
  float damping_ratio = 0.0f;
  /// Keep the translation (B's anchor relative to A's along the axis, m) in
  /// [lower_translation, upper_translation]; finite, lower <= upper.
  bool enable_limit = false;
  float lower_translation = 0.0f;
  float upper_translation = 0.0f;
  /// Drive the sliding speed towards motor_speed (m/s) with at most
  /// max_motor_force (N, finite, >= 0).
  bool enable_motor = false;
  float motor_speed = 0.0f;
  float max_motor_force = 0.0f;
  bool collide_connected = false;
  uint64_t user_data = 0;
};

/// Glues two bodies together: no relative motion. Rigid by default, or
/// soft with linear and angular springs.
struct WeldJointDef {
  BodyId body_a;
  BodyId body_b;
  Vec2 local_anchor_a;
  Vec2 local_anchor_b;
  /// Angle of B relative to A held by the joint. Finite.
  float reference_angle = 0.0f;
  /// Stiffness of the point (linear) and angle (angular) parts, Hz; 0 means
  /// rigid. Damping ratios as for springs. All finite and >= 0.
  float linear_hertz = 0.0f;
  float linear_damping_ratio = 0.0f;
  float angular_hertz = 0.0f;
  float angular_damping_ratio = 0.0f;
  bool collide_connected = false;
  uint64_t user_data = 0;
};

/// A wheel on a suspension: B's anchor stays on a line through A's anchor
/// along an axis fixed in A, sprung along that line; B turns freely, driven
/// by an optional motor. Optional limits on the suspension travel.
struct WheelJointDef {
  BodyId body_a;
  BodyId body_b;
  Vec2 local_anchor_a;
  Vec2 local_anchor_b;
  /// Suspension axis in A's frame; normalized on creation. Finite, nonzero.
  Vec2 local_axis_a = {0.0f, 1.0f};
  /// The suspension spring towards zero travel.
  bool enable_spring = true;
  float hertz = 1.0f;
  float damping_ratio = 0.7f;
  /// Keep the travel in [lower_translation, upper_translation] (m).
  bool enable_limit = false;
  float lower_translation = 0.0f;
  float upper_translation = 0.0f;
  /// Drive the wheel's spin relative to A towards motor_speed (rad/s) with
  /// at most max_motor_torque (N m).
  bool enable_motor = false;
  float motor_speed = 0.0f;
  float max_motor_torque = 0.0f;
  bool collide_connected = false;
  uint64_t user_data = 0;
};

/// Drives B towards a pose relative to A with bounded force and torque,
/// e.g. for top-down friction or a character following a path.
struct MotorJointDef {
  BodyId body_a;
  BodyId body_b;
  /// Target position of B's origin in A's frame, m. Finite.
  Vec2 linear_offset;
  /// Target angle of B relative to A, radians. Finite.
  float angular_offset = 0.0f;
  /// Largest force (N) and torque (N m) used. Finite, >= 0.
  float max_force = 1.0f;
  float max_torque = 1.0f;
  /// Share of the pose error corrected per substep, in [0, 1].
  float correction_factor = 0.3f;
  bool collide_connected = false;
  uint64_t user_data = 0;
};

/// Pulls a point of one body towards a world target with a soft spring of
/// bounded force (mouse dragging, "grab this"). The body point is the one
/// lying at `target` when the joint is created.
struct TargetJointDef {
  BodyId body;
  /// World target, m. Finite, within the world bound.
  Vec2 target;
  /// Spring frequency (Hz, > 0) and damping ratio (>= 0), finite.
  float hertz = 4.0f;
  float damping_ratio = 0.7f;
  /// Largest force, N. Finite, >= 0.
  float max_force = 1000.0f;
  uint64_t user_data = 0;
};

/// Field checks of each def (everything but the body ids, which need a
/// world): InvalidArgument naming the first bad field, or OK.
absl::Status ValidateDistanceJointDef(const DistanceJointDef& def);
absl::Status ValidateRevoluteJointDef(const RevoluteJointDef& def);
absl::Status ValidatePrismaticJointDef(const PrismaticJointDef& def);
absl::Status ValidateWeldJointDef(const WeldJointDef& def);
absl::Status ValidateWheelJointDef(const WheelJointDef& def);
absl::Status ValidateMotorJointDef(const MotorJointDef& def);
absl::Status ValidateTargetJointDef(const TargetJointDef& def);

}  // namespace atl

#endif  // ATOLL_JOINT_H_
