#include "atoll/viewer/replay_library.h"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "atoll/sim/recording_format.h"
#include "replay_inspector.h"

namespace atl::viewer {
namespace {

constexpr char kSuffix[] = ".atrec";
// Directory recordings kept parsed at once.
constexpr size_t kDirCacheSize = 4;

// World ids the server writes as file names; anything else (a path, a
// dot file) is no recording of the directory.
bool IsPlainName(const std::string& id) {
  if (id.empty() || id.front() == '.') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

}  // namespace

ReplayLibrary::~ReplayLibrary() = default;

absl::Status ReplayLibrary::Add(const std::string& id, const std::string& name,
                                v1::Recording recording) {
  absl::StatusOr<std::unique_ptr<ReplayInspector>> inspector =
      ReplayInspector::Create(id, std::move(recording));
  if (!inspector.ok()) return inspector.status();
  Opened opened;
  opened.inspector = *std::move(inspector);
  opened.entry.id = id;
  opened.entry.source = "file";
  opened.entry.name = name;
  std::error_code ec;
  const auto size = std::filesystem::file_size(name, ec);
  opened.entry.bytes = ec ? 0 : size;
  absl::MutexLock lock(&mu_);
  added_[id] = std::move(opened);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReplayLibrary::Upload(const std::string& name,
                                                  const std::string& bytes) {
  if (bytes.size() > options_.max_upload_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat("the upload is ", bytes.size(),
                                                     " bytes; at most ", options_.max_upload_bytes,
                                                     " are accepted"));
  }
  absl::StatusOr<sim::ParsedRecording> parsed = sim::ParseRecording(bytes);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " is not an Atoll recording: ", std::string(parsed.status().message())));
  }
  if (parsed->valid_bytes != bytes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is damaged: the record at byte ",
                                                   parsed->valid_bytes,
                                                   " is incomplete or corrupt"));
  }
  std::string id;
  {
    absl::MutexLock lock(&mu_);
    id = absl::StrCat("upload-", next_upload_++);
  }
  absl::StatusOr<std::unique_ptr<ReplayInspector>> inspector =
      ReplayInspector::Create(id, std::move(parsed->recording));
  if (!inspector.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " cannot be replayed: ", std::string(inspector.status().message())));
  }
  Opened opened;
  opened.inspector = *std::move(inspector);
  opened.entry.id = id;
  opened.entry.source = "upload";
  opened.entry.name = name;
  opened.entry.bytes = bytes.size();
  absl::MutexLock lock(&mu_);
  uploads_[id] = std::move(opened);
  upload_order_.push_back(id);
  while (static_cast<int>(upload_order_.size()) > std::max(options_.max_uploads, 1)) {
    uploads_.erase(upload_order_.front());
    upload_order_.erase(upload_order_.begin());
  }
  return id;
}

std::vector<RecordingEntry> ReplayLibrary::List() const {
  std::vector<RecordingEntry> out;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, opened] : added_) out.push_back(opened.entry);
    for (const std::string& id : upload_order_) out.push_back(uploads_.at(id).entry);
  }
  if (options_.dir.empty()) return out;
  std::vector<RecordingEntry> files;
  std::error_code ec;
  for (const auto& file : std::filesystem::directory_iterator(options_.dir, ec)) {
    const std::string name = file.path().filename().string();
    if (!absl::EndsWith(name, kSuffix)) continue;
    RecordingEntry entry;
    entry.id = name.substr(0, name.size() - (sizeof(kSuffix) - 1));
    if (!IsPlainName(entry.id)) continue;
    entry.source = "data dir";
    entry.name = name;
    std::error_code size_ec;
    const auto size = file.file_size(size_ec);
    entry.bytes = size_ec ? 0 : size;
    files.push_back(std::move(entry));
  }
  std::sort(files.begin(), files.end(),
            [](const RecordingEntry& a, const RecordingEntry& b) { return a.id < b.id; });
  out.insert(out.end(), files.begin(), files.end());
  return out;
}

std::string ReplayLibrary::DirPath(const std::string& id) const {
  if (options_.dir.empty() || !IsPlainName(id)) return "";
  const std::string path = absl::StrCat(options_.dir, "/", id, kSuffix);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "";
  return path;
}

absl::StatusOr<std::shared_ptr<ReplayInspector>> ReplayLibrary::Open(const std::string& id,
                                                                      bool reload) {
  {
    absl::MutexLock lock(&mu_);
    if (auto it = added_.find(id); it != added_.end()) return it->second.inspector;
    if (auto it = uploads_.find(id); it != uploads_.end()) return it->second.inspector;
  }
  const std::string path = DirPath(id);
  if (path.empty()) return absl::NotFoundError(absl::StrCat("recording '", id, "' not found"));
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  {
    absl::MutexLock lock(&mu_);
    auto it = dir_cache_.find(id);
    if (it != dir_cache_.end() && (!reload || it->second.entry.bytes == size)) {
      return it->second.inspector;
    }
  }
  // Parsed outside the lock: a large file takes a while. A recording being
  // appended to reads as its whole records so far.
  absl::StatusOr<sim::ParsedRecording> read = sim::ReadRecording(path);
  if (!read.ok()) {
    if (absl::IsNotFound(read.status())) {
      return absl::NotFoundError(absl::StrCat("recording '", id, "' not found"));
    }
    return absl::InvalidArgumentError(std::string(read.status().message()));
  }
  absl::StatusOr<std::unique_ptr<ReplayInspector>> inspector =
      ReplayInspector::Create(id, std::move(read->recording));
  if (!inspector.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, " cannot be replayed: ", std::string(inspector.status().message())));
  }
  Opened opened;
  opened.inspector = *std::move(inspector);
  opened.entry.id = id;
  opened.entry.source = "data dir";
  opened.entry.name = std::filesystem::path(path).filename().string();
  opened.entry.bytes = size;
  std::shared_ptr<ReplayInspector> result = opened.inspector;
  absl::MutexLock lock(&mu_);
  // Parsed recordings are large: keep a few.
  if (dir_cache_.size() >= kDirCacheSize && !dir_cache_.contains(id)) {
    dir_cache_.erase(dir_cache_.begin());
  }
  dir_cache_[id] = std::move(opened);
  return result;
}

}  // namespace atl::viewer
