// Atoll client — the snapshots a client keeps to decode delta snapshots.

#ifndef ATOLL_CLIENT_SNAPSHOT_BASES_H_
#define ATOLL_CLIENT_SNAPSHOT_BASES_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "atoll/v1/session.pb.h"

namespace atl::client {

/// The newest snapshots a session received (full ones as sent, deltas
/// decoded), by tick. The server bases a delta on the newest snapshot it has
/// seen acknowledged, which under lag is older than the newest the client
/// holds (acks in flight), so a client keeps several (docs/protocol.md,
/// "Snapshots and deltas").
class SnapshotBases {
 public:
  /// How many snapshots are kept.
  static constexpr size_t kKept = 8;

  /// Decodes `snapshot` (full: its data; delta: ApplyDelta against the kept
  /// snapshot of its base_tick), keeps the result and returns it.
  /// FailedPrecondition naming snapshot.base_tick when that snapshot is not
  /// kept, ApplyDelta's error for corrupt bytes; nothing is kept then.
  absl::StatusOr<std::string> Accept(const v1::Snapshot& snapshot);

  /// Keeps `bytes` as the whole snapshot of `tick` (a state the client got
  /// another way, e.g. the one it started from).
  void Keep(uint64_t tick, std::string bytes);

 private:
  std::map<uint64_t, std::string> bases_;
};

}  // namespace atl::client

#endif  // ATOLL_CLIENT_SNAPSHOT_BASES_H_
