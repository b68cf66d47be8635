// atoll::sim — the events of a world's last step as Frame fields.

#ifndef ATOLL_SIM_FRAME_EVENTS_H_
#define ATOLL_SIM_FRAME_EVENTS_H_

#include <cstdint>

#include "atoll/v1/session.pb.h"
#include "atoll/world.h"

namespace atl::sim {

/// Appends the events of `world`'s last step to `frame`, each list in
/// engine order: contact begin, end and hit (events), sensor begin and end
/// (sensor_events), joint breaks (joint_breaks). Bodies and joints are
/// named as on the wire (BodyRef, JointRef); a body that no longer exists
/// is left unset.
void AppendStepEvents(const World& world, v1::Frame* frame);

/// A 64-bit hash of the events of `world`'s last step, as AppendStepEvents
/// lists them (XXH3 of their deterministic serialization): recorded per
/// tick (RecordedTick.events_hash) and compared by replay verification.
uint64_t HashStepEvents(const World& world);

}  // namespace atl::sim

#endif  // ATOLL_SIM_FRAME_EVENTS_H_
