#include "dynamics/joints/target_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateTargetJointDef(const TargetJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "TargetJointDef";
  if (absl::Status s = Point(kDef, "target", d.target); !s.ok()) return s;
  if (absl::Status s = Hertz(kDef, "hertz", d.hertz, /*allow_zero=*/false); !s.ok()) return s;
  if (absl::Status s = Damping(kDef, "damping_ratio", d.damping_ratio); !s.ok()) return s;
  return NonNegative(kDef, "max_force", d.max_force);
}

TargetJoint MakeTargetJoint(const TargetJointDef& d) {
  TargetJoint j;
  j.hertz = d.hertz;
  j.damping_ratio = d.damping_ratio;
  j.max_force = d.max_force;
  return j;
}

void PrepareTargetJoint(const JointContext& ctx, const JointFrame&, TargetJoint* j) {
  j->spring = MakeSoftness(j->hertz, j->damping_ratio, ctx.h);
}

void WarmStartTargetJoint(const JointFrame& f, const TargetJoint& j, SolverBody* a,
                          SolverBody* b) {
  ApplyPointImpulse(f, j.linear_impulse, f.anchor_a, CurrentAnchorB(f, *b), a, b);
}

void SolveTargetJoint(const JointContext& ctx, const JointFrame& f, TargetJoint* j,
                      SolverBody* a, SolverBody* b, bool) {
  // The world side never moves: its anchor is the target, relative to the
  // world origin.
  const Vec2 ra = f.anchor_a;
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Vec2 c = CurrentSeparation(f, *a, *b, ra, rb);
  const Vec2 cdot = RelativeVelocity(*a, *b, ra, rb);
  const Vec2 solved = Solve22(PointConstraintMatrix(f, ra, rb), cdot + j->spring.bias_rate * c);
  const Vec2 old = j->linear_impulse;
  Vec2 updated = {old.x - j->spring.mass_scale * solved.x - j->spring.impulse_scale * old.x,
                  old.y - j->spring.mass_scale * solved.y - j->spring.impulse_scale * old.y};
  const float max_impulse = ctx.h * j->max_force;
  const float length_sq = LengthSquared(updated);
  if (length_sq > max_impulse * max_impulse) updated *= max_impulse / Sqrt(length_sq);
  j->linear_impulse = updated;
  ApplyPointImpulse(f, updated - old, ra, rb, a, b);
}

JointReaction TargetReaction(const TargetJoint& j, const JointPose&) {
  return {j.linear_impulse, 0.0f};
}

}  // namespace atl
