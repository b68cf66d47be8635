#include "info_service.h"

#include "atoll/version.h"

namespace atl::server {

grpc::ServerUnaryReactor* InfoService::GetServerInfo(
    grpc::CallbackServerContext* context,
    const atl::v1::GetServerInfoRequest* /*request*/,
    atl::v1::ServerInfo* response) {
  response->set_server_version(ATOLL_SERVER_VERSION);
  response->set_engine_version(EngineVersion());
  response->set_started_unix_ms(absl::ToUnixMillis(started_));
  response->set_uptime_ms(absl::ToInt64Milliseconds(absl::Now() - started_));
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

}  // namespace atl::server
