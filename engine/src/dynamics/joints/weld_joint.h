// Atoll — weld joint: no relative motion, rigid or soft.
//
// The angular row is solved first, then the 2D point rows (the point is
// what the eye notices). A part with zero hertz is rigid (softened only by
// WorldDef::joint_hertz in the biased pass); a part with hertz > 0 is a
// spring in both passes, like a user spring.

#ifndef ATOLL_DYNAMICS_JOINTS_WELD_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_WELD_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct WeldJoint {
  // Settings.
  float reference_angle = 0.0f;
  float linear_hertz = 0.0f;
  float linear_damping_ratio = 0.0f;
  float angular_hertz = 0.0f;
  float angular_damping_ratio = 0.0f;
  // Accumulated impulses.
  Vec2 linear_impulse;
  float angular_impulse = 0.0f;
  // Scratch.
  float axial_mass = 0.0f;
  Softness linear_soft;
  Softness angular_soft;
};

template <typename J, typename F>
void VisitWeldFields(J& j, F&& f) {
  f(j.reference_angle);
  f(j.linear_hertz);
  f(j.linear_damping_ratio);
  f(j.angular_hertz);
  f(j.angular_damping_ratio);
  f(j.linear_impulse);
  f(j.angular_impulse);
}

WeldJoint MakeWeldJoint(const WeldJointDef& def);
void PrepareWeldJoint(const JointContext& ctx, const JointFrame& f, WeldJoint* j);
void WarmStartWeldJoint(const JointFrame& f, const WeldJoint& j, SolverBody* a, SolverBody* b);
void SolveWeldJoint(const JointContext& ctx, const JointFrame& f, WeldJoint* j, SolverBody* a,
                    SolverBody* b, bool use_bias);
JointReaction WeldReaction(const WeldJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_WELD_JOINT_H_
