#include "support/session_client.h"

#include "atoll/client/connection.h"

namespace atl::testing {

std::unique_ptr<SessionClient> SessionClient::Connect(const std::string& address,
                                                      const v1::Join& join) {
  std::unique_ptr<SessionClient> c(new SessionClient());
  c->stub_ = v1::SessionService::NewStub(client::MakeChannel(address));
  c->bidi_ = c->stub_->Connect(&c->context_);
  v1::ClientMessage m;
  *m.mutable_join() = join;
  c->bidi_->Write(m);
  c->thread_ = std::thread([p = c.get()] { p->ReadLoop(); });
  return c;
}

std::unique_ptr<SessionClient> SessionClient::Watch(const std::string& address,
                                                    const v1::WatchRequest& request) {
  std::unique_ptr<SessionClient> c(new SessionClient());
  c->stub_ = v1::SessionService::NewStub(client::MakeChannel(address));
  c->reader_ = c->stub_->Watch(&c->context_, request);
  c->thread_ = std::thread([p = c.get()] { p->ReadLoop(); });
  return c;
}

SessionClient::~SessionClient() {
  context_.TryCancel();
  if (thread_.joinable()) thread_.join();
}

void SessionClient::ReadLoop() {
  v1::ServerMessage m;
  while (bidi_ != nullptr ? bidi_->Read(&m) : reader_->Read(&m)) {
    absl::MutexLock lock(&mu_);
    if (m.has_frame()) last_tick_ = m.frame().tick();
    messages_.push_back(m);
  }
  grpc::Status status = bidi_ != nullptr ? bidi_->Finish() : reader_->Finish();
  absl::MutexLock lock(&mu_);
  ended_ = true;
  status_ = status;
}

bool SessionClient::Send(const v1::ClientMessage& message) {
  return bidi_ != nullptr && bidi_->Write(message);
}

bool SessionClient::WaitFor(
    const std::function<bool(const std::vector<v1::ServerMessage>&)>& done,
    absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    {
      absl::MutexLock lock(&mu_);
      if (done(messages_)) return true;
      if (ended_) return false;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
  return false;
}

bool SessionClient::WaitForTick(uint64_t tick, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    {
      absl::MutexLock lock(&mu_);
      if (last_tick_ >= tick) return true;
      if (ended_) return false;
    }
    absl::SleepFor(absl::Milliseconds(2));
  }
  return false;
}

grpc::Status SessionClient::WaitForEnd(absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  if (!mu_.AwaitWithTimeout(absl::Condition(&ended_), timeout)) {
    return grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "stream still open");
  }
  return status_;
}

std::vector<v1::ServerMessage> SessionClient::messages() const {
  absl::MutexLock lock(&mu_);
  return messages_;
}

uint64_t SessionClient::last_tick() const {
  absl::MutexLock lock(&mu_);
  return last_tick_;
}

grpc::Status SessionClient::Close() {
  if (bidi_ != nullptr && !writes_done_) {
    writes_done_ = true;
    bidi_->WritesDone();
  }
  return WaitForEnd(absl::Seconds(10));
}

}  // namespace atl::testing
