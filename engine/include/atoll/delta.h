// Atoll — deltas between snapshots.
//
// A delta turns a base snapshot into a target snapshot, byte for byte. It
// walks the snapshots' framed records: records equal in both (a sleeping
// body, a resting contact) are copied in runs and cost a few bytes per run,
// records that changed carry only their changed byte ranges, new records
// are sent whole. The decoder checks that the base is the one the delta was
// made against and that the result hashes to the target, so a wrong base or
// a corrupted delta is an error, never a wrong world.

#ifndef ATOLL_DELTA_H_
#define ATOLL_DELTA_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace atl {

/// The delta from snapshot `base` to snapshot `target` (both made by
/// SaveSnapshot). InvalidArgument when either is not a valid snapshot frame.
absl::StatusOr<std::string> MakeDelta(const std::string& base, const std::string& target);

/// The target snapshot rebuilt from `base` and `delta`. FailedPrecondition
/// when `base` is not the snapshot the delta was made from; InvalidArgument
/// or DataLoss for a truncated or corrupted delta.
absl::StatusOr<std::string> ApplyDelta(const std::string& base, const std::string& delta);

}  // namespace atl

#endif  // ATOLL_DELTA_H_
