// atl.v1.BatchService: headless runs on the worker pool. The worker pushes
// progress and the result into the stream's outbox; the reactor writes them
// one at a time. A cancelled call stops the run at its next step.

#ifndef ATOLL_SERVER_BATCH_SERVICE_H_
#define ATOLL_SERVER_BATCH_SERVICE_H_

#include <atomic>
#include <cstdint>
#include <memory>

#include "atoll/v1/batch.grpc.pb.h"
#include "worker_pool.h"

namespace atl::server {

class BatchService final : public v1::BatchService::CallbackService {
 public:
  BatchService(WorkerPool* pool, uint32_t max_bodies) : pool_(pool), max_bodies_(max_bodies) {}

  grpc::ServerWriteReactor<v1::BatchUpdate>* Run(grpc::CallbackServerContext* context,
                                                 const v1::RunBatchRequest* request) override;

  /// Runs executing now, and runs ended so far (for --metrics_listen).
  int64_t running() const { return counters_->running.load(std::memory_order_relaxed); }
  uint64_t finished() const { return counters_->finished.load(std::memory_order_relaxed); }

  /// Shared with the jobs, which may end after the service.
  struct Counters {
    std::atomic<int64_t> running{0};
    std::atomic<uint64_t> finished{0};
  };

 private:
  WorkerPool* const pool_;
  const uint32_t max_bodies_;
  const std::shared_ptr<Counters> counters_ = std::make_shared<Counters>();
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_BATCH_SERVICE_H_
