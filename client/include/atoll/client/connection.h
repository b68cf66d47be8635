// atoll client — connecting to an atoll-server.

#ifndef ATOLL_CLIENT_CONNECTION_H_
#define ATOLL_CLIENT_CONNECTION_H_

#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "atoll/v1/info.pb.h"

namespace atl::client {

/// Serving state of a server as reported by grpc.health.v1.Health.
enum class HealthStatus { kUnknown, kServing, kNotServing, kServiceUnknown };

/// "SERVING", "NOT_SERVING", ...: the names grpc.health.v1 uses.
const char* HealthStatusName(HealthStatus status);

/// A channel to `address` ("HOST:PORT"), plaintext, without a limit on the
/// size of received messages (snapshots of large worlds exceed gRPC's 4 MiB
/// default). Never fails; connection errors surface on the first call.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& address);

/// How to reach a server.
struct ChannelOptions {
  /// PEM file of the certificate authority to trust (for a self-signed
  /// server, its certificate): the channel speaks TLS. Empty: plaintext.
  std::string tls_ca_path;
  /// The name the server's certificate must carry; empty: the host part of
  /// the address.
  std::string tls_server_name;
  /// True: this channel opens its own connection instead of sharing one
  /// with other channels to the same address (load tests, isolation).
  bool own_connection = false;
};

/// A channel to `address` with `options`. InvalidArgument naming
/// tls_ca when the CA file cannot be read; connection and handshake errors
/// surface on the first call.
absl::StatusOr<std::shared_ptr<grpc::Channel>> MakeChannel(const std::string& address,
                                                           const ChannelOptions& options);

/// CheckHealth over a channel made with `options` (TLS or not). Also
/// InvalidArgument when the options are bad.
absl::StatusOr<HealthStatus> CheckHealth(const std::string& address,
                                         const ChannelOptions& options,
                                         const std::string& service, absl::Duration timeout);

/// Asks the server's standard health service about `service` ("" means the
/// whole server). Returns Unavailable / DeadlineExceeded, naming the address,
/// when the server cannot be reached within `timeout`.
absl::StatusOr<HealthStatus> CheckHealth(const std::string& address,
                                         const std::string& service,
                                         absl::Duration timeout);

/// Calls atoll.v1.InfoService.GetServerInfo. Errors as CheckHealth.
absl::StatusOr<atl::v1::ServerInfo> GetServerInfo(const std::string& address,
                                                    absl::Duration timeout);

/// The absl::Status equivalent of a gRPC status, with `context` (e.g. the
/// address called) prefixed to the message.
absl::Status FromGrpcStatus(const grpc::Status& status,
                            const std::string& context);

}  // namespace atl::client

#endif  // ATOLL_CLIENT_CONNECTION_H_
