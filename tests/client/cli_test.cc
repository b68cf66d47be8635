// Integration: the real atoll-server binary, called through the client
// library and through the real `atoll` binary.

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

#include "atoll/client/connection.h"
#include "support/server_process.h"

namespace atl::client {
namespace {

using ::atl::testing::BinaryPath;
using ::atl::testing::RunCommand;
using ::atl::testing::ServerProcess;

TEST(CliTest, ClientLibrarySeesRealServerServing) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  auto health = CheckHealth((*server)->address(), "", absl::Seconds(5));
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, HealthStatus::kServing);
}

TEST(CliTest, HealthCommandExitsZeroOnlyWhenServing) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "health",
                        "--server=" + (*server)->address()},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("SERVING"), std::string::npos) << output;

  const std::string address = (*server)->address();
  (*server)->StopWith(SIGKILL);
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "health", "--server=" + address,
                        "--timeout=500ms"},
                       &output),
            1);
  // One clear line naming the address.
  EXPECT_NE(output.find(address), std::string::npos) << output;
  EXPECT_EQ(output.find('\n'), output.size() - 1) << output;
}

TEST(CliTest, VersionCommandReportsServerVersion) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  std::string output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "version",
                        "--server=" + (*server)->address()},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("atoll-server " ATOLL_CLIENT_VERSION), std::string::npos)
      << output;
}

TEST(CliTest, UnknownCommandAndMissingServerFail) {
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "frobnicate"}, &output), 2);
  EXPECT_NE(output.find("unknown command"), std::string::npos) << output;
  // A missing --server is a usage error (cli_help_test.cc has the rest).
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "health"}, &output), 2);
  EXPECT_NE(output.find("missing --server"), std::string::npos) << output;
}

TEST(CliTest, ServerExitsCleanlyOnSigterm) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const int status = (*server)->StopWith(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE((*server)->Output().find("shutting down"), std::string::npos);
}

TEST(CliTest, SyncTestPassesOnABuiltInScene) {
  std::string output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "synctest", "pyramid", "--size=6", "--ticks=120",
                        "--rollback=8"},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("no divergence"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "synctest", "no_such_scene"}, &output), 1);
  EXPECT_NE(output.find("no_such_scene"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "synctest", "pyramid", "--rollback=0"}, &output), 1);
  EXPECT_NE(output.find("rollback"), std::string::npos) << output;
}

// The CSV line of `atoll loadtest` in `output` (its other lines go to
// stderr), split at commas; empty when there is none.
std::vector<std::string> LoadTestRow(const std::string& output, const std::string& start) {
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, start)) return absl::StrSplit(line, ',');
  }
  return {};
}

TEST(CliTest, LoadTestRunsItsOwnServerAndMeasuresTheSettledStream) {
  std::string output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "loadtest", "--worlds=2", "--bodies=40",
                        "--clients=3", "--seconds=1", "--scene=pyramid"},
                       &output),
            0)
      << output;
  // A pyramid of base 8 and its ground: the largest with at most 40 bodies.
  EXPECT_NE(output.find("scene pyramid, size 8 (37 bodies)"), std::string::npos) << output;
  const std::vector<std::string> row = LoadTestRow(output, "2,40,3,60,");
  ASSERT_EQ(row.size(), 17u) << output;
  // Resting worlds stream a tick and a hash, and small deltas (goal: <= 64
  // bytes per client per tick).
  const double settled = std::stod(row[8]);
  EXPECT_GT(settled, 0.0) << output;
  EXPECT_LE(settled, 64.0) << output;
  EXPECT_NE(output.find("0 bad"), std::string::npos) << output;
  // The control calls were probed over the window (about 10 rounds in 1 s),
  // none failed, and their p99 is a time.
  EXPECT_GT(std::stod(row[9]), 0.0) << output;
  EXPECT_EQ(row[10], "0") << output;
  for (const char* call : {"ListWorlds: ", "GetWorld: ", "CreateWorld: "}) {
    EXPECT_NE(output.find(call), std::string::npos) << call << output;
  }
  // CPU accounting of its own server: its two tick threads found by name,
  // each side measured (a resting world's ticks may use less than the 10 ms
  // the kernel counts in).
  EXPECT_NE(output.find("server tick threads (2)"), std::string::npos) << output;
  for (int column : {11, 12, 13}) EXPECT_GE(std::stod(row[column]), 0.0) << output;
  // World-ticks stepped with sends reduced (the overload policy): a count.
  EXPECT_GE(std::stoll(row[14]), 0) << output;
  // The machine's speed: one world's ticks, timed before the load, and the
  // CPU the hypervisor took over the window (none on bare metal).
  EXPECT_GT(std::stod(row[15]), 0.0) << output;
  EXPECT_GE(std::stod(row[16]), 0.0) << output;
  EXPECT_NE(output.find("loadtest: calibration: one world steps its first 120 ticks in "),
            std::string::npos)
      << output;
  // The window second by second: the one second of it, with the ticks its
  // two worlds started (about 120 at 60 Hz).
  const size_t second = output.find("loadtest: second 1: ");
  ASSERT_NE(second, std::string::npos) << output;
  EXPECT_GT(std::stoll(output.substr(second + std::strlen("loadtest: second 1: "))), 0) << output;
  EXPECT_EQ(output.find("loadtest: second 2: "), std::string::npos) << output;
}

// `atoll probe`'s CSV rows (call,calls,failed,p50_ms,p99_ms,max_ms), by
// call name.
std::map<std::string, std::vector<std::string>> ProbeRows(const std::string& output) {
  std::map<std::string, std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    std::vector<std::string> f = absl::StrSplit(line, ',');
    if (f.size() == 6 && f[0] != "call") rows[f[0]] = std::move(f);
  }
  return rows;
}

TEST(CliTest, ProbeTimesTheControlCallsAndLeavesNoWorldBehind) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string flag = "--server=" + (*server)->address();
  std::string output;
  // Nothing for GetWorld to ask for yet: one line saying so.
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "probe", flag, "--seconds=1"}, &output), 1);
  EXPECT_NE(output.find("has no world for GetWorld"), std::string::npos) << output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "create", "pyramid", flag, "--id=pyr", "--size=4"},
                       &output),
            0)
      << output;

  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "probe", flag, "--seconds=1", "--interval=50ms"},
                       &output),
            0)
      << output;
  const auto rows = ProbeRows(output);
  ASSERT_EQ(rows.size(), 3u) << output;
  for (const char* call : {"ListWorlds", "GetWorld", "CreateWorld"}) {
    ASSERT_TRUE(rows.count(call)) << call << output;
    const std::vector<std::string>& row = rows.at(call);
    // About 20 rounds in 1 s at 50 ms (fewer on a busy machine), none failed.
    EXPECT_GE(std::stoi(row[1]), 5) << output;
    EXPECT_EQ(row[2], "0") << output;
    const double p50 = std::stod(row[3]), p99 = std::stod(row[4]), max = std::stod(row[5]);
    EXPECT_GT(p50, 0.0) << output;
    EXPECT_LE(p50, p99) << output;
    EXPECT_LE(p99, max) << output;
  }
  // --slow=0s lists every call on stderr, in the order they started, each
  // with its latency and start.
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "probe", flag, "--seconds=1", "--slow=0s"}, &output),
            0)
      << output;
  int calls = 0;
  for (const auto& [name, row] : ProbeRows(output)) calls += std::stoi(row[1]);
  const std::string kSlow = "atoll: slow call: ";
  int listed = 0;
  double last_start = -1.0;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (!absl::StartsWith(line, kSlow)) continue;
    ++listed;
    // "<Call> took <ms> ms, <s> s after the probe began"
    const std::vector<std::string> words = absl::StrSplit(line.substr(kSlow.size()), ' ');
    ASSERT_EQ(words.size(), 10u) << line;
    EXPECT_TRUE(words[0] == "ListWorlds" || words[0] == "GetWorld" || words[0] == "CreateWorld")
        << line;
    EXPECT_GT(std::stod(words[2]), 0.0) << line;
    const double start = std::stod(words[4]);
    EXPECT_GE(start, last_start) << line;
    EXPECT_LT(start, 5.0) << line;
    last_start = start;
  }
  // At most 20 listed, then a count of the rest.
  EXPECT_EQ(listed, std::min(calls, 20)) << output;
  if (calls > 20) {
    EXPECT_NE(output.find(absl::StrCat("atoll: ", calls - 20, " more slow calls, not listed")),
              std::string::npos)
        << output;
  }
  // A negative --slow is refused.
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "probe", flag, "--seconds=1", "--slow=-1ms"},
                       &output),
            2);
  EXPECT_NE(output.find("--slow"), std::string::npos) << output;

  // Each world it created was destroyed again.
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "worlds", flag}, &output), 0) << output;
  EXPECT_NE(output.find("pyr "), std::string::npos) << output;
  EXPECT_EQ(output.find("probe-"), std::string::npos) << output;

  // A server that is gone: every call fails, exit 1, the error named.
  (*server)->StopWith(SIGKILL);
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "probe", flag, "--world=pyr", "--seconds=1"},
                       &output),
            1);
  EXPECT_NE(output.find("ListWorlds: "), std::string::npos) << output;
  EXPECT_NE(output.find("failed, last: 14 "), std::string::npos) << output;  // UNAVAILABLE
}

TEST(CliTest, ProbeRefusesBadFlagsBeforeConnecting) {
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "probe", "--server=127.0.0.1:1", "--interval=0s"},
                       &output),
            2);
  EXPECT_NE(output.find("--interval"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "probe", "--server=127.0.0.1:1", "--seconds=-1"},
                       &output),
            2);
  EXPECT_NE(output.find("--seconds"), std::string::npos) << output;
}

TEST(CliTest, LoadTestRefusesBadFlagsBeforeStartingAnything) {
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "loadtest", "--scene=no_such_scene"}, &output), 1);
  EXPECT_NE(output.find("--scene"), std::string::npos) << output;
  EXPECT_EQ(output.find("server"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "loadtest", "--bodies=3"}, &output), 1);
  EXPECT_NE(output.find("--bodies"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "loadtest", "--client_niceness=20"}, &output), 1);
  EXPECT_NE(output.find("--client_niceness 0..19"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "loadtest", "--settle_seconds=-1"}, &output), 1);
  EXPECT_NE(output.find("--settle_seconds >= 0"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "loadtest", "--tick_priority=100"}, &output), 1);
  EXPECT_NE(output.find("--tick_priority: -1..99"), std::string::npos) << output;
  EXPECT_EQ(output.find("server"), std::string::npos) << output;
}

TEST(CliTest, ServerRefusesIoNicenessOutOfRange) {
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll-server"), "--listen=127.0.0.1:0", "--io_niceness=20"},
                       &output),
            1);
  EXPECT_NE(output.find("io_niceness in 0..19"), std::string::npos) << output;
}

TEST(CliTest, ServerRefusesBadListenFlag) {
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll-server"), "--listen=nonsense"}, &output), 1);
  EXPECT_NE(output.find("HOST:PORT"), std::string::npos) << output;
}

}  // namespace
}  // namespace atl::client
