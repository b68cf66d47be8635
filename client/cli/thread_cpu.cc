#include "client/cli/thread_cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace atl::cli {
namespace {

// utime + stime of /proc/PID/task/TID/stat in seconds, and the thread's
// name; false when the file cannot be read or parsed.
bool ReadStat(const std::string& path, ThreadCpu* out) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string stat = text.str();
  // "tid (comm) state ...": comm may hold spaces and parentheses, so the
  // fields start after the last ')'.
  const size_t open = stat.find('(');
  const size_t close = stat.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open)
    return false;
  out->name = stat.substr(open + 1, close - open - 1);
  std::istringstream fields(stat.substr(close + 1));
  std::string field;
  // Fields 3.. of proc(5): state is field 3, utime 14 and stime 15.
  uint64_t utime = 0, stime = 0;
  for (int number = 3; number <= 15 && fields >> field; ++number) {
    if (number == 14 && !absl::SimpleAtoi(field, &utime)) return false;
    if (number == 15 && !absl::SimpleAtoi(field, &stime)) return false;
  }
  if (!fields) return false;
  out->seconds = static_cast<double>(utime + stime) /
                 static_cast<double>(sysconf(_SC_CLK_TCK));
  return true;
}

}  // namespace

absl::StatusOr<std::map<pid_t, ThreadCpu>> ReadThreadCpu(pid_t pid) {
  const std::string dir = absl::StrCat("/proc/", pid, "/task");
  DIR* d = opendir(dir.c_str());
  if (d == nullptr)
    return absl::NotFoundError(
        absl::StrCat("no process ", pid, " (", dir, ")"));
  std::map<pid_t, ThreadCpu> threads;
  while (const dirent* e = readdir(d)) {
    pid_t tid = 0;
    if (!absl::SimpleAtoi(e->d_name, &tid)) continue;
    ThreadCpu cpu;
    if (ReadStat(absl::StrCat(dir, "/", e->d_name, "/stat"), &cpu))
      threads[tid] = cpu;
  }
  closedir(d);
  return threads;
}

absl::StatusOr<double> ReadStealSeconds() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line) || !absl::StartsWith(line, "cpu ")) {
    return absl::NotFoundError("no cpu line in /proc/stat");
  }
  // "cpu user nice system idle iowait irq softirq steal ...".
  std::istringstream fields(line.substr(4));
  uint64_t value = 0;
  for (int column = 1; column <= 8; ++column) {
    std::string field;
    if (!(fields >> field) || !absl::SimpleAtoi(field, &value)) {
      return absl::NotFoundError("no steal column in /proc/stat");
    }
  }
  return static_cast<double>(value) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double CpuBetween(const std::map<pid_t, ThreadCpu>& before,
                  const std::map<pid_t, ThreadCpu>& after,
                  const std::string& prefix, double* others) {
  double matched = 0.0, rest = 0.0;
  for (const auto& [tid, now] : after) {
    auto it = before.find(tid);
    const double used =
        now.seconds - (it == before.end() ? 0.0 : it->second.seconds);
    (absl::StartsWith(now.name, prefix) ? matched : rest) += used;
  }
  if (others != nullptr) *others = rest;
  return matched;
}

}  // namespace atl::cli
