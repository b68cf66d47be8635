// atoll bot — simulated players with random inputs that predict and roll
// back against a live world; prints their statistics at exit.

#include <algorithm>
#include <cstdio>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/marshalling.h"
#include "absl/strings/str_cat.h"
#include "atoll/client/bot.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_FLAG(int32_t, players, 1, "bot: simulated players (slots 1..N)");
ABSL_FLAG(absl::Duration, latency, absl::ZeroDuration(),
          "bot: one-way latency injected into each player's stream");
ABSL_FLAG(int32_t, window, 8, "bot: prediction window in ticks (0..60)");
ABSL_FLAG(std::vector<std::string>, tokens, {},
          "bot: the join tokens of slots 1..N, comma-separated, as `atoll create` printed them");
ABSL_DECLARE_FLAG(int32_t, ticks);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(uint32_t, input_delay);

namespace atl::cli {

int RunBotCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("bot needs one world id");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  // Templates come from the world's recording header; tokens only from
  // whoever created the world (the server never hands them out again).
  absl::StatusOr<v1::RecordingHeader> setup = FetchWorldSetup(*address, args[0]);
  if (!setup.ok()) return Fail(setup.status());
  client::BotOptions options;
  options.address = *address;
  options.world_id = args[0];
  options.scene = setup->scene();
  options.tokens = absl::GetFlag(FLAGS_tokens);
  options.players = absl::GetFlag(FLAGS_players);
  options.ticks = static_cast<uint64_t>(std::max(1, absl::GetFlag(FLAGS_ticks)));
  options.injected_latency = absl::GetFlag(FLAGS_latency);
  options.prediction.prediction_window = absl::GetFlag(FLAGS_window);
  options.prediction.input_delay = static_cast<int>(absl::GetFlag(FLAGS_input_delay));
  options.seed = absl::GetFlag(FLAGS_seed);
  absl::StatusOr<std::vector<client::BotReport>> reports = client::RunBots(options);
  if (!reports.ok()) return Fail(reports.status());
  uint64_t desyncs = 0;
  std::printf("%-5s %10s %10s %12s %8s %6s %9s %9s %8s %10s %9s %7s\n", "SLOT", "TICKS",
              "ROLLBACKS", "RESIMULATED", "DESYNCS", "DEPTH", "MEAN_MS", "MAX_MS", "RTT_MS",
              "RECONNECTS", "REDIRECTS", "ERRORS");
  for (const client::BotReport& r : *reports) {
    desyncs += r.stats.desyncs;
    std::printf("%-5u %10llu %10llu %12llu %8llu %6d %9.3f %9.3f %8.1f %10llu %9llu %7llu\n",
                r.slot,
                static_cast<unsigned long long>(r.last_tick - r.first_tick),
                static_cast<unsigned long long>(r.stats.rollbacks),
                static_cast<unsigned long long>(r.stats.frames_resimulated),
                static_cast<unsigned long long>(r.stats.desyncs), r.stats.max_prediction_depth,
                r.stats.mean_rollback_ms(), r.stats.max_rollback_ms, r.rtt_ms,
                static_cast<unsigned long long>(r.reconnects),
                static_cast<unsigned long long>(r.redirects),
                static_cast<unsigned long long>(r.server_errors));
    for (const client::DesyncReport& d : r.desyncs) {
      std::printf("slot %u: %s\n", r.slot, d.ToString().c_str());
    }
  }
  return desyncs == 0 ? 0 : 1;
}

}  // namespace atl::cli
