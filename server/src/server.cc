#include "atoll/server/server.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "agones_client.h"
#include "atoll/viewer/replay_library.h"
#include "atoll/viewer/web_server.h"
#include "batch_service.h"
#include "info_service.h"
#include "metrics_http.h"
#include "metrics_text.h"
#include "query_service.h"
#include "registry_viewer_backend.h"
#include "replay_service.h"
#include "send_thread.h"
#include "server_metrics.h"
#include "sync_thread.h"
#include "session_service.h"
#include "worker_pool.h"
#include "world_registry.h"
#include "world_service.h"

namespace atl::server {
namespace {

// Splits "HOST:PORT" (HOST may be a bracketed IPv6 literal).
absl::Status ParseListenAddress(const std::string& listen, std::string* host,
                                int* port) {
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == listen.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen: want HOST:PORT, got '", listen, "'"));
  }
  *host = listen.substr(0, colon);
  if (!absl::SimpleAtoi(listen.substr(colon + 1), port) || *port < 0 ||
      *port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen: port must be 0..65535, got '",
                     listen.substr(colon + 1), "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadPemFile(const std::string& path, const char* flag) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream content;
  content << in.rdbuf();
  if (!in || content.str().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read '", path, "'"));
  }
  return content.str();
}

// Plaintext, or TLS when both PEM files are named.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeCredentials(
    const ServerOptions& options) {
  if (options.tls_cert_path.empty() && options.tls_key_path.empty()) {
    return grpc::InsecureServerCredentials();
  }
  if (options.tls_cert_path.empty() || options.tls_key_path.empty()) {
    return absl::InvalidArgumentError("tls_cert and tls_key: set both or neither");
  }
  absl::StatusOr<std::string> cert = ReadPemFile(options.tls_cert_path, "tls_cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPemFile(options.tls_key_path, "tls_key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back({*std::move(key), *std::move(cert)});
  return grpc::SslServerCredentials(ssl);
}

// How long unary calls still running at shutdown may take (within the grace).
constexpr absl::Duration kUnaryDrain = absl::Milliseconds(200);

class ServerImpl final : public Server {
 public:
  ServerImpl() : info_(absl::Now()) {}

  absl::Status Start(const ServerOptions& options) {
    std::string host;
    int port = 0;
    if (absl::Status s = ParseListenAddress(options.listen, &host, &port);
        !s.ok()) {
      return s;
    }
    // Both must be switched on before the builder is made: the builder reads
    // them when it is constructed.
    if (options.max_worlds == 0 || options.max_bodies_per_world == 0 ||
        options.max_message_bytes <= 0 || options.tick_threads <= 0 ||
        options.batch_threads <= 0 || options.outbox_capacity < 2 ||
        options.io_niceness < 0 || options.io_niceness > 19) {
      return absl::InvalidArgumentError(
          "max_worlds, max_bodies_per_world, max_message_bytes, tick_threads and "
          "batch_threads must be positive, outbox_capacity at least 2, io_niceness in 0..19");
    }
    if (options.tick_priority < 0 || options.tick_priority > 99) {
      return absl::InvalidArgumentError(
          absl::StrCat("tick_priority: must be 0..99, got ", options.tick_priority));
    }
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
        MakeCredentials(options);
    if (!credentials.ok()) return credentials.status();
    if (!options.http_listen.empty()) {
      std::string http_host;
      int http_port = 0;
      if (absl::Status s = viewer::ParseHostPort(options.http_listen, "http_listen", &http_host,
                                                 &http_port);
          !s.ok()) {
        return s;
      }
    }
    if (!options.metrics_listen.empty()) {
      std::string metrics_host;
      int metrics_port = 0;
      if (absl::Status s = viewer::ParseHostPort(options.metrics_listen, "metrics_listen",
                                                 &metrics_host, &metrics_port);
          !s.ok()) {
        return s;
      }
    }
    if (options.agones && options.agones_health_period <= absl::ZeroDuration()) {
      return absl::InvalidArgumentError("agones_health_period: must be positive");
    }
    RegistryOptions registry_options;
    registry_options.data_dir = options.data_dir;
    registry_options.max_worlds = options.max_worlds;
    registry_options.max_bodies_per_world = options.max_bodies_per_world;
    registry_options.tick_threads = options.tick_threads;
    registry_options.tick_priority = options.tick_priority;
    registry_options.host.outbox_capacity = options.outbox_capacity;
    registry_options.host.metrics = &metrics_;
    if (!options.data_dir.empty()) {
      sync_thread_ = std::make_unique<SyncThread>(metrics_.recording_sync_latency());
      registry_options.host.sync_thread = sync_thread_.get();
    }
    absl::StatusOr<std::unique_ptr<WorldRegistry>> registry =
        WorldRegistry::Create(registry_options);
    if (!registry.ok()) return registry.status();
    registry_ = *std::move(registry);
    recovery_log_ = registry_->RecoverAll();
    // The tick threads exist now; everything started from here on inherits
    // the lower priority (see ServerOptions::io_niceness).
    if (options.io_niceness > 0) {
      const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
      errno = 0;
      const int current = getpriority(PRIO_PROCESS, static_cast<id_t>(self));
      if (errno == 0) {
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(self),
                          std::min(19, current + options.io_niceness));
      }
    }
    send_thread_ = std::make_unique<SendThread>();
    pool_ = std::make_unique<WorkerPool>(options.batch_threads, 64);
    world_service_ = std::make_unique<WorldService>(registry_.get());
    session_service_ =
        std::make_unique<SessionService>(registry_.get(), send_thread_.get(), &metrics_);
    query_service_ = std::make_unique<QueryService>(registry_.get());
    replay_service_ = std::make_unique<ReplayService>(pool_.get());
    batch_service_ =
        std::make_unique<BatchService>(pool_.get(), options.max_bodies_per_world);

    grpc::EnableDefaultHealthCheckService(true);
    grpc::reflection::InitProtoReflectionServerBuilderPlugin();

    grpc::ServerBuilder builder;
    // gRPC turns on SO_REUSEPORT by default, which lets a second server bind
    // the same port and silently steal half the connections.
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    builder.SetMaxReceiveMessageSize(options.max_message_bytes);
    // Sessions are long-lived streams that can be idle between ticks of a
    // slow world: ping to notice dead peers and keep NATs open, and allow
    // clients to ping us as often as every 10 s.
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS,
                               static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_time)));
    builder.AddChannelArgument(
        GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
        static_cast<int>(absl::ToInt64Milliseconds(options.keepalive_timeout)));
    builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
    builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    int bound_port = 0;
    builder.AddListeningPort(options.listen, *credentials, &bound_port);
    builder.RegisterService(&info_);
    builder.RegisterService(world_service_.get());
    builder.RegisterService(session_service_.get());
    builder.RegisterService(query_service_.get());
    builder.RegisterService(replay_service_.get());
    builder.RegisterService(batch_service_.get());
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || bound_port == 0) {
      return absl::UnavailableError(
          absl::StrCat("cannot listen on ", options.listen));
    }
    address_ = absl::StrCat(host, ":", bound_port);
    if (!options.http_listen.empty()) {
      // Started here, after the niceness drop: its threads (and the viewers'
      // replicas they step) run below the tick threads.
      viewer_backend_ =
          std::make_unique<RegistryViewerBackend>(registry_.get(), options.outbox_capacity);
      viewer::WebServerOptions web;
      web.listen = options.http_listen;
      web.max_streams = options.http_max_streams;
      web.title = "atoll-server";
      // The replay inspector lists the recordings of <data_dir>/worlds
      // (WorldRegistry's layout) and takes uploads; with no data dir the
      // recordings live in memory and only uploads can be inspected.
      viewer::ReplayLibraryOptions replays;
      if (!options.data_dir.empty()) replays.dir = absl::StrCat(options.data_dir, "/worlds");
      replays_ = std::make_unique<viewer::ReplayLibrary>(std::move(replays));
      web.replays = replays_.get();
      absl::StatusOr<std::unique_ptr<viewer::WebServer>> started =
          viewer::WebServer::Start(web, viewer_backend_.get());
      if (!started.ok()) return started.status();
      web_server_ = *std::move(started);
    }
    if (!options.metrics_listen.empty()) {
      // Also after the niceness drop. A scrape reads atomics only
      // (server_metrics.h): it never waits for a tick, nor a tick for it.
      absl::StatusOr<std::unique_ptr<MetricsHttpServer>> started =
          MetricsHttpServer::Start(options.metrics_listen, [this] {
            MetricsTextWriter out;
            metrics_.Collect(registry_.get(), batch_service_.get(), &out);
            return out.text();
          });
      if (!started.ok()) return started.status();
      metrics_http_ = *std::move(started);
    }
    if (options.agones) {
      AgonesOptions agones;
      agones.port = options.agones_port > 0 ? options.agones_port : AgonesPortFromEnvironment();
      agones.health_period = options.agones_health_period;
      agones.shutdown_when_empty = options.agones_shutdown_when_empty;
      AgonesHooks hooks;
      hooks.heartbeat = [this] { return registry_->TickHeartbeat(); };
      hooks.counts = [this](uint32_t* worlds, uint32_t* players) {
        *worlds = 0;
        *players = 0;
        for (const std::shared_ptr<WorldHost>& host : registry_->List()) {
          if (host->stopped()) continue;
          ++*worlds;
          *players += host->gauges().players;
        }
      };
      hooks.create_world = [this](const std::string& world_id, const std::string& scene) {
        return CreateAgonesWorld(world_id, scene);
      };
      agones_ = AgonesClient::Start(agones, std::move(hooks));
      // The restored worlds are in the scheduler and gRPC serves: Ready.
      agones_->MarkReady();
    }
    return absl::OkStatus();
  }

  ~ServerImpl() override {
    Shutdown(absl::ZeroDuration());
    if (server_ != nullptr) server_->Wait();
  }

  const std::string& address() const override { return address_; }
  std::string http_url() const override {
    return web_server_ != nullptr ? web_server_->url() : std::string();
  }
  std::string metrics_url() const override {
    return metrics_http_ != nullptr ? metrics_http_->url() : std::string();
  }

  void Shutdown(absl::Duration grace) override {
    {
      absl::MutexLock lock(&mu_);
      if (shut_down_ || server_ == nullptr) return;
      shut_down_ = true;
    }
    const absl::Time deadline = absl::Now() + grace;
    // No more health pings nor worlds from allocations.
    agones_.reset();
    // Viewers first: their streams end and their spectator sessions leave.
    if (web_server_ != nullptr) web_server_->Stop();
    if (metrics_http_ != nullptr) metrics_http_->Stop();
    server_->GetHealthCheckService()->Shutdown();
    // Sessions first: their streams end (after their queued messages), and
    // recordings are synced, before gRPC cancels what is left.
    registry_->Shutdown();
    session_service_->Shutdown();
    // grpc::Server::Shutdown(deadline) waits not only for calls but for every
    // connection to close, and a client's idle connection (a player whose
    // stream just ended keeps its channel) closes only when the deadline
    // forces it: SIGTERM took the whole grace. So wait for the work this
    // server knows (session streams, batches and replays) within the grace,
    // then give gRPC a short deadline for unary calls in flight; past it
    // gRPC cancels the rest and drops the connections.
    session_service_->WaitForStreams(deadline);
    pool_->WaitIdle(deadline);
    const absl::Time cut = std::min(deadline, absl::Now() + kUnaryDrain);
    server_->Shutdown(absl::ToChronoTime(cut));
  }

  void Wait() override {
    if (server_ != nullptr) server_->Wait();
  }

  const std::vector<std::string>& recovery_log() const override { return recovery_log_; }

 private:
  // The world of an Agones allocation: `scene` is a built-in scene name or a
  // SceneSpec in protobuf's JSON mapping; the server's own CreateWorld path.
  absl::Status CreateAgonesWorld(const std::string& world_id, const std::string& scene) {
    v1::CreateWorldRequest request;
    request.set_world_id(world_id);
    const std::string text(absl::StripAsciiWhitespace(scene));
    if (!text.empty() && text.front() == '{') {
      const auto parsed =
          google::protobuf::util::JsonStringToMessage(text, request.mutable_scene());
      if (!parsed.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("atoll.dev/scene: not a SceneSpec: ", std::string(parsed.message())));
      }
    } else {
      request.mutable_scene()->mutable_builtin()->set_name(text);
    }
    return registry_->CreateWorld(request).status();
  }

  // Destroyed bottom-up: the gRPC server first, so no call still reaches a
  // service, the pool or the registry; the send thread last, after running
  // the writes and finishes still queued for the streams; then the sync
  // thread, after syncing the recordings still queued; the metrics that all
  // of them count into last of all.
  ServerMetrics metrics_;
  std::unique_ptr<SyncThread> sync_thread_;
  std::unique_ptr<SendThread> send_thread_;
  std::unique_ptr<WorldRegistry> registry_;
  std::unique_ptr<WorkerPool> pool_;
  std::vector<std::string> recovery_log_;
  InfoService info_;
  std::unique_ptr<WorldService> world_service_;
  std::unique_ptr<SessionService> session_service_;
  std::unique_ptr<QueryService> query_service_;
  std::unique_ptr<ReplayService> replay_service_;
  std::unique_ptr<BatchService> batch_service_;
  std::unique_ptr<grpc::Server> server_;
  // Destroyed first of all (it is declared last): no viewer reaches the
  // registry after.
  std::unique_ptr<viewer::ReplayLibrary> replays_;  // outlives web_server_
  std::unique_ptr<RegistryViewerBackend> viewer_backend_;
  std::unique_ptr<viewer::WebServer> web_server_;
  // Destroyed before everything a scrape reads (registry, batch service).
  std::unique_ptr<MetricsHttpServer> metrics_http_;
  // Destroyed before the registry its threads read and create worlds in.
  std::unique_ptr<AgonesClient> agones_;
  std::string address_;
  absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Create(
    const ServerOptions& options) {
  auto server = std::make_unique<ServerImpl>();
  if (absl::Status s = server->Start(options); !s.ok()) return s;
  return server;
}

}  // namespace atl::server
