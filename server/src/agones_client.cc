#include "agones_client.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "tick_scheduler.h"

namespace atl::server {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

// The watch stream is idle for as long as the GameServer does not change:
// no read timeout in practice; the destructor cuts it with Client::stop().
constexpr time_t kWatchReadTimeoutSeconds = 24 * 3600;

void Log(const std::string& line) {
  std::fprintf(stderr, "atoll-server: agones: %s\n", line.c_str());
  std::fflush(stderr);
}

void SetTimeout(httplib::Client* client, absl::Duration connect, absl::Duration read) {
  const int64_t connect_us = absl::ToInt64Microseconds(connect);
  const int64_t read_us = absl::ToInt64Microseconds(read);
  client->set_connection_timeout(connect_us / 1000000, connect_us % 1000000);
  client->set_read_timeout(read_us / 1000000, read_us % 1000000);
  client->set_write_timeout(read_us / 1000000, read_us % 1000000);
}

// The struct field `name` of `s`, or null.
const Struct* Field(const Struct* s, const std::string& name) {
  if (s == nullptr) return nullptr;
  auto it = s->fields().find(name);
  if (it == s->fields().end() || !it->second.has_struct_value()) return nullptr;
  return &it->second.struct_value();
}

std::string StringField(const Struct* s, const std::string& name) {
  if (s == nullptr) return "";
  auto it = s->fields().find(name);
  if (it == s->fields().end() || !it->second.has_string_value()) return "";
  return it->second.string_value();
}

// What the client needs of a GameServer (the SDK's GameServer message in
// grpc-gateway's JSON: object_meta.annotations, status.state; the
// lowerCamelCase spelling is accepted too).
struct GameServerView {
  std::string state;
  std::string scene;
  std::string world;
};

bool ParseWatchLine(const std::string& line, GameServerView* out) {
  Struct root;
  if (!google::protobuf::util::JsonStringToMessage(line, &root).ok()) return false;
  // Watch lines wrap the GameServer in {"result": ...}; GET /gameserver
  // answers it bare.
  const Struct* gs = Field(&root, "result");
  if (gs == nullptr) gs = &root;
  const Struct* meta = Field(gs, "object_meta");
  if (meta == nullptr) meta = Field(gs, "objectMeta");
  const Struct* annotations = Field(meta, "annotations");
  out->state = StringField(Field(gs, "status"), "state");
  out->scene = StringField(annotations, kAgonesSceneAnnotation);
  out->world = StringField(annotations, kAgonesWorldAnnotation);
  return true;
}

class AgonesClientImpl final : public AgonesClient {
 public:
  AgonesClientImpl(const AgonesOptions& options, AgonesHooks hooks)
      : options_(options), hooks_(std::move(hooks)) {
    lifecycle_thread_ = std::thread([this] { LifecycleLoop(); });
    watch_thread_ = std::thread([this] { WatchLoop(); });
  }

  ~AgonesClientImpl() override {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
      wake_.SignalAll();
    }
    // Client::stop() cuts a request in flight only; one that had not
    // started yet when it was called would block, so repeat until the
    // watch thread is out.
    while (!watch_done_.load()) {
      {
        absl::MutexLock lock(&mu_);
        if (watch_client_ != nullptr) watch_client_->stop();
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    watch_thread_.join();
    lifecycle_thread_.join();
  }

  void MarkReady() override {
    const uint64_t beat = hooks_.heartbeat();
    absl::MutexLock lock(&mu_);
    ready_beat_ = beat;
    ready_requested_ = true;
    wake_.Signal();
  }

 private:
  // Sends one request with the short timeouts; true on a 2xx answer.
  // *error describes a failure.
  bool Send(const std::string& method, const std::string& path, const std::string& body,
            std::string* error) {
    httplib::Client client(options_.host, options_.port);
    SetTimeout(&client, options_.connect_timeout, options_.request_timeout);
    httplib::Result result = method == "PUT" ? client.Put(path.c_str(), body, "application/json")
                                             : client.Post(path.c_str(), body, "application/json");
    if (!result) {
      *error = absl::StrCat(method, " ", path, ": ", httplib::to_string(result.error()));
      return false;
    }
    if (result->status / 100 != 2) {
      *error = absl::StrCat(method, " ", path, ": HTTP ", result->status);
      return false;
    }
    return true;
  }

  // Logs the gateway's state when it changes (not per request). True when
  // it answers again after being unreachable.
  bool NoteGateway(bool ok, const std::string& error) {
    if (gateway_ok_.has_value() && *gateway_ok_ == ok) return false;
    const bool back = gateway_ok_.has_value() && ok;
    gateway_ok_ = ok;
    if (ok) {
      Log(absl::StrCat("SDK gateway at ", options_.host, ":", options_.port, " reachable"));
    } else {
      Log(absl::StrCat("SDK gateway at ", options_.host, ":", options_.port,
                       " unreachable (retrying with backoff, logged once): ", error));
    }
    return back;
  }

  // The gateway was away: the watch may hang on a connection nobody will
  // write to again (a gateway restarted behind a network that dropped the
  // old connection silently) until its read timeout, a day, and miss the
  // allocation. Cut it; WatchLoop opens a new one.
  void RestartWatch() {
    absl::MutexLock lock(&mu_);
    if (watch_client_ == nullptr) return;
    restart_watch_ = true;
    watch_client_->stop();
  }

  uint64_t ReadyBeat() {
    absl::MutexLock lock(&mu_);
    return ready_beat_;
  }

  bool Stopping() {
    absl::MutexLock lock(&mu_);
    return stop_;
  }

  // Waits until `deadline` (and, when `need_ready`, MarkReady) or stop.
  // False on stop.
  bool WaitUntil(absl::Time deadline, bool need_ready) {
    absl::MutexLock lock(&mu_);
    while (!stop_) {
      if ((!need_ready || ready_requested_) && absl::Now() >= deadline) return true;
      if (need_ready && !ready_requested_) {
        wake_.Wait(&mu_);
      } else {
        wake_.WaitWithDeadline(&mu_, deadline);
      }
    }
    return false;
  }

  void LifecycleLoop() {
    bool ready_sent = false;
    bool shutdown_sent = false;
    bool stalled = false;
    uint64_t last_beat = 0;
    int64_t last_worlds = -1, last_players = -1;
    absl::Duration backoff = absl::ZeroDuration();
    absl::Time next = absl::InfinitePast();
    while (WaitUntil(next, true)) {
      std::string error;
      bool ok = true;
      if (!ready_sent) {
        // Ready only once the tick threads have gone round their loop since
        // MarkReady: the restored worlds are in their hands.
        if (hooks_.heartbeat() == ReadyBeat()) {
          next = absl::Now() + TickScheduler::kIdleBeat;
          continue;
        }
        ok = Send("POST", "/ready", "{}", &error);
        if (ok) {
          ready_sent = true;
          last_beat = hooks_.heartbeat();
          Log("marked Ready");
        }
      } else {
        // Health: only while the tick threads beat, so that a stalled tick
        // thread stops the pings and Agones marks the server Unhealthy.
        const uint64_t beat = hooks_.heartbeat();
        if (beat != last_beat) {
          ok = Send("POST", "/health", "{}", &error);
          if (ok) last_beat = beat;
          if (stalled) Log("tick threads beat again: health pings resumed");
          stalled = false;
        } else if (!stalled) {
          stalled = true;
          Log("tick threads did not beat for a health period: health pings stopped");
        }
        uint32_t worlds = 0, players = 0;
        hooks_.counts(&worlds, &players);
        if (ok && worlds != last_worlds) {
          ok = Send("PUT", "/metadata/label",
                    absl::StrCat(R"({"key":"atoll-worlds","value":")", worlds, R"("})"), &error);
          if (ok) last_worlds = worlds;
        }
        if (ok && players != last_players) {
          ok = Send("PUT", "/metadata/label",
                    absl::StrCat(R"({"key":"atoll-players","value":")", players, R"("})"), &error);
          if (ok) last_players = players;
        }
        const bool allocated = allocated_.load();
        if (allocated && worlds > 0) had_world_while_allocated_ = true;
        if (ok && options_.shutdown_when_empty && allocated && had_world_while_allocated_.load() &&
            worlds == 0 && !shutdown_sent) {
          ok = Send("POST", "/shutdown", "{}", &error);
          if (ok) {
            shutdown_sent = true;
            Log("the last world of the allocated server ended: asked Agones to shut down");
          }
        }
      }
      if (NoteGateway(ok, error)) RestartWatch();
      if (ok) {
        backoff = absl::ZeroDuration();
        next = absl::Now() + (ready_sent ? options_.health_period : absl::ZeroDuration());
      } else {
        backoff = backoff == absl::ZeroDuration() ? options_.initial_backoff
                                                  : std::min(2 * backoff, options_.max_backoff);
        next = absl::Now() + backoff;
      }
    }
  }

  void OnGameServer(const GameServerView& gs) {
    const bool allocated = gs.state == "Allocated";
    const bool was_allocated = allocated_.exchange(allocated);
    if (!allocated || was_allocated) return;
    if (gs.scene.empty()) {
      Log("GameServer Allocated (no atoll.dev/scene annotation: no world created)");
      return;
    }
    const std::string world = gs.world.empty() ? "match" : gs.world;
    Log(absl::StrCat("GameServer Allocated: creating world ", world, " from atoll.dev/scene"));
    if (absl::Status s = hooks_.create_world(world, gs.scene); !s.ok()) {
      Log(absl::StrCat("world ", world, " not created: ", s.ToString()));
      return;
    }
    had_world_while_allocated_ = true;
  }

  void WatchLoop() {
    absl::Duration backoff = options_.initial_backoff;
    bool watch_ok = true;  // logs the first failure
    while (true) {
      auto client = std::make_shared<httplib::Client>(options_.host, options_.port);
      SetTimeout(client.get(), options_.connect_timeout, options_.request_timeout);
      client->set_read_timeout(kWatchReadTimeoutSeconds, 0);
      {
        absl::MutexLock lock(&mu_);
        if (stop_) break;
        watch_client_ = client;
      }
      std::string pending;
      bool got_data = false;
      httplib::Result result =
          client->Get("/watch/gameserver", [&](const char* data, size_t length) {
            pending.append(data, length);
            size_t newline;
            while ((newline = pending.find('\n')) != std::string::npos) {
              const std::string line = pending.substr(0, newline);
              pending.erase(0, newline + 1);
              GameServerView gs;
              if (line.find_first_not_of(" \r\t") == std::string::npos) continue;
              if (!ParseWatchLine(line, &gs)) continue;
              if (!watch_ok) Log("watching the GameServer again");
              watch_ok = true;
              got_data = true;
              OnGameServer(gs);
            }
            return !Stopping();
          });
      bool restarted;
      {
        absl::MutexLock lock(&mu_);
        watch_client_.reset();
        if (stop_) break;
        restarted = restart_watch_;
        restart_watch_ = false;
      }
      if (restarted) {
        Log("the SDK gateway is back: watching the GameServer anew");
        watch_ok = true;
        backoff = options_.initial_backoff;
        continue;
      }
      if (watch_ok) {
        Log(result ? absl::StrCat("GET /watch/gameserver ended (HTTP ", result->status,
                                  "); retrying with backoff, logged once")
                   : absl::StrCat("GET /watch/gameserver: ", httplib::to_string(result.error()),
                                  "; retrying with backoff, logged once"));
        watch_ok = false;
      }
      backoff = got_data ? options_.initial_backoff : std::min(2 * backoff, options_.max_backoff);
      absl::MutexLock lock(&mu_);
      const absl::Time deadline = absl::Now() + backoff;
      while (!stop_ && absl::Now() < deadline) wake_.WaitWithDeadline(&mu_, deadline);
      if (stop_) break;
    }
    watch_done_ = true;
  }

  const AgonesOptions options_;
  const AgonesHooks hooks_;
  absl::Mutex mu_;
  absl::CondVar wake_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  bool ready_requested_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t ready_beat_ ABSL_GUARDED_BY(mu_) = 0;  // the heartbeat at MarkReady
  std::shared_ptr<httplib::Client> watch_client_ ABSL_GUARDED_BY(mu_);
  bool restart_watch_ ABSL_GUARDED_BY(mu_) = false;  // RestartWatch cut the watch
  std::atomic<bool> allocated_{false};
  std::atomic<bool> had_world_while_allocated_{false};
  std::atomic<bool> watch_done_{false};
  // Lifecycle thread only. Unknown at first, so the first outcome is logged.
  std::optional<bool> gateway_ok_;
  std::thread lifecycle_thread_;
  std::thread watch_thread_;
};

}  // namespace

std::unique_ptr<AgonesClient> AgonesClient::Start(const AgonesOptions& options, AgonesHooks hooks) {
  return std::make_unique<AgonesClientImpl>(options, std::move(hooks));
}

int AgonesPortFromEnvironment() {
  const char* env = std::getenv("AGONES_SDK_HTTP_PORT");
  int port = 0;
  if (env == nullptr || !absl::SimpleAtoi(env, &port) || port <= 0 || port > 65535) return 9358;
  return port;
}

}  // namespace atl::server
