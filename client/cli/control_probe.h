// The control plane under load: a thread that keeps calling the unary
// WorldService calls a game backend makes (ListWorlds, GetWorld, and
// CreateWorld followed by DestroyWorld of a small world) and records how
// long each took, as a caller on another machine sees it. `atoll probe`
// runs one in a process of its own (probe_command.cc); the load test starts
// that process beside its load (probe_process.h).

#ifndef ATOLL_CLIENT_CLI_CONTROL_PROBE_H_
#define ATOLL_CLIENT_CLI_CONTROL_PROBE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "atoll/client/connection.h"

namespace atl::cli {

// Latencies of one kind of call, ms, in call order; failures counted apart
// (a deadline exceeded or any other error).
struct CallTimes {
  std::vector<double> ms;
  // When each of those calls started: seconds since Begin.
  std::vector<double> start_s;
  int failures = 0;
  std::string last_error;
};

class ControlProbe {
 public:
  // The deadline every call gets: the one the under-load control
  // calls missed (2 s).
  static constexpr absl::Duration kDeadline = absl::Seconds(2);

  // Starts the thread, which waits for Begin.
  ControlProbe();
  ~ControlProbe();

  // Probes `address` (world `world_id` for GetWorld) every `interval` until
  // End.
  void Begin(const std::string& address, const client::ChannelOptions& options,
             const std::string& world_id, absl::Duration interval);
  void End();

  CallTimes list_worlds() const;
  CallTimes get_world() const;
  CallTimes create_world() const;

 private:
  void Run();

  absl::Notification begin_;
  absl::Notification end_;
  std::string address_;
  client::ChannelOptions options_;
  std::string world_id_;
  absl::Duration interval_;
  mutable absl::Mutex mu_;
  CallTimes list_ ABSL_GUARDED_BY(mu_);
  CallTimes get_ ABSL_GUARDED_BY(mu_);
  CallTimes create_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// The q-quantile (0..1) of `ms` by the nearest rank; 0 when empty.
double Quantile(std::vector<double> ms, double q);

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_CONTROL_PROBE_H_
