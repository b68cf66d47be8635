#include "atoll/client/recording_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "atoll/sim/recording_format.h"

namespace atl::client {

absl::Status WriteRecordingFile(const std::string& path, const v1::Recording& recording) {
  const std::string bytes = sim::EncodeRecording(recording);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return absl::InternalError(absl::StrCat(path, ": ", std::strerror(errno)));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::close(fd);
      return absl::InternalError(absl::StrCat(path, ": ", std::strerror(err)));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return absl::InternalError(absl::StrCat(path, ": ", std::strerror(errno)));
  return absl::OkStatus();
}

}  // namespace atl::client
