#include "atoll/server/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "info_service.h"

namespace atl::server {
namespace {

// Splits "HOST:PORT" (HOST may be a bracketed IPv6 literal).
absl::Status ParseListenAddress(const std::string& listen, std::string* host,
                                int* port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen: want HOST:PORT, got '", listen, "'"));
  }
  *host = listen.substr(0, colon);
  if (!absl::SimpleAtoi(listen.substr(colon + 1), port) || *port < 0 ||
      *port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen: port must be 0..65535, got '",
                     listen.substr(colon + 1), "'"));
  }
  return absl::OkStatus();
}

class ServerImpl final : public Server {
 public:
  ServerImpl() : info_(absl::Now()) {}

  absl::Status Start(const ServerOptions& options) {
    std::string host;
    int port = 0;
    if (absl::Status s = ParseListenAddress(options.listen, &host, &port);
        !s.ok()) {
      return s;
    }
    // Both must be switched on before the builder is made: the builder reads
    // them when it is constructed.
    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();

    grpc::ServerBuilder builder;
    // gRPC turns on SO_REUSEPORT by default, which lets a second server bind
    // the same port and silently steal half the connections.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    int bound_port = 0;
    builder.AddListeningPort(options.listen, grpc::InsecureServerCredentials(),
                             &bound_port);
    builder.RegisterService(&info_);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || bound_port == 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot listen on ", options.listen));
    }
    address_ = absl::StrCat(host, ":", bound_port);
    return absl::OkStatus();
  }

  ~ServerImpl() override { Shutdown(absl::ZeroDuration()); }

  const std::string& address() const override { return address_; }

  void Shutdown(absl::Duration grace) override {
    {
      absl::MutexLock lock(&mu_);
      if (shut_down_ || server_ == nullptr) return;
      shut_down_ = true;
    }
    server_->GetHealthCheckService()->Shutdown();
    server_->Shutdown(std::chrono::system_clock::now() +
                      absl::ToChronoMilliseconds(grace));
  }

  void Wait() override {
    if (server_ != nullptr) server_->Wait();
  }

 private:
  InfoService info_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Create(
    const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>();
  if (absl::Status s = server->Start(options); !s.ok()) return s;
  return server;
}

}  // namespace atl::server
