// Atoll — the sync test: rollback and re-simulation must reproduce the
// original hashes (like GGRS's SyncTestSession).

#ifndef ATOLL_SYNC_TEST_H_
#define ATOLL_SYNC_TEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "atoll/scene.h"
#include "atoll/world_diff.h"

namespace atl {

struct SyncTestOptions {
  int32_t ticks = 600;
  /// How far back every tick rolls back and re-simulates (1..ticks).
  int32_t rollback = 8;
  /// Seed of the random inputs (impulses on random dynamic bodies).
  uint64_t seed = 1;
};

struct SyncTestResult {
  /// Ticks stepped and ticks re-simulated.
  int64_t ticks = 0;
  int64_t resimulated = 0;
  /// -1 when every re-simulated hash matched; otherwise the first tick
  /// whose hash differed, with both hashes and the per-body diff.
  int64_t divergent_tick = -1;
  uint64_t expected_hash = 0;
  uint64_t actual_hash = 0;
  std::vector<BodyDiff> diffs;
};

/// Steps `scene` for options.ticks ticks with random inputs; at every tick
/// restores the snapshot from options.rollback ticks back, re-applies the
/// same inputs, re-simulates and compares each re-simulated hash with the
/// original. InvalidArgument for bad options or a bad scene.
absl::StatusOr<SyncTestResult> RunSyncTest(const SceneDesc& scene, const SyncTestOptions& options);

}  // namespace atl

#endif  // ATOLL_SYNC_TEST_H_
