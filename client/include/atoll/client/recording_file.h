// atoll client — writing world recording files (docs/recording.md). The
// format itself, and reading it, is atoll/sim/recording_format.h, shared
// with the server.

#ifndef ATOLL_CLIENT_RECORDING_FILE_H_
#define ATOLL_CLIENT_RECORDING_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "atoll/v1/recording.pb.h"

namespace atl::client {

/// Writes sim::EncodeRecording(recording) to `path` (mode 0600: it holds the
/// join tokens). Internal naming the path on failure.
absl::Status WriteRecordingFile(const std::string& path, const v1::Recording& recording);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_RECORDING_FILE_H_
