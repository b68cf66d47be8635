// atoll verify — re-simulates a recording file locally and checks its hash
// chain.

#include <cstdio>

#include "atoll/client/verify.h"
#include "atoll/sim/recording_format.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

namespace atl::cli {

int RunVerifyCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("verify needs one recording file (.atrec)");
  absl::StatusOr<sim::ParsedRecording> file = sim::ReadRecording(args[0]);
  if (!file.ok()) return Fail(file.status());
  absl::StatusOr<client::VerifyReport> report = client::VerifyRecordingLocally(file->recording);
  if (!report.ok()) return Fail(absl::Status(report.status().code(),
                                             args[0] + ": " + std::string(report.status().message())));
  std::printf("%s: %s\n", args[0].c_str(), report->ToString().c_str());
  return report->ok ? 0 : 1;
}

}  // namespace atl::cli
