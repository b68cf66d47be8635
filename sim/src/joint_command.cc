#include "joint_command.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "atoll/constants.h"

namespace atl::sim {
namespace {

using K = v1::JointCommand;

bool Finite(float x) { return std::isfinite(x); }
bool Finite(const v1::Vec2& v) {
  return std::isfinite(v.x()) && std::isfinite(v.y());
}
bool InBound(const v1::Vec2& v) {
  return Finite(v) && std::fabs(v.x()) <= kWorldBound &&
         std::fabs(v.y()) <= kWorldBound;
}

absl::Status Invalid(const std::string& what) {
  return absl::InvalidArgumentError(what);
}

constexpr uint32_t Bit(JointType type) {
  return 1u << static_cast<uint32_t>(type);
}

}  // namespace

std::string JointChangeName(const v1::JointCommand& command) {
  switch (command.change_case()) {
    case K::kEnableMotor:
      return "enable_motor";
    case K::kMotorSpeed:
      return "motor_speed";
    case K::kMaxMotorTorque:
      return "max_motor_torque";
    case K::kMaxMotorForce:
      return "max_motor_force";
    case K::kEnableLimit:
      return "enable_limit";
    case K::kLimits:
      return "limits";
    case K::kEnableSpring:
      return "enable_spring";
    case K::kSpring:
      return "spring";
    case K::kTarget:
      return "target";
    case K::kDistanceLength:
      return "distance_length";
    case K::kMotorOffsets:
      return "motor_offsets";
    case K::CHANGE_NOT_SET:
      break;
  }
  return "";
}

absl::Status CheckJointChange(JointType type, const v1::JointCommand& c) {
  using enum JointType;
  // The joint types whose engine setter takes the change (atoll/world.h),
  // one bit per type.
  uint32_t takes = 0;
  const char* takes_names = "";
  switch (c.change_case()) {
    case K::kEnableMotor:
    case K::kMotorSpeed:
      takes = Bit(kRevolute) | Bit(kPrismatic) | Bit(kWheel);
      takes_names = "revolute, prismatic and wheel";
      break;
    case K::kMaxMotorTorque:
      takes = Bit(kRevolute) | Bit(kWheel) | Bit(kMotor);
      takes_names = "revolute, wheel and motor";
      break;
    case K::kMaxMotorForce:
      takes = Bit(kPrismatic) | Bit(kMotor) | Bit(kTarget);
      takes_names = "prismatic, motor and target";
      break;
    case K::kEnableLimit:
    case K::kLimits:
    case K::kEnableSpring:
      takes = Bit(kDistance) | Bit(kRevolute) | Bit(kPrismatic) | Bit(kWheel);
      takes_names = "distance, revolute, prismatic and wheel";
      break;
    case K::kSpring:
      takes = Bit(kDistance) | Bit(kRevolute) | Bit(kPrismatic) | Bit(kWheel) |
              Bit(kWeld) | Bit(kTarget);
      takes_names = "distance, revolute, prismatic, wheel, weld and target";
      break;
    case K::kTarget:
      takes = Bit(kTarget);
      takes_names = "target";
      break;
    case K::kDistanceLength:
      takes = Bit(kDistance);
      takes_names = "distance";
      break;
    case K::kMotorOffsets:
      takes = Bit(kMotor);
      takes_names = "motor";
      break;
    case K::CHANGE_NOT_SET:
      return Invalid(
          "no change set (enable_motor, motor_speed, max_motor_torque, "
          "max_motor_force, "
          "enable_limit, limits, enable_spring, spring, target, "
          "distance_length, motor_offsets)");
  }
  if ((takes & Bit(type)) == 0) {
    return Invalid(absl::StrCat("a ", std::string(JointTypeName(type)),
                                " joint has no such setting (only ",
                                takes_names, " joints)"));
  }
  switch (c.change_case()) {
    case K::kMotorSpeed:
      if (!Finite(c.motor_speed())) return Invalid("must be finite");
      break;
    case K::kMaxMotorTorque:
      if (!Finite(c.max_motor_torque()) || c.max_motor_torque() < 0.0f) {
        return Invalid("must be finite and >= 0");
      }
      break;
    case K::kMaxMotorForce:
      if (!Finite(c.max_motor_force()) || c.max_motor_force() < 0.0f) {
        return Invalid("must be finite and >= 0");
      }
      break;
    case K::kLimits: {
      const float lower = c.limits().lower(), upper = c.limits().upper();
      if (!Finite(lower) || !Finite(upper)) return Invalid("must be finite");
      if (lower > upper) return Invalid("lower must not exceed upper");
      if (type == kRevolute && (lower < -kPi || upper > kPi)) {
        return Invalid("revolute limits must lie in [-pi, pi]");
      }
      if (type == kDistance && (lower < 0.0f || upper > kJointHugeLength)) {
        return Invalid(absl::StrCat("distance limits must lie in [0, ",
                                    kJointHugeLength, "]"));
      }
      break;
    }
    case K::kSpring: {
      const float hertz = c.spring().hertz(), zeta = c.spring().damping_ratio();
      if (!Finite(hertz) || hertz < 0.0f || !Finite(zeta) || zeta < 0.0f) {
        return Invalid("hertz and damping_ratio must be finite and >= 0");
      }
      if (hertz > kMaxSpringHertz || zeta > kMaxDampingRatio) {
        return Invalid(absl::StrCat("hertz must not exceed ", kMaxSpringHertz,
                                    " and damping_ratio ", kMaxDampingRatio));
      }
      if (type == kTarget && hertz <= 0.0f)
        return Invalid("a target joint's hertz must be > 0");
      break;
    }
    case K::kTarget:
      if (!InBound(c.target())) {
        return Invalid(
            absl::StrCat("must be finite and within +-", kWorldBound));
      }
      break;
    case K::kDistanceLength:
      if (!Finite(c.distance_length()) || c.distance_length() < kLinearSlop ||
          c.distance_length() > kJointHugeLength) {
        return Invalid(absl::StrCat("must be finite and in [", kLinearSlop,
                                    ", ", kJointHugeLength, "]"));
      }
      break;
    case K::kMotorOffsets:
      if (!InBound(c.motor_offsets().linear()) ||
          !Finite(c.motor_offsets().angular())) {
        return Invalid(absl::StrCat("linear must be finite and within +-",
                                    kWorldBound, ", angular finite"));
      }
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

absl::Status ApplyJointChange(World* world, JointId joint,
                              const v1::JointCommand& c) {
  switch (c.change_case()) {
    case K::kEnableMotor:
      return world->EnableMotor(joint, c.enable_motor());
    case K::kMotorSpeed:
      return world->SetMotorSpeed(joint, c.motor_speed());
    case K::kMaxMotorTorque:
      return world->SetMaxMotorTorque(joint, c.max_motor_torque());
    case K::kMaxMotorForce:
      return world->SetMaxMotorForce(joint, c.max_motor_force());
    case K::kEnableLimit:
      return world->EnableLimit(joint, c.enable_limit());
    case K::kLimits:
      return world->SetLimits(joint, c.limits().lower(), c.limits().upper());
    case K::kEnableSpring:
      return world->EnableSpring(joint, c.enable_spring());
    case K::kSpring:
      return world->SetSpring(joint, c.spring().hertz(),
                              c.spring().damping_ratio());
    case K::kTarget:
      return world->SetTarget(joint, {c.target().x(), c.target().y()});
    case K::kDistanceLength:
      return world->SetDistanceLength(joint, c.distance_length());
    case K::kMotorOffsets:
      return world->SetMotorJointOffsets(
          joint,
          {c.motor_offsets().linear().x(), c.motor_offsets().linear().y()},
          c.motor_offsets().angular());
    case K::CHANGE_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("no change set");
}

}  // namespace atl::sim
