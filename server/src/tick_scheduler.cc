#include "tick_scheduler.h"

#include <algorithm>

namespace atl::server {

TickScheduler::TickScheduler(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { Run(); });
}

TickScheduler::~TickScheduler() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    changed_.SignalAll();
  }
  for (std::thread& t : threads_) t.join();
}

void TickScheduler::Add(std::shared_ptr<WorldHost> host) {
  absl::MutexLock lock(&mu_);
  const absl::Time due = absl::Now() + host->period();
  heap_.push_back({due, next_order_++, std::move(host)});
  std::push_heap(heap_.begin(), heap_.end(), Later());
  changed_.Signal();
}

void TickScheduler::Run() {
  absl::MutexLock lock(&mu_);
  while (!stop_) {
    if (heap_.empty()) {
      changed_.Wait(&mu_);
      continue;
    }
    const absl::Time now = absl::Now();
    if (heap_.front().due > now) {
      changed_.WaitWithDeadline(&mu_, heap_.front().due);
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
    mu_.Lock();
    const absl::Duration period = entry.host->period();
    entry.due += period;
    if (entry.due < after - 4 * period) {
      entry.host->AddSkippedTicks(static_cast<uint64_t>((after - entry.due) / period));
      entry.due = after;
    }
    entry.order = next_order_++;
    heap_.push_back(std::move(entry));
    std::push_heap(heap_.begin(), heap_.end(), Later());
  }
}

}  // namespace atl::server
