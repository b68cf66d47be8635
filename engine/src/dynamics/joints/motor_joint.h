// Atoll — motor joint: drives B towards a pose relative to A (linear offset
// in A's frame, angular offset) with bounded force and torque.
//
// Velocity rows whose target is a share (correction_factor) of the pose
// error per substep; the accumulated impulses are clamped to the force and
// torque budgets, so the joint behaves like friction with a set point.
// Record convention: the joint's local anchor on A is the linear offset and
// its local anchor on B is B's origin.

#ifndef ATOLL_DYNAMICS_JOINTS_MOTOR_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_MOTOR_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct MotorJoint {
  // Settings (the linear offset lives in the joint's anchor on A).
  float angular_offset = 0.0f;
  float max_force = 1.0f;
  float max_torque = 1.0f;
  float correction_factor = 0.3f;
  // Accumulated impulses.
  Vec2 linear_impulse;
  float angular_impulse = 0.0f;
  // Scratch.
  float axial_mass = 0.0f;
};

template <typename J, typename F>
void VisitMotorFields(J& j, F&& f) {
  f(j.angular_offset);
  f(j.max_force);
  f(j.max_torque);
  f(j.correction_factor);
  f(j.linear_impulse);
  f(j.angular_impulse);
}

MotorJoint MakeMotorJoint(const MotorJointDef& def);
void PrepareMotorJoint(const JointContext& ctx, const JointFrame& f, MotorJoint* j);
void WarmStartMotorJoint(const JointFrame& f, const MotorJoint& j, SolverBody* a, SolverBody* b);
void SolveMotorJoint(const JointContext& ctx, const JointFrame& f, MotorJoint* j, SolverBody* a,
                     SolverBody* b, bool use_bias);
JointReaction MotorReaction(const MotorJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_MOTOR_JOINT_H_
