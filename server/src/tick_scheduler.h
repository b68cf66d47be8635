// atoll-server — steps every world at its own tick rate on a few threads.
//
// Worlds wait in a min-heap by due time. A thread pops the earliest due
// world, steps it (outside the scheduler lock) and puts it back one period
// later. A world is never in two threads at once, so its ticks are
// sequential. When a world falls more than a few periods behind (an
// overloaded machine), it is rescheduled from now instead of bursting to
// catch up; WorldInfo.late_ticks counts such ticks.

#ifndef ATOLL_SERVER_TICK_SCHEDULER_H_
#define ATOLL_SERVER_TICK_SCHEDULER_H_

#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "world_host.h"

namespace atl::server {

class TickScheduler {
 public:
  explicit TickScheduler(int threads);
  /// Stops the threads (after their current tick).
  ~TickScheduler();

  /// Starts stepping `host`; the first tick is one period from now.
  void Add(std::shared_ptr<WorldHost> host);
  /// Worlds whose host is stopped() are dropped when next due.

 private:
  struct Entry {
    absl::Time due;
    uint64_t order;
    std::shared_ptr<WorldHost> host;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.due != b.due ? a.due > b.due : a.order > b.order;
    }
  };
  void Run();

  absl::Mutex mu_;
  std::vector<Entry> heap_ ABSL_GUARDED_BY(mu_);
  uint64_t next_order_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::CondVar changed_;
  std::vector<std::thread> threads_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_TICK_SCHEDULER_H_
