// atoll-server — the figures a Prometheus scrape reports (--metrics_listen),
// where the server's threads count them and how a scrape collects them.
//
// A scrape must never delay a tick, so it takes no world's mutex. The tick
// threads, the send and sync threads and the session reactors count into
// relaxed atomics here (a histogram is an array of atomic buckets); each
// world publishes its gauges (bodies, awake bodies, sessions) into atomics
// of its own (WorldHost::gauges()). A scrape only loads those, and takes
// the registry's mutex for as long as copying its list of worlds. The price
// is that a scrape is not one instant: a histogram's buckets and its sum
// may be a tick apart (its count is always the sum of the buckets written).
//
// Counters live here, not in the worlds, so that they never go down when a
// world is destroyed; tick figures are kept per tick rate (label
// tick_rate_hz), which the world config bounds to 1..240 values.

#ifndef ATOLL_SERVER_SERVER_METRICS_H_
#define ATOLL_SERVER_SERVER_METRICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "metrics_text.h"

namespace atl::server {

class BatchService;
class WorldRegistry;

/// A histogram of durations that any thread observes without a lock.
class AtomicHistogram {
 public:
  /// `upper_bounds` in seconds, ascending.
  explicit AtomicHistogram(std::vector<double> upper_bounds);

  void Observe(absl::Duration d);
  /// The buckets and sum now (seconds).
  HistogramData Read() const;

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;  // bounds_.size() + 1
  std::atomic<uint64_t> sum_ns_{0};
};

/// The tick figures of every world stepped at one tick rate.
struct TickRateMetrics {
  explicit TickRateMetrics(uint32_t hz);

  const uint32_t tick_rate_hz;
  /// Ticks stepped.
  std::atomic<uint64_t> ticks{0};
  /// Ticks started more than one period late (WorldInfo.late_ticks).
  std::atomic<uint64_t> late_ticks{0};
  /// Ticks the scheduler gave up (WorldInfo.skipped_ticks).
  std::atomic<uint64_t> skipped_ticks{0};
  /// Ticks stepped with sends reduced (WorldInfo.reduced_send_ticks).
  std::atomic<uint64_t> reduced_send_ticks{0};
  /// How late each tick started.
  AtomicHistogram lateness;
  /// How long the engine took to step a world one tick.
  AtomicHistogram step_time;
};

/// The server's counters. Thread-safe; outlives everything that counts.
class ServerMetrics {
 public:
  ServerMetrics();

  /// The figures of tick rate `hz`, made on first use; the pointer stays
  /// valid as long as this. Takes a mutex: call it when a world is made,
  /// not per tick.
  TickRateMetrics* ForTickRate(uint32_t hz);

  void CountCollapse() { outbox_collapses_.fetch_add(1, kRelaxed); }
  /// A message of `bytes` (its protobuf size) started to a session.
  void CountSent(uint64_t bytes) {
    sent_messages_.fetch_add(1, kRelaxed);
    sent_bytes_.fetch_add(bytes, kRelaxed);
  }
  /// An input a session sent and the world refused with `code`.
  void CountRefusedInput(absl::StatusCode code);
  AtomicHistogram* recording_sync_latency() { return &sync_latency_; }

  /// Writes every family: the counters here, the worlds' gauges from
  /// `registry` and the batch jobs of `batches` (either may be null).
  void Collect(const WorldRegistry* registry, const BatchService* batches,
               MetricsTextWriter* out) const;

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
  // absl::StatusCode values 0..16.
  static constexpr int kStatusCodes = 17;

  mutable absl::Mutex mu_;
  std::map<uint32_t, std::unique_ptr<TickRateMetrics>> rates_ ABSL_GUARDED_BY(mu_);
  std::atomic<uint64_t> outbox_collapses_{0};
  std::atomic<uint64_t> sent_messages_{0};
  std::atomic<uint64_t> sent_bytes_{0};
  std::array<std::atomic<uint64_t>, kStatusCodes> refused_inputs_{};
  AtomicHistogram sync_latency_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SERVER_METRICS_H_
