#include "tick_scheduler.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/blocking_counter.h"

namespace atl::server {

absl::Duration SpreadPhase(std::vector<absl::Duration> phases, absl::Duration period) {
  if (phases.empty()) return absl::ZeroDuration();
  std::sort(phases.begin(), phases.end());
  // The gap after each phase, the last one wrapping round to the first.
  absl::Duration best_start, best_gap = -absl::InfiniteDuration();
  for (size_t i = 0; i < phases.size(); ++i) {
    const absl::Duration next = i + 1 < phases.size() ? phases[i + 1] : phases[0] + period;
    if (next - phases[i] > best_gap) {
      best_gap = next - phases[i];
      best_start = phases[i];
    }
  }
  absl::Duration phase = best_start + best_gap / 2;
  if (phase >= period) phase -= period;
  return phase;
}

TickScheduler::TickScheduler(int threads, int realtime_priority) {
  threads = std::max(1, threads);
  all_beaten_ = threads >= 64 ? ~uint64_t{0} : (uint64_t{1} << threads) - 1;
  // Each thread sets its own policy (a policy is per thread) and reports
  // before this constructor returns.
  std::vector<int> errors(threads, 0);
  absl::BlockingCounter started(threads);
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([this, i, realtime_priority, &errors, &started] {
      // Named so that CPU accounting (atoll loadtest, top -H) can tell tick
      // threads from the I/O side.
      pthread_setname_np(pthread_self(), absl::StrCat("atoll-tick-", i).c_str());
      if (realtime_priority > 0) {
        sched_param param{};
        param.sched_priority = realtime_priority;
        errors[i] = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
      }
      const bool realtime = realtime_priority > 0 && errors[i] == 0;
      started.DecrementCount();
      Run(i, realtime);
    });
  }
  started.Wait();
  for (const int error : errors) {
    if (error == 0) continue;
    status_ = absl::FailedPreconditionError(absl::StrCat(
        "tick_priority: the tick threads may not run under SCHED_FIFO at priority ",
        realtime_priority, ": ", std::strerror(error),
        " (needs root, CAP_SYS_NICE or an RLIMIT_RTPRIO of at least ", realtime_priority,
        ", e.g. docker run --ulimit rtprio=", realtime_priority, "); 0 runs them normally"));
    break;
  }
}

TickScheduler::~TickScheduler() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    changed_.SignalAll();
  }
  for (std::thread& t : threads_) t.join();
}

void TickScheduler::Add(std::shared_ptr<WorldHost> host, bool at_once) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  const absl::Duration period = host->period();
  std::vector<absl::Duration> phases;
  for (const Entry& e : heap_) {
    if (e.period != period) continue;
    absl::Duration phase = (e.due - now) % period;
    if (phase < absl::ZeroDuration()) phase += period;
    phases.push_back(phase);
  }
  const absl::Time due =
      at_once ? now : now + period + SpreadPhase(std::move(phases), period);
  heap_.push_back({due, next_order_++, std::move(host), period});
  std::push_heap(heap_.begin(), heap_.end(), Later());
  changed_.Signal();
}

void TickScheduler::SetIterationHookForTesting(std::function<void()> hook) {
  absl::MutexLock lock(&mu_);
  iteration_hook_ = std::move(hook);
}

void TickScheduler::Beat(int thread) {
  const uint64_t bit = uint64_t{1} << (thread % 64);
  uint64_t now_beaten = beaten_.fetch_or(bit, std::memory_order_relaxed) | bit;
  // The last thread to beat in a round starts the next one. Once every bit
  // is set no fetch_or changes the value, so exactly one exchange wins.
  if (now_beaten == all_beaten_ &&
      beaten_.compare_exchange_strong(now_beaten, 0, std::memory_order_relaxed)) {
    heartbeat_.fetch_add(1, std::memory_order_relaxed);
  }
}

void TickScheduler::Run(int thread, bool realtime) {
  absl::MutexLock lock(&mu_);
  // When this thread last waited for a tick to fall due (or paused).
  absl::Time rested = absl::Now();
  while (!stop_) {
    if (iteration_hook_) {
      std::function<void()> hook = iteration_hook_;
      mu_.Unlock();
      hook();
      mu_.Lock();
      if (stop_) break;
    }
    Beat(thread);
    // Idle or early, wake at least every kIdleBeat anyway: the heartbeat
    // must advance on a server with no worlds, or Agones would see a
    // healthy but empty server as stuck.
    const absl::Time now = absl::Now();
    if (heap_.empty()) {
      changed_.WaitWithDeadline(&mu_, now + kIdleBeat);
      rested = absl::Now();
      continue;
    }
    if (heap_.front().due > now) {
      changed_.WaitWithDeadline(&mu_, std::min(heap_.front().due, now + kIdleBeat));
      rested = absl::Now();
      continue;
    }
    if (realtime && now - rested > kMaxBusy) {
      // Behind for a while: let the rest of the machine run (file comment).
      mu_.Unlock();
      absl::SleepFor(kPause);
      mu_.Lock();
      pauses_.fetch_add(1, std::memory_order_relaxed);
      rested = absl::Now();
      continue;
    }
    std::pop_heap(heap_.begin(), heap_.end(), Later());
    Entry entry = std::move(heap_.back());
    heap_.pop_back();
    if (entry.host->stopped()) continue;
    // Another thread may take the next world while this one steps.
    if (!heap_.empty()) changed_.Signal();
    mu_.Unlock();
    entry.host->Tick(now - entry.due);
    const absl::Time after = absl::Now();
    // The entry is this thread's until it is back in the heap: reschedule
    // it before taking mu_, so that mu_ is never held while a world's lock
    // is asked for (an I/O thread may hold that one).
    const absl::Duration period = entry.period;
    entry.due += period;
    if (entry.due < after - 4 * period) {
      entry.host->AddSkippedTicks(static_cast<uint64_t>((after - entry.due) / period));
      entry.due = after;
    }
    mu_.Lock();
    entry.order = next_order_++;
    heap_.push_back(std::move(entry));
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }
}

}  // namespace atl::server
