// atoll::viewer — the web viewer's static files (server/web/), compiled into
// the binary by embed_web_assets.cmake, so that atoll-server and atoll view
// need no files beside them.

#ifndef ATOLL_VIEWER_WEB_ASSETS_H_
#define ATOLL_VIEWER_WEB_ASSETS_H_

#include <cstddef>
#include <string_view>

namespace atl::viewer {

struct WebAsset {
  /// "/index.html", "/viewer.js", ...
  std::string_view path;
  std::string_view content_type;
  std::string_view bytes;
};

/// The asset served at `path`, or nullptr.
const WebAsset* FindWebAsset(std::string_view path);

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_WEB_ASSETS_H_
