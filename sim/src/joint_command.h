// atoll::sim — JointCommand: which joint types take which change, and the
// engine call that makes it. Internal to the simulation.

#ifndef ATOLL_SIM_SRC_JOINT_COMMAND_H_
#define ATOLL_SIM_SRC_JOINT_COMMAND_H_

#include <string>

#include "absl/status/status.h"
#include "atoll/joint.h"
#include "atoll/v1/common.pb.h"
#include "atoll/world.h"

namespace atl::sim {

/// The field name of the change `command` sets ("motor_speed", ...; empty
/// when none is set).
std::string JointChangeName(const v1::JointCommand& command);

/// Checks, without changing anything, that a joint of `type` has the change
/// `command` sets and that its values are ones the engine's setter accepts
/// (finite, ranges, lower <= upper). InvalidArgument whose message says
/// what is wrong (the caller prefixes the field).
absl::Status CheckJointChange(JointType type, const v1::JointCommand& command);

/// Makes the change through the engine's joint setter; its error as is.
absl::Status ApplyJointChange(World* world, JointId joint,
                              const v1::JointCommand& command);

}  // namespace atl::sim

#endif  // ATOLL_SIM_SRC_JOINT_COMMAND_H_
