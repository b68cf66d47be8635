// The load test's control probe in a process of its own: `atoll probe`,
// forked before the load generator lowers its priority and started when the
// measured window opens. A caller on another machine shares nothing with
// the load's 128 streaming clients; a probe thread inside the load test
// shared their gRPC poller, whose threads run at the clients' nice 19, and
// timed their wait for a core along with the server's answer.

#ifndef ATOLL_CLIENT_CLI_PROBE_PROCESS_H_
#define ATOLL_CLIENT_CLI_PROBE_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace atl::cli {

// One line of `atoll probe`'s CSV.
struct ProbeCall {
  std::string name;
  int calls = 0;
  int failed = 0;
  double p50_ms = 0.0;
  double p99_ms = 0.0;
  double max_ms = 0.0;
};

struct ProbeResults {
  std::vector<ProbeCall> calls;
  // CPU time (user + system) the probe process used, seconds.
  double cpu_seconds = 0.0;
};

class ProbeProcess {
 public:
  // Forks now, so the child keeps the calling process's priority; the
  // child waits for Begin and then runs `atoll probe --server=address
  // --world=world --seconds=0` (with --tls_ca when not empty).
  static absl::StatusOr<std::unique_ptr<ProbeProcess>> Fork(const std::string& address,
                                                            const std::string& world,
                                                            const std::string& tls_ca);
  // Ends the child if Begin or End was not called, and reaps it.
  ~ProbeProcess();
  ProbeProcess(const ProbeProcess&) = delete;
  ProbeProcess& operator=(const ProbeProcess&) = delete;

  // The probe starts calling.
  void Begin();
  // Closes the probe's stdin (it finishes its current round), reads its
  // CSV and reaps it. An error when it printed no CSV or died.
  absl::StatusOr<ProbeResults> End();

 private:
  ProbeProcess(pid_t pid, int to_child, int from_child)
      : pid_(pid), to_child_(to_child), from_child_(from_child) {}

  pid_t pid_;
  int to_child_;
  int from_child_;
};

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_PROBE_PROCESS_H_
