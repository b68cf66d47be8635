// Atoll — distance joint: a rigid rod, or a spring with an optional length
// range (a rope is a zero-hertz spring with a maximum length).
//
// Rows along the unit axis between the current anchors: rigid length, or
// spring plus lower/upper length limits. The axis and effective mass are
// recomputed every substep from the current anchors, so the rod stays true
// while the bodies swing through large angles within one step.

#ifndef ATOLL_DYNAMICS_JOINTS_DISTANCE_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_DISTANCE_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct DistanceJoint {
  // Settings.
  float length = 1.0f;
  bool enable_spring = false;
  float hertz = 0.0f;
  float damping_ratio = 0.0f;
  bool enable_limit = false;
  float min_length = 0.0f;
  float max_length = kJointHugeLength;
  // Accumulated impulses along the axis (rigid or spring; limits).
  float impulse = 0.0f;
  float lower_impulse = 0.0f;
  float upper_impulse = 0.0f;
  // Scratch.
  Softness spring;
};

template <typename J, typename F>
void VisitDistanceFields(J& j, F&& f) {
  f(j.length);
  f(j.enable_spring);
  f(j.hertz);
  f(j.damping_ratio);
  f(j.enable_limit);
  f(j.min_length);
  f(j.max_length);
  f(j.impulse);
  f(j.lower_impulse);
  f(j.upper_impulse);
}

DistanceJoint MakeDistanceJoint(const DistanceJointDef& def);
void PrepareDistanceJoint(const JointContext& ctx, const JointFrame& f, DistanceJoint* j);
void WarmStartDistanceJoint(const JointFrame& f, const DistanceJoint& j, SolverBody* a,
                            SolverBody* b);
void SolveDistanceJoint(const JointContext& ctx, const JointFrame& f, DistanceJoint* j,
                        SolverBody* a, SolverBody* b, bool use_bias);
JointReaction DistanceReaction(const DistanceJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_DISTANCE_JOINT_H_
