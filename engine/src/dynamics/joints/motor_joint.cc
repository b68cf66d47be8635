#include "dynamics/joints/motor_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateMotorJointDef(const MotorJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "MotorJointDef";
  if (absl::Status s = Point(kDef, "linear_offset", d.linear_offset); !s.ok()) return s;
  if (absl::Status s = Finite(kDef, "angular_offset", d.angular_offset); !s.ok()) return s;
  if (absl::Status s = NonNegative(kDef, "max_force", d.max_force); !s.ok()) return s;
  if (absl::Status s = NonNegative(kDef, "max_torque", d.max_torque); !s.ok()) return s;
  if (!IsFinite(d.correction_factor) || d.correction_factor < 0.0f ||
      d.correction_factor > 1.0f) {
    return Bad(kDef, "correction_factor", "must be in [0, 1]");
  }
  return absl::OkStatus();
}

MotorJoint MakeMotorJoint(const MotorJointDef& d) {
  MotorJoint j;
  j.angular_offset = d.angular_offset;
  j.max_force = d.max_force;
  j.max_torque = d.max_torque;
  j.correction_factor = d.correction_factor;
  return j;
}

void PrepareMotorJoint(const JointContext&, const JointFrame& f, MotorJoint* j) {
  j->axial_mass = AngularMass(f);
}

void WarmStartMotorJoint(const JointFrame& f, const MotorJoint& j, SolverBody* a, SolverBody* b) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  ApplyPointImpulse(f, j.linear_impulse, ra, rb, a, b);
  ApplyAngularImpulse(f, j.angular_impulse, a, b);
}

void SolveMotorJoint(const JointContext& ctx, const JointFrame& f, MotorJoint* j, SolverBody* a,
                     SolverBody* b, bool) {
  // A velocity motor, not a position constraint: it steers towards the
  // target in both passes (relaxing it to zero velocity would brake it).
  const float rate = j->correction_factor * ctx.inv_h;
  {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float bias = rate * CurrentAngle(f, *a, *b);
    const float max_impulse = ctx.h * j->max_torque;
    const float old = j->angular_impulse;
    j->angular_impulse = Clamp(old - j->axial_mass * (cdot + bias), -max_impulse, max_impulse);
    ApplyAngularImpulse(f, j->angular_impulse - old, a, b);
  }
  {
    const Vec2 ra = CurrentAnchorA(f, *a);
    const Vec2 rb = CurrentAnchorB(f, *b);
    const Vec2 c = CurrentSeparation(f, *a, *b, ra, rb);
    const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
    const Vec2 solved = Solve22(PointConstraintMatrix(f, ra, rb), cdot + rate * c);
    const Vec2 old = j->linear_impulse;
    Vec2 updated = old - solved;
    const float max_impulse = ctx.h * j->max_force;
    const float length_sq = LengthSquared(updated);
    if (length_sq > max_impulse * max_impulse) updated *= max_impulse / Sqrt(length_sq);
    j->linear_impulse = updated;
    ApplyPointImpulse(f, updated - old, ra, rb, a, b);
  }
}

JointReaction MotorReaction(const MotorJoint& j, const JointPose&) {
  return {j.linear_impulse, j.angular_impulse};
}

}  // namespace atl
