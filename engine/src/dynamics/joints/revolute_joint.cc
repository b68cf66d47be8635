#include "dynamics/joints/revolute_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateRevoluteJointDef(const RevoluteJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "RevoluteJointDef";
  if (absl::Status s = Point(kDef, "local_anchor_a", d.local_anchor_a); !s.ok()) return s;
  if (absl::Status s = Point(kDef, "local_anchor_b", d.local_anchor_b); !s.ok()) return s;
  if (absl::Status s = Finite(kDef, "reference_angle", d.reference_angle); !s.ok()) return s;
  if (absl::Status s = NonNegative(kDef, "hertz", d.hertz); !s.ok()) return s;
  if (absl::Status s = NonNegative(kDef, "damping_ratio", d.damping_ratio); !s.ok()) return s;
  if (absl::Status s = Range(kDef, "lower_angle", d.lower_angle, d.upper_angle); !s.ok()) return s;
  if (d.lower_angle < -kPi || d.upper_angle > kPi) {
    return Bad(kDef, "lower_angle", "and upper_angle must lie in [-pi, pi]");
  }
  if (absl::Status s = Finite(kDef, "motor_speed", d.motor_speed); !s.ok()) return s;
  return NonNegative(kDef, "max_motor_torque", d.max_motor_torque);
}

RevoluteJoint MakeRevoluteJoint(const RevoluteJointDef& d) {
  RevoluteJoint j;
  j.reference_angle = d.reference_angle;
  j.enable_spring = d.enable_spring;
  j.hertz = d.hertz;
  j.damping_ratio = d.damping_ratio;
  j.enable_limit = d.enable_limit;
  j.lower_angle = d.lower_angle;
  j.upper_angle = d.upper_angle;
  j.enable_motor = d.enable_motor;
  j.motor_speed = d.motor_speed;
  j.max_motor_torque = d.max_motor_torque;
  return j;
}

void PrepareRevoluteJoint(const JointContext& ctx, const JointFrame& f, RevoluteJoint* j) {
  j->axial_mass = AngularMass(f);
  j->spring = MakeSoftness(j->hertz, j->damping_ratio, ctx.h);
  if (!j->enable_spring) j->spring_impulse = 0.0f;
  if (!j->enable_motor) j->motor_impulse = 0.0f;
  if (!j->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
}

void WarmStartRevoluteJoint(const JointFrame& f, const RevoluteJoint& j, SolverBody* a,
                            SolverBody* b) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const float axial = j.spring_impulse + j.motor_impulse + j.lower_impulse - j.upper_impulse;
  ApplyPointImpulse(f, j.linear_impulse, ra, rb, a, b);
  ApplyAngularImpulse(f, axial, a, b);
}

void SolveRevoluteJoint(const JointContext& ctx, const JointFrame& f, RevoluteJoint* j,
                        SolverBody* a, SolverBody* b, bool use_bias) {
  // The angle is only needed by the spring and the limits.
  const bool needs_angle = (j->enable_spring && j->hertz > 0.0f) || j->enable_limit;
  const float angle = needs_angle ? CurrentAngle(f, *a, *b) : 0.0f;

  if (j->enable_spring && j->hertz > 0.0f) {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse = SolveSpringRow(j->spring, angle, cdot, j->axial_mass, &j->spring_impulse);
    ApplyAngularImpulse(f, impulse, a, b);
  }
  if (j->enable_motor) {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse = SolveMotorRow(cdot, j->motor_speed, j->axial_mass,
                                        ctx.h * j->max_motor_torque, &j->motor_impulse);
    ApplyAngularImpulse(f, impulse, a, b);
  }
  if (j->enable_limit) {
    {
      const float cdot = b->angular_velocity - a->angular_velocity;
      const float impulse = SolveLimitRow(ctx, angle - j->lower_angle, cdot, j->axial_mass,
                                          use_bias, &j->lower_impulse);
      ApplyAngularImpulse(f, impulse, a, b);
    }
    {
      const float cdot = a->angular_velocity - b->angular_velocity;
      const float impulse = SolveLimitRow(ctx, j->upper_angle - angle, cdot, j->axial_mass,
                                          use_bias, &j->upper_impulse);
      ApplyAngularImpulse(f, -impulse, a, b);
    }
  }

  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Vec2 c = CurrentSeparation(f, *a, *b, ra, rb);
  const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
  const Vec2 impulse = SolvePointRows(ctx.rigid, use_bias, /*always_soft=*/false, c, cdot,
                                      PointConstraintMatrix(f, ra, rb), &j->linear_impulse);
  ApplyPointImpulse(f, impulse, ra, rb, a, b);
}

JointReaction RevoluteReaction(const RevoluteJoint& j, const JointPose&) {
  return {j.linear_impulse,
          j.spring_impulse + j.motor_impulse + j.lower_impulse - j.upper_impulse};
}

}  // namespace atl
