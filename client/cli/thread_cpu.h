// CPU time per thread of a process, from /proc (Linux): what the load test
// reports so a reader can see who used the cores.

#ifndef ATOLL_CLIENT_CLI_THREAD_CPU_H_
#define ATOLL_CLIENT_CLI_THREAD_CPU_H_

#include <sys/types.h>

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace atl::cli {

// One thread's name (its comm, at most 15 characters) and the user plus
// system CPU seconds it has used, at the clock tick's resolution (10 ms).
struct ThreadCpu {
  std::string name;
  double seconds = 0.0;
};

// Every live thread of process `pid`, by thread id. NotFound when the
// process is gone; a thread that exits while it is read is left out.
absl::StatusOr<std::map<pid_t, ThreadCpu>> ReadThreadCpu(pid_t pid);

// CPU seconds used between two readings by the threads whose name starts
// with `prefix` (all threads for an empty prefix) and, in `*others`, by the
// rest. A thread new in `after` counts from zero; one gone from `after` is
// not counted (its last interval is lost).
double CpuBetween(const std::map<pid_t, ThreadCpu>& before,
                  const std::map<pid_t, ThreadCpu>& after,
                  const std::string& prefix, double* others);

// CPU seconds since boot that the hypervisor gave to others while this
// machine's CPUs wanted to run (the steal column of /proc/stat's cpu line;
// 0 on bare metal), at the clock tick's resolution.
absl::StatusOr<double> ReadStealSeconds();

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_THREAD_CPU_H_
