// Shared input checks for shape construction and validation. Each returns
// InvalidArgument with a message that starts with `what` so the caller's
// error names the field that is wrong.

#ifndef ATOLL_SRC_COLLISION_CHECKS_H_
#define ATOLL_SRC_COLLISION_CHECKS_H_

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "atoll/math.h"

namespace atl::internal {

/// OK when `p` is finite and both coordinates are within kWorldBound.
absl::Status CheckPoint(absl::string_view what, Vec2 p);

/// OK when `length` (a radius or half-extent) is finite, at most
/// kWorldBound, and positive (or zero when `allow_zero`).
absl::Status CheckLength(absl::string_view what, float length, bool allow_zero);

}  // namespace atl::internal

#endif  // ATOLL_SRC_COLLISION_CHECKS_H_
