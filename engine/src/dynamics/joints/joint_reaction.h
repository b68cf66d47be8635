// Atoll — a joint's constraint impulse on body B, for reaction queries.

#ifndef ATOLL_DYNAMICS_JOINTS_JOINT_REACTION_H_
#define ATOLL_DYNAMICS_JOINTS_JOINT_REACTION_H_

#include "atoll/math.h"

namespace atl {

/// Where a joint's anchors and bodies are now (world frame), for turning
/// stored impulses into world-frame reactions outside the solver.
struct JointPose {
  Vec2 anchor_a;
  Vec2 anchor_b;
  Rot rotation_a;
  Rot rotation_b;
};

/// The impulse one substep of the last step applied to body B (A got the
/// opposite): linear at B's anchor, and a pure torque impulse.
struct JointReaction {
  Vec2 linear;
  float angular = 0.0f;
};

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_JOINT_REACTION_H_
