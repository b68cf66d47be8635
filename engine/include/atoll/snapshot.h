// Atoll — snapshots: the whole state of a world as canonical bytes.
//
// A snapshot holds everything that influences future steps (bodies, shapes,
// contacts with their manifolds and warm-start impulses, joints with their
// settings and warm-start impulses, islands and their
// split flags, sleep timers, id pools with free lists and generations, the
// step counter, pending events) — but not the broad-phase strategy, which
// never changes results: a snapshot restores into any strategy, and the
// hash is the same whichever one ran. Restore(Save(w)) followed by N steps equals
// N steps of w, bit for bit. The bytes are canonical: equal states give
// equal bytes, so the state hash is a hash of them.
//
// Format (docs/determinism.md): magic "ATOLLSNP", u32 version, u32 length
// of the body, the body (little-endian fields in a fixed order), and a
// 64-bit XXH3 of the body that catches corruption.

#ifndef ATOLL_SNAPSHOT_H_
#define ATOLL_SNAPSHOT_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/world.h"

namespace atl {

/// The snapshot format this build writes and reads.
inline constexpr uint32_t kSnapshotVersion = 4;

/// Appends the snapshot of `world` to *out (cleared first). Reusing `out`
/// across ticks avoids reallocating.
void SaveSnapshot(const World& world, std::string* out);

/// SaveSnapshot into a new string.
std::string SaveSnapshot(const World& world);

/// Replaces the state of `world` with the snapshot in `bytes`, keeping the
/// world's broad-phase strategy. On any error
/// (truncated, corrupted, wrong magic or version, inconsistent contents)
/// returns InvalidArgument / DataLoss with what is wrong and leaves `world`
/// unchanged.
absl::Status RestoreSnapshot(std::span<const uint8_t> bytes, World* world);
absl::Status RestoreSnapshot(const std::string& bytes, World* world);

/// A new world from a snapshot, using `broad_phase`. Errors as RestoreSnapshot.
absl::StatusOr<std::unique_ptr<World>> LoadSnapshot(
    std::span<const uint8_t> bytes, BroadPhaseType broad_phase = BroadPhaseType::kBatchBvh);
absl::StatusOr<std::unique_ptr<World>> LoadSnapshot(
    const std::string& bytes, BroadPhaseType broad_phase = BroadPhaseType::kBatchBvh);

/// The 64-bit state hash: XXH3 of the snapshot body. Two worlds have the same
/// hash exactly when their snapshots match (up to hash collisions).
uint64_t HashWorld(const World& world);

/// HashWorld computed into a caller-kept buffer, for once-a-tick hashing.
uint64_t HashWorld(const World& world, std::string* scratch);

}  // namespace atl

#endif  // ATOLL_SNAPSHOT_H_
