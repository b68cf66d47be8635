#include "client/cli/viewer_load.h"

#include <httplib.h>

#include <chrono>
#include <cstring>

namespace atl::cli {

ViewerLoad::ViewerLoad(const std::string& origin, const std::string& world_id, int count) {
  const std::string path = "/api/worlds/" + world_id + "/stream";
  for (int i = 0; i < count; ++i) {
    threads_.emplace_back([this, origin, path] {
      httplib::Client http(origin);
      http.set_connection_timeout(std::chrono::seconds(5));
      http.set_read_timeout(std::chrono::seconds(5));
      constexpr char kFrame[] = "event: frame";
      // The tail of the previous chunk, so that a marker split between two
      // chunks is still counted.
      std::string carry;
      httplib::Result result =
          http.Get(path, [&](const char* data, size_t length) {
            bytes_ += length;
            std::string text = carry + std::string(data, length);
            for (size_t at = text.find(kFrame); at != std::string::npos;
                 at = text.find(kFrame, at + 1)) {
              ++frames_;
            }
            const size_t keep = std::min(text.size(), std::strlen(kFrame) - 1);
            carry = text.substr(text.size() - keep);
            return !stop_.load();
          });
      // A hang-up by the receiver ends the call with Canceled: expected.
      if (!stop_.load() && (!result || result->status != 200)) ++failed_;
    });
  }
}

ViewerLoad::~ViewerLoad() {
  stop_ = true;
  for (std::thread& t : threads_) t.join();
}

}  // namespace atl::cli
