// atl.v1.ReplayService: verification runs on the worker pool, not on a
// gRPC thread.

#ifndef ATOLL_SERVER_REPLAY_SERVICE_H_
#define ATOLL_SERVER_REPLAY_SERVICE_H_

#include "atoll/v1/replay.grpc.pb.h"
#include "worker_pool.h"

namespace atl::server {

class ReplayService final : public v1::ReplayService::CallbackService {
 public:
  explicit ReplayService(WorkerPool* pool) : pool_(pool) {}

  grpc::ServerUnaryReactor* Verify(grpc::CallbackServerContext* context,
                                   const v1::VerifyRequest* request,
                                   v1::VerifyResponse* response) override;

 private:
  WorkerPool* const pool_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_REPLAY_SERVICE_H_
