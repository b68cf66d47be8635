#include "dynamics/joints/distance_joint.h"

#include "dynamics/joints/joint_checks.h"

namespace atl {

absl::Status ValidateDistanceJointDef(const DistanceJointDef& d) {
  using namespace joint_checks;
  constexpr char kDef[] = "DistanceJointDef";
  if (absl::Status s = Point(kDef, "local_anchor_a", d.local_anchor_a); !s.ok()) return s;
  if (absl::Status s = Point(kDef, "local_anchor_b", d.local_anchor_b); !s.ok()) return s;
  if (!IsFinite(d.length) || d.length < kLinearSlop || d.length > kJointHugeLength) {
    return Bad(kDef, "length", "must be finite and in [kLinearSlop, kJointHugeLength]");
  }
  if (absl::Status s = Hertz(kDef, "hertz", d.hertz); !s.ok()) return s;
  if (absl::Status s = Damping(kDef, "damping_ratio", d.damping_ratio); !s.ok()) return s;
  if (absl::Status s = NonNegative(kDef, "min_length", d.min_length); !s.ok()) return s;
  if (absl::Status s = Range(kDef, "min_length", d.min_length, d.max_length); !s.ok()) return s;
  if (d.max_length > kJointHugeLength) return Bad(kDef, "max_length", "must not exceed kJointHugeLength");
  return absl::OkStatus();
}

DistanceJoint MakeDistanceJoint(const DistanceJointDef& d) {
  DistanceJoint j;
  j.length = d.length;
  j.enable_spring = d.enable_spring;
  j.hertz = d.hertz;
  j.damping_ratio = d.damping_ratio;
  j.enable_limit = d.enable_limit;
  j.min_length = d.min_length;
  j.max_length = d.max_length;
  return j;
}

namespace {

// The unit axis from anchor A to anchor B, its length, and the row's
// effective mass along it.
struct Axis {
  Vec2 u;
  float length = 0.0f;
  float mass = 0.0f;
};

Axis MakeAxis(const JointFrame& f, Vec2 d, Vec2 ra, Vec2 rb) {
  Axis axis;
  axis.u = GetLengthAndNormalize(&axis.length, d);
  const float cra = Cross(ra, axis.u), crb = Cross(rb, axis.u);
  axis.mass = InvertMass(f.inv_mass_a + f.inv_mass_b + f.inv_inertia_a * cra * cra +
                         f.inv_inertia_b * crb * crb);
  return axis;
}

}  // namespace

void PrepareDistanceJoint(const JointContext& ctx, const JointFrame&, DistanceJoint* j) {
  j->spring = MakeSoftness(j->hertz, j->damping_ratio, ctx.h);
  if (j->enable_spring && j->hertz == 0.0f) j->impulse = 0.0f;
  if (!j->enable_spring || !j->enable_limit) j->lower_impulse = j->upper_impulse = 0.0f;
}

void WarmStartDistanceJoint(const JointFrame& f, const DistanceJoint& j, SolverBody* a,
                            SolverBody* b) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Vec2 u = Normalize(CurrentSeparation(f, *a, *b, ra, rb));
  const float total = j.impulse + j.lower_impulse - j.upper_impulse;
  ApplyPointImpulse(f, total * u, ra, rb, a, b);
}

void SolveDistanceJoint(const JointContext& ctx, const JointFrame& f, DistanceJoint* j,
                        SolverBody* a, SolverBody* b, bool use_bias) {
  const Vec2 ra = CurrentAnchorA(f, *a);
  const Vec2 rb = CurrentAnchorB(f, *b);
  const Axis axis = MakeAxis(f, CurrentSeparation(f, *a, *b, ra, rb), ra, rb);
  if (axis.length == 0.0f) return;  // coincident anchors: no direction to act along
  const Vec2 u = axis.u;

  if (!j->enable_spring) {
    const float cdot = Dot(u, RelativeVelocity(*a, *b, ra, rb));
    const float impulse =
        SolveRigidRow(ctx, axis.length - j->length, cdot, axis.mass, use_bias, &j->impulse);
    ApplyPointImpulse(f, impulse * u, ra, rb, a, b);
    return;
  }
  if (j->hertz > 0.0f) {
    const float cdot = Dot(u, RelativeVelocity(*a, *b, ra, rb));
    const float impulse =
        SolveSpringRow(j->spring, axis.length - j->length, cdot, axis.mass, &j->impulse);
    ApplyPointImpulse(f, impulse * u, ra, rb, a, b);
  }
  if (j->enable_limit) {
    {
      const float cdot = Dot(u, RelativeVelocity(*a, *b, ra, rb));
      const float impulse = SolveLimitRow(ctx, axis.length - j->min_length, cdot, axis.mass,
                                          use_bias, &j->lower_impulse);
      ApplyPointImpulse(f, impulse * u, ra, rb, a, b);
    }
    {
      const float cdot = -Dot(u, RelativeVelocity(*a, *b, ra, rb));
      const float impulse = SolveLimitRow(ctx, j->max_length - axis.length, cdot, axis.mass,
                                          use_bias, &j->upper_impulse);
      ApplyPointImpulse(f, -impulse * u, ra, rb, a, b);
    }
  }
}

JointReaction DistanceReaction(const DistanceJoint& j, const JointPose& pose) {
  // A positive impulse pushes B away from A along the current axis.
  const Vec2 u = Normalize(pose.anchor_b - pose.anchor_a);
  return {(j.impulse + j.lower_impulse - j.upper_impulse) * u, 0.0f};
}

}  // namespace atl
