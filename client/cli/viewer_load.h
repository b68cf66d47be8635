// atoll CLI — web viewers as load: browsers following a world's live view
// (GET /api/worlds/ID/stream on atoll-server --http_listen), for the load
// test's --viewers.

#ifndef ATOLL_CLIENT_CLI_VIEWER_LOAD_H_
#define ATOLL_CLIENT_CLI_VIEWER_LOAD_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace atl::cli {

class ViewerLoad {
 public:
  /// Starts `count` viewers of `world_id`, each on its own connection and
  /// thread, reading the event stream at `origin` ("http://HOST:PORT") as
  /// a page would (every byte, nothing drawn).
  ViewerLoad(const std::string& origin, const std::string& world_id, int count);
  /// Hangs up every viewer.
  ~ViewerLoad();
  ViewerLoad(const ViewerLoad&) = delete;
  ViewerLoad& operator=(const ViewerLoad&) = delete;

  /// Frame events received so far, by all viewers.
  uint64_t frames() const { return frames_.load(); }
  /// Bytes received so far.
  uint64_t bytes() const { return bytes_.load(); }
  /// Viewers whose stream failed or ended before the hang-up.
  int failed() const { return failed_.load(); }

 private:
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> frames_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<int> failed_{0};
  std::vector<std::thread> threads_;
};

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_VIEWER_LOAD_H_
