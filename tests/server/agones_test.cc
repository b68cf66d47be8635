// atoll-server --agones against a fake Agones SDK gateway in the test: an
// httplib::Server on a free loopback port that records every request and
// answers as the REST API of the Agones 1.38 SDK gateway documents
// (https://agones.dev/site/docs/guides/client-sdks/rest/): `{}` for POST
// /ready, /health, /shutdown and PUT /metadata/label, /metadata/annotation;
// the GameServer for GET /gameserver; and for GET /watch/gameserver a stream
// of JSON lines {"result": GameServer} the test writes (object_meta and
// status in grpc-gateway's snake_case JSON, as the SDK server emits them).
//
// The real binary (Ready once, health pings, labels with world counts, a
// world from the atoll.dev/scene annotation of an Allocated GameServer,
// /shutdown when the last world ends, a gateway that is down), and in
// process the scheduler's heartbeat and the client's health pings: a
// stalled tick thread stops them. Waits are generous; speed is never
// asserted.

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "agones_client.h"
#include "atoll/client/connection.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "tick_scheduler.h"

namespace atl::testing {
namespace {

struct Request {
  std::string method;
  std::string path;
  std::string body;
};

// A GameServer as the SDK gateway writes it (Agones 1.38 sdk.proto
// GameServer through grpc-gateway: snake_case field names).
std::string GameServerJson(const std::string& state,
                           const std::map<std::string, std::string>& annotations) {
  std::string notes;
  for (const auto& [key, value] : annotations) {
    if (!notes.empty()) notes += ",";
    // Test values contain no characters that need escaping but quotes.
    std::string escaped;
    for (char c : value) {
      if (c == '"' || c == '\\') escaped += '\\';
      escaped += c;
    }
    absl::StrAppend(&notes, "\"", key, "\":\"", escaped, "\"");
  }
  return absl::StrCat(
      R"({"object_meta":{"name":"atoll-xyz","namespace":"default","uid":"1234",)",
      R"("resource_version":"v1","generation":"1","creation_timestamp":"1533766607",)",
      R"("annotations":{)", notes, R"(},"labels":{}},)", R"("status":{"state":")", state,
      R"(","address":"127.0.0.1","ports":[{"name":"grpc","port":7777}]}})");
}

class FakeAgonesGateway {
 public:
  FakeAgonesGateway() {
    lines_.push_back(GameServerJson("Scheduled", {}));
    auto empty = [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      if (Down()) {
        res.status = 503;
        return;
      }
      res.set_content("{}", "application/json");
    };
    server_.Post("/ready", empty);
    server_.Post("/health", empty);
    server_.Post("/shutdown", empty);
    server_.Put("/metadata/label", empty);
    server_.Put("/metadata/annotation", empty);
    server_.Get("/gameserver", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      if (Down()) {
        res.status = 503;
        return;
      }
      std::lock_guard<std::mutex> lock(mu_);
      res.set_content(lines_.back(), "application/json");
    });
    server_.Get("/watch/gameserver", [this](const httplib::Request& req, httplib::Response& res) {
      Record(req);
      if (Down()) {
        res.status = 503;
        return;
      }
      auto next = std::make_shared<size_t>(0);
      int epoch;
      {
        std::lock_guard<std::mutex> lock(mu_);
        epoch = epoch_;
      }
      res.set_chunked_content_provider(
          "application/json", [this, next, epoch](size_t, httplib::DataSink& sink) {
            std::unique_lock<std::mutex> lock(mu_);
            changed_.wait_for(lock, std::chrono::milliseconds(100),
                              [&] { return stop_ || *next < lines_.size(); });
            if (stop_) return false;
            // Black-holed: open, and silent for good.
            if (epoch != epoch_) return true;
            while (*next < lines_.size()) {
              const std::string line = absl::StrCat(R"({"result":)", lines_[(*next)++], "}\n");
              if (!sink.write(line.data(), line.size())) return false;
            }
            return sink.is_writable();
          });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }

  ~FakeAgonesGateway() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
      changed_.notify_all();
    }
    server_.stop();
    thread_.join();
  }

  int port() const { return port_; }

  /// The gateway restarts behind a network that drops its old connections
  /// without a word: every watch open now stays open and never hears
  /// again, and every request is answered 503 until Restore().
  void BlackHole() {
    std::lock_guard<std::mutex> lock(mu_);
    down_ = true;
    ++epoch_;
    changed_.notify_all();
  }
  void Restore() {
    std::lock_guard<std::mutex> lock(mu_);
    down_ = false;
  }

  /// Every watcher receives this GameServer next.
  void SetGameServer(const std::string& state,
                     const std::map<std::string, std::string>& annotations) {
    std::lock_guard<std::mutex> lock(mu_);
    lines_.push_back(GameServerJson(state, annotations));
    changed_.notify_all();
  }

  std::vector<Request> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

  int Count(const std::string& method, const std::string& path) {
    int n = 0;
    for (const Request& r : Requests()) n += r.method == method && r.path == path;
    return n;
  }

  // The value of the last label `key` set.
  std::string Label(const std::string& key) {
    std::string value;
    const std::string prefix = absl::StrCat(R"({"key":")", key, R"(","value":")");
    for (const Request& r : Requests()) {
      if (r.path == "/metadata/label" && absl::StartsWith(r.body, prefix)) {
        value = r.body.substr(prefix.size(), r.body.size() - prefix.size() - 2);
      }
    }
    return value;
  }

 private:
  void Record(const httplib::Request& req) {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back({req.method, req.path, req.body});
  }
  bool Down() {
    std::lock_guard<std::mutex> lock(mu_);
    return down_;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mu_;
  std::condition_variable changed_;
  bool stop_ = false;
  bool down_ = false;
  int epoch_ = 0;  // watches opened before the last BlackHole() hear nothing
  std::vector<std::string> lines_;
  std::vector<Request> requests_;
};

// A TCP socket bound to a free loopback port (listening with `listen`);
// returns its descriptor, -1 on failure, and the port in *port.
int BindLoopback(bool listen_on_it, int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (listen_on_it && listen(fd, 64) != 0) ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

// Polls `done` every 20 ms for up to `limit` (the limit only ends a hung
// test; it asserts nothing about speed).
bool WaitFor(const std::function<bool()>& done, absl::Duration limit = absl::Seconds(30)) {
  const absl::Time deadline = absl::Now() + limit;
  while (absl::Now() < deadline) {
    if (done()) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return done();
}

std::vector<std::string> ListWorldIds(const std::string& address) {
  auto stub = v1::WorldService::NewStub(client::MakeChannel(address));
  grpc::ClientContext context;
  v1::ListWorldsResponse response;
  const grpc::Status s = stub->ListWorlds(&context, v1::ListWorldsRequest(), &response);
  EXPECT_TRUE(s.ok()) << s.error_message();
  std::vector<std::string> ids;
  for (const v1::WorldInfo& w : response.worlds()) ids.push_back(w.world_id());
  return ids;
}

// Creates duel world `id` and waits until it has stepped more than `ticks`
// ticks; returns its tick when created.
uint64_t CreateTickingDuel(const std::string& address, const std::string& id, uint64_t ticks) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  *request.mutable_scene() = DuelScene();
  request.mutable_config()->set_player_slots(2);
  CreateWorld(address, request);
  const uint64_t first = GetWorld(address, id).tick();
  EXPECT_TRUE(WaitFor([&] { return GetWorld(address, id).tick() > first + ticks; })) << id;
  return first;
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// The child inherits the test's environment (ServerProcess uses execv).
std::unique_ptr<ServerProcess> StartWithGateway(int port, const std::vector<std::string>& args) {
  setenv("AGONES_SDK_HTTP_PORT", std::to_string(port).c_str(), 1);
  auto server = ServerProcess::Start(args);
  unsetenv("AGONES_SDK_HTTP_PORT");
  EXPECT_TRUE(server.ok()) << server.status();
  return server.ok() ? *std::move(server) : nullptr;
}

TEST(AgonesServerTest, ReadyHealthLabelsAllocationAndShutdownWhenEmpty) {
  FakeAgonesGateway gateway;
  auto server = StartWithGateway(
      gateway.port(), {"--agones", "--agones_health_period=200ms", "--agones_shutdown_when_empty"});
  ASSERT_NE(server, nullptr);
  const std::string address = server->address();

  ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/ready") == 1; })) << server->Output();
  ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/health") >= 2; })) << server->Output();
  ASSERT_TRUE(WaitFor([&] { return gateway.Label("atoll-worlds") == "0"; })) << server->Output();
  EXPECT_EQ(gateway.Label("atoll-players"), "0");

  // A world created over gRPC shows in the labels.
  v1::CreateWorldRequest request;
  request.set_world_id("lobby");
  *request.mutable_scene() = DuelScene();
  request.mutable_config()->set_player_slots(2);
  CreateWorld(address, request);
  ASSERT_TRUE(WaitFor([&] { return gateway.Label("atoll-worlds") == "1"; })) << server->Output();

  // Allocated with a scene annotation: the server creates the match's world.
  gateway.SetGameServer("Allocated",
                        {{"atoll.dev/scene", "pyramid"}, {"atoll.dev/world", "duel-7"}});
  ASSERT_TRUE(WaitFor([&] {
    const std::vector<std::string> ids = ListWorldIds(address);
    return std::find(ids.begin(), ids.end(), "duel-7") != ids.end();
  })) << server->Output();
  ASSERT_TRUE(WaitFor([&] { return gateway.Label("atoll-worlds") == "2"; })) << server->Output();

  // One world left: no shutdown yet.
  DestroyWorld(address, "lobby");
  ASSERT_TRUE(WaitFor([&] { return gateway.Label("atoll-worlds") == "1"; })) << server->Output();
  EXPECT_EQ(gateway.Count("POST", "/shutdown"), 0);

  // The last world of the allocated server ends: /shutdown, once.
  DestroyWorld(address, "duel-7");
  ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/shutdown") == 1; })) << server->Output();
  EXPECT_EQ(gateway.Count("POST", "/ready"), 1);
  EXPECT_GE(gateway.Count("GET", "/watch/gameserver"), 1);
  for (const Request& r : gateway.Requests()) {
    if (r.method == "POST") {
      EXPECT_EQ(r.body, "{}") << r.path;
    }
  }
  const std::string output = server->Output();
  EXPECT_THAT(output, ::testing::HasSubstr("Allocated"));
  EXPECT_THAT(output, ::testing::HasSubstr("marked Ready"));
}

TEST(AgonesServerTest, AllocatedWithSceneSpecJsonAnnotation) {
  FakeAgonesGateway gateway;
  auto server = StartWithGateway(gateway.port(), {"--agones", "--agones_health_period=200ms"});
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/ready") == 1; })) << server->Output();
  // No atoll.dev/world: the world is "match".
  gateway.SetGameServer("Allocated",
                        {{"atoll.dev/scene", R"({"builtin": {"name": "pyramid", "size": 3}})"}});
  ASSERT_TRUE(WaitFor([&] {
    const std::vector<std::string> ids = ListWorldIds(server->address());
    return std::find(ids.begin(), ids.end(), "match") != ids.end();
  })) << server->Output();
}

TEST(AgonesServerTest, GatewayDownServerKeepsTickingAndLogsOnce) {
  // A port nothing listens on: bound, then closed.
  int port = 0;
  const int bound = BindLoopback(/*listen_on_it=*/false, &port);
  ASSERT_GE(bound, 0);
  close(bound);
  auto server = StartWithGateway(port, {"--agones", "--agones_health_period=100ms"});
  ASSERT_NE(server, nullptr);
  const uint64_t first = CreateTickingDuel(server->address(), "alone", 30);
  ASSERT_FALSE(::testing::Test::HasFailure());
  // Several retries have failed by now (0.5 s, 1 s, 2 s, ...).
  absl::SleepFor(absl::Seconds(4));
  EXPECT_GT(GetWorld(server->address(), "alone").tick(), first + 30);
  std::string output;
  ASSERT_TRUE(WaitFor([&] {
    output = server->Output();
    return absl::StrContains(output, "unreachable");
  })) << output;
  EXPECT_EQ(CountOccurrences(output, "unreachable"), 1) << output;
  EXPECT_EQ(CountOccurrences(output, "GET /watch/gameserver"), 1) << output;
}

// The watch hangs on a connection nobody will write to again (the gateway
// restarted behind a network that dropped the old connection silently):
// once the gateway answers again the server watches anew, so an allocation
// after the restart still creates the match's world. Waiting out the
// watch's read timeout (a day) would miss it.
TEST(AgonesServerTest, WatchStartsAnewWhenTheGatewayComesBack) {
  FakeAgonesGateway gateway;
  auto server = StartWithGateway(gateway.port(), {"--agones", "--agones_health_period=100ms"});
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/ready") == 1; })) << server->Output();
  ASSERT_EQ(gateway.Count("GET", "/watch/gameserver"), 1);
  gateway.BlackHole();
  ASSERT_TRUE(WaitFor([&] { return absl::StrContains(server->Output(), "unreachable"); }))
      << server->Output();
  // The hung watch asks nothing while the gateway is away.
  EXPECT_EQ(gateway.Count("GET", "/watch/gameserver"), 1) << server->Output();
  gateway.Restore();
  ASSERT_TRUE(WaitFor([&] { return gateway.Count("GET", "/watch/gameserver") >= 2; }))
      << server->Output();
  gateway.SetGameServer("Allocated",
                        {{"atoll.dev/scene", "pyramid"}, {"atoll.dev/world", "after-restart"}});
  ASSERT_TRUE(WaitFor([&] {
    const std::vector<std::string> ids = ListWorldIds(server->address());
    return std::find(ids.begin(), ids.end(), "after-restart") != ids.end();
  })) << server->Output();
  EXPECT_EQ(CountOccurrences(server->Output(), "watching the GameServer anew"), 1)
      << server->Output();
}

TEST(AgonesServerTest, SlowGatewayNeverDelaysTicks) {
  // A gateway that accepts connections (the kernel's backlog) but never
  // answers: every request runs into its timeout.
  int port = 0;
  const int fd = BindLoopback(/*listen_on_it=*/true, &port);
  ASSERT_GE(fd, 0);
  auto server = StartWithGateway(port, {"--agones", "--agones_health_period=100ms"});
  ASSERT_NE(server, nullptr);
  CreateTickingDuel(server->address(), "patient", 60);
  ASSERT_FALSE(::testing::Test::HasFailure());
  std::string output;
  ASSERT_TRUE(WaitFor([&] {
    output = server->Output();
    return absl::StrContains(output, "unreachable");
  })) << output;
  absl::SleepFor(absl::Seconds(3));
  output = server->Output();
  EXPECT_EQ(CountOccurrences(output, "unreachable"), 1) << output;
  EXPECT_EQ(server->StopWith(SIGTERM), 0) << server->Output();
  close(fd);
}

TEST(AgonesServerTest, RefusesANonPositiveHealthPeriodByName) {
  std::string output;
  const int code = RunCommand(
      {BinaryPath("atoll-server"), "--listen=127.0.0.1:0", "--agones", "--agones_health_period=0s"},
      &output);
  EXPECT_NE(code, 0);
  EXPECT_THAT(output, ::testing::HasSubstr("agones_health_period"));
}

// In process: the scheduler's heartbeat drives the client's health pings.
TEST(AgonesHealthTest, StalledTickThreadStopsHealthPingsUntilItResumes) {
  FakeAgonesGateway gateway;
  // Two tick threads: one stalled thread is enough to stop the pings.
  server::TickScheduler scheduler(2);
  server::AgonesOptions options;
  options.host = "127.0.0.1";
  options.port = gateway.port();
  options.health_period = absl::Milliseconds(100);
  server::AgonesHooks hooks;
  hooks.heartbeat = [&] { return scheduler.heartbeat(); };
  hooks.counts = [](uint32_t* worlds, uint32_t* players) {
    *worlds = 0;
    *players = 0;
  };
  hooks.create_world = [](const std::string&, const std::string&) { return absl::OkStatus(); };
  absl::Mutex gate;
  std::atomic<bool> stalled{false};
  {
    auto client = server::AgonesClient::Start(options, hooks);
    client->MarkReady();
    // An idle scheduler beats too: pings arrive with no world at all.
    ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/health") >= 3; }));

    // Stall one tick thread (the first to reach the hook blocks at the top
    // of its loop); the other runs on.
    gate.Lock();
    scheduler.SetIterationHookForTesting([&] {
      if (!stalled.exchange(true)) {
        absl::MutexLock wait(&gate);  // until the test opens the gate
      }
    });
    ASSERT_TRUE(WaitFor([&] { return stalled.load(); }));
    const int at_stall = gateway.Count("POST", "/health");
    // Within 2 health periods the pings stop: at most the one in flight and
    // the one for a beat just before the stall come after.
    absl::SleepFor(absl::Milliseconds(500));
    const int settled = gateway.Count("POST", "/health");
    EXPECT_LE(settled - at_stall, 2);
    absl::SleepFor(absl::Seconds(1));
    EXPECT_EQ(gateway.Count("POST", "/health"), settled);

    // The thread runs again: so do the pings.
    scheduler.SetIterationHookForTesting(nullptr);
    gate.Unlock();
    ASSERT_TRUE(WaitFor([&] { return gateway.Count("POST", "/health") > settled + 2; }));
  }
  EXPECT_EQ(gateway.Count("POST", "/ready"), 1);
}

TEST(AgonesHealthTest, IdleSchedulerBeats) {
  server::TickScheduler scheduler(2);
  const uint64_t first = scheduler.heartbeat();
  ASSERT_TRUE(WaitFor([&] { return scheduler.heartbeat() > first + 4; }));
}

}  // namespace
}  // namespace atl::testing
