// Test support: a client of the web viewer's HTTP endpoints (atoll-server
// --http_listen, atoll view): plain GETs, Server-Sent Events and JSON.

#ifndef ATOLL_TESTS_SUPPORT_VIEWER_CLIENT_H_
#define ATOLL_TESTS_SUPPORT_VIEWER_CLIENT_H_

#include <google/protobuf/struct.pb.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace atl::testing {

/// One response.
struct HttpReply {
  int status = 0;
  std::string content_type;
  std::string body;
};

/// `method` (GET, HEAD, POST, ...) of `path` at `address` ("HOST:PORT" or
/// "http://HOST:PORT/"). Unavailable when nothing answers.
absl::StatusOr<HttpReply> HttpRequest(const std::string& address, const std::string& method,
                                      const std::string& path);

/// POSTs `body` as `content_type` to `path` at `address`. Unavailable when
/// nothing answers.
absl::StatusOr<HttpReply> HttpPost(const std::string& address, const std::string& path,
                                   const std::string& body, const std::string& content_type);

/// One Server-Sent Event.
struct StreamEvent {
  std::string event;  // "message" when unnamed
  std::string data;
};

/// Reads the event stream at `path` until `count` events have come (or an
/// "end" event, or `timeout`), then hangs up. Comments are skipped.
absl::StatusOr<std::vector<StreamEvent>> ReadEvents(const std::string& address,
                                                    const std::string& path, int count,
                                                    absl::Duration timeout);

/// JSON text as a protobuf Struct (numbers become doubles). InvalidArgument
/// when it is not JSON.
absl::StatusOr<google::protobuf::Struct> ParseJson(const std::string& text);

}  // namespace atl::testing

#endif  // ATOLL_TESTS_SUPPORT_VIEWER_CLIENT_H_
