// atoll::viewer — the recordings the replay inspector can open: the
// `.atrec` files of a directory (atoll-server's <data_dir>/worlds), ones
// added by the process (`atoll view FILE.atrec`) and ones uploaded from the
// page (kept in memory, never written anywhere).

#ifndef ATOLL_VIEWER_REPLAY_LIBRARY_H_
#define ATOLL_VIEWER_REPLAY_LIBRARY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "atoll/v1/recording.pb.h"

namespace atl::viewer {

class ReplayInspector;

struct ReplayLibraryOptions {
  /// Directory whose `*.atrec` files are listed; empty for none.
  std::string dir;
  /// Uploads refused above this size.
  size_t max_upload_bytes = 64u << 20;
  /// Uploads kept at most; the oldest is dropped for a new one.
  int max_uploads = 8;
};

/// One row of GET /api/recordings.
struct RecordingEntry {
  std::string id;
  /// "data dir", "file" (added by the process) or "upload".
  std::string source;
  /// The file name, or the uploaded file's name.
  std::string name;
  uint64_t bytes = 0;
};

class ReplayLibrary {
 public:
  explicit ReplayLibrary(ReplayLibraryOptions options) : options_(std::move(options)) {}
  ~ReplayLibrary();

  const ReplayLibraryOptions& options() const { return options_; }

  /// Adds a recording read by the process under `id`. InvalidArgument for a
  /// recording the inspector cannot open (ReplayInspector::Create).
  absl::Status Add(const std::string& id, const std::string& name, v1::Recording recording);

  /// Parses uploaded recording file bytes and keeps them under a new id
  /// ("upload-N"), returned. InvalidArgument with a clear message for
  /// anything that is not a whole Atoll recording; ResourceExhausted above
  /// max_upload_bytes. Nothing is written to disk.
  absl::StatusOr<std::string> Upload(const std::string& name, const std::string& bytes);

  /// Every recording: added ones, uploads, then the directory's files, each
  /// group in id order.
  std::vector<RecordingEntry> List() const;

  /// The inspector of recording `id`, opened (read and parsed) on first use;
  /// `reload` re-reads a directory file that changed size since (a live
  /// world's recording grows). NotFound naming the id; InvalidArgument for a
  /// file that is not a usable recording.
  absl::StatusOr<std::shared_ptr<ReplayInspector>> Open(const std::string& id, bool reload);

 private:
  struct Opened {
    std::shared_ptr<ReplayInspector> inspector;
    RecordingEntry entry;
  };
  // The directory file of `id`, or "" when there is none.
  std::string DirPath(const std::string& id) const;

  const ReplayLibraryOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, Opened> added_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Opened> uploads_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Opened> dir_cache_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> upload_order_ ABSL_GUARDED_BY(mu_);  // oldest first
  uint64_t next_upload_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_REPLAY_LIBRARY_H_
