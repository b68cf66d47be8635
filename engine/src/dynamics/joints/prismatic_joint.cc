#include "dynamics/joints/prismatic_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidatePrismaticJointDef(const PrismaticJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "PrismaticJointDef";
  if (absl::Status s = Point(kDef, "local_anchor_a", d.local_anchor_a); !s.ok()) return s;
  if (absl::Status s = Point(kDef, "local_anchor_b", d.local_anchor_b); !s.ok()) return s;
  if (absl::Status s = Axis(kDef, "local_axis_a", d.local_axis_a); !s.ok()) return s;
  if (absl::Status s = Finite(kDef, "reference_angle", d.reference_angle); !s.ok()) return s;
  if (absl::Status s = Hertz(kDef, "hertz", d.hertz); !s.ok()) return s;
  if (absl::Status s = Damping(kDef, "damping_ratio", d.damping_ratio); !s.ok()) return s;
  if (absl::Status s = Range(kDef, "lower_translation", d.lower_translation, d.upper_translation);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Finite(kDef, "motor_speed", d.motor_speed); !s.ok()) return s;
  return NonNegative(kDef, "max_motor_force", d.max_motor_force);
}

PrismaticJoint MakePrismaticJoint(const PrismaticJointDef& d) {
  PrismaticJoint j;
  j.local_axis_a = Normalize(d.local_axis_a);
  j.reference_angle = d.reference_angle;
  j.enable_spring = d.enable_spring;
  j.hertz = d.hertz;
  j.damping_ratio = d.damping_ratio;
  j.enable_limit = d.enable_limit;
  j.lower_translation = d.lower_translation;
  j.upper_translation = d.upper_translation;
  j.enable_motor = d.enable_motor;
  j.motor_speed = d.motor_speed;
  j.max_motor_force = d.max_motor_force;
  return j;
}

namespace {

// The axis and its lever arms now: J = [-axis, -a1, axis, a2].
struct AxisRow {
  Vec2 axis;
  Vec2 d;
  float a1 = 0.0f;
  float a2 = 0.0f;
};

AxisRow MakeAxisRow(const JointFrame& f, const PrismaticJoint& j, const SolverBody& a,
                    const SolverBody& b, Vec2 ra, Vec2 rb) {
  AxisRow row;
  row.axis = RotateVector(a.delta_rotation, j.axis0);
  row.d = CurrentSeparation(f, a, b, ra, rb);
  row.a1 = Cross(row.d + ra, row.axis);
  row.a2 = Cross(rb, row.axis);
  return row;
}

float AxialCdot(const AxisRow& row, const SolverBody& a, const SolverBody& b) {
  return Dot(row.axis, b.linear_velocity - a.linear_velocity) + row.a2 * b.angular_velocity -
         row.a1 * a.angular_velocity;
}

void ApplyAxial(const JointFrame& f, const AxisRow& row, float impulse, SolverBody* a,
                SolverBody* b) {
  ApplyRowImpulse(f, impulse * row.axis, impulse * row.a1, impulse * row.a2, a, b);
}

}  // namespace

void PreparePrismaticJoint(const JointContext& ctx, const JointFrame& f, PrismaticJoint* j) {
  j->axis0 = RotateVector(f.rotation_a, j->local_axis_a);
  j->spring = MakeSoftness(j->hertz, j->damping_ratio, ctx.h);
  if (!j->enable_spring) j->spring_impulse = 0.0f;
  if (!j->enable_motor) j->motor_impulse = 0.0f;
  if (!j->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
}

void WarmStartPrismaticJoint(const JointFrame& f, const PrismaticJoint& j, SolverBody* a,
                             SolverBody* b) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const AxisRow row = MakeAxisRow(f, j, *a, *b, ra, rb);
  const Vec2 perp = LeftPerp(row.axis);
  const float s1 = Cross(row.d + ra, perp), s2 = Cross(rb, perp);
  const float axial = j.spring_impulse + j.motor_impulse + j.lower_impulse - j.upper_impulse;
  const Vec2 p = axial * row.axis + j.impulse.x * perp;
  const float la = axial * row.a1 + j.impulse.x * s1 + j.impulse.y;
  const float lb = axial * row.a2 + j.impulse.x * s2 + j.impulse.y;
  ApplyRowImpulse(f, p, la, lb, a, b);
}

void SolvePrismaticJoint(const JointContext& ctx, const JointFrame& f, PrismaticJoint* j,
                         SolverBody* a, SolverBody* b, bool use_bias) {
  const float ma = f.inv_mass_a, mb = f.inv_mass_b;
  const float ia = f.inv_inertia_a, ib = f.inv_inertia_b;
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const AxisRow row = MakeAxisRow(f, *j, *a, *b, ra, rb);
  const float translation = Dot(row.axis, row.d);
  const float axial_mass =
      InvertMass(ma + mb + ia * row.a1 * row.a1 + ib * row.a2 * row.a2);

  if (j->enable_spring && j->hertz > 0.0f) {
    const float impulse = SolveSpringRow(j->spring, translation, AxialCdot(row, *a, *b),
                                         axial_mass, &j->spring_impulse);
    ApplyAxial(f, row, impulse, a, b);
  }
  if (j->enable_motor) {
    const float impulse = SolveMotorRow(AxialCdot(row, *a, *b), j->motor_speed, axial_mass,
                                        ctx.h * j->max_motor_force, &j->motor_impulse);
    ApplyAxial(f, row, impulse, a, b);
  }
  if (j->enable_limit) {
    {
      const float impulse = SolveLimitRow(ctx, translation - j->lower_translation,
                                          AxialCdot(row, *a, *b), axial_mass, use_bias,
                                          &j->lower_impulse);
      ApplyAxial(f, row, impulse, a, b);
    }
    {
      const float impulse = SolveLimitRow(ctx, j->upper_translation - translation,
                                          -AxialCdot(row, *a, *b), axial_mass, use_bias,
                                          &j->upper_impulse);
      ApplyAxial(f, row, -impulse, a, b);
    }
  }

  // The line and angle block.
  const Vec2 perp = LeftPerp(row.axis);
  const float s1 = Cross(row.d + ra, perp), s2 = Cross(rb, perp);
  const Vec2 cdot = {Dot(perp, b->linear_velocity - a->linear_velocity) +
                         s2 * b->angular_velocity - s1 * a->angular_velocity,
                     b->angular_velocity - a->angular_velocity};
  Vec2 bias{0.0f, 0.0f};
  float mass_scale = 1.0f, impulse_scale = 0.0f;
  if (use_bias) {
    const Vec2 c = {Dot(perp, row.d), CurrentAngle(f, *a, *b)};
    bias = ctx.rigid.bias_rate * c;
    mass_scale = ctx.rigid.mass_scale;
    impulse_scale = ctx.rigid.impulse_scale;
  }
  Mat22 k;
  k.cx.x = ma + mb + ia * s1 * s1 + ib * s2 * s2;
  k.cy.x = ia * s1 + ib * s2;
  k.cx.y = k.cy.x;
  k.cy.y = ia + ib;
  if (k.cy.y == 0.0f) k.cy.y = 1.0f;  // neither body turns: the angle row is inert
  const Vec2 solved = Solve22(k, cdot + bias);
  const Vec2 impulse = {-mass_scale * solved.x - impulse_scale * j->impulse.x,
                        -mass_scale * solved.y - impulse_scale * j->impulse.y};
  j->impulse += impulse;
  ApplyRowImpulse(f, impulse.x * perp, impulse.x * s1 + impulse.y, impulse.x * s2 + impulse.y,
                  a, b);
}

JointReaction PrismaticReaction(const PrismaticJoint& j, const JointPose& pose) {
  const Vec2 axis = RotateVector(pose.rotation_a, j.local_axis_a);
  const float axial = j.spring_impulse + j.motor_impulse + j.lower_impulse - j.upper_impulse;
  return {axial * axis + j.impulse.x * LeftPerp(axis), j.impulse.y};
}

float PrismaticTranslation(const PrismaticJoint& j, const JointPose& pose) {
  return Dot(RotateVector(pose.rotation_a, j.local_axis_a), pose.anchor_b - pose.anchor_a);
}

}  // namespace atl
