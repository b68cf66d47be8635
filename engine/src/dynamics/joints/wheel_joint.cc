#include "dynamics/joints/wheel_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateWheelJointDef(const WheelJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "WheelJointDef";
  if (absl::Status s = Point(kDef, "local_anchor_a", d.local_anchor_a); !s.ok()) return s;
  if (absl::Status s = Point(kDef, "local_anchor_b", d.local_anchor_b); !s.ok()) return s;
  if (absl::Status s = Axis(kDef, "local_axis_a", d.local_axis_a); !s.ok()) return s;
  if (absl::Status s = Hertz(kDef, "hertz", d.hertz); !s.ok()) return s;
  if (absl::Status s = Damping(kDef, "damping_ratio", d.damping_ratio); !s.ok()) return s;
  if (absl::Status s = Range(kDef, "lower_translation", d.lower_translation, d.upper_translation);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Finite(kDef, "motor_speed", d.motor_speed); !s.ok()) return s;
  return NonNegative(kDef, "max_motor_torque", d.max_motor_torque);
}

WheelJoint MakeWheelJoint(const WheelJointDef& d) {
  WheelJoint j;
  j.local_axis_a = Normalize(d.local_axis_a);
  j.enable_spring = d.enable_spring;
  j.hertz = d.hertz;
  j.damping_ratio = d.damping_ratio;
  j.enable_limit = d.enable_limit;
  j.lower_translation = d.lower_translation;
  j.upper_translation = d.upper_translation;
  j.enable_motor = d.enable_motor;
  j.motor_speed = d.motor_speed;
  j.max_motor_torque = d.max_motor_torque;
  return j;
}

namespace {

// A row along direction `dir` (rotating with A) through the anchors:
// J = [-dir, -a1, dir, a2].
struct Row {
  Vec2 dir;
  float a1 = 0.0f;
  float a2 = 0.0f;
};

Row MakeRow(Vec2 dir, Vec2 d, Vec2 ra, Vec2 rb) { return {dir, Cross(d + ra, dir), Cross(rb, dir)}; }

float RowCdot(const Row& row, const SolverBody& a, const SolverBody& b) {
  return Dot(row.dir, b.linear_velocity - a.linear_velocity) + row.a2 * b.angular_velocity -
         row.a1 * a.angular_velocity;
}

float RowMass(const JointFrame& f, const Row& row) {
  return InvertMass(f.inv_mass_a + f.inv_mass_b + f.inv_inertia_a * row.a1 * row.a1 +
                    f.inv_inertia_b * row.a2 * row.a2);
}

void ApplyRow(const JointFrame& f, const Row& row, float impulse, SolverBody* a, SolverBody* b) {
  ApplyRowImpulse(f, impulse * row.dir, impulse * row.a1, impulse * row.a2, a, b);
}

}  // namespace

void PrepareWheelJoint(const JointContext& ctx, const JointFrame& f, WheelJoint* j) {
  j->axis0 = RotateVector(f.rotation_a, j->local_axis_a);
  j->motor_mass = AngularMass(f);
  j->spring = MakeSoftness(j->hertz, j->damping_ratio, ctx.h);
  if (!j->enable_spring) j->spring_impulse = 0.0f;
  if (!j->enable_motor) j->motor_impulse = 0.0f;
  if (!j->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
}

void WarmStartWheelJoint(const JointFrame& f, const WheelJoint& j, SolverBody* a, SolverBody* b) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Vec2 d = CurrentSeparation(f, *a, *b, ra, rb);
  const Vec2 axis_dir = RotateVector(a->delta_rotation, j.axis0);
  const Row axis = MakeRow(axis_dir, d, ra, rb);
  const Row perp = MakeRow(LeftPerp(axis_dir), d, ra, rb);
  ApplyRow(f, axis, j.spring_impulse + j.lower_impulse - j.upper_impulse, a, b);
  ApplyRow(f, perp, j.perp_impulse, a, b);
  ApplyAngularImpulse(f, j.motor_impulse, a, b);
}

void SolveWheelJoint(const JointContext& ctx, const JointFrame& f, WheelJoint* j, SolverBody* a,
                     SolverBody* b, bool use_bias) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Vec2 d = CurrentSeparation(f, *a, *b, ra, rb);
  const Vec2 axis_dir = RotateVector(a->delta_rotation, j->axis0);
  const Row axis = MakeRow(axis_dir, d, ra, rb);
  const float axial_mass = RowMass(f, axis);
  const float translation = Dot(axis_dir, d);

  if (j->enable_motor) {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse = SolveMotorRow(cdot, j->motor_speed, j->motor_mass,
                                        ctx.h * j->max_motor_torque, &j->motor_impulse);
    ApplyAngularImpulse(f, impulse, a, b);
  }
  if (j->enable_spring && j->hertz > 0.0f) {
    const float impulse = SolveSpringRow(j->spring, translation, RowCdot(axis, *a, *b),
                                         axial_mass, &j->spring_impulse);
    ApplyRow(f, axis, impulse, a, b);
  }
  if (j->enable_limit) {
    {
      const float impulse = SolveLimitRow(ctx, translation - j->lower_translation,
                                          RowCdot(axis, *a, *b), axial_mass, use_bias,
                                          &j->lower_impulse);
      ApplyRow(f, axis, impulse, a, b);
    }
    {
      const float impulse = SolveLimitRow(ctx, j->upper_translation - translation,
                                          -RowCdot(axis, *a, *b), axial_mass, use_bias,
                                          &j->upper_impulse);
      ApplyRow(f, axis, -impulse, a, b);
    }
  }
  const Row perp = MakeRow(LeftPerp(axis_dir), d, ra, rb);
  const float impulse = SolveRigidRow(ctx, Dot(perp.dir, d), RowCdot(perp, *a, *b),
                                      RowMass(f, perp), use_bias, &j->perp_impulse);
  ApplyRow(f, perp, impulse, a, b);
}

JointReaction WheelReaction(const WheelJoint& j, const JointPose& pose) {
  const Vec2 axis = RotateVector(pose.rotation_a, j.local_axis_a);
  const float axial = j.spring_impulse + j.lower_impulse - j.upper_impulse;
  return {axial * axis + j.perp_impulse * LeftPerp(axis), j.motor_impulse};
}

float WheelTranslation(const WheelJoint& j, const JointPose& pose) {
  return Dot(RotateVector(pose.rotation_a, j.local_axis_a), pose.anchor_b - pose.anchor_a);
}

}  // namespace atl
