// atoll-server — steps every world at its own tick rate on a few threads.
//
// Worlds wait in a min-heap by due time. A thread pops the earliest due
// world, steps it (outside the scheduler lock) and puts it back one period
// later. A world is never in two threads at once, so its ticks are
// sequential. The scheduler's lock is never held while a world's lock is
// asked for: an I/O thread that holds one world's lock (a query, a Stop
// syncing its recording) then stalls the tick of that world alone, not
// every tick thread behind it. When a world falls more than a few periods
// behind (an overloaded machine), it is rescheduled from now instead of
// bursting to catch up; WorldInfo.late_ticks counts such ticks.
//
// A new world's ticks are spread out in time from those of the worlds
// already running at its rate (SpreadPhase): worlds created together would
// otherwise all fall due at the same instant each period, and the last of
// them would start a whole burst late.
//
// With a realtime priority the tick threads run under SCHED_FIFO: a tick
// that falls due preempts every normally scheduled thread of the machine
// (gRPC, sending, the clients of a load test) at once, instead of waiting
// for the fair scheduler to give it a turn, so when the cores are short the
// I/O side waits and the ticks start on time. It needs root, CAP_SYS_NICE
// or an RLIMIT_RTPRIO of at least the priority.
//
// Under SCHED_FIFO an overloaded machine (more tick work than cores) would
// otherwise give everything else only what the kernel's realtime throttling
// leaves: 5% of each second, in one piece at its end, so a control call
// could wait most of a second, or miss its deadline. A tick thread that has
// stepped worlds for kMaxBusy without once waiting for the next due tick
// therefore pauses for kPause (pauses() counts them): at most about 6% of a
// core in 1 ms slices, which keeps the I/O side answering. Its ticks were
// late already; on a machine that keeps up the threads wait between ticks
// and never pause.

#ifndef ATOLL_SERVER_TICK_SCHEDULER_H_
#define ATOLL_SERVER_TICK_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "world_host.h"

namespace atl::server {

/// Where in a cycle of `period` to place a new tick so that it falls as far
/// as possible from `phases` (other ticks' offsets in the cycle, each in
/// [0, period)): the middle of the widest gap between them, the first such
/// gap when several are as wide; zero when there are none.
absl::Duration SpreadPhase(std::vector<absl::Duration> phases, absl::Duration period);

class TickScheduler {
 public:
  /// `realtime_priority` 1..99 runs the threads under SCHED_FIFO at that
  /// priority (0: normal scheduling); status() says whether they could.
  explicit TickScheduler(int threads, int realtime_priority = 0);
  /// Stops the threads (after their current tick).
  ~TickScheduler();

  /// FailedPrecondition naming tick_priority when the threads could not
  /// take their realtime priority (they then run at normal priority).
  const absl::Status& status() const { return status_; }

  /// Starts stepping `host`; the first tick is one to two periods from now,
  /// at the SpreadPhase of the worlds with the same period, or with
  /// `at_once` now, and the next ones a period apart from there (a world
  /// imported from another server, whose next tick is already due).
  void Add(std::shared_ptr<WorldHost> host, bool at_once = false);
  /// Worlds whose host is stopped() are dropped when next due.

  /// A counter that advances each time every tick thread has gone round
  /// its loop at least once since the last advance: each thread beats after
  /// each tick and, when idle, at least every kIdleBeat. A reader that sees
  /// it unchanged over a few idle beats knows a tick thread is stuck (the
  /// Agones health pings follow it, agones_client.h).
  uint64_t heartbeat() const { return heartbeat_.load(std::memory_order_relaxed); }

  /// How often an idle tick thread wakes up only to beat.
  static constexpr absl::Duration kIdleBeat = absl::Milliseconds(100);

  /// Under SCHED_FIFO, the longest a tick thread steps worlds without
  /// waiting before it pauses for kPause (see the file comment).
  static constexpr absl::Duration kMaxBusy = absl::Milliseconds(15);
  static constexpr absl::Duration kPause = absl::Milliseconds(1);
  /// Pauses the SCHED_FIFO tick threads took because they were busy for
  /// kMaxBusy without a wait (0 under normal scheduling).
  uint64_t pauses() const { return pauses_.load(std::memory_order_relaxed); }

  /// Tests only: every tick thread calls `hook` (outside the scheduler's
  /// lock) at the top of each loop iteration, before it beats; a hook that
  /// blocks stalls the thread. Null removes it.
  void SetIterationHookForTesting(std::function<void()> hook);

 private:
  struct Entry {
    absl::Time due;
    uint64_t order;
    std::shared_ptr<WorldHost> host;
    absl::Duration period;
  };
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.due != b.due ? a.due > b.due : a.order > b.order;
    }
  };
  // `realtime`: the thread runs under SCHED_FIFO (it pauses when busy).
  void Run(int thread, bool realtime);
  void Beat(int thread);

  absl::Mutex mu_;
  std::vector<Entry> heap_ ABSL_GUARDED_BY(mu_);
  uint64_t next_order_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::CondVar changed_;
  std::function<void()> iteration_hook_ ABSL_GUARDED_BY(mu_);
  // One bit per tick thread that beat since the last heartbeat_ advance
  // (threads past 64 share bits).
  std::atomic<uint64_t> beaten_{0};
  uint64_t all_beaten_ = 0;  // set before the threads start
  std::atomic<uint64_t> heartbeat_{0};
  std::atomic<uint64_t> pauses_{0};
  std::vector<std::thread> threads_;
  absl::Status status_;  // set before the constructor returns
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_TICK_SCHEDULER_H_
