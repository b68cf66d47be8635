// atoll::sim — one recording from the pieces of a world that moved between
// servers (WorldService.ExportWorld / ImportWorld).

#ifndef ATOLL_SIM_RECORDING_JOIN_H_
#define ATOLL_SIM_RECORDING_JOIN_H_

#include "absl/status/statusor.h"
#include "atoll/v1/recording.pb.h"

namespace atl::sim {

/// `first` followed by `second`, a recording that starts with a checkpoint
/// of a tick `first` recorded (the importing server's recording of a moved
/// world): `first`'s checkpoints and ticks up to that tick, then
/// `second`'s. Re-simulating the result from `first`'s start checks that
/// the second server continued the very same world. The header is
/// `first`'s. InvalidArgument naming the field when the two are not pieces
/// of one world: another world id, engine, config or scene; `second`
/// starting outside `first`'s ticks; or `second`'s first checkpoint hashing
/// differently from `first`'s record of that tick.
absl::StatusOr<v1::Recording> JoinRecordings(const v1::Recording& first,
                                             const v1::Recording& second);

}  // namespace atl::sim

#endif  // ATOLL_SIM_RECORDING_JOIN_H_
