// atoll-server — the HTTP listener of --metrics_listen: GET /metrics in the
// Prometheus text format (metrics_text.h), on a port of its own, apart from
// the web viewer's (--http_listen).
//
// Only GET /metrics is served: any other path is 404, any other method on
// /metrics 405, a request body 413. A response larger than
// kMaxMetricsResponseBytes is refused (500) rather than sent. Two threads
// serve, below the tick threads' priority (started after the niceness
// drop, see ServerOptions::io_niceness); a scrape reads atomics and takes
// no world's mutex (server_metrics.h), so it never delays a tick.

#ifndef ATOLL_SERVER_METRICS_HTTP_H_
#define ATOLL_SERVER_METRICS_HTTP_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace atl::server {

/// The largest /metrics response served.
inline constexpr size_t kMaxMetricsResponseBytes = 4 << 20;

class MetricsHttpServer {
 public:
  /// Binds `listen` ("HOST:PORT", port 0 picks a free one) and serves
  /// `render()` (called once per scrape, from the server's threads; it must
  /// stay callable until Stop) at /metrics. InvalidArgument naming
  /// metrics_listen for a malformed address, Unavailable when it cannot be
  /// bound.
  static absl::StatusOr<std::unique_ptr<MetricsHttpServer>> Start(
      const std::string& listen, std::function<std::string()> render);
  /// Stops (see Stop).
  virtual ~MetricsHttpServer() = default;

  /// "HOST:PORT" actually bound.
  virtual const std::string& address() const = 0;
  /// "http://HOST:PORT/metrics".
  virtual std::string url() const = 0;
  /// Stops listening and joins the threads. Idempotent.
  virtual void Stop() = 0;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_METRICS_HTTP_H_
