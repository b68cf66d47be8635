#include "server_metrics.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "batch_service.h"
#include "tick_scheduler.h"
#include "world_registry.h"

namespace atl::server {
namespace {

// Lateness: a tick is late at all past 0.1 ms and misses its period (60 Hz:
// 16.7 ms) past the upper buckets.
const std::vector<double>& LatenessBounds() {
  static const auto* bounds = new std::vector<double>{0.0001, 0.00025, 0.0005, 0.001, 0.0025,
                                                      0.005,  0.01,    0.025,  0.05,  0.1};
  return *bounds;
}

// Steps of small worlds take tens of microseconds, large ones milliseconds.
const std::vector<double>& StepBounds() {
  static const auto* bounds = new std::vector<double>{
      0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1};
  return *bounds;
}

// fdatasync: a fraction of a millisecond on an SSD to seconds on a busy
// disk.
const std::vector<double>& SyncBounds() {
  static const auto* bounds = new std::vector<double>{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1,    2.5};
  return *bounds;
}

}  // namespace

AtomicHistogram::AtomicHistogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(new std::atomic<uint64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0);
}

void AtomicHistogram::Observe(absl::Duration d) {
  const double seconds = std::max(0.0, absl::ToDoubleSeconds(d));
  // Bounds are inclusive ("le"): the first bound not below the value.
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), seconds) - bounds_.begin());
  counts_[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_ns_.fetch_add(static_cast<uint64_t>(std::max<int64_t>(0, absl::ToInt64Nanoseconds(d))),
                    std::memory_order_relaxed);
}

HistogramData AtomicHistogram::Read() const {
  HistogramData data;
  data.upper_bounds = bounds_;
  data.counts.resize(bounds_.size() + 1);
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    data.counts[i] = counts_[i].load(std::memory_order_relaxed);
  }
  data.sum = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return data;
}

TickRateMetrics::TickRateMetrics(uint32_t hz)
    : tick_rate_hz(hz), lateness(LatenessBounds()), step_time(StepBounds()) {}

ServerMetrics::ServerMetrics() : sync_latency_(SyncBounds()) {}

TickRateMetrics* ServerMetrics::ForTickRate(uint32_t hz) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<TickRateMetrics>& rate = rates_[hz];
  if (rate == nullptr) rate = std::make_unique<TickRateMetrics>(hz);
  return rate.get();
}

void ServerMetrics::CountRefusedInput(absl::StatusCode code) {
  const int index = static_cast<int>(code);
  // Codes outside absl's canonical space are counted as UNKNOWN.
  refused_inputs_[index >= 0 && index < kStatusCodes ? index : 2].fetch_add(1, kRelaxed);
}

void ServerMetrics::Collect(const WorldRegistry* registry, const BatchService* batches,
                            MetricsTextWriter* out) const {
  // The registry's mutex for copying its list; the worlds' atomics after.
  std::vector<std::shared_ptr<WorldHost>> worlds;
  if (registry != nullptr) worlds = registry->List();
  uint64_t bodies = 0, awake = 0, players = 0, spectators = 0;
  for (const std::shared_ptr<WorldHost>& w : worlds) {
    const WorldGauges g = w->gauges();
    bodies += g.bodies;
    awake += g.awake_bodies;
    players += g.players;
    spectators += g.spectators;
  }
  out->Family("atoll_worlds", "Worlds this server hosts.", MetricType::kGauge);
  out->Sample({}, static_cast<double>(worlds.size()));
  out->Family("atoll_bodies",
              "Bodies in every world (published by each world about once a "
              "second of its ticks).",
              MetricType::kGauge);
  out->Sample({}, static_cast<double>(bodies));
  out->Family("atoll_awake_bodies",
              "Awake non-static bodies in every world (published like "
              "atoll_bodies).",
              MetricType::kGauge);
  out->Sample({}, static_cast<double>(awake));
  out->Family("atoll_sessions",
              "Sessions watching a world: players and spectators (the web "
              "viewer's included).",
              MetricType::kGauge);
  out->Sample({{"kind", "player"}}, static_cast<double>(players));
  out->Sample({{"kind", "spectator"}}, static_cast<double>(spectators));

  std::vector<const TickRateMetrics*> rates;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [hz, rate] : rates_) rates.push_back(rate.get());
  }
  auto label = [](const TickRateMetrics* r) -> MetricLabels {
    return {{"tick_rate_hz", absl::StrCat(r->tick_rate_hz)}};
  };
  auto counter = [&](const char* name, const char* help,
                     const std::atomic<uint64_t> TickRateMetrics::*field) {
    out->Family(name, help, MetricType::kCounter);
    for (const TickRateMetrics* r : rates) {
      out->Sample(label(r), static_cast<double>((r->*field).load(kRelaxed)));
    }
  };
  counter("atoll_ticks_total", "Ticks stepped, by the worlds' tick rate.", &TickRateMetrics::ticks);
  counter("atoll_late_ticks_total",
          "Ticks started more than one period late (missed), by tick rate.",
          &TickRateMetrics::late_ticks);
  counter("atoll_skipped_ticks_total",
          "Ticks the scheduler gave up on a world more than 4 periods "
          "behind, by tick rate.",
          &TickRateMetrics::skipped_ticks);
  counter("atoll_reduced_send_ticks_total",
          "Ticks stepped while a world sent less (fewer snapshots, early "
          "collapses) because its ticks started late, by tick rate.",
          &TickRateMetrics::reduced_send_ticks);
  out->Family("atoll_tick_pauses_total",
              absl::StrCat("Times a SCHED_FIFO tick thread, busy for ",
                           absl::FormatDuration(TickScheduler::kMaxBusy),
                           " without waiting for a tick (so its ticks were late "
                           "already), paused for ",
                           absl::FormatDuration(TickScheduler::kPause),
                           " to let the rest of the machine run."),
              MetricType::kCounter);
  out->Sample({}, registry != nullptr ? static_cast<double>(registry->TickPauses()) : 0.0);
  out->Family("atoll_tick_lateness_seconds",
              "How late each tick started after its due time, by tick rate.",
              MetricType::kHistogram);
  for (const TickRateMetrics* r : rates) {
    out->Histogram(label(r), r->lateness.Read());
  }
  out->Family("atoll_step_duration_seconds",
              "Time the engine took to step a world one tick, by tick rate.",
              MetricType::kHistogram);
  for (const TickRateMetrics* r : rates) {
    out->Histogram(label(r), r->step_time.Read());
  }

  out->Family("atoll_outbox_collapses_total",
              "Times a session that did not keep up had its queue replaced "
              "by a snapshot.",
              MetricType::kCounter);
  out->Sample({}, static_cast<double>(outbox_collapses_.load(kRelaxed)));
  out->Family("atoll_session_sent_messages_total", "Messages started to session streams.",
              MetricType::kCounter);
  out->Sample({}, static_cast<double>(sent_messages_.load(kRelaxed)));
  out->Family("atoll_session_sent_bytes_total",
              "Bytes of the messages started to session streams (protobuf "
              "size, before gRPC framing and compression).",
              MetricType::kCounter);
  out->Sample({}, static_cast<double>(sent_bytes_.load(kRelaxed)));
  out->Family("atoll_refused_inputs_total",
              "Inputs from sessions the server refused, by status code.", MetricType::kCounter);
  for (int code = 0; code < kStatusCodes; ++code) {
    const uint64_t n = refused_inputs_[code].load(kRelaxed);
    if (n == 0) continue;
    out->Sample({{"code", absl::StatusCodeToString(static_cast<absl::StatusCode>(code))}},
                static_cast<double>(n));
  }
  out->Family("atoll_recording_sync_latency_seconds",
              "Time from a recording's sync request to its fdatasync "
              "finishing (only with --data_dir).",
              MetricType::kHistogram);
  out->Histogram({}, sync_latency_.Read());

  out->Family("atoll_batch_jobs_running", "BatchService runs executing now.", MetricType::kGauge);
  out->Sample({}, batches != nullptr ? static_cast<double>(batches->running()) : 0.0);
  out->Family("atoll_batch_jobs_finished_total",
              "BatchService runs that ended (done, failed or cancelled).", MetricType::kCounter);
  out->Sample({}, batches != nullptr ? static_cast<double>(batches->finished()) : 0.0);
}

}  // namespace atl::server
