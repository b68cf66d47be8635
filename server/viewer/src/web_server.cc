#include "atoll/viewer/web_server.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "json_writer.h"
#include "replay_inspector.h"
#include "web_assets.h"

namespace atl::viewer {
namespace {

// How often a stream wakes up to notice a stop or a client that left, and
// how long it may stay silent before it sends a comment (which is how a
// dead connection shows).
constexpr absl::Duration kStreamPoll = absl::Milliseconds(250);
constexpr absl::Duration kKeepAlive = absl::Seconds(5);
// Threads beyond the streams' own, for pages and the JSON endpoints.
constexpr int kSpareThreads = 4;
// Ticks a verification steps between two progress events.
constexpr int kVerifyTicksPerEvent = 250;
// The only route that takes a request body.
constexpr char kUploadPath[] = "/api/recordings";

int HttpStatusOf(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound: return 404;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange: return 400;
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kUnavailable: return 503;
    default: return 500;
  }
}

void SetError(httplib::Response& res, int code, std::string_view message) {
  res.status = code;
  JsonWriter out;
  out.BeginObject();
  out.Key("error");
  out.String(message);
  out.EndObject();
  res.set_content(absl::StrCat(out.str(), "\n"), "application/json");
}

void WriteSummary(const WorldSummary& w, JsonWriter* out) {
  out->BeginObject();
  out->Key("id");
  out->String(w.id);
  out->Key("kind");
  out->String(w.kind);
  out->Key("tick");
  out->Uint(w.tick);
  out->Key("hash");
  out->Hex64(w.state_hash);
  out->Key("tick_rate");
  out->Uint(w.tick_rate_hz);
  out->Key("bodies");
  out->Uint(w.bodies);
  out->Key("awake_bodies");
  out->Uint(w.awake_bodies);
  out->Key("sessions");
  out->Uint(w.sessions);
  out->Key("late_ticks");
  out->Uint(w.late_ticks);
  out->Key("max_lateness_us");
  out->Uint(w.max_lateness_us);
  out->Key("skipped_ticks");
  out->Uint(w.skipped_ticks);
  out->EndObject();
}

class WebServerImpl final : public WebServer {
 public:
  WebServerImpl(const WebServerOptions& options, ViewerBackend* backend)
      : options_(options), backend_(backend) {}

  ~WebServerImpl() override { Stop(); }

  absl::Status Start() {
    std::string host;
    int port = 0;
    if (absl::Status s = ParseHostPort(options_.listen, "http_listen", &host, &port); !s.ok()) {
      return s;
    }
    if (options_.max_streams < 1) {
      return absl::InvalidArgumentError("max_streams: must be at least 1");
    }
    const size_t threads = static_cast<size_t>(options_.max_streams + kSpareThreads);
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // Only the recording upload takes a body (bounded here); the pre-routing
    // handler refuses a body on any other route before it is read.
    server_.set_payload_max_length(
        options_.replays != nullptr ? options_.replays->options().max_upload_bytes : 1024);
    server_.set_read_timeout(5, 0);
    // A browser that stops reading ends its stream instead of holding a
    // thread for ever.
    server_.set_write_timeout(10, 0);
    const bool uploads = options_.replays != nullptr;
    server_.set_pre_routing_handler([uploads](const httplib::Request& req,
                                              httplib::Response& res) {
      const bool upload = uploads && req.method == "POST" && req.path == kUploadPath;
      if (!upload && req.method != "GET" && req.method != "HEAD") {
        res.set_header("Allow", "GET, HEAD");
        SetError(res, 405,
                 absl::StrCat("method ", req.method, " not allowed: the viewer is read-only"));
        return httplib::Server::HandlerResponse::Handled;
      }
      const bool has_body = req.has_header("Transfer-Encoding") ||
                            (req.has_header("Content-Length") &&
                             req.get_header_value("Content-Length") != "0");
      if (upload && absl::StartsWith(req.get_header_value("Content-Type"),
                                     "application/x-www-form-urlencoded")) {
        SetError(res, 415, "send the recording file as application/octet-stream");
        return httplib::Server::HandlerResponse::Handled;
      }
      if (!upload && has_body) {
        SetError(res, 413, "request bodies are refused: the viewer is read-only");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server_.Get("/api/worlds", [this](const httplib::Request&, httplib::Response& res) {
      JsonWriter out;
      out.BeginObject();
      out.Key("worlds");
      out.BeginArray();
      for (const WorldSummary& w : backend_->ListWorlds()) WriteSummary(w, &out);
      out.EndArray();
      out.EndObject();
      res.set_header("Cache-Control", "no-store");
      res.set_content(absl::StrCat(out.str(), "\n"), "application/json");
    });
    server_.Get(R"(/api/worlds/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) {
                  const std::string id = req.matches[1];
                  for (const WorldSummary& w : backend_->ListWorlds()) {
                    if (w.id != id) continue;
                    JsonWriter out;
                    WriteSummary(w, &out);
                    res.set_header("Cache-Control", "no-store");
                    res.set_content(absl::StrCat(out.str(), "\n"), "application/json");
                    return;
                  }
                  SetError(res, 404, absl::StrCat("world '", id, "' not found"));
                });
    server_.Get(R"(/api/worlds/([^/]+)/frame)",
                [this](const httplib::Request& req, httplib::Response& res) {
                  ServeOneFrame(req, res);
                });
    server_.Get(R"(/api/worlds/([^/]+)/stream)",
                [this](const httplib::Request& req, httplib::Response& res) {
                  ServeStream(req, res);
                });
    if (options_.replays != nullptr) AddReplayRoutes();
    server_.Get(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
      const WebAsset* asset = FindWebAsset(req.path);
      if (asset == nullptr) {
        SetError(res, 404, absl::StrCat("no such page: ", req.path));
        return;
      }
      res.set_content(std::string(asset->bytes), std::string(asset->content_type).c_str());
    });

    port = BindHttpServer(&server_, host, port);
    if (port == 0) {
      return absl::UnavailableError(
          absl::StrCat("http_listen: cannot listen on ", options_.listen));
    }
    address_ = absl::StrCat(host, ":", port);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // Stop() before the loop runs would not reach it: wait until it does.
    for (int i = 0; i < 1000 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return absl::OkStatus();
  }

  const std::string& address() const override { return address_; }
  std::string url() const override { return absl::StrCat("http://", address_, "/"); }

  void Stop() override {
    if (stopping_.exchange(true)) return;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void AddReplayRoutes() {
    ReplayLibrary* replays = options_.replays;
    server_.Get(kUploadPath, [replays](const httplib::Request&, httplib::Response& res) {
      JsonWriter out;
      out.BeginObject();
      out.Key("recordings");
      out.BeginArray();
      for (const RecordingEntry& r : replays->List()) {
        out.BeginObject();
        out.Key("id");
        out.String(r.id);
        out.Key("source");
        out.String(r.source);
        out.Key("name");
        out.String(r.name);
        out.Key("bytes");
        out.Uint(r.bytes);
        out.EndObject();
      }
      out.EndArray();
      out.EndObject();
      res.set_header("Cache-Control", "no-store");
      res.set_content(absl::StrCat(out.str(), "\n"), "application/json");
    });
    server_.Post(kUploadPath, [replays](const httplib::Request& req, httplib::Response& res) {
      std::string name = req.get_param_value("name");
      if (name.empty()) name = "upload";
      absl::StatusOr<std::string> id = replays->Upload(name, req.body);
      if (!id.ok()) {
        SetError(res, absl::IsResourceExhausted(id.status()) ? 413 : 400,
                 std::string(id.status().message()));
        return;
      }
      absl::StatusOr<std::shared_ptr<ReplayInspector>> inspector = replays->Open(*id, false);
      if (!inspector.ok()) {
        SetError(res, HttpStatusOf(inspector.status()), std::string(inspector.status().message()));
        return;
      }
      res.status = 201;
      res.set_content(absl::StrCat((*inspector)->SummaryJson(), "\n"), "application/json");
    });
    server_.Get(R"(/api/recordings/([^/]+))",
                [replays](const httplib::Request& req, httplib::Response& res) {
                  absl::StatusOr<std::shared_ptr<ReplayInspector>> inspector =
                      replays->Open(req.matches[1], /*reload=*/true);
                  if (!inspector.ok()) {
                    SetError(res, HttpStatusOf(inspector.status()),
                             std::string(inspector.status().message()));
                    return;
                  }
                  res.set_header("Cache-Control", "no-store");
                  res.set_content(absl::StrCat((*inspector)->SummaryJson(), "\n"),
                                  "application/json");
                });
    server_.Get(R"(/api/recordings/([^/]+)/frame)",
                [replays](const httplib::Request& req, httplib::Response& res) {
                  absl::StatusOr<std::shared_ptr<ReplayInspector>> inspector =
                      replays->Open(req.matches[1], /*reload=*/false);
                  if (!inspector.ok()) {
                    SetError(res, HttpStatusOf(inspector.status()),
                             std::string(inspector.status().message()));
                    return;
                  }
                  uint64_t tick = 0;
                  if (!absl::SimpleAtoi(req.get_param_value("tick"), &tick)) {
                    SetError(res, 400, "tick: want ?tick=T, a tick of the recording");
                    return;
                  }
                  DrawFrameOptions options;
                  options.aabbs = req.get_param_value("aabbs") == "1";
                  absl::StatusOr<std::string> frame = (*inspector)->FrameAt(tick, options);
                  if (!frame.ok()) {
                    SetError(res, HttpStatusOf(frame.status()),
                             std::string(frame.status().message()));
                    return;
                  }
                  res.set_header("Cache-Control", "no-store");
                  res.set_content(absl::StrCat(*frame, "\n"), "application/json");
                });
    server_.Get(R"(/api/recordings/([^/]+)/verify)",
                [this](const httplib::Request& req, httplib::Response& res) {
                  ServeVerification(req, res);
                });
  }

  // Verification as an event stream: a "progress" event every few hundred
  // ticks, then the "result" (ReplayInspector::Verification::ResultJson).
  void ServeVerification(const httplib::Request& req, httplib::Response& res) {
    absl::StatusOr<std::shared_ptr<ReplayInspector>> inspector =
        options_.replays->Open(req.matches[1], /*reload=*/false);
    if (!inspector.ok()) {
      SetError(res, HttpStatusOf(inspector.status()), std::string(inspector.status().message()));
      return;
    }
    absl::StatusOr<std::unique_ptr<ReplayInspector::Verification>> made = (*inspector)->Verify();
    if (!made.ok()) {
      SetError(res, HttpStatusOf(made.status()), std::string(made.status().message()));
      return;
    }
    if (streams_.fetch_add(1) >= options_.max_streams) {
      streams_.fetch_sub(1);
      SetError(res, 503,
               absl::StrCat("too many viewers (", options_.max_streams, " streams at most)"));
      return;
    }
    std::shared_ptr<ReplayInspector::Verification> run = *std::move(made);
    std::shared_ptr<ReplayInspector> keep = *std::move(inspector);
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, run, keep](size_t /*offset*/, httplib::DataSink& sink) {
          if (stopping_.load()) {
            sink.done();
            return true;
          }
          std::string event;
          absl::Status advanced = run->Advance(kVerifyTicksPerEvent);
          absl::StatusOr<std::string> result =
              advanced.ok() && run->done() ? run->ResultJson() : absl::StatusOr<std::string>("");
          if (!advanced.ok() || !result.ok()) {
            JsonWriter out;
            out.BeginObject();
            out.Key("message");
            out.String(std::string((advanced.ok() ? result.status() : advanced).message()));
            out.EndObject();
            event = absl::StrCat("event: end\ndata: ", out.str(), "\n\n");
          } else if (run->done()) {
            event = absl::StrCat("event: result\ndata: ", *result, "\n\n");
          } else {
            JsonWriter out;
            out.BeginObject();
            out.Key("ticks_verified");
            out.Uint(run->ticks_verified());
            out.Key("total_ticks");
            out.Uint(run->total_ticks());
            out.EndObject();
            event = absl::StrCat("event: progress\ndata: ", out.str(), "\n\n");
            return sink.write(event.data(), event.size());
          }
          const bool written = sink.write(event.data(), event.size());
          sink.done();
          return written;
        },
        [this, run, keep](bool /*success*/) mutable {
          run.reset();
          keep.reset();
          streams_.fetch_sub(1);
        });
  }

  FeedOptions FeedOptionsOf(const httplib::Request& req) const {
    FeedOptions options;
    options.aabbs = req.get_param_value("aabbs") == "1";
    return options;
  }

  void ServeOneFrame(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    absl::StatusOr<std::unique_ptr<WorldFeed>> feed = backend_->Follow(id, FeedOptionsOf(req));
    if (!feed.ok()) {
      SetError(res, HttpStatusOf(feed.status()), std::string(feed.status().message()));
      return;
    }
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    while (!stopping_.load() && absl::Now() < deadline) {
      absl::StatusOr<std::optional<std::string>> frame = (*feed)->Next(kStreamPoll);
      if (!frame.ok()) {
        SetError(res, HttpStatusOf(frame.status()), std::string(frame.status().message()));
        return;
      }
      if (frame->has_value()) {
        res.set_header("Cache-Control", "no-store");
        res.set_content(absl::StrCat(**frame, "\n"), "application/json");
        return;
      }
    }
    SetError(res, 503, absl::StrCat("no frame of world '", id, "' within 5 s"));
  }

  void ServeStream(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    if (streams_.fetch_add(1) >= options_.max_streams) {
      streams_.fetch_sub(1);
      SetError(res, 503,
               absl::StrCat("too many viewers (", options_.max_streams, " streams at most)"));
      return;
    }
    absl::StatusOr<std::unique_ptr<WorldFeed>> made = backend_->Follow(id, FeedOptionsOf(req));
    if (!made.ok()) {
      streams_.fetch_sub(1);
      SetError(res, HttpStatusOf(made.status()), std::string(made.status().message()));
      return;
    }
    std::shared_ptr<WorldFeed> feed = *std::move(made);
    auto last_write = std::make_shared<absl::Time>(absl::Now());
    res.set_header("Cache-Control", "no-store");
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, feed, last_write](size_t /*offset*/, httplib::DataSink& sink) {
          if (stopping_.load()) {
            sink.done();
            return true;
          }
          absl::StatusOr<std::optional<std::string>> frame = feed->Next(kStreamPoll);
          std::string event;
          if (!frame.ok()) {
            JsonWriter out;
            out.BeginObject();
            out.Key("message");
            out.String(std::string(frame.status().message()));
            out.EndObject();
            event = absl::StrCat("event: end\ndata: ", out.str(), "\n\n");
            const bool written = sink.write(event.data(), event.size());
            sink.done();
            return written;
          }
          if (frame->has_value()) {
            event = absl::StrCat("event: frame\ndata: ", **frame, "\n\n");
          } else if (absl::Now() - *last_write >= kKeepAlive) {
            event = ": keep-alive\n\n";
          } else {
            return true;
          }
          *last_write = absl::Now();
          return sink.write(event.data(), event.size());
        },
        // Called once the response is over (or never started): the feed
        // leaves its world with the last reference.
        [this, feed](bool /*success*/) mutable {
          feed.reset();
          streams_.fetch_sub(1);
        });
  }

  const WebServerOptions options_;
  ViewerBackend* const backend_;
  httplib::Server server_;
  std::thread thread_;
  std::string address_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> streams_{0};
};

}  // namespace

int BindHttpServer(httplib::Server* server, const std::string& host, int port) {
  if (port == 0) return std::max(0, server->bind_to_any_port(host));
  return server->bind_to_port(host, port) ? port : 0;
}

absl::Status ParseHostPort(const std::string& value, const std::string& flag,
                           std::string* host, int* port) {
  const size_t colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == value.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": want HOST:PORT, got '", value, "'"));
  }
  *host = value.substr(0, colon);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  if (!absl::SimpleAtoi(value.substr(colon + 1), port) || *port < 0 || *port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": port must be 0..65535, got '",
                                                   value.substr(colon + 1), "'"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<WebServer>> WebServer::Start(const WebServerOptions& options,
                                                            ViewerBackend* backend) {
  auto server = std::make_unique<WebServerImpl>(options, backend);
  if (absl::Status s = server->Start(); !s.ok()) return s;
  return server;
}

}  // namespace atl::viewer
