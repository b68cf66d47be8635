#include "atoll/sim/recording_join.h"

#include <cstdint>
#include <optional>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"

namespace atl::sim {
namespace {

// The state hash `recording` has for `tick`: its record of that tick, or a
// checkpoint of it (the first checkpoint has no tick record).
std::optional<uint64_t> RecordedHash(const v1::Recording& recording, uint64_t tick) {
  for (const v1::RecordedTick& t : recording.ticks()) {
    if (t.tick() == tick) return t.state_hash();
  }
  for (const v1::Checkpoint& cp : recording.checkpoints()) {
    if (cp.tick() == tick) return cp.state_hash();
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<v1::Recording> JoinRecordings(const v1::Recording& first,
                                             const v1::Recording& second) {
  using google::protobuf::util::MessageDifferencer;
  const v1::RecordingHeader& a = first.header();
  const v1::RecordingHeader& b = second.header();
  if (a.world_id() != b.world_id()) {
    return absl::InvalidArgumentError(absl::StrCat("second.header.world_id: '", b.world_id(),
                                                   "', the first recording is of '",
                                                   a.world_id(), "'"));
  }
  if (a.engine_version() != b.engine_version()) {
    return absl::InvalidArgumentError(absl::StrCat("second.header.engine_version: '",
                                                   b.engine_version(), "', the first is '",
                                                   a.engine_version(), "'"));
  }
  if (!MessageDifferencer::Equals(a.config(), b.config())) {
    return absl::InvalidArgumentError("second.header.config: differs from the first recording's");
  }
  if (!MessageDifferencer::Equals(a.scene(), b.scene())) {
    return absl::InvalidArgumentError("second.header.scene: differs from the first recording's");
  }
  if (second.checkpoints_size() == 0) {
    return absl::InvalidArgumentError("second.checkpoints: at least the first one is needed");
  }
  const v1::Checkpoint& start = second.checkpoints(0);
  const std::optional<uint64_t> hash = RecordedHash(first, start.tick());
  if (!hash.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "second.checkpoints[0].tick: ", start.tick(), " is not a tick of the first recording"));
  }
  if (*hash != start.state_hash()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "second.checkpoints[0].state_hash: the first recording has another hash for tick ",
        start.tick()));
  }
  v1::Recording joined;
  *joined.mutable_header() = a;
  for (const v1::Checkpoint& cp : first.checkpoints()) {
    if (cp.tick() <= start.tick()) *joined.add_checkpoints() = cp;
  }
  for (const v1::Checkpoint& cp : second.checkpoints()) {
    if (cp.tick() > start.tick()) *joined.add_checkpoints() = cp;
  }
  for (const v1::RecordedTick& t : first.ticks()) {
    if (t.tick() <= start.tick()) *joined.add_ticks() = t;
  }
  for (const v1::RecordedTick& t : second.ticks()) *joined.add_ticks() = t;
  return joined;
}

}  // namespace atl::sim
