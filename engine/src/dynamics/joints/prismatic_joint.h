// Atoll — prismatic joint: B slides along an axis fixed in A without
// turning relative to A; optional spring, motor and translation limits.
//
// Rows: spring, motor, lower and upper limit along the axis, then the 2x2
// block of "stay on the line" and "keep the angle" solved together (coupled
// through the lever arms, so solving them one by one would fight).

#ifndef ATOLL_DYNAMICS_JOINTS_PRISMATIC_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_PRISMATIC_JOINT_H_

#include "atoll/joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"

namespace atl {

struct PrismaticJoint {
  // Settings.
  Vec2 local_axis_a = {1.0f, 0.0f};  ///< unit
  float reference_angle = 0.0f;
  bool enable_spring = false;
  float hertz = 0.0f;
  float damping_ratio = 0.0f;
  bool enable_limit = false;
  float lower_translation = 0.0f;
  float upper_translation = 0.0f;
  bool enable_motor = false;
  float motor_speed = 0.0f;
  float max_motor_force = 0.0f;
  // Accumulated impulses: (perpendicular, angular) block and axial rows.
  Vec2 impulse;
  float spring_impulse = 0.0f;
  float motor_impulse = 0.0f;
  float lower_impulse = 0.0f;
  float upper_impulse = 0.0f;
  // Scratch: the axis at step start (world) and spring softness.
  Vec2 axis0;
  Softness spring;
};

template <typename J, typename F>
void VisitPrismaticFields(J& j, F&& f) {
  f(j.local_axis_a);
  f(j.reference_angle);
  f(j.enable_spring);
  f(j.hertz);
  f(j.damping_ratio);
  f(j.enable_limit);
  f(j.lower_translation);
  f(j.upper_translation);
  f(j.enable_motor);
  f(j.motor_speed);
  f(j.max_motor_force);
  f(j.impulse);
  f(j.spring_impulse);
  f(j.motor_impulse);
  f(j.lower_impulse);
  f(j.upper_impulse);
}

PrismaticJoint MakePrismaticJoint(const PrismaticJointDef& def);
void PreparePrismaticJoint(const JointContext& ctx, const JointFrame& f, PrismaticJoint* j);
void WarmStartPrismaticJoint(const JointFrame& f, const PrismaticJoint& j, SolverBody* a,
                             SolverBody* b);
void SolvePrismaticJoint(const JointContext& ctx, const JointFrame& f, PrismaticJoint* j,
                         SolverBody* a, SolverBody* b, bool use_bias);
JointReaction PrismaticReaction(const PrismaticJoint& j, const JointPose& pose);
/// Translation of B's anchor from A's along the axis, for a given pose.
float PrismaticTranslation(const PrismaticJoint& j, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_PRISMATIC_JOINT_H_
