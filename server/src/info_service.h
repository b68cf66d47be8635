// atoll.v1.InfoService: versions and uptime of this server.

#ifndef ATOLL_SERVER_INFO_SERVICE_H_
#define ATOLL_SERVER_INFO_SERVICE_H_

#include "absl/time/time.h"
#include "atoll/v1/info.grpc.pb.h"

namespace atl::server {

class InfoService final : public atl::v1::InfoService::CallbackService {
 public:
  explicit InfoService(absl::Time started) : started_(started) {}

  grpc::ServerUnaryReactor* GetServerInfo(
      grpc::CallbackServerContext* context,
      const atl::v1::GetServerInfoRequest* request,
      atl::v1::ServerInfo* response) override;

 private:
  const absl::Time started_;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_INFO_SERVICE_H_
