#include "atoll/client/session.h"

#include <grpcpp/grpcpp.h>

#include <deque>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "atoll/client/connection.h"
#include "atoll/v1/session.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace atl::client {

// One gRPC call with its two timer queues. Messages wait in `inbound_` /
// `outbound_` until their due time, which is how latency is injected without
// touching the network: the order of messages never changes.
class Session::Stream {
 public:
  Stream(const SessionOptions& options, std::shared_ptr<grpc::Channel> channel)
      : latency_(options.injected_latency), channel_(std::move(channel)) {}

  ~Stream() { Stop(/*half_close=*/true); }

  void Start(const SessionOptions& options) {
    stub_ = v1::SessionService::NewStub(channel_);
    if (options.slot == 0) {
      v1::WatchRequest request;
      request.set_world_id(options.world_id);
      if (options.resume_from_tick.has_value()) request.set_from_tick(*options.resume_from_tick);
      request.set_snapshot_every_ticks(options.snapshot_every_ticks);
      reader_ = stub_->Watch(&context_, request);
      absl::MutexLock lock(&mu_);
      writer_done_ = true;  // a spectator sends nothing
    } else {
      bidi_ = stub_->Connect(&context_);
      v1::ClientMessage join;
      v1::Join* j = join.mutable_join();
      j->set_world_id(options.world_id);
      j->set_slot(options.slot);
      j->set_token(options.token);
      if (options.resume_from_tick.has_value()) j->set_resume_from_tick(*options.resume_from_tick);
      j->set_snapshot_every_ticks(options.snapshot_every_ticks);
      Push(std::move(join));
      writer_ = std::thread([this] { WriteLoop(); });
    }
    reader_thread_ = std::thread([this] { ReadLoop(); });
  }

  void Push(v1::ClientMessage message) {
    absl::MutexLock lock(&mu_);
    outbound_.push_back({absl::Now() + latency_, std::move(message)});
    cv_.SignalAll();
  }

  bool ended() const {
    absl::MutexLock lock(&mu_);
    return ended_;
  }

  absl::StatusOr<std::optional<v1::ServerMessage>> Next(absl::Duration timeout,
                                                        const std::string& address) {
    absl::MutexLock lock(&mu_);
    const absl::Time deadline = absl::Now() + timeout;
    while (true) {
      const absl::Time now = absl::Now();
      if (!inbound_.empty() && inbound_.front().first <= now) {
        v1::ServerMessage m = std::move(inbound_.front().second);
        inbound_.pop_front();
        return std::optional<v1::ServerMessage>(std::move(m));
      }
      if (inbound_.empty() && ended_) {
        if (final_.ok()) return absl::UnavailableError(absl::StrCat(address, ": stream ended"));
        return FromGrpcStatus(final_, address);
      }
      if (now >= deadline) return std::optional<v1::ServerMessage>();
      absl::Time wake = deadline;
      if (!inbound_.empty()) wake = std::min(wake, inbound_.front().first);
      cv_.WaitWithDeadline(&mu_, wake);
    }
  }

  // Ends the call: half-closes first when asked (a player leaving), then
  // cancels, so neither thread can stay blocked.
  void Stop(bool half_close) {
    {
      absl::MutexLock lock(&mu_);
      stop_writer_ = true;
      half_close_ = half_close;
      cv_.SignalAll();
    }
    if (writer_.joinable()) writer_.join();
    context_.TryCancel();
    if (reader_thread_.joinable()) reader_thread_.join();
  }

 private:
  void WriteLoop() {
    while (true) {
      v1::ClientMessage message;
      bool stop = false;
      bool half_close = false;
      {
        absl::MutexLock lock(&mu_);
        while (!stop_writer_ &&
               (outbound_.empty() || outbound_.front().first > absl::Now())) {
          cv_.WaitWithDeadline(&mu_, outbound_.empty() ? absl::InfiniteFuture()
                                                       : outbound_.front().first);
        }
        if (stop_writer_) {
          stop = true;
          half_close = half_close_ && !write_failed_;
        } else {
          message = std::move(outbound_.front().second);
          outbound_.pop_front();
        }
      }
      if (stop) {
        if (half_close) bidi_->WritesDone();
        absl::MutexLock lock(&mu_);
        writer_done_ = true;
        cv_.SignalAll();
        return;
      }
      if (!bidi_->Write(message)) {
        // The call is over; the reader sees it and reports the status.
        absl::MutexLock lock(&mu_);
        write_failed_ = true;
        outbound_.clear();
      }
    }
  }

  void ReadLoop() {
    v1::ServerMessage message;
    while (bidi_ ? bidi_->Read(&message) : reader_->Read(&message)) {
      absl::MutexLock lock(&mu_);
      inbound_.emplace_back(absl::Now() + latency_, std::move(message));
      cv_.SignalAll();
    }
    {
      absl::MutexLock lock(&mu_);
      stop_writer_ = true;
      cv_.SignalAll();
      // Finish() must not run concurrently with a Write().
      mu_.Await(absl::Condition(&writer_done_));
    }
    grpc::Status status = bidi_ ? bidi_->Finish() : reader_->Finish();
    absl::MutexLock lock(&mu_);
    ended_ = true;
    final_ = std::move(status);
    cv_.SignalAll();
  }

  const absl::Duration latency_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::SessionService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::ClientMessage, v1::ServerMessage>> bidi_;
  std::unique_ptr<grpc::ClientReader<v1::ServerMessage>> reader_;
  std::thread reader_thread_;
  std::thread writer_;

  mutable absl::Mutex mu_;
  absl::CondVar cv_;
  std::deque<std::pair<absl::Time, v1::ServerMessage>> inbound_ ABSL_GUARDED_BY(mu_);
  std::deque<std::pair<absl::Time, v1::ClientMessage>> outbound_ ABSL_GUARDED_BY(mu_);
  bool stop_writer_ ABSL_GUARDED_BY(mu_) = false;
  bool half_close_ ABSL_GUARDED_BY(mu_) = false;
  bool write_failed_ ABSL_GUARDED_BY(mu_) = false;
  bool writer_done_ ABSL_GUARDED_BY(mu_) = false;
  bool ended_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status final_ ABSL_GUARDED_BY(mu_);
};

absl::StatusOr<std::unique_ptr<Session>> Session::Connect(const SessionOptions& options) {
  std::unique_ptr<Session> session(new Session(options));
  if (absl::Status s = session->Open(); !s.ok()) return s;
  return session;
}

Session::Session(SessionOptions options) : options_(std::move(options)) {}

Session::~Session() = default;

absl::Status Session::Open() {
  if (channel_ == nullptr) channel_ = MakeChannel(options_.address);
  stream_ = std::make_unique<Stream>(options_, channel_);
  stream_->Start(options_);
  absl::StatusOr<std::optional<v1::ServerMessage>> first =
      stream_->Next(options_.connect_timeout + options_.injected_latency * 2, options_.address);
  if (!first.ok()) return first.status();
  if (!first->has_value()) {
    stream_.reset();
    return absl::DeadlineExceededError(absl::StrCat(options_.address, ": no answer to the join within ",
                                                    absl::FormatDuration(options_.connect_timeout)));
  }
  if ((*first)->has_redirect() && redirects_followed_ < kMaxRedirects) {
    // The world moved away while this client was not connected: join it
    // where it went (the server there may still be importing it).
    ++redirects_followed_;
    const v1::Redirect redirect = (*first)->redirect();
    return Follow(redirect, options_.resume_from_tick);
  }
  if (!(*first)->has_joined()) {
    return absl::InternalError(
        absl::StrCat(options_.address, ": the server's first message is not Joined"));
  }
  joined_ = (*first)->joined();
  return absl::OkStatus();
}

absl::Status Session::SendInput(const v1::Input& input) {
  if (options_.slot == 0) {
    return absl::FailedPreconditionError("input: a spectator session cannot send inputs");
  }
  if (stream_ == nullptr || stream_->ended()) {
    return absl::UnavailableError(absl::StrCat(options_.address, ": the stream has ended"));
  }
  v1::ClientMessage m;
  *m.mutable_input() = input;
  stream_->Push(std::move(m));
  return absl::OkStatus();
}

absl::Status Session::Ack(uint64_t snapshot_tick) {
  if (options_.slot == 0) return absl::OkStatus();  // spectators have nothing to ack
  if (stream_ == nullptr || stream_->ended()) {
    return absl::UnavailableError(absl::StrCat(options_.address, ": the stream has ended"));
  }
  v1::ClientMessage m;
  m.mutable_ack()->set_snapshot_tick(snapshot_tick);
  stream_->Push(std::move(m));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::ServerMessage>> Session::Next(absl::Duration timeout) {
  if (stream_ == nullptr) {
    return absl::UnavailableError(absl::StrCat(options_.address, ": not connected"));
  }
  return stream_->Next(timeout, options_.address);
}

bool Session::ended() const { return stream_ == nullptr || stream_->ended(); }

void Session::Drop() {
  if (stream_ != nullptr) stream_->Stop(/*half_close=*/false);
  stream_.reset();
}

absl::Status Session::Reconnect(uint64_t resume_from_tick) {
  Drop();
  options_.resume_from_tick = resume_from_tick;
  return Open();
}

absl::Status Session::Follow(const v1::Redirect& redirect,
                             std::optional<uint64_t> resume_from_tick) {
  Drop();
  options_.address = redirect.address();
  options_.resume_from_tick = resume_from_tick;
  channel_.reset();
  const absl::Time give_up = absl::Now() + options_.connect_timeout;
  while (true) {
    absl::Status s = Open();
    if (!absl::IsNotFound(s) || absl::Now() >= give_up) {
      redirects_followed_ = 0;
      return s;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
}

absl::StatusOr<absl::Duration> Session::MeasureRtt() {
  if (channel_ == nullptr) channel_ = MakeChannel(options_.address);
  auto stub = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  grpc::health::v1::HealthCheckResponse response;
  const absl::Time start = absl::Now();
  const grpc::Status status =
      stub->Check(&context, grpc::health::v1::HealthCheckRequest(), &response);
  if (!status.ok()) return FromGrpcStatus(status, options_.address);
  return absl::Now() - start + options_.injected_latency * 2;
}

}  // namespace atl::client
