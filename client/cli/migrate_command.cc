// atoll migrate — moves a live world to another server (ExportWorld, then
// ImportWorld); its players are redirected and resume there.

#include <cstdio>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "atoll/client/migrate.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_DECLARE_FLAG(absl::Duration, timeout);

ABSL_FLAG(std::string, from, "", "migrate: HOST:PORT of the server the world is on");
ABSL_FLAG(std::string, to, "", "migrate: HOST:PORT of the server the world moves to");
ABSL_FLAG(std::string, redirect, "",
          "migrate: the address the world's players are sent to (default: --to)");

namespace atl::cli {

int RunMigrateCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("migrate needs one world id");
  client::MigrateOptions options;
  options.world_id = args[0];
  options.from = absl::GetFlag(FLAGS_from);
  options.to = absl::GetFlag(FLAGS_to);
  options.redirect_to = absl::GetFlag(FLAGS_redirect);
  options.timeout = absl::GetFlag(FLAGS_timeout);
  absl::StatusOr<client::MigrateReport> report = client::MigrateWorld(options);
  if (!report.ok()) return Fail(report.status());
  std::printf(
      "moved %s from %s to %s after tick %llu (hash %016llx): export %.1f ms (%zu bytes), "
      "import %.1f ms, the world paused %.1f ms (%.2f ticks)\n",
      options.world_id.c_str(), options.from.c_str(), options.to.c_str(),
      static_cast<unsigned long long>(report->tick),
      static_cast<unsigned long long>(report->state_hash),
      absl::ToDoubleMilliseconds(report->export_time), report->export_bytes,
      absl::ToDoubleMilliseconds(report->import_time), absl::ToDoubleMilliseconds(report->paused),
      report->paused_ticks);
  return 0;
}

}  // namespace atl::cli
