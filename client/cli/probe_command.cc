// atoll probe — times the unary control calls a game backend makes
// (ListWorlds, GetWorld, CreateWorld) against a server, as a caller in a
// process of its own sees them. `atoll loadtest` runs it beside its load.

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/time/clock.h"
#include "atoll/v1/world.grpc.pb.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"
#include "client/cli/control_probe.h"

ABSL_DECLARE_FLAG(int32_t, seconds);
ABSL_DECLARE_FLAG(std::string, tls_ca);
ABSL_FLAG(std::string, world, "",
          "probe: the world GetWorld asks for (empty: the first ListWorlds returns)");
ABSL_FLAG(absl::Duration, interval, absl::Milliseconds(100),
          "probe: time between rounds of the three calls");
ABSL_FLAG(absl::Duration, slow, absl::Milliseconds(50),
          "probe: list on stderr, at the end, every call that took at least this long, with "
          "when it started");

namespace atl::cli {
namespace {

// Blocks until stdin reaches its end (or fails).
void WaitForStdinToClose() {
  char buf[256];
  for (;;) {
    const ssize_t got = read(STDIN_FILENO, buf, sizeof(buf));
    if (got == 0 || (got < 0 && errno != EINTR)) return;
  }
}

// Lists on stderr, by start time, the calls of `calls` that took at least
// `slow_ms`: when under load the control plane stalls shows in which
// seconds of a run it did (docs/benchmarks.md, session 22). At most
// kMaxListed lines, then how many more.
void PrintSlowCalls(std::span<const std::pair<const char*, CallTimes>> calls, double slow_ms) {
  constexpr size_t kMaxListed = 20;
  struct Slow {
    double start_s;
    double ms;
    const char* name;
  };
  std::vector<Slow> slow;
  for (const auto& [name, times] : calls) {
    for (size_t i = 0; i < times.ms.size(); ++i) {
      if (times.ms[i] >= slow_ms) slow.push_back({times.start_s[i], times.ms[i], name});
    }
  }
  std::sort(slow.begin(), slow.end(),
            [](const Slow& a, const Slow& b) { return a.start_s < b.start_s; });
  for (size_t i = 0; i < slow.size() && i < kMaxListed; ++i) {
    std::fprintf(stderr, "atoll: slow call: %s took %.2f ms, %.3f s after the probe began\n",
                 slow[i].name, slow[i].ms, slow[i].start_s);
  }
  if (slow.size() > kMaxListed) {
    std::fprintf(stderr, "atoll: %zu more slow calls, not listed\n", slow.size() - kMaxListed);
  }
}

}  // namespace

int RunProbeCommand(const std::vector<std::string>& args) {
  if (!args.empty()) return Usage("probe takes no arguments");
  const int seconds = absl::GetFlag(FLAGS_seconds);
  const absl::Duration interval = absl::GetFlag(FLAGS_interval);
  if (seconds < 0) return Usage("--seconds: 0 (until stdin closes) or more");
  if (interval <= absl::ZeroDuration()) return Usage("--interval: a positive duration");
  const absl::Duration slow = absl::GetFlag(FLAGS_slow);
  if (slow < absl::ZeroDuration()) return Usage("--slow: a duration of 0 or more");
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  client::ChannelOptions options;
  options.tls_ca_path = absl::GetFlag(FLAGS_tls_ca);

  std::string world = absl::GetFlag(FLAGS_world);
  if (world.empty()) {
    auto channel = client::MakeChannel(*address, options);
    if (!channel.ok()) return Fail(channel.status());
    grpc::ClientContext context;
    context.set_deadline(Deadline());
    v1::ListWorldsResponse response;
    const grpc::Status s =
        v1::WorldService::NewStub(*channel)->ListWorlds(&context, {}, &response);
    if (!s.ok()) return Fail(client::FromGrpcStatus(s, *address));
    if (response.worlds().empty()) {
      return Fail(*address + " has no world for GetWorld to ask for (or pass --world)");
    }
    world = response.worlds(0).world_id();
  }

  ControlProbe probe;
  probe.Begin(*address, options, world, interval);
  if (seconds > 0) {
    absl::SleepFor(absl::Seconds(seconds));
  } else {
    WaitForStdinToClose();
  }
  probe.End();

  const std::pair<const char*, CallTimes> calls[] = {{"ListWorlds", probe.list_worlds()},
                                                     {"GetWorld", probe.get_world()},
                                                     {"CreateWorld", probe.create_world()}};
  std::printf("call,calls,failed,p50_ms,p99_ms,max_ms\n");
  int failures = 0;
  for (const auto& [name, times] : calls) {
    std::printf("%s,%zu,%d,%.2f,%.2f,%.2f\n", name, times.ms.size() + times.failures,
                times.failures, Quantile(times.ms, 0.5), Quantile(times.ms, 0.99),
                Quantile(times.ms, 1.0));
    if (times.failures > 0) {
      std::fprintf(stderr, "atoll: %s: %d failed, last: %s\n", name, times.failures,
                   times.last_error.c_str());
    }
    failures += times.failures;
  }
  std::fflush(stdout);
  PrintSlowCalls(calls, absl::ToDoubleMilliseconds(slow));
  return failures > 0 ? 1 : 0;
}

}  // namespace atl::cli
