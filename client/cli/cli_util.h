// atoll CLI — what the remote commands share: the server flag, one-line
// failures, scene files and a world's setup.

#ifndef ATOLL_CLIENT_CLI_CLI_UTIL_H_
#define ATOLL_CLIENT_CLI_CLI_UTIL_H_

#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "atoll/v1/recording.pb.h"
#include "atoll/v1/scene.pb.h"

namespace atl::cli {

/// Prints "atoll: <message>" to stderr; returns 1.
int Fail(const std::string& message);
int Fail(const absl::Status& status);
/// Prints "atoll: <message>" to stderr; returns 2 (a usage error).
int Usage(const std::string& message);

/// --server, or FailedPrecondition asking for it.
absl::StatusOr<std::string> ServerAddress();
/// --timeout.
absl::Duration Timeout();
/// now + --timeout, for a unary call's deadline.
std::chrono::system_clock::time_point Deadline();

/// A scene: a JSON file in protobuf's mapping of atl.v1.SceneSpec when
/// `arg` names a file (or ends in .json), else a built-in scene name with
/// --size and --seed. NotFound / InvalidArgument naming the file.
absl::StatusOr<v1::SceneSpec> LoadScene(const std::string& arg);

/// The setup of a live world (scene, effective config, slot tokens) from
/// its recording header (WorldService.GetRecording). Errors name the world.
absl::StatusOr<v1::RecordingHeader> FetchWorldSetup(const std::string& address,
                                                    const std::string& world_id);

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_CLI_UTIL_H_
