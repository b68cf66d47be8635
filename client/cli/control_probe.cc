#include "client/cli/control_probe.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "atoll/v1/world.grpc.pb.h"

namespace atl::cli {
namespace {

// Runs `call` with a fresh context at the probe's deadline and records it
// (its start as seconds since `first`).
template <typename Call>
void Timed(Call call, absl::Time first, CallTimes* out, absl::Mutex* mu) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       absl::ToChronoMilliseconds(ControlProbe::kDeadline));
  const absl::Time start = absl::Now();
  const grpc::Status s = call(&context);
  const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  absl::MutexLock lock(mu);
  if (s.ok()) {
    out->ms.push_back(ms);
    out->start_s.push_back(absl::ToDoubleSeconds(start - first));
  } else {
    ++out->failures;
    out->last_error = absl::StrCat(s.error_code(), " ", s.error_message());
  }
}

}  // namespace

ControlProbe::ControlProbe() : thread_([this] { Run(); }) {}

ControlProbe::~ControlProbe() {
  if (!begin_.HasBeenNotified()) begin_.Notify();
  End();
  thread_.join();
}

void ControlProbe::Begin(const std::string& address,
                         const client::ChannelOptions& options,
                         const std::string& world_id, absl::Duration interval) {
  address_ = address;
  options_ = options;
  world_id_ = world_id;
  interval_ = interval;
  begin_.Notify();
}

void ControlProbe::End() {
  if (!end_.HasBeenNotified()) end_.Notify();
}

CallTimes ControlProbe::list_worlds() const {
  absl::MutexLock lock(&mu_);
  return list_;
}
CallTimes ControlProbe::get_world() const {
  absl::MutexLock lock(&mu_);
  return get_;
}
CallTimes ControlProbe::create_world() const {
  absl::MutexLock lock(&mu_);
  return create_;
}

void ControlProbe::Run() {
  begin_.WaitForNotification();
  const absl::Time first = absl::Now();
  if (end_.HasBeenNotified() || address_.empty()) return;
  // Its own connection, as a backend's control client would have.
  client::ChannelOptions own = options_;
  own.own_connection = true;
  auto channel = client::MakeChannel(address_, own);
  if (!channel.ok()) return;
  auto stub = v1::WorldService::NewStub(*channel);
  const std::string prefix = absl::StrCat("probe-", getpid(), "-");
  for (int n = 0; !end_.WaitForNotificationWithTimeout(interval_); ++n) {
    Timed(
        [&](grpc::ClientContext* c) {
          v1::ListWorldsResponse r;
          return stub->ListWorlds(c, v1::ListWorldsRequest(), &r);
        },
        first, &list_, &mu_);
    Timed(
        [&](grpc::ClientContext* c) {
          v1::GetWorldRequest q;
          q.set_world_id(world_id_);
          v1::WorldInfo r;
          return stub->GetWorld(c, q, &r);
        },
        first, &get_, &mu_);
    // A small world created and destroyed again: the CreateWorld a match
    // start makes (its DestroyWorld is not timed).
    const std::string id = absl::StrCat(prefix, n);
    Timed(
        [&](grpc::ClientContext* c) {
          v1::CreateWorldRequest q;
          q.set_world_id(id);
          q.mutable_scene()->mutable_builtin()->set_name("pyramid");
          q.mutable_scene()->mutable_builtin()->set_size(4);
          v1::CreateWorldResponse r;
          return stub->CreateWorld(c, q, &r);
        },
        first, &create_, &mu_);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    v1::DestroyWorldRequest q;
    q.set_world_id(id);
    v1::DestroyWorldResponse r;
    stub->DestroyWorld(&context, q, &r);
  }
}

double Quantile(std::vector<double> ms, double q) {
  if (ms.empty()) return 0.0;
  std::sort(ms.begin(), ms.end());
  const size_t rank =
      static_cast<size_t>(std::ceil(q * static_cast<double>(ms.size())));
  return ms[std::min(ms.size() - 1, rank == 0 ? 0 : rank - 1)];
}

}  // namespace atl::cli
