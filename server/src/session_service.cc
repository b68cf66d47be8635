#include "session_service.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "status_util.h"

namespace atl::server {
namespace {

// Counts a message a stream starts writing (on the send thread or gRPC's,
// never a tick thread: outbox.h).
void CountSent(SessionService* service, const v1::ServerMessage& message) {
  if (service->metrics() != nullptr) service->metrics()->CountSent(message.ByteSizeLong());
}

v1::ServerMessage ErrorMessage(const absl::Status& status, const std::string& field,
                               uint64_t sequence) {
  v1::ServerMessage m;
  m.mutable_error()->set_code(static_cast<int32_t>(status.code()));
  m.mutable_error()->set_field(field);
  m.mutable_error()->set_message(std::string(status.message()));
  m.mutable_error()->set_input_sequence(sequence);
  return m;
}

// A session for a world that moved away from here (WorldRegistry::MovedTo):
// it gets the Redirect it missed and its stream ends, as the sessions that
// were on the world when it moved. False when the world did not move.
bool SendToWhereItMoved(const WorldRegistry* registry, const std::string& world_id,
                        Outbox* outbox) {
  std::optional<v1::Redirect> moved = registry->MovedTo(world_id);
  if (!moved.has_value()) return false;
  v1::ServerMessage m;
  *m.mutable_redirect() = *moved;
  outbox->Push(std::move(m), true);
  outbox->CloseAfterDrain(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                       absl::StrCat("the world moved to ", moved->address())));
  return true;
}

class ConnectReactor final : public grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>,
                             public MessageSink<v1::ServerMessage> {
 public:
  ConnectReactor(SessionService* service, WorldRegistry* registry, uint32_t capacity)
      : service_(service),
        registry_(registry),
        outbox_(std::make_shared<Outbox>(this, capacity, service->dispatcher())) {
    if (!service_->Register(outbox_)) {
      outbox_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"));
      return;
    }
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      // The client half-closed (left) or the call broke.
      outbox_->Close(grpc::Status::OK);
      return;
    }
    Handle(request_);
    if (!outbox_->closed()) StartRead(&request_);
  }
  void OnWriteDone(bool ok) override { outbox_->OnWriteDone(ok); }
  void OnCancel() override {
    outbox_->Close(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  }
  void OnDone() override {
    if (host_ != nullptr) host_->Leave(outbox_.get());
    service_->Unregister(outbox_.get());
    delete this;
  }

  void StartMessageWrite(const v1::ServerMessage* message) override {
    CountSent(service_, *message);
    StartWrite(message);
  }
  void FinishCall(const grpc::Status& status) override { Finish(status); }

 private:
  void Handle(const v1::ClientMessage& message) {
    switch (message.kind_case()) {
      case v1::ClientMessage::kJoin: {
        if (host_ != nullptr) {
          outbox_->Push(ErrorMessage(absl::FailedPreconditionError("join: already joined"),
                                     "join", 0));
          return;
        }
        absl::StatusOr<std::shared_ptr<WorldHost>> host =
            registry_->Find(message.join().world_id());
        if (!host.ok()) {
          if (SendToWhereItMoved(registry_, message.join().world_id(), outbox_.get())) return;
          outbox_->Close(ToGrpcStatus(absl::Status(
              host.status().code(), absl::StrCat("join.", std::string(host.status().message())))));
          return;
        }
        if (absl::Status s = (*host)->Join(message.join(), outbox_); !s.ok()) {
          outbox_->Close(ToGrpcStatus(s));
          return;
        }
        host_ = *std::move(host);
        return;
      }
      case v1::ClientMessage::kInput: {
        if (host_ == nullptr) {
          if (service_->metrics() != nullptr) {
            service_->metrics()->CountRefusedInput(absl::StatusCode::kFailedPrecondition);
          }
          outbox_->Close(ToGrpcStatus(
              absl::FailedPreconditionError("input: the first message must be a join")));
          return;
        }
        std::string field;
        if (absl::Status s = host_->SubmitInput(outbox_.get(), message.input(), &field); !s.ok()) {
          if (service_->metrics() != nullptr) service_->metrics()->CountRefusedInput(s.code());
          outbox_->Push(ErrorMessage(s, field, message.input().sequence()));
        }
        return;
      }
      case v1::ClientMessage::kAck:
        if (host_ != nullptr) host_->Ack(outbox_.get(), message.ack().snapshot_tick());
        return;
      case v1::ClientMessage::KIND_NOT_SET:
        break;
    }
    outbox_->Push(ErrorMessage(absl::InvalidArgumentError("kind: empty client message"), "kind", 0));
  }

  SessionService* const service_;
  WorldRegistry* const registry_;
  std::shared_ptr<Outbox> outbox_;
  std::shared_ptr<WorldHost> host_;  // set once joined
  v1::ClientMessage request_;
};

class WatchReactor final : public grpc::ServerWriteReactor<v1::ServerMessage>,
                           public MessageSink<v1::ServerMessage> {
 public:
  WatchReactor(SessionService* service, WorldRegistry* registry, uint32_t capacity,
               const v1::WatchRequest& request)
      : service_(service), outbox_(std::make_shared<Outbox>(this, capacity, service->dispatcher())) {
    if (!service_->Register(outbox_)) {
      outbox_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"));
      return;
    }
    absl::StatusOr<std::shared_ptr<WorldHost>> host = registry->Find(request.world_id());
    if (!host.ok()) {
      if (SendToWhereItMoved(registry, request.world_id(), outbox_.get())) return;
      outbox_->Close(ToGrpcStatus(host.status()));
      return;
    }
    if (absl::Status s = (*host)->Watch(request, outbox_); !s.ok()) {
      outbox_->Close(ToGrpcStatus(s));
      return;
    }
    host_ = *std::move(host);
  }

  void OnWriteDone(bool ok) override { outbox_->OnWriteDone(ok); }
  void OnCancel() override {
    outbox_->Close(grpc::Status(grpc::StatusCode::CANCELLED, "cancelled"));
  }
  void OnDone() override {
    if (host_ != nullptr) host_->Leave(outbox_.get());
    service_->Unregister(outbox_.get());
    delete this;
  }
  void StartMessageWrite(const v1::ServerMessage* message) override {
    CountSent(service_, *message);
    StartWrite(message);
  }
  void FinishCall(const grpc::Status& status) override { Finish(status); }

 private:
  SessionService* const service_;
  std::shared_ptr<Outbox> outbox_;
  std::shared_ptr<WorldHost> host_;
};

}  // namespace

grpc::ServerBidiReactor<v1::ClientMessage, v1::ServerMessage>* SessionService::Connect(
    grpc::CallbackServerContext* /*context*/) {
  return new ConnectReactor(this, registry_, registry_->options().host.outbox_capacity);
}

grpc::ServerWriteReactor<v1::ServerMessage>* SessionService::Watch(
    grpc::CallbackServerContext* /*context*/, const v1::WatchRequest* request) {
  return new WatchReactor(this, registry_, registry_->options().host.outbox_capacity, *request);
}

bool SessionService::Register(const std::shared_ptr<Outbox>& outbox) {
  absl::MutexLock lock(&mu_);
  if (shut_down_) return false;
  streams_[outbox.get()] = outbox;
  return true;
}

void SessionService::Unregister(const Outbox* outbox) {
  absl::MutexLock lock(&mu_);
  streams_.erase(outbox);
}

bool SessionService::WaitForStreams(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  return mu_.AwaitWithDeadline(
      absl::Condition(
          +[](SessionService* s) ABSL_EXCLUSIVE_LOCKS_REQUIRED(s->mu_) {
            return s->streams_.empty();
          },
          this),
      deadline);
}

void SessionService::Shutdown() {
  std::vector<std::shared_ptr<Outbox>> open;
  {
    absl::MutexLock lock(&mu_);
    shut_down_ = true;
    for (const auto& [key, weak] : streams_) {
      if (std::shared_ptr<Outbox> outbox = weak.lock()) open.push_back(std::move(outbox));
    }
  }
  // Outside the lock: closing may finish a call, and gRPC may run its
  // OnDone (which unregisters) inline. A finished outbox never calls its
  // reactor again, so one whose reactor is gone meanwhile is safe to close.
  for (const std::shared_ptr<Outbox>& outbox : open) {
    outbox->CloseAfterDrain(
        grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"));
  }
}

}  // namespace atl::server
