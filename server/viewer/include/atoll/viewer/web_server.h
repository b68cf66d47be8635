// atoll::viewer — the HTTP side: serves the web viewer (server/web/, compiled
// in) and its JSON and Server-Sent-Events endpoints over a ViewerBackend.
//
//   GET /                          the page (?world=ID opens a world)
//   GET /viewer.js, /viewer.css    its script and style
//   GET /api/worlds                {"worlds": [WorldSummary, ...]}
//   GET /api/worlds/ID             one WorldSummary; 404 naming an unknown ID
//   GET /api/worlds/ID/frame       one draw frame (JSON)
//   GET /api/worlds/ID/stream      text/event-stream of "frame" events (draw
//                                  frames, newest state wins, at most 60/s),
//                                  ended by an "end" event; ?aabbs=1 adds the
//                                  AABB layer
// With a ReplayLibrary (the replay inspector, docs/viewer.md):
//   GET /api/recordings            {"recordings": [{"id", "source", "name",
//                                  "bytes"}, ...]}
//   POST /api/recordings?name=N    upload a .atrec (the body, at most
//                                  max_upload_bytes); {"id", ...} or 400
//   GET /api/recordings/ID         its ticks and checkpoints
//   GET /api/recordings/ID/frame?tick=T   the re-simulated draw frame at T
//   GET /api/recordings/ID/verify  text/event-stream: "progress" events,
//                                  then one "result" event
//
// Read-only: GET and HEAD only (405 otherwise) but for the upload, which
// keeps the recording in memory; 404 for any other path, request bodies
// refused elsewhere (413), at most `max_streams` streams at once (503 past
// that), each frame bounded (DrawFrameOptions::max_primitives).

#ifndef ATOLL_VIEWER_WEB_SERVER_H_
#define ATOLL_VIEWER_WEB_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/viewer/replay_library.h"
#include "atoll/viewer/viewer_backend.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace atl::viewer {

/// Binds `server` to `host`:`port`, a free port when `port` is 0; returns
/// the port bound, or 0 when it cannot bind.
int BindHttpServer(httplib::Server* server, const std::string& host, int port);

/// Splits "HOST:PORT" (HOST may be a bracketed IPv6 literal); PORT 0..65535.
/// InvalidArgument naming `flag` and the value otherwise.
absl::Status ParseHostPort(const std::string& value, const std::string& flag,
                           std::string* host, int* port);

struct WebServerOptions {
  /// "HOST:PORT"; port 0 picks a free one.
  std::string listen = "127.0.0.1:8080";
  /// Event streams served at once at most.
  int max_streams = 16;
  /// Shown in the page's title bar ("atoll-server", "atoll view").
  std::string title = "Atoll";
  /// The replay inspector's recordings (must outlive the server); null
  /// serves no /api/recordings routes.
  ReplayLibrary* replays = nullptr;
};

class WebServer {
 public:
  /// Binds options.listen and serves `backend` (which must outlive the
  /// server) from its own threads. InvalidArgument for a malformed address,
  /// Unavailable when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<WebServer>> Start(const WebServerOptions& options,
                                                          ViewerBackend* backend);
  /// Stops (see Stop).
  virtual ~WebServer() = default;

  /// "HOST:PORT" actually bound.
  virtual const std::string& address() const = 0;
  /// "http://HOST:PORT/".
  virtual std::string url() const = 0;
  /// Ends every stream (within a quarter second), stops listening and joins
  /// the threads. Idempotent.
  virtual void Stop() = 0;
};

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_WEB_SERVER_H_
