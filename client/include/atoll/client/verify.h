// atoll client — local re-simulation of a recording against its hash chain.

#ifndef ATOLL_CLIENT_VERIFY_H_
#define ATOLL_CLIENT_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "atoll/v1/recording.pb.h"
#include "atoll/world_diff.h"

namespace atl::client {

/// What a local verification found.
struct VerifyReport {
  bool ok = true;
  uint64_t ticks_verified = 0;
  /// The first tick whose hash differs, with both hashes (when !ok).
  uint64_t first_divergent_tick = 0;
  uint64_t expected_hash = 0;
  uint64_t actual_hash = 0;
  /// The states matched at first_divergent_tick but the step's events
  /// (RecordedTick.events_hash) did not; the hashes above are the events'.
  bool events_diverged = false;
  /// The first recorded checkpoint at or after the divergence, where the
  /// bodies are compared (0 and no diffs when there is none).
  uint64_t diff_tick = 0;
  /// Replay (a) against recording (b), by body index.
  std::vector<BodyDiff> diffs;
  /// One line when ok, else the divergence and one line per body.
  std::string ToString() const;
};

/// Restores recording.checkpoints[0] with atoll::sim, applies every recorded
/// tick's inputs exactly as the server did and compares each hash; on the
/// first mismatch replays on to the next checkpoint and diffs the bodies.
/// InvalidArgument naming the field for a malformed recording (no header,
/// no checkpoint, a gap in the ticks, a corrupt snapshot).
absl::StatusOr<VerifyReport> VerifyRecordingLocally(const v1::Recording& recording);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_VERIFY_H_
