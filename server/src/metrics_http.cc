#include "metrics_http.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "atoll/viewer/web_server.h"
#include "metrics_text.h"

namespace atl::server {
namespace {

constexpr char kPath[] = "/metrics";
// Scrapers are few (a Prometheus or two); a third waits for a thread.
constexpr size_t kThreads = 2;

void SetText(httplib::Response& res, int status, const std::string& text) {
  res.status = status;
  res.set_content(absl::StrCat(text, "\n"), "text/plain; charset=utf-8");
}

class MetricsHttpServerImpl final : public MetricsHttpServer {
 public:
  explicit MetricsHttpServerImpl(std::function<std::string()> render)
      : render_(std::move(render)) {}
  ~MetricsHttpServerImpl() override { Stop(); }

  absl::Status Start(const std::string& listen) {
    std::string host;
    int port = 0;
    if (absl::Status s = viewer::ParseHostPort(listen, "metrics_listen", &host, &port); !s.ok()) {
      return s;
    }
    server_.new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
    // httplib sets SO_REUSEPORT by default, which lets a second server bind
    // the same port and answer half the scrapes: SO_REUSEADDR alone (a
    // restart can still bind while old connections linger in TIME_WAIT).
    server_.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    });
    server_.set_payload_max_length(1024);
    server_.set_read_timeout(5, 0);
    server_.set_write_timeout(5, 0);
    server_.set_keep_alive_max_count(100);
    server_.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      if (req.path != kPath) {
        SetText(res, 404,
                absl::StrCat("no such page: ", req.path, " (metrics are at ", kPath, ")"));
        return httplib::Server::HandlerResponse::Handled;
      }
      if (req.method != "GET") {
        res.set_header("Allow", "GET");
        SetText(res, 405, absl::StrCat("method ", req.method, " not allowed: GET only"));
        return httplib::Server::HandlerResponse::Handled;
      }
      if (req.has_header("Transfer-Encoding") ||
          (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0")) {
        SetText(res, 413, "request bodies are refused");
        return httplib::Server::HandlerResponse::Handled;
      }
      return httplib::Server::HandlerResponse::Unhandled;
    });
    server_.Get(kPath, [this](const httplib::Request&, httplib::Response& res) {
      std::string text = render_();
      if (text.size() > kMaxMetricsResponseBytes) {
        SetText(res, 500, absl::StrCat("the metrics exceed ", kMaxMetricsResponseBytes, " bytes"));
        return;
      }
      res.set_header("Cache-Control", "no-store");
      res.set_content(std::move(text), kMetricsContentType);
    });

    port = viewer::BindHttpServer(&server_, host, port);
    if (port == 0) {
      return absl::UnavailableError(absl::StrCat("metrics_listen: cannot listen on ", listen));
    }
    address_ = host.find(':') != std::string::npos ? absl::StrCat("[", host, "]:", port)
                                                   : absl::StrCat(host, ":", port);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // Stop() before the loop runs would not reach it: wait until it does.
    for (int i = 0; i < 1000 && !server_.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return absl::OkStatus();
  }

  const std::string& address() const override { return address_; }
  std::string url() const override { return absl::StrCat("http://", address_, kPath); }

  void Stop() override {
    if (stopping_.exchange(true)) return;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  const std::function<std::string()> render_;
  httplib::Server server_;
  std::thread thread_;
  std::string address_;
  std::atomic<bool> stopping_{false};
};

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsHttpServer>> MetricsHttpServer::Start(
    const std::string& listen, std::function<std::string()> render) {
  auto server = std::make_unique<MetricsHttpServerImpl>(std::move(render));
  if (absl::Status s = server->Start(listen); !s.ok()) return s;
  return server;
}

}  // namespace atl::server
