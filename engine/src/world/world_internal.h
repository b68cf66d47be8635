// Atoll — helpers the World's implementation files share. Internal.

#ifndef ATOLL_WORLD_WORLD_INTERNAL_H_
#define ATOLL_WORLD_WORLD_INTERNAL_H_

#include <cstdint>
#include <span>

#include "absl/status/status.h"
#include "atoll/id.h"

namespace atl {

struct WorldState;

/// OK when `id` names a live body of `world`; InvalidArgument for a null or
/// foreign id, NotFound for a stale one.
absl::Status CheckBody(const WorldState& world, BodyId id);

/// Wakes the body's island (or a kinematic body) and resets its sleep timer.
void WakeBody(WorldState* world, int32_t body);

/// Destroys every joint attached to `body` (in joint index order), waking
/// the bodies on their other ends. For DestroyBody.
void DestroyJointsOfBody(WorldState* world, int32_t body);

/// Step stage 6, end: destroys the joints of `solved` (the solve's, in
/// joint index order) whose reaction exceeds their break thresholds,
/// reporting each in events.joint_break. `time_step` is the step's.
void BreakOverloadedJoints(WorldState* world, std::span<const int32_t> solved, float time_step);

}  // namespace atl

#endif  // ATOLL_WORLD_WORLD_INTERNAL_H_
