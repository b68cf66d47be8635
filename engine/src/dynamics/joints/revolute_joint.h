// Atoll — revolute joint: a shared pin with optional spring, motor and
// angle limits.
//
// Rows, solved in this order each pass: spring (angle -> 0), motor (relative
// angular velocity -> motor_speed, bounded torque), then the pin. While the
// angle is at or past a limit, the pin and that limit are one 3x3 block:
// solved row by row, the pin's correction (through the lever arm) would spin
// the body straight back through the limit, and the limit would feel only
// the inertia about the center instead of about the pin (a 2 m arm pushed
// by 100x its weight went 2 degrees past its limit that way). A limit not
// yet reached is a speculative row after the pin.
//
// A revolute joint with no spring, motor or limit (a pin) is solved four at
// a time by pin_group.cc, which repeats the pin rows' operations exactly:
// change them here and there together (PinGroupTest compares the two).

#ifndef ATOLL_DYNAMICS_JOINTS_REVOLUTE_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_REVOLUTE_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct RevoluteJoint {
  // Settings.
  float reference_angle = 0.0f;
  bool enable_spring = false;
  float hertz = 0.0f;
  float damping_ratio = 0.0f;
  bool enable_limit = false;
  float lower_angle = 0.0f;
  float upper_angle = 0.0f;
  bool enable_motor = false;
  float motor_speed = 0.0f;
  float max_motor_torque = 0.0f;
  // Accumulated impulses (warm start; per substep).
  Vec2 linear_impulse;
  float spring_impulse = 0.0f;
  float motor_impulse = 0.0f;
  float lower_impulse = 0.0f;
  float upper_impulse = 0.0f;
  // Scratch of the current step.
  Softness spring;
};

/// Calls f on every saved field, in snapshot order (J may be const).
template <typename J, typename F>
void VisitRevoluteFields(J& j, F&& f) {
  f(j.reference_angle);
  f(j.enable_spring);
  f(j.hertz);
  f(j.damping_ratio);
  f(j.enable_limit);
  f(j.lower_angle);
  f(j.upper_angle);
  f(j.enable_motor);
  f(j.motor_speed);
  f(j.max_motor_torque);
  f(j.linear_impulse);
  f(j.spring_impulse);
  f(j.motor_impulse);
  f(j.lower_impulse);
  f(j.upper_impulse);
}

RevoluteJoint MakeRevoluteJoint(const RevoluteJointDef& def);
void PrepareRevoluteJoint(const JointContext& ctx, const JointFrame& f, RevoluteJoint* j);
void WarmStartRevoluteJoint(const JointFrame& f, const RevoluteJoint& j, SolverBody* a,
                            SolverBody* b);
void SolveRevoluteJoint(const JointContext& ctx, const JointFrame& f, RevoluteJoint* j,
                        SolverBody* a, SolverBody* b, bool use_bias);
/// Accumulated impulses as a force/torque impulse on B (divide by h).
JointReaction RevoluteReaction(const RevoluteJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_REVOLUTE_JOINT_H_
