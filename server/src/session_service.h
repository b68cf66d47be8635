// atl.v1.SessionService: player streams (Connect) and spectator streams
// (Watch). Each stream is a reactor with an Outbox; it reads one message at
// a time and writes only from OnWriteDone.

#ifndef ATOLL_SERVER_SESSION_SERVICE_H_
#define ATOLL_SERVER_SESSION_SERVICE_H_

#include "atoll/v1/session.grpc.pb.h"
#include "world_registry.h"

namespace atl::server {

class SessionService final : public v1::SessionService::CallbackService {
 public:
  explicit SessionService(WorldRegistry* registry) : registry_(registry) {}

  grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* Connect(
      grpc::CallbackServerContext* context) override;
  grpc::ServerWriteReactor<v1::ServerMessage>* Watch(
      grpc::CallbackServerContext* context, const v1::WatchRequest* request) override;

 private:
  WorldRegistry* const registry_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SESSION_SERVICE_H_
