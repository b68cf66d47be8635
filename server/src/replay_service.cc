#include "replay_service.h"

#include "replay.h"
#include "status_util.h"

namespace atl::server {

grpc::ServerUnaryReactor* ReplayService::Verify(grpc::CallbackServerContext* context,
                                                const v1::VerifyRequest* request,
                                                v1::VerifyResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  // request and response stay valid until Finish.
  const bool queued = pool_->TrySchedule([reactor, request, response] {
    absl::StatusOr<v1::VerifyResponse> result = VerifyRecording(request->recording());
    if (result.ok()) *response = *std::move(result);
    reactor->Finish(ToGrpcStatus(result.status()));
  });
  if (!queued) {
    reactor->Finish(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                 "too many replays and batches queued; try again later"));
  }
  return reactor;
}

}  // namespace atl::server
