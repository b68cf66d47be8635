// atoll client — a player's or spectator's live stream on a world.

#ifndef ATOLL_CLIENT_SESSION_H_
#define ATOLL_CLIENT_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "atoll/v1/session.pb.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace atl::client {

/// Where and how to join.
struct SessionOptions {
  /// "HOST:PORT" of the atoll-server.
  std::string address;
  std::string world_id;
  /// Player slot 1..player_slots, with its `token` from CreateWorld; 0
  /// watches read-only (SessionService.Watch).
  uint32_t slot = 0;
  std::string token;
  /// Start from the newest checkpoint at or before this tick and receive
  /// every Frame after it (Join.resume_from_tick / WatchRequest.from_tick).
  std::optional<uint64_t> resume_from_tick;
  /// Snapshot rate in ticks; 0 uses the world's.
  uint32_t snapshot_every_ticks = 0;
  /// How long Connect waits for the server's Joined.
  absl::Duration connect_timeout = absl::Seconds(5);
  /// Injected one-way latency, for tests and bots: every server message is
  /// delivered, and every client message sent, this much later (a timer
  /// queue in each direction), so the round trip grows by twice this.
  absl::Duration injected_latency = absl::ZeroDuration();
};

/// A SessionService.Connect (player) or .Watch (spectator) stream. A reader
/// thread collects server messages, a writer thread sends client messages;
/// the methods are safe to call from one owner thread.
class Session {
 public:
  /// Opens the stream, sends the Join and waits for Joined. A server the
  /// world moved away from answers with a Redirect, which is followed
  /// (Follow). Fails with the server's status, prefixed by the address
  /// ("127.0.0.1:5: join.token: wrong token for slot 1"): Unavailable when
  /// the server cannot be reached, NotFound for an unknown world,
  /// PermissionDenied for a bad token; DeadlineExceeded after
  /// options.connect_timeout.
  static absl::StatusOr<std::unique_ptr<Session>> Connect(const SessionOptions& options);

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// The server's Joined of the current stream (config, tick at join).
  const v1::Joined& joined() const { return joined_; }
  const SessionOptions& options() const { return options_; }

  /// Queues an Input for sending (after the injected latency).
  /// FailedPrecondition for a spectator, Unavailable when the stream ended.
  absl::Status SendInput(const v1::Input& input);
  /// Acknowledges the snapshot of `snapshot_tick`. Errors as SendInput.
  absl::Status Ack(uint64_t snapshot_tick);

  /// The next server message, waiting up to `timeout`; nullopt when none
  /// arrived in time. When the stream has ended and every message was
  /// delivered, returns its final status (Unavailable, Aborted, ... or
  /// Cancelled after Drop; OK-ended streams give Unavailable "stream ended").
  absl::StatusOr<std::optional<v1::ServerMessage>> Next(absl::Duration timeout);

  /// True once the stream has ended (messages may still be queued).
  bool ended() const;

  /// Breaks the stream at once, as a lost connection would (cancels the
  /// call). Queued messages are discarded.
  void Drop();

  /// Replaces the stream with a new one resuming at `resume_from_tick`
  /// (same world, slot, token and options). Errors as Connect.
  absl::Status Reconnect(uint64_t resume_from_tick);

  /// Follows a Redirect (the world moved to another server,
  /// WorldService.ExportWorld): joins the same world at redirect.address
  /// with the same slot, token and options, resuming at `resume_from_tick`
  /// (unset: at the current tick), and retries while that server answers
  /// NotFound (it has not imported the world yet) for up to
  /// options.connect_timeout. Errors as Connect.
  absl::Status Follow(const v1::Redirect& redirect, std::optional<uint64_t> resume_from_tick);

  /// Round trip to the server on this session's channel (a health check),
  /// plus twice the injected latency. Unavailable when unreachable.
  absl::StatusOr<absl::Duration> MeasureRtt();

 private:
  class Stream;
  explicit Session(SessionOptions options);
  absl::Status Open();

  // A join answered by a Redirect is followed (Open), up to this many hops
  // in a row: a loop of servers that each say the world is elsewhere ends.
  static constexpr int kMaxRedirects = 4;

  SessionOptions options_;
  int redirects_followed_ = 0;
  std::shared_ptr<grpc::Channel> channel_;
  v1::Joined joined_;
  std::unique_ptr<Stream> stream_;
};

}  // namespace atl::client

#endif  // ATOLL_CLIENT_SESSION_H_
