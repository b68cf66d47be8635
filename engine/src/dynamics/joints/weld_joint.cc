#include "dynamics/joints/weld_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateWeldJointDef(const WeldJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "WeldJointDef";
  if (absl::Status s = Point(kDef, "local_anchor_a", d.local_anchor_a); !s.ok()) return s;
  if (absl::Status s = Point(kDef, "local_anchor_b", d.local_anchor_b); !s.ok()) return s;
  if (absl::Status s = Finite(kDef, "reference_angle", d.reference_angle); !s.ok()) return s;
  if (absl::Status s = Hertz(kDef, "linear_hertz", d.linear_hertz); !s.ok()) return s;
  if (absl::Status s = Damping(kDef, "linear_damping_ratio", d.linear_damping_ratio);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = Hertz(kDef, "angular_hertz", d.angular_hertz); !s.ok()) return s;
  return Damping(kDef, "angular_damping_ratio", d.angular_damping_ratio);
}

WeldJoint MakeWeldJoint(const WeldJointDef& d) {
  WeldJoint j;
  j.reference_angle = d.reference_angle;
  j.linear_hertz = d.linear_hertz;
  j.linear_damping_ratio = d.linear_damping_ratio;
  j.angular_hertz = d.angular_hertz;
  j.angular_damping_ratio = d.angular_damping_ratio;
  return j;
}

void PrepareWeldJoint(const JointContext& ctx, const JointFrame& f, WeldJoint* j) {
  j->axial_mass = AngularMass(f);
  j->linear_soft = j->linear_hertz > 0.0f
                       ? MakeSoftness(j->linear_hertz, j->linear_damping_ratio, ctx.h)
                       : ctx.rigid;
  j->angular_soft = j->angular_hertz > 0.0f
                        ? MakeSoftness(j->angular_hertz, j->angular_damping_ratio, ctx.h)
                        : ctx.rigid;
}

void WarmStartWeldJoint(const JointFrame& f, const WeldJoint& j, SolverBody* a, SolverBody* b) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  ApplyPointImpulse(f, j.linear_impulse, ra, rb, a, b);
  ApplyAngularImpulse(f, j.angular_impulse, a, b);
}

void SolveWeldJoint(const JointContext& ctx, const JointFrame& f, WeldJoint* j, SolverBody* a,
                    SolverBody* b, bool use_bias) {
  if (j->linear_hertz == 0.0f && j->angular_hertz == 0.0f) {
    // Rigid: the point and the angle in one 3x3 block, so the lever-arm
    // coupling between them is solved exactly instead of fought over.
    const Vec2 ra = CurrentAnchorA(f, *a);
    const Vec2 rb = CurrentAnchorB(f, *b);
    const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
    const float cdot_z = b->angular_velocity - a->angular_velocity;
    Vec2 bias{0.0f, 0.0f};
    float bias_z = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias) {
      bias = ctx.rigid.bias_rate * CurrentSeparation(f, *a, *b, ra, rb);
      bias_z = ctx.rigid.bias_rate * CurrentAngle(f, *a, *b);
      mass_scale = ctx.rigid.mass_scale;
      impulse_scale = ctx.rigid.impulse_scale;
    }
    Vec2 x;
    float x_z = 0.0f;
    Solve33(PointAngleMatrix(f, ra, rb), cdot + bias, cdot_z + bias_z, &x, &x_z);
    const Vec2 impulse = {-mass_scale * x.x - impulse_scale * j->linear_impulse.x,
                          -mass_scale * x.y - impulse_scale * j->linear_impulse.y};
    const float impulse_z = -mass_scale * x_z - impulse_scale * j->angular_impulse;
    j->linear_impulse += impulse;
    j->angular_impulse += impulse_z;
    ApplyRowImpulse(f, impulse, Cross(ra, impulse) + impulse_z, Cross(rb, impulse) + impulse_z, a,
                    b);
    return;
  }
  {
    const bool soft = j->angular_hertz > 0.0f;
    float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
    if (use_bias || soft) {
      bias = j->angular_soft.bias_rate * CurrentAngle(f, *a, *b);
      mass_scale = j->angular_soft.mass_scale;
      impulse_scale = j->angular_soft.impulse_scale;
    }
    const float cdot = b->angular_velocity - a->angular_velocity;
    const float impulse =
        -j->axial_mass * mass_scale * (cdot + bias) - impulse_scale * j->angular_impulse;
    j->angular_impulse += impulse;
    ApplyAngularImpulse(f, impulse, a, b);
  }
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Vec2 c = CurrentSeparation(f, *a, *b, ra, rb);
  const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
  const Vec2 impulse = SolvePointRows(j->linear_soft, use_bias, j->linear_hertz > 0.0f, c, cdot,
                                      PointConstraintMatrix(f, ra, rb), &j->linear_impulse);
  ApplyPointImpulse(f, impulse, ra, rb, a, b);
}

JointReaction WeldReaction(const WeldJoint& j, const JointPose&) {
  return {j.linear_impulse, j.angular_impulse};
}

}  // namespace atl
