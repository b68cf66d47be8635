// atoll client — batch sweeps: a BatchSweep spec (proto/atoll/v1/
// batch_sweep.proto) checked, expanded into numbered runs, and one run
// simulated in process.
//
// Run numbering: the cartesian product sizes x seeds x substep_counts x
// gravity_y, the last list varying fastest, so run i has
//   gravity_y index      = i % G
//   substep_count index  = (i / G) % U
//   seed index           = (i / (G U)) % E
//   size index           = i / (G U E)
// (an empty list counts as one entry: the default). Run i belongs to shard
// i % shards.

#ifndef ATOLL_CLIENT_BATCH_SWEEP_H_
#define ATOLL_CLIENT_BATCH_SWEEP_H_

#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "atoll/v1/batch_sweep.pb.h"
#include "atoll/v1/scene.pb.h"

namespace atl::client {

/// The most runs one sweep may expand into.
inline constexpr uint64_t kMaxSweepRuns = 1'000'000;
/// The most steps one run may take (as BatchService).
inline constexpr uint32_t kMaxSweepSteps = 100'000;

/// A sweep from JSON in protobuf's mapping; InvalidArgument starting with
/// `origin` (a file name) when the text is not a BatchSweep, or naming the
/// field ("sweep.sizes[2]: ...") when a value is out of range.
absl::StatusOr<v1::BatchSweep> ParseBatchSweep(absl::string_view json, absl::string_view origin);

/// Checks every field; InvalidArgument naming the first bad one
/// ("sweep.seeds[1]: ...", "sweep.scene.bodies[0].shapes[0]...").
absl::Status ValidateBatchSweep(const v1::BatchSweep& sweep);

/// The number of runs of a valid sweep.
uint64_t CountSweepRuns(const v1::BatchSweep& sweep);

/// The parameters of run `index` (< CountSweepRuns) of a valid sweep.
v1::BatchRunParams SweepRunParams(const v1::BatchSweep& sweep, uint64_t index);

/// What the run with `params` simulates: the sweep's scene with its
/// built-in size and seed, substeps and gravity replaced.
v1::SceneSpec SweepRunScene(const v1::BatchSweep& sweep, const v1::BatchRunParams& params);

/// 16 hex digits identifying the sweep: XXH3-64 of its deterministic
/// binary serialization. Two files that parse to the same sweep agree.
std::string BatchSweepDigest(const v1::BatchSweep& sweep);

/// "size 10, seed 2, substeps 4, gravity -9.8" (defaults left out).
std::string DescribeRunParams(const v1::BatchRunParams& params);

/// Whether the two records name the same run of the same sweep (digest,
/// index, parameters, steps, tick rate); *difference says what differs.
bool SameRun(const v1::BatchRunRecord& a, const v1::BatchRunRecord& b, std::string* difference);

/// A record of run `index` with only what identifies it filled in: sweep
/// digest, index, parameters, steps and tick rate (0 made 60).
v1::BatchRunRecord NewRunRecord(const v1::BatchSweep& sweep, const std::string& digest,
                                uint64_t index);

/// A hash as records write it: 16 lowercase hex digits.
std::string HashHex(uint64_t hash);

/// The chain digest of a record: XXH3-64 of the state hashes after steps
/// 1..N, each as 8 little-endian bytes, in step order; as HashHex.
std::string HashChainDigest(std::span<const uint64_t> chain);

/// Simulates run `index` of a valid sweep in this thread (serial engine:
/// results never depend on it) and returns its record. Errors name the run
/// ("run 3 (size 10, seed 2): ...").
absl::StatusOr<v1::BatchRunRecord> RunSweepRun(const v1::BatchSweep& sweep,
                                               const std::string& digest, uint64_t index);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_BATCH_SWEEP_H_
