// Atoll — the joint record every joint type shares, and the dispatch from
// the solver to the per-type code (one file pair per type beside this one).
//
// A joint lives in WorldState::joints (index = JointId::index), is listed in
// both bodies' `joints` arrays, and is an island edge when both bodies are
// dynamic and enabled (island.h). The type-specific settings and warm-start
// impulses are in `data`; the types' scratch fields and the joint's frame
// (in the solver's scratch) are rebuilt by PrepareJoints every step and
// never saved.

#ifndef ATOLL_DYNAMICS_JOINTS_JOINT_H_
#define ATOLL_DYNAMICS_JOINTS_JOINT_H_

#include <cstdint>
#include <type_traits>
#include <variant>
#include <vector>

#include "atoll/joint.h"
#include "dynamics/body.h"
#include "dynamics/joints/distance_joint.h"
#include "dynamics/joints/joint_frame.h"
#include "dynamics/joints/joint_reaction.h"
#include "dynamics/joints/motor_joint.h"
#include "dynamics/joints/prismatic_joint.h"
#include "dynamics/joints/revolute_joint.h"
#include "dynamics/joints/target_joint.h"
#include "dynamics/joints/weld_joint.h"
#include "dynamics/joints/wheel_joint.h"

namespace atl {

struct WorldState;

/// Alternatives in JointType order: data.index() == type.
using JointData = std::variant<DistanceJoint, RevoluteJoint, PrismaticJoint, WeldJoint,
                               WheelJoint, MotorJoint, TargetJoint>;

struct Joint {
  JointType type = JointType::kDistance;
  /// Body indices; body_a is kNullIndex for a target joint (its A side is
  /// the world frame).
  int32_t body_a = kNullIndex;
  int32_t body_b = kNullIndex;
  /// Anchors in the body frames. Motor joint: the anchor on A is the linear
  /// offset, on B the origin. Target joint: the anchor on A is the world
  /// target.
  Vec2 local_anchor_a;
  Vec2 local_anchor_b;
  bool collide_connected = false;
  uint64_t user_data = 0;
  /// Reaction force and torque beyond which the step destroys the joint
  /// (World::SetJointBreakThresholds); infinity: never.
  float break_force = kInfinity;
  float break_torque = kInfinity;
  /// Persistent island membership (island edges only) and the island's
  /// intrusive joint list.
  int32_t island = kNullIndex;
  int32_t island_prev = kNullIndex;
  int32_t island_next = kNullIndex;
  JointData data;
};

/// Calls f on every saved type-specific field of `data` (const or not), in
/// snapshot order.
template <typename D, typename F>
void VisitJointDataFields(D& data, F&& f) {
  std::visit(
      [&f](auto& j) {
        using T = std::remove_cvref_t<decltype(j)>;
        if constexpr (std::is_same_v<T, DistanceJoint>) VisitDistanceFields(j, f);
        if constexpr (std::is_same_v<T, RevoluteJoint>) VisitRevoluteFields(j, f);
        if constexpr (std::is_same_v<T, PrismaticJoint>) VisitPrismaticFields(j, f);
        if constexpr (std::is_same_v<T, WeldJoint>) VisitWeldFields(j, f);
        if constexpr (std::is_same_v<T, WheelJoint>) VisitWheelFields(j, f);
        if constexpr (std::is_same_v<T, MotorJoint>) VisitMotorFields(j, f);
        if constexpr (std::is_same_v<T, TargetJoint>) VisitTargetFields(j, f);
      },
      data);
}

/// A default-constructed data alternative for `type`.
JointData MakeJointData(JointType type);

/// The angle of B relative to A at which the joint angle reads zero.
float JointReferenceAngle(const Joint& joint);

/// Whether `joint` is a pin: a revolute joint with no spring, motor or
/// limit, whose solve is the two point rows alone (pin_group.h).
bool IsPin(const Joint& joint);

/// The other body of `joint` seen from `body` (kNullIndex for the world).
inline int32_t OtherJointBody(const Joint& joint, int32_t body) {
  return joint.body_a == body ? joint.body_b : joint.body_a;
}

/// Step stage 6, joint part. Lists (in joint index order) the joints that
/// take part in this step's solve: both bodies enabled, and at least one a
/// dynamic body in the solver (Body::solver_index set); builds their frames
/// (frames[k] for joints[k]) from the bodies' step-start poses, and each
/// type's step constants.
void PrepareJoints(WorldState* world, const JointContext& ctx, std::vector<int32_t>* joints,
                   std::vector<JointFrame>* frames);
/// Applies joint `joint`'s accumulated impulses (warm start); `frame` is
/// its frame from PrepareJoints. Like SolveJoint, touches only that joint
/// and the solver slots of the bodies it moves, so joints of one colour may
/// run concurrently.
void WarmStartJoint(WorldState* world, int32_t joint, const JointFrame& frame,
                    SolverBody* bodies);
/// One Gauss-Seidel iteration of joint `joint` (with its `frame`), with
/// (use_bias) or without position correction of the rigid parts.
void SolveJoint(WorldState* world, const JointContext& ctx, int32_t joint,
                const JointFrame& frame, SolverBody* bodies, bool use_bias);

/// The joint's anchors and body rotations at the bodies' current poses.
JointPose GetJointPose(const WorldState& world, const Joint& joint);
/// The accumulated impulses of the last step, as seen by body B.
JointReaction GetJointReaction(const Joint& joint, const JointPose& pose);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_JOINT_H_
