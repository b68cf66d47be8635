#include "batch_service.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "atoll/server/simulation.h"
#include "atoll/snapshot.h"
#include "outbox.h"
#include "status_util.h"

namespace atl::server {
namespace {

constexpr uint32_t kMaxSteps = 100000;

using BatchOutbox = StreamOutbox<v1::BatchUpdate>;

// Runs the batch; pushes into `out`. Returns the final status.
absl::Status RunBatch(const v1::RunBatchRequest& request, uint32_t max_bodies,
                      const std::atomic<bool>& cancelled, BatchOutbox* out) {
  if (request.steps() == 0 || request.steps() > kMaxSteps) {
    return absl::InvalidArgumentError(
        absl::StrCat("steps: must be 1..", kMaxSteps, ", got ", request.steps()));
  }
  v1::WorldConfig requested;
  requested.set_tick_rate_hz(request.tick_rate_hz());
  requested.set_broad_phase(request.broad_phase());
  requested.set_player_slots(64);  // owners in the spec are accepted, unused
  absl::StatusOr<v1::WorldConfig> config = NormalizeWorldConfig(requested, max_bodies);
  if (!config.ok()) {
    // Report the request's field names, not the world config's.
    std::string message(config.status().message());
    if (message.rfind("config.", 0) == 0) message = message.substr(7);
    return absl::Status(config.status().code(), message);
  }
  const absl::Time build_start = absl::Now();
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(request.scene(), *config);
  if (!sim.ok()) return sim.status();
  const absl::Duration build = absl::Now() - build_start;

  const uint32_t steps = request.steps();
  const uint32_t every =
      request.progress_every() != 0 ? std::max(request.progress_every(), steps / 1000)
                                    : std::max<uint32_t>(1, steps / 10);
  v1::BatchUpdate result_update;
  v1::BatchResult* result = result_update.mutable_result();
  result->set_initial_hash((*sim)->hash());
  absl::Duration total;
  absl::Duration worst;
  for (uint32_t i = 1; i <= steps; ++i) {
    if (cancelled.load(std::memory_order_relaxed)) return absl::CancelledError("cancelled");
    const absl::Time start = absl::Now();
    if (absl::Status s = (*sim)->Step({}, nullptr); !s.ok()) return s;
    const absl::Duration took = absl::Now() - start;
    total += took;
    worst = std::max(worst, took);
    result->add_hash_chain((*sim)->hash());
    if (i % every == 0 && i != steps) {
      v1::BatchUpdate progress;
      progress.mutable_progress()->set_steps_done(i);
      progress.mutable_progress()->set_steps_total(steps);
      progress.mutable_progress()->set_state_hash((*sim)->hash());
      out->Push(std::move(progress), /*force=*/true);
    }
  }
  result->set_final_hash((*sim)->hash());
  result->mutable_timings()->set_total_us(static_cast<uint64_t>(absl::ToInt64Microseconds(total)));
  result->mutable_timings()->set_mean_step_us(
      static_cast<uint64_t>(absl::ToInt64Microseconds(total / steps)));
  result->mutable_timings()->set_max_step_us(
      static_cast<uint64_t>(absl::ToInt64Microseconds(worst)));
  result->mutable_timings()->set_build_us(static_cast<uint64_t>(absl::ToInt64Microseconds(build)));
  if (request.include_final_snapshot()) result->set_final_snapshot(SaveSnapshot((*sim)->world()));
  result->set_body_count(static_cast<uint32_t>((*sim)->world().GetCounters().bodies));
  out->Push(std::move(result_update), /*force=*/true);
  return absl::OkStatus();
}

class BatchReactor final : public grpc::ServerWriteReactor<v1::BatchUpdate>,
                           public MessageSink<v1::BatchUpdate> {
 public:
  BatchReactor(WorkerPool* pool, uint32_t max_bodies, const v1::RunBatchRequest* request,
               std::shared_ptr<BatchService::Counters> counters)
      : state_(std::make_shared<State>(this)) {
    std::shared_ptr<State> state = state_;
    const bool queued = pool->TrySchedule([state, request, max_bodies, counters] {
      // `request` lives until Finish, which only this job triggers.
      counters->running.fetch_add(1, std::memory_order_relaxed);
      const absl::Status status = RunBatch(*request, max_bodies, state->cancelled, &state->outbox);
      counters->running.fetch_sub(1, std::memory_order_relaxed);
      counters->finished.fetch_add(1, std::memory_order_relaxed);
      state->outbox.CloseAfterDrain(ToGrpcStatus(status));
    });
    if (!queued) {
      state_->outbox.Close(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                        "too many batches and replays queued; try again later"));
    }
  }

  void OnWriteDone(bool ok) override { state_->outbox.OnWriteDone(ok); }
  void OnCancel() override { state_->cancelled.store(true); }
  void OnDone() override { delete this; }
  void StartMessageWrite(const v1::BatchUpdate* message) override { StartWrite(message); }
  void FinishCall(const grpc::Status& status) override { Finish(status); }

 private:
  struct State {
    explicit State(MessageSink<v1::BatchUpdate>* sink) : outbox(sink, 1) {}
    std::atomic<bool> cancelled{false};
    BatchOutbox outbox;
  };
  std::shared_ptr<State> state_;
};

}  // namespace

grpc::ServerWriteReactor<v1::BatchUpdate>* BatchService::Run(grpc::CallbackServerContext* /*context*/,
                                                             const v1::RunBatchRequest* request) {
  return new BatchReactor(pool_, max_bodies_, request, counters_);
}

}  // namespace atl::server
