// atl.v1.SessionService: player streams (Connect) and spectator streams
// (Watch). Each stream is a reactor with an Outbox; it reads one message at
// a time and writes only from OnWriteDone.

#ifndef ATOLL_SERVER_SESSION_SERVICE_H_
#define ATOLL_SERVER_SESSION_SERVICE_H_

#include <map>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "atoll/v1/session.grpc.pb.h"
#include "outbox.h"
#include "server_metrics.h"
#include "world_registry.h"

namespace atl::server {

class SessionService final : public v1::SessionService::CallbackService {
 public:
  /// Streams hand the writes their producers make due to `dispatcher`
  /// (outbox.h); both must outlive the service's streams, as must
  /// `metrics` (where streams count messages sent and inputs refused; null:
  /// nowhere).
  SessionService(WorldRegistry* registry, SendDispatcher* dispatcher,
                 ServerMetrics* metrics = nullptr)
      : registry_(registry), dispatcher_(dispatcher), metrics_(metrics) {}

  grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* Connect(
      grpc::CallbackServerContext* context) override;
  grpc::ServerWriteReactor<v1::ServerMessage>* Watch(
      grpc::CallbackServerContext* context, const v1::WatchRequest* request) override;

  /// Ends every stream still open with UNAVAILABLE (after its queued
  /// messages) — also those not in any world yet, such as a Connect that
  /// has not sent its Join, which WorldRegistry::Shutdown cannot reach —
  /// and refuses new ones. Without it gRPC's Shutdown waits out the whole
  /// grace period for them.
  void Shutdown();
  /// Waits until every stream has ended, or `deadline`; true when none is
  /// left.
  bool WaitForStreams(absl::Time deadline);

  /// Stream bookkeeping for the reactors.
  bool Register(const std::shared_ptr<Outbox>& outbox);
  void Unregister(const Outbox* outbox);
  SendDispatcher* dispatcher() const { return dispatcher_; }
  ServerMetrics* metrics() const { return metrics_; }

 private:
  WorldRegistry* const registry_;
  SendDispatcher* const dispatcher_;
  ServerMetrics* const metrics_;
  absl::Mutex mu_;
  std::map<const Outbox*, std::weak_ptr<Outbox>> streams_ ABSL_GUARDED_BY(mu_);
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace atl::server

#endif  // ATOLL_SERVER_SESSION_SERVICE_H_
