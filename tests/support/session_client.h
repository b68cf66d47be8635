// Test support: a player or spectator stream that collects every server
// message on a reader thread, so tests can wait for ticks and inspect what
// arrived.

#ifndef ATOLL_TESTS_SUPPORT_SESSION_CLIENT_H_
#define ATOLL_TESTS_SUPPORT_SESSION_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "atoll/v1/session.grpc.pb.h"

namespace atl::testing {

class SessionClient {
 public:
  /// Opens SessionService.Connect and sends `join`.
  static std::unique_ptr<SessionClient> Connect(const std::string& address, const v1::Join& join);
  /// Opens SessionService.Watch.
  static std::unique_ptr<SessionClient> Watch(const std::string& address,
                                              const v1::WatchRequest& request);
  ~SessionClient();

  /// Sends a client message (players only); false when the stream broke.
  bool Send(const v1::ClientMessage& message);

  /// Waits until `done(messages so far)` holds or `timeout` passes.
  bool WaitFor(const std::function<bool(const std::vector<v1::ServerMessage>&)>& done,
               absl::Duration timeout);
  /// Waits for a Frame of tick >= `tick`.
  bool WaitForTick(uint64_t tick, absl::Duration timeout);
  /// Waits for the stream to end; returns its status.
  grpc::Status WaitForEnd(absl::Duration timeout);

  std::vector<v1::ServerMessage> messages() const;
  /// The newest frame tick received (0 when none).
  uint64_t last_tick() const;

  /// Half-closes (players) and finishes the call.
  grpc::Status Close();

 private:
  SessionClient() = default;
  void ReadLoop();

  std::unique_ptr<v1::SessionService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ClientMessage, v1::ServerMessage>> bidi_;
  std::unique_ptr<grpc::ClientReader<v1::ServerMessage>> reader_;
  std::thread thread_;
  mutable absl::Mutex mu_;
  std::vector<v1::ServerMessage> messages_ ABSL_GUARDED_BY(mu_);
  uint64_t last_tick_ ABSL_GUARDED_BY(mu_) = 0;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
  bool writes_done_ = false;
};

}  // namespace atl::testing

#endif  // ATOLL_TESTS_SUPPORT_SESSION_CLIENT_H_
