// Test support: runs the real atoll-server binary as a child process.

#ifndef ATOLL_TESTS_SUPPORT_SERVER_PROCESS_H_
#define ATOLL_TESTS_SUPPORT_SERVER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace atl::testing {

/// The path of a binary built next to the tests (build/<preset>/bin/NAME).
std::string BinaryPath(const std::string& name);

/// A child atoll-server listening on a free loopback port. The destructor
/// sends SIGKILL if the process is still running.
class ServerProcess {
 public:
  /// Starts `atoll-server --listen=127.0.0.1:0 <extra_args>` and waits until
  /// it prints the address it bound. Fails if it exits or stays silent for
  /// 10 s.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> Start(
      const std::vector<std::string>& extra_args = {});

  /// Starts `argv` (argv[0] a path; any program that prints "listening on
  /// ADDRESS", such as `atoll view`) and waits for that line likewise.
  static absl::StatusOr<std::unique_ptr<ServerProcess>> StartProgram(
      const std::vector<std::string>& argv);

  /// Waits up to 10 s for a line of output starting with `prefix` and
  /// returns the rest of it ("atoll-server viewer at " gives the viewer's
  /// URL). DeadlineExceeded with the output otherwise.
  absl::StatusOr<std::string> WaitForLine(const std::string& prefix);

  ~ServerProcess();

  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

  /// Sends `signal` and waits for the exit; returns the exit status as
  /// reported by waitpid.
  int StopWith(int signal);

  /// Everything the server printed so far (stdout and stderr).
  std::string Output();

 private:
  ServerProcess(pid_t pid, int out_fd) : pid_(pid), out_fd_(out_fd) {}

  pid_t pid_;
  int out_fd_;
  bool exited_ = false;
  std::string address_;
  std::string output_;
};

/// Runs `argv` (argv[0] a path) to completion; returns its exit code and
/// puts its combined output into *output.
int RunCommand(const std::vector<std::string>& argv, std::string* output);

}  // namespace atl::testing

#endif  // ATOLL_TESTS_SUPPORT_SERVER_PROCESS_H_
