// Atoll — helpers the World's implementation files share. Internal.

#ifndef ATOLL_WORLD_WORLD_INTERNAL_H_
#define ATOLL_WORLD_WORLD_INTERNAL_H_

#include <cstdint>

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

}  // namespace atl

#endif  // ATOLL_WORLD_WORLD_INTERNAL_H_
