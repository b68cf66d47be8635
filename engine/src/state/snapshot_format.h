// Atoll — the snapshot frame, shared by snapshots and deltas.
//
//   "ATOLLSNP" | u32 version | u32 body length | body | u64 XXH3(body)
//
// The body is a sequence of framed records [u32 key][u32 length][bytes] in
// ascending key order (snapshot.cc writes them; delta.cc works on them
// without looking inside).

#ifndef ATOLL_STATE_SNAPSHOT_FORMAT_H_
#define ATOLL_STATE_SNAPSHOT_FORMAT_H_

#include <cstddef>

namespace atl {

inline constexpr char kSnapshotMagic[8] = {'A', 'T', 'O', 'L', 'L', 'S', 'N', 'P'};
inline constexpr size_t kSnapshotHeaderSize = 8 + 4 + 4;
inline constexpr size_t kSnapshotTrailerSize = 8;

}  // namespace atl

#endif  // ATOLL_STATE_SNAPSHOT_FORMAT_H_
