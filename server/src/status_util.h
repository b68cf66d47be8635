// atoll-server — the one place absl::Status becomes a grpc::Status.

#ifndef ATOLL_SERVER_STATUS_UTIL_H_
#define ATOLL_SERVER_STATUS_UTIL_H_

#include <grpcpp/support/status.h>

#include <string>

#include "absl/status/status.h"

namespace atl::server {

/// Same code (the two enums share google.rpc.Code values), same message.
inline grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace atl::server

#endif  // ATOLL_SERVER_STATUS_UTIL_H_
