// atoll-server — the gRPC server that hosts Atoll worlds.

#ifndef ATOLL_SERVER_SERVER_H_
#define ATOLL_SERVER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace atl::server {

/// How to start a server.
struct ServerOptions {
  /// "HOST:PORT" to listen on; port 0 asks the kernel for a free port.
  std::string listen = "127.0.0.1:50051";
};

/// A running gRPC server with Atoll's services, standard health checking
/// (grpc.health.v1.Health, reporting SERVING while up) and server
/// reflection. Create() starts it; the destructor shuts it down.
class Server {
 public:
  /// Starts serving on options.listen. Returns InvalidArgument for a
  /// malformed address and Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<Server>> Create(
      const ServerOptions& options);

  virtual ~Server() = default;

  /// The address actually bound, with the real port when 0 was asked for.
  virtual const std::string& address() const = 0;

  /// Marks every service NOT_SERVING, lets in-flight calls finish for up to
  /// `grace`, then cancels the rest. Safe to call more than once.
  virtual void Shutdown(absl::Duration grace) = 0;

  /// Blocks until Shutdown() has completed.
  virtual void Wait() = 0;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SERVER_H_
