#include "client/cli/probe_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace atl::cli {
namespace {

// The rows of `atoll probe`'s CSV (after its header line).
absl::StatusOr<std::vector<ProbeCall>> ParseCsv(const std::string& csv) {
  std::vector<ProbeCall> calls;
  bool header = true;
  for (absl::string_view line : absl::StrSplit(csv, '\n', absl::SkipEmpty())) {
    if (header) {
      header = false;
      continue;
    }
    const std::vector<absl::string_view> f = absl::StrSplit(line, ',');
    ProbeCall call;
    if (f.size() != 6 || !absl::SimpleAtoi(f[1], &call.calls) ||
        !absl::SimpleAtoi(f[2], &call.failed) || !absl::SimpleAtod(f[3], &call.p50_ms) ||
        !absl::SimpleAtod(f[4], &call.p99_ms) || !absl::SimpleAtod(f[5], &call.max_ms)) {
      return absl::InternalError(absl::StrCat("atoll probe printed a bad line: ", line));
    }
    call.name = std::string(f[0]);
    calls.push_back(std::move(call));
  }
  if (calls.empty()) return absl::InternalError("atoll probe printed no result");
  return calls;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ProbeProcess>> ProbeProcess::Fork(const std::string& address,
                                                                  const std::string& world,
                                                                  const std::string& tls_ca) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return absl::InternalError("cannot find this binary (/proc/self/exe)");
  self[n] = '\0';
  // Everything the child needs is built here: after a fork of a process
  // with threads, the child may only make async-signal-safe calls.
  std::vector<std::string> args = {self, "probe", absl::StrCat("--server=", address),
                                   absl::StrCat("--world=", world), "--seconds=0"};
  if (!tls_ca.empty()) args.push_back(absl::StrCat("--tls_ca=", tls_ca));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return absl::InternalError("pipe failed");
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in[0], in[1], out[0], out[1]}) close(fd);
    return absl::InternalError("fork failed");
  }
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    // One byte says begin; the end of the pipe before it, never mind.
    char go;
    ssize_t got;
    do {
      got = read(STDIN_FILENO, &go, 1);
    } while (got < 0 && errno == EINTR);
    if (got != 1) _exit(0);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  return std::unique_ptr<ProbeProcess>(new ProbeProcess(pid, in[1], out[0]));
}

ProbeProcess::~ProbeProcess() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ > 0) waitpid(pid_, nullptr, 0);
}

void ProbeProcess::Begin() { (void)!write(to_child_, "g", 1); }

absl::StatusOr<ProbeResults> ProbeProcess::End() {
  close(to_child_);
  to_child_ = -1;
  std::string csv;
  char buf[1024];
  ssize_t got;
  while ((got = read(from_child_, buf, sizeof(buf))) != 0) {
    if (got < 0) {
      if (errno == EINTR) continue;
      break;
    }
    csv.append(buf, static_cast<size_t>(got));
  }
  close(from_child_);
  from_child_ = -1;
  int status = 0;
  rusage usage{};
  const pid_t reaped = wait4(pid_, &status, 0, &usage);
  pid_ = -1;
  if (reaped < 0) return absl::InternalError("atoll probe: wait failed");
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat("atoll probe died of signal ", WTERMSIG(status)));
  }
  absl::StatusOr<std::vector<ProbeCall>> calls = ParseCsv(csv);
  if (!calls.ok()) return calls.status();
  ProbeResults results;
  results.calls = *std::move(calls);
  results.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                        1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  return results;
}

}  // namespace atl::cli
