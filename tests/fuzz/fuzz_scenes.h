// Fuzzing support: the snapshots fuzz targets start from.

#ifndef ATOLL_TESTS_FUZZ_FUZZ_SCENES_H_
#define ATOLL_TESTS_FUZZ_FUZZ_SCENES_H_

#include <string>
#include <vector>

namespace atl::fuzz {

/// Snapshots of small built-in scenes at several ticks, always the same.
const std::vector<std::string>& SeedSnapshots();

/// Wraps `body` in a valid snapshot frame (magic, version, length,
/// checksum) so mutations reach the record parser instead of stopping at
/// the checksum.
std::string FrameSnapshotBody(const std::string& body);

}  // namespace atl::fuzz

#endif  // ATOLL_TESTS_FUZZ_FUZZ_SCENES_H_
