#include "atoll/client/snapshot_bases.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "atoll/delta.h"

namespace atl::client {

absl::StatusOr<std::string> SnapshotBases::Accept(const v1::Snapshot& snapshot) {
  std::string bytes;
  if (snapshot.full()) {
    bytes = snapshot.data();
  } else {
    auto base = bases_.find(snapshot.base_tick());
    if (base == bases_.end()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "snapshot.base_tick: delta against tick ", snapshot.base_tick(),
          ", a snapshot this client does not keep"));
    }
    absl::StatusOr<std::string> applied = ApplyDelta(base->second, snapshot.data());
    if (!applied.ok()) return applied.status();
    bytes = *std::move(applied);
  }
  Keep(snapshot.tick(), bytes);
  return bytes;
}

void SnapshotBases::Keep(uint64_t tick, std::string bytes) {
  bases_[tick] = std::move(bytes);
  while (bases_.size() > kKept) bases_.erase(bases_.begin());
}

}  // namespace atl::client
