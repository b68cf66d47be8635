// Atoll — target joint: a soft spring of bounded force from a point of one
// body to a world target (mouse dragging).
//
// Record convention: the joint has no body A; its frame A is the world, and
// its local anchor on A is the target itself.

#ifndef ATOLL_DYNAMICS_JOINTS_TARGET_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_TARGET_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct TargetJoint {
  // Settings (the target lives in the joint's anchor on A).
  float hertz = 4.0f;
  float damping_ratio = 0.7f;
  float max_force = 1000.0f;
  // Accumulated impulse.
  Vec2 linear_impulse;
  // Scratch.
  Softness spring;
};

template <typename J, typename F>
void VisitTargetFields(J& j, F&& f) {
  f(j.hertz);
  f(j.damping_ratio);
  f(j.max_force);
  f(j.linear_impulse);
}

TargetJoint MakeTargetJoint(const TargetJointDef& def);
void PrepareTargetJoint(const JointContext& ctx, const JointFrame& f, TargetJoint* j);
void WarmStartTargetJoint(const JointFrame& f, const TargetJoint& j, SolverBody* a,
                          SolverBody* b);
void SolveTargetJoint(const JointContext& ctx, const JointFrame& f, TargetJoint* j,
                      SolverBody* a, SolverBody* b, bool use_bias);
JointReaction TargetReaction(const TargetJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_TARGET_JOINT_H_
