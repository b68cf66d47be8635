#include "dynamics/joints/revolute_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateRevoluteJointDef(const RevoluteJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "RevoluteJointDef";
  if (absl::Status s = Point(kDef, "local_anchor_a", d.local_anchor_a); !s.ok()) return s;
  if (absl::Status s = Point(kDef, "local_anchor_b", d.local_anchor_b); !s.ok()) return s;
  if (absl::Status s = Finite(kDef, "reference_angle", d.reference_angle); !s.ok()) return s;
  if (absl::Status s = Hertz(kDef, "hertz", d.hertz); !s.ok()) return s;
  if (absl::Status s = Damping(kDef, "damping_ratio", d.damping_ratio); !s.ok()) return s;
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

void PrepareRevoluteJoint(const JointContext& ctx, const JointFrame&, RevoluteJoint* j) {
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

namespace {

// The pin and a limit that is reached (at or past its bound), solved as one
// 3x3 block. `sign` is +1 for the lower bound (the row pushes the angle up)
// and -1 for the upper one; `c` is the distance to the bound (<= 0) and
// `*accumulated` the bound's impulse, kept >= 0. When the block would pull
// (negative impulse), the bound lets go and only the pin is solved.
void SolvePinAndLimit(const JointContext& ctx, const JointFrame& f, float sign, float c,
                      Vec2* linear_impulse, float* accumulated, SolverBody* a, SolverBody* b,
                      bool use_bias) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  Sym33 k = PointAngleMatrix(f, ra, rb);
  k.xz *= sign;
  k.yz *= sign;
  const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
  const float cdot_z = sign * (b->angular_velocity - a->angular_velocity);
  Vec2 bias{0.0f, 0.0f};
  float bias_z = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
  if (use_bias) {
    bias = ctx.rigid.bias_rate * CurrentSeparation(f, *a, *b, ra, rb);
    bias_z = ctx.rigid.bias_rate * c;
    mass_scale = ctx.rigid.mass_scale;
    impulse_scale = ctx.rigid.impulse_scale;
  }
  Vec2 x;
  float x_z = 0.0f;
  Solve33(k, cdot + bias, cdot_z + bias_z, &x, &x_z);
  Vec2 impulse = -mass_scale * x - impulse_scale * *linear_impulse;
  float impulse_z = -mass_scale * x_z - impulse_scale * *accumulated;
  if (*accumulated + impulse_z < 0.0f) {
    // Release the bound and solve the pin alone, seeing the release.
    impulse_z = -*accumulated;
    const Vec2 released = cdot + bias + impulse_z * Vec2{k.xz, k.yz};
    const Mat22 kp{{k.xx, k.xy}, {k.xy, k.yy}};
    impulse = -mass_scale * Solve22(kp, released) - impulse_scale * *linear_impulse;
  }
  *linear_impulse += impulse;
  *accumulated += impulse_z;
  const float turn = sign * impulse_z;
  ApplyRowImpulse(f, impulse, Cross(ra, impulse) + turn, Cross(rb, impulse) + turn, a, b);
}

}  // namespace

void SolveRevoluteJoint(const JointContext& ctx, const JointFrame& f, RevoluteJoint* j,
                        SolverBody* a, SolverBody* b, bool use_bias) {
  const float axial_mass = AngularMass(f);
  // The angle is only needed by the spring and the limits.
  const bool spring = j->enable_spring && j->hertz > 0.0f;
  const float angle = spring || j->enable_limit ? CurrentAngle(f, *a, *b) : 0.0f;
  if (spring) {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse = SolveSpringRow(j->spring, angle, cdot, axial_mass, &j->spring_impulse);
    ApplyAngularImpulse(f, impulse, a, b);
  }
  if (j->enable_motor) {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse = SolveMotorRow(cdot, j->motor_speed, axial_mass,
                                        ctx.h * j->max_motor_torque, &j->motor_impulse);
    ApplyAngularImpulse(f, impulse, a, b);
  }

  const float to_lower = angle - j->lower_angle;
  const float to_upper = j->upper_angle - angle;
  bool lower_done = false, upper_done = false;
  if (j->enable_limit && to_lower <= 0.0f) {
    SolvePinAndLimit(ctx, f, 1.0f, to_lower, &j->linear_impulse, &j->lower_impulse, a, b,
                     use_bias);
    lower_done = true;
  } else if (j->enable_limit && to_upper <= 0.0f) {
    SolvePinAndLimit(ctx, f, -1.0f, to_upper, &j->linear_impulse, &j->upper_impulse, a, b,
                     use_bias);
    upper_done = true;
  } else {
    const Vec2 ra = CurrentAnchorA(f, *a);
    const Vec2 rb = CurrentAnchorB(f, *b);
    const Vec2 c = CurrentSeparation(f, *a, *b, ra, rb);
    const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
    const Vec2 impulse = SolvePointRows(ctx.rigid, use_bias, /*always_soft=*/false, c, cdot,
                                        PointConstraintMatrix(f, ra, rb), &j->linear_impulse);
    ApplyPointImpulse(f, impulse, ra, rb, a, b);
  }
  if (!j->enable_limit) return;
  // A bound not yet reached is speculative: it only keeps the angle from
  // crossing it within this substep.
  if (!lower_done) {
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse =
        SolveLimitRow(ctx, to_lower, cdot, axial_mass, use_bias, &j->lower_impulse);
    ApplyAngularImpulse(f, impulse, a, b);
  }
  if (!upper_done) {
    const float cdot = a->angular_velocity - b->angular_velocity;
    const float impulse =
        SolveLimitRow(ctx, to_upper, cdot, axial_mass, use_bias, &j->upper_impulse);
    ApplyAngularImpulse(f, -impulse, a, b);
  }
}

JointReaction RevoluteReaction(const RevoluteJoint& j, const JointPose&) {
  return {j.linear_impulse,
          j.spring_impulse + j.motor_impulse + j.lower_impulse - j.upper_impulse};
}

}  // namespace atl
