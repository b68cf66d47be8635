// atoll-server — re-simulating a recording and locating a divergence.

#ifndef ATOLL_SERVER_REPLAY_H_
#define ATOLL_SERVER_REPLAY_H_

#include "absl/status/statusor.h"
#include "atoll/v1/replay.pb.h"

namespace atl::server {

/// Restores recording.checkpoints[0], applies every recorded tick's inputs
/// with Simulation::Step and compares each hash. On the first mismatch,
/// keeps replaying to the next recorded checkpoint (if any) and diffs every
/// body against it. InvalidArgument naming the field for a malformed
/// recording.
absl::StatusOr<v1::VerifyResponse> VerifyRecording(const v1::Recording& recording);

}  // namespace atl::server

#endif  // ATOLL_SERVER_REPLAY_H_
