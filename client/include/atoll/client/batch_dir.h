// atoll client — the results folder of a sharded batch sweep, shared by
// every shard (a Kubernetes Indexed Job's pods on one volume, or local
// processes):
//
//   DIR/sweep.json         the sweep, written by the first shard to start
//   DIR/run-000042.json    one BatchRunRecord per finished run
//   DIR/.run-000042.json.tmp-PID   a record being written (renamed into
//                          place when complete, so a killed shard never
//                          leaves half a record)
//   DIR/results.csv, DIR/results.svg   written by the merge
//
// A shard refuses a folder made for another sweep, skips runs already
// recorded (so a killed shard, run again, completes the set) and refuses a
// record in its way that belongs to another run or sweep.

#ifndef ATOLL_CLIENT_BATCH_DIR_H_
#define ATOLL_CLIENT_BATCH_DIR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/v1/batch_sweep.pb.h"

namespace atl::client {

inline constexpr char kSweepFileName[] = "sweep.json";

/// "run-000042.json": the record file of run `index` (six digits or more).
std::string RunRecordFileName(uint64_t index);

/// The sweep of DIR/sweep.json; NotFound / InvalidArgument naming the file.
absl::StatusOr<v1::BatchSweep> ReadSweepFile(const std::string& dir);

/// Makes `dir` (created if missing) the folder of `sweep`: writes
/// sweep.json when absent, atomically (of two shards starting at once, one
/// writes it and the other compares). FailedPrecondition naming the folder
/// and both digests when it holds a different sweep.
absl::Status PrepareSweepDir(const std::string& dir, const v1::BatchSweep& sweep);

/// A record file; InvalidArgument naming it when it is not a
/// BatchRunRecord.
absl::StatusOr<v1::BatchRunRecord> ReadRunRecord(const std::string& path);

/// Writes DIR/run-NNNNNN.json through a temporary file renamed into place.
/// When a record for the run appeared meanwhile (another process ran it),
/// keeps it if it agrees and returns AlreadyExists naming the file if its
/// parameters or hashes differ.
absl::Status WriteRunRecord(const std::string& dir, const v1::BatchRunRecord& record);

struct ShardOptions {
  /// This shard, 0..shards-1; run i belongs to shard i % shards.
  int64_t shard = 0;
  int64_t shards = 1;
  /// Runs simulated at once (each on its own thread, with the serial
  /// engine, so results never depend on it); >= 1.
  int threads = 1;
  /// Runs run `index` and returns its record (NewRunRecord filled in);
  /// called from several threads at once. Unset: RunSweepRun, in process.
  std::function<absl::StatusOr<v1::BatchRunRecord>(uint64_t index)> run;
};

/// What RunShard tells its observer after each run of the shard.
struct ShardEvent {
  const v1::BatchRunRecord* record = nullptr;
  /// The record was there already (not run again).
  bool skipped = false;
  /// Runs of the shard finished so far (this one included) and in all.
  uint64_t done = 0;
  uint64_t total = 0;
};

struct ShardSummary {
  uint64_t runs = 0;  // of this shard
  uint64_t ran = 0;
  uint64_t skipped = 0;  // recorded before this call
};

/// Runs the runs of shard `options.shard` of `sweep` (valid) into `dir`:
/// checks the shard index (InvalidArgument "shard 3 is out of range ...")
/// and the folder (PrepareSweepDir), skips runs already recorded (an
/// existing record of another run or sweep in the way is refused:
/// AlreadyExists naming it), deletes this shard's leftover temporary files
/// and writes one record per run. `observe` is called after each run, one
/// call at a time. Stops at the first failing run (its error names it).
absl::StatusOr<ShardSummary> RunShard(const std::string& dir, const v1::BatchSweep& sweep,
                                      const ShardOptions& options,
                                      const std::function<void(const ShardEvent&)>& observe);

/// What a merge found in a results folder.
struct SweepDirCheck {
  v1::BatchSweep sweep;
  std::string digest;
  uint64_t runs = 0;
  /// One per run index found, sorted by index.
  std::vector<v1::BatchRunRecord> records;
  /// Run indices without a record.
  std::vector<uint64_t> missing;
  /// Duplicate and foreign records, one line each, naming the file.
  std::vector<std::string> problems;
  bool complete() const { return missing.empty() && problems.empty(); }
};

/// Reads DIR/sweep.json and every other *.json file of `dir` as a record
/// (hidden temporaries are ignored): a record of another sweep, of a run
/// outside the sweep, with parameters other than its run's, or a second
/// record of one run is a problem. NotFound / InvalidArgument when the
/// folder or its sweep.json cannot be read.
absl::StatusOr<SweepDirCheck> CheckSweepDir(const std::string& dir);

/// Sorted run indices as ranges, "4, 7-8, 11", at most `limit` ranges and
/// then "...".
std::string FormatRunList(const std::vector<uint64_t>& runs, size_t limit = 20);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_BATCH_DIR_H_
