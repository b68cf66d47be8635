// atoll verify — re-simulates a recording file locally and checks its hash
// chain; several files (a world that moved between servers) are joined
// first.

#include <cstdio>

#include "absl/strings/str_join.h"
#include "atoll/client/verify.h"
#include "atoll/sim/recording_format.h"
#include "atoll/sim/recording_join.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

namespace atl::cli {

int RunVerifyCommand(const std::vector<std::string>& args) {
  if (args.empty()) return Usage("verify needs a recording file (.atrec)");
  v1::Recording recording;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StatusOr<sim::ParsedRecording> file = sim::ReadRecording(args[i]);
    if (!file.ok()) return Fail(file.status());
    if (i == 0) {
      recording = std::move(file->recording);
      continue;
    }
    absl::StatusOr<v1::Recording> joined = sim::JoinRecordings(recording, file->recording);
    if (!joined.ok()) {
      return Fail(absl::Status(joined.status().code(),
                               args[i] + ": " + std::string(joined.status().message())));
    }
    recording = *std::move(joined);
  }
  const std::string name = absl::StrJoin(args, " + ");
  absl::StatusOr<client::VerifyReport> report = client::VerifyRecordingLocally(recording);
  if (!report.ok()) {
    return Fail(absl::Status(report.status().code(),
                             name + ": " + std::string(report.status().message())));
  }
  std::printf("%s: %s\n", name.c_str(), report->ToString().c_str());
  return report->ok ? 0 : 1;
}

}  // namespace atl::cli
