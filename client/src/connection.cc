#include "atoll/client/connection.h"

#include <grpcpp/grpcpp.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "atoll/v1/info.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace atl::client {
namespace {

std::chrono::system_clock::time_point DeadlineAfter(absl::Duration timeout) {
  return std::chrono::system_clock::now() +
         absl::ToChronoMilliseconds(timeout);
}

}  // namespace

const char* HealthStatusName(HealthStatus status) {
  switch (status) {
    case HealthStatus::kServing:
      return "SERVING";
    case HealthStatus::kNotServing:
      return "NOT_SERVING";
    case HealthStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
    case HealthStatus::kUnknown:
      break;
  }
  return "UNKNOWN";
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address) {
  // Snapshots of large worlds and recordings exceed gRPC's default 4 MiB
  // receive limit; the server bounds what it sends.
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

absl::Status FromGrpcStatus(const grpc::Status& status,
                            const std::string& context) {
  if (status.ok()) return absl::OkStatus();
  // grpc::StatusCode and absl::StatusCode share their numbering (both follow
  // google.rpc.Code).
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(context, ": ", status.error_message()));
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ChannelOptions& options) {
  grpc::ChannelArguments args;
  if (options.own_connection) args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  if (options.tls_ca_path.empty()) {
    return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  }
  std::ifstream in(options.tls_ca_path, std::ios::binary);
  std::stringstream pem;
  pem << in.rdbuf();
  if (!in || pem.str().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls_ca: cannot read '", options.tls_ca_path, "'"));
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = pem.str();
  if (!options.tls_server_name.empty()) args.SetSslTargetNameOverride(options.tls_server_name);
  return grpc::CreateCustomChannel(address, grpc::SslCredentials(ssl), args);
}

absl::StatusOr<HealthStatus> CheckHealth(const std::string& address,
                                         const std::string& service,
                                         absl::Duration timeout) {
  return CheckHealth(address, ChannelOptions(), service, timeout);
}

absl::StatusOr<HealthStatus> CheckHealth(const std::string& address,
                                         const ChannelOptions& options,
                                         const std::string& service, absl::Duration timeout) {
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = MakeChannel(address, options);
  if (!channel.ok()) return channel.status();
  auto stub = grpc::health::v1::Health::NewStub(*channel);
  grpc::ClientContext context;
  context.set_deadline(DeadlineAfter(timeout));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) {
    return HealthStatus::kServiceUnknown;
  }
  if (!status.ok()) return FromGrpcStatus(status, address);
  switch (response.status()) {
    case grpc::health::v1::HealthCheckResponse::SERVING:
      return HealthStatus::kServing;
    case grpc::health::v1::HealthCheckResponse::NOT_SERVING:
      return HealthStatus::kNotServing;
    case grpc::health::v1::HealthCheckResponse::SERVICE_UNKNOWN:
      return HealthStatus::kServiceUnknown;
    default:
      return HealthStatus::kUnknown;
  }
}

absl::StatusOr<atl::v1::ServerInfo> GetServerInfo(const std::string& address,
                                                    absl::Duration timeout) {
  auto stub = atl::v1::InfoService::NewStub(MakeChannel(address));
  grpc::ClientContext context;
  context.set_deadline(DeadlineAfter(timeout));
  atl::v1::ServerInfo info;
  const grpc::Status status =
      stub->GetServerInfo(&context, atl::v1::GetServerInfoRequest(), &info);
  if (!status.ok()) return FromGrpcStatus(status, address);
  return info;
}

}  // namespace atl::client
