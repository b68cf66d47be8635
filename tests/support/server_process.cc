#include "support/server_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace atl::testing {
namespace {

// Forks and execs argv with stdout+stderr sent to a pipe; returns the read
// end through *out_fd.
pid_t Spawn(const std::vector<std::string>& argv, int* out_fd) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  *out_fd = fds[0];
  return pid;
}

// Appends what can be read from fd within timeout_ms; false on EOF.
bool ReadSome(int fd, int timeout_ms, std::string* out) {
  pollfd p{fd, POLLIN, 0};
  if (poll(&p, 1, timeout_ms) <= 0) return true;
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof(buf));
  if (n <= 0) return false;
  out->append(buf, static_cast<size_t>(n));
  return true;
}

}  // namespace

std::string BinaryPath(const std::string& name) {
  return absl::StrCat(ATOLL_BIN_DIR, "/", name);
}

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::Start(
    const std::vector<std::string>& extra_args) {
  std::vector<std::string> argv = {BinaryPath("atoll-server"),
                                   "--listen=127.0.0.1:0"};
  argv.insert(argv.end(), extra_args.begin(), extra_args.end());
  return StartProgram(argv);
}

absl::StatusOr<std::string> ServerProcess::WaitForLine(const std::string& prefix) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    size_t at = output_.rfind("\n" + prefix);
    at = at == std::string::npos ? (output_.rfind(prefix, 0) == 0 ? 0 : at) : at + 1;
    if (at != std::string::npos) {
      const size_t eol = output_.find('\n', at);
      if (eol != std::string::npos) {
        return output_.substr(at + prefix.size(), eol - at - prefix.size());
      }
    }
    if (std::chrono::steady_clock::now() >= deadline || exited_ ||
        !ReadSome(out_fd_, 100, &output_)) {
      return absl::DeadlineExceededError(
          absl::StrCat("no line starting with '", prefix, "'; output: ", output_));
    }
  }
}

absl::StatusOr<std::unique_ptr<ServerProcess>> ServerProcess::StartProgram(
    const std::vector<std::string>& argv) {
  int fd = -1;
  const pid_t pid = Spawn(argv, &fd);
  if (pid < 0) return absl::InternalError("fork failed");
  std::unique_ptr<ServerProcess> process(new ServerProcess(pid, fd));

  constexpr char kMarker[] = "listening on ";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!ReadSome(fd, 100, &process->output_)) break;
    const size_t at = process->output_.find(kMarker);
    const size_t eol = at == std::string::npos ? at : process->output_.find('\n', at);
    if (eol != std::string::npos) {
      const size_t begin = at + std::strlen(kMarker);
      process->address_ = process->output_.substr(begin, eol - begin);
      return process;
    }
  }
  return absl::UnavailableError(
      absl::StrCat(argv[0], " did not start; it printed: ", process->output_));
}

ServerProcess::~ServerProcess() {
  if (!exited_) StopWith(SIGKILL);
  close(out_fd_);
}

int ServerProcess::StopWith(int signal) {
  if (exited_) return 0;
  kill(pid_, signal);
  int status = 0;
  waitpid(pid_, &status, 0);
  exited_ = true;
  while (ReadSome(out_fd_, 0, &output_)) {
    pollfd p{out_fd_, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) break;
  }
  return status;
}

std::string ServerProcess::Output() {
  if (!exited_) ReadSome(out_fd_, 0, &output_);
  return output_;
}

int RunCommand(const std::vector<std::string>& argv, std::string* output) {
  int fd = -1;
  const pid_t pid = Spawn(argv, &fd);
  output->clear();
  while (ReadSome(fd, 1000, output)) {
  }
  close(fd);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace atl::testing
