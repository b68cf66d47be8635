#include "support/viewer_client.h"

#include <google/protobuf/util/json_util.h>
#include <httplib.h>

#include <chrono>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace atl::testing {
namespace {

std::string BaseUrl(const std::string& address) {
  std::string base = address;
  if (!absl::StartsWith(base, "http://")) base = absl::StrCat("http://", base);
  while (absl::EndsWith(base, "/")) base.pop_back();
  return base;
}

}  // namespace

absl::StatusOr<HttpReply> HttpRequest(const std::string& address, const std::string& method,
                                      const std::string& path) {
  httplib::Client client(BaseUrl(address));
  client.set_read_timeout(10, 0);
  if (method != "GET" && method != "HEAD" && method != "POST" && method != "PUT" &&
      method != "DELETE") {
    return absl::InvalidArgumentError(absl::StrCat("method ", method, " not supported here"));
  }
  httplib::Result result = method == "GET"    ? client.Get(path)
                           : method == "HEAD" ? client.Head(path)
                           : method == "POST" ? client.Post(path, "x", "text/plain")
                           : method == "PUT"  ? client.Put(path, "x", "text/plain")
                                              : client.Delete(path);
  if (!result) {
    return absl::UnavailableError(
        absl::StrCat(method, " ", path, ": ", httplib::to_string(result.error())));
  }
  HttpReply reply;
  reply.status = result->status;
  reply.content_type = result->get_header_value("Content-Type");
  reply.body = result->body;
  return reply;
}

absl::StatusOr<HttpReply> HttpPost(const std::string& address, const std::string& path,
                                   const std::string& body, const std::string& content_type) {
  httplib::Client client(BaseUrl(address));
  client.set_read_timeout(30, 0);
  httplib::Result result = client.Post(path, body, content_type);
  if (!result) {
    return absl::UnavailableError(
        absl::StrCat("POST ", path, ": ", httplib::to_string(result.error())));
  }
  HttpReply reply;
  reply.status = result->status;
  reply.content_type = result->get_header_value("Content-Type");
  reply.body = result->body;
  return reply;
}

absl::StatusOr<std::vector<StreamEvent>> ReadEvents(const std::string& address,
                                                    const std::string& path, int count,
                                                    absl::Duration timeout) {
  httplib::Client client(BaseUrl(address));
  client.set_read_timeout(absl::ToInt64Seconds(timeout) + 1, 0);
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(timeout);
  std::vector<StreamEvent> events;
  std::string buffer;
  bool ended = false;
  int status = 0;
  httplib::Result result = client.Get(
      path,
      [&](const httplib::Response& response) {
        status = response.status;
        return true;
      },
      [&](const char* data, size_t length) {
        buffer.append(data, length);
        size_t end;
        while ((end = buffer.find("\n\n")) != std::string::npos) {
          StreamEvent e;
          e.event = "message";
          const std::string block = buffer.substr(0, end);
          buffer.erase(0, end + 2);
          bool any = false;
          for (absl::string_view line : absl::StrSplit(block, '\n')) {
            if (absl::ConsumePrefix(&line, "event: ")) {
              e.event = std::string(line);
              any = true;
            } else if (absl::ConsumePrefix(&line, "data: ")) {
              absl::StrAppend(&e.data, line);
              any = true;
            }
          }
          if (!any) continue;  // a comment
          ended = e.event == "end";
          events.push_back(std::move(e));
          if (ended || static_cast<int>(events.size()) >= count) return false;
        }
        return std::chrono::steady_clock::now() < deadline;
      });
  if (status != 200 && status != 0) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": HTTP ", status));
  }
  if (events.empty() && !result) {
    return absl::UnavailableError(
        absl::StrCat(path, ": ", httplib::to_string(result.error())));
  }
  return events;
}

absl::StatusOr<google::protobuf::Struct> ParseJson(const std::string& text) {
  google::protobuf::Struct out;
  const auto status = google::protobuf::util::JsonStringToMessage(text, &out);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not JSON: ", std::string(status.message()), ": ", text.substr(0, 200)));
  }
  return out;
}

}  // namespace atl::testing
