// atoll client — reading and writing world recording files
// (docs/recording.md: "ATOLLREC", version, checksummed protobuf records).

#ifndef ATOLL_CLIENT_RECORDING_FILE_H_
#define ATOLL_CLIENT_RECORDING_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/v1/recording.pb.h"

namespace atl::client {

/// Parses recording file bytes, stopping at the first torn or corrupt record
/// as the server does. DataLoss when the magic or version is wrong or no
/// header and checkpoint precede the first bad record.
absl::StatusOr<v1::Recording> ParseRecordingFile(const std::string& bytes);

/// Reads and parses `path`. NotFound naming the path when it cannot be
/// opened; errors of ParseRecordingFile prefixed with the path.
absl::StatusOr<v1::Recording> ReadRecordingFile(const std::string& path);

/// The file bytes of `recording`: header, then checkpoints and ticks in
/// tick order (a checkpoint after the tick record of its tick).
std::string EncodeRecordingFile(const v1::Recording& recording);

/// Writes EncodeRecordingFile(recording) to `path` (mode 0600: it holds the
/// join tokens). Internal naming the path on failure.
absl::Status WriteRecordingFile(const std::string& path, const v1::Recording& recording);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_RECORDING_FILE_H_
