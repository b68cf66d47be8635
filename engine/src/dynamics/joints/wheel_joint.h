// Atoll — wheel joint: B's anchor stays on a line fixed in A (the
// suspension axis), sprung along it; B spins freely or by a motor.
//
// Rows: suspension spring and travel limits along the axis, the spin motor,
// then the rigid "stay on the line" row.

#ifndef ATOLL_DYNAMICS_JOINTS_WHEEL_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_WHEEL_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct WheelJoint {
  // Settings.
  Vec2 local_axis_a = {0.0f, 1.0f};  ///< unit
  bool enable_spring = true;
  float hertz = 1.0f;
  float damping_ratio = 0.7f;
  bool enable_limit = false;
  float lower_translation = 0.0f;
  float upper_translation = 0.0f;
  bool enable_motor = false;
  float motor_speed = 0.0f;
  float max_motor_torque = 0.0f;
  // Accumulated impulses.
  float perp_impulse = 0.0f;
  float spring_impulse = 0.0f;
  float motor_impulse = 0.0f;
  float lower_impulse = 0.0f;
  float upper_impulse = 0.0f;
  // Scratch.
  Vec2 axis0;
  float motor_mass = 0.0f;
  Softness spring;
};

template <typename J, typename F>
void VisitWheelFields(J& j, F&& f) {
  f(j.local_axis_a);
  f(j.enable_spring);
  f(j.hertz);
  f(j.damping_ratio);
  f(j.enable_limit);
  f(j.lower_translation);
  f(j.upper_translation);
  f(j.enable_motor);
  f(j.motor_speed);
  f(j.max_motor_torque);
  f(j.perp_impulse);
  f(j.spring_impulse);
  f(j.motor_impulse);
  f(j.lower_impulse);
  f(j.upper_impulse);
}

WheelJoint MakeWheelJoint(const WheelJointDef& def);
void PrepareWheelJoint(const JointContext& ctx, const JointFrame& f, WheelJoint* j);
void WarmStartWheelJoint(const JointFrame& f, const WheelJoint& j, SolverBody* a, SolverBody* b);
void SolveWheelJoint(const JointContext& ctx, const JointFrame& f, WheelJoint* j, SolverBody* a,
                     SolverBody* b, bool use_bias);
JointReaction WheelReaction(const WheelJoint& j, const JointPose& pose);
/// Suspension travel of B's anchor from A's along the axis.
float WheelTranslation(const WheelJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_WHEEL_JOINT_H_
