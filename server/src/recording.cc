#include "recording.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace atl::server {
namespace {

absl::Status WriteAll(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("write ", path, ": ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<RecordingWriter>> RecordingWriter::Create(
    const std::string& path, const v1::RecordingHeader& header, const v1::Checkpoint& initial,
    size_t memory_budget) {
  int fd = -1;
  if (!path.empty()) {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int err = errno;
      const std::string what = absl::StrCat("recording ", path, ": ", std::strerror(err));
      return err == EEXIST ? absl::AlreadyExistsError(what) : absl::InternalError(what);
    }
  }
  std::unique_ptr<RecordingWriter> w(new RecordingWriter(path, fd, memory_budget));
  if (fd >= 0) {
    if (absl::Status s = WriteAll(fd, sim::RecordingFileHeader(), path); !s.ok()) return s;
    if (absl::Status s = w->Append(sim::RecordType::kHeader, header.SerializeAsString());
        !s.ok()) {
      return s;
    }
  } else {
    w->memory_head_ = std::make_shared<const std::string>(
        sim::RecordingFileHeader() +
        sim::EncodeRecord(sim::RecordType::kHeader, header.SerializeAsString()));
  }
  if (absl::Status s = w->AppendCheckpoint(initial); !s.ok()) return s;
  return w;
}

absl::StatusOr<std::unique_ptr<RecordingWriter>> RecordingWriter::Reopen(const std::string& path,
                                                                        uint64_t valid_bytes) {
  const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("recording ", path, ": ", std::strerror(errno)));
  }
  if (ftruncate(fd, static_cast<off_t>(valid_bytes)) != 0 ||
      lseek(fd, 0, SEEK_END) != static_cast<off_t>(valid_bytes)) {
    const std::string what = absl::StrCat("recording ", path, ": ", std::strerror(errno));
    close(fd);
    return absl::InternalError(what);
  }
  return std::unique_ptr<RecordingWriter>(new RecordingWriter(path, fd));
}

RecordingWriter::~RecordingWriter() {
  if (fd_ >= 0) {
    fdatasync(fd_);
    close(fd_);
  }
}

absl::Status RecordingWriter::Append(sim::RecordType type, const std::string& payload) {
  const std::string record = sim::EncodeRecord(type, payload);
  if (fd_ < 0) {
    if (type == sim::RecordType::kCheckpoint) StartSegment();
    open_ += record;
    return absl::OkStatus();
  }
  return WriteAll(fd_, record, path_);
}

void RecordingWriter::StartSegment() {
  if (open_.empty()) return;
  finished_bytes_ += open_.size();
  finished_.push_back(std::make_shared<const std::string>(std::move(open_)));
  open_.clear();
  // Keep at least the newest finished segment: with a budget smaller than
  // a segment the recording still reaches one checkpoint interval back.
  while (finished_.size() > 1 && finished_bytes_ > memory_budget_) {
    finished_bytes_ -= finished_.front()->size();
    finished_.pop_front();
  }
}

absl::Status RecordingWriter::AppendTick(const v1::RecordedTick& tick) {
  return Append(sim::RecordType::kTick, tick.SerializeAsString());
}

absl::Status RecordingWriter::AppendCheckpoint(const v1::Checkpoint& checkpoint) {
  if (absl::Status s = Append(sim::RecordType::kCheckpoint, checkpoint.SerializeAsString()); !s.ok()) return s;
  if (sync_thread_ != nullptr) {
    sync_thread_->Request(sync_target_);
    return absl::OkStatus();
  }
  return Sync();
}

absl::Status RecordingWriter::SyncOn(SyncThread* thread) {
  if (fd_ < 0) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<SyncTarget>> target = SyncTarget::Dup(fd_, path_);
  if (!target.ok()) return target.status();
  sync_target_ = *std::move(target);
  sync_thread_ = thread;
  return absl::OkStatus();
}

absl::Status RecordingWriter::Sync() {
  if (fd_ >= 0 && fdatasync(fd_) != 0) {
    return absl::InternalError(absl::StrCat("fdatasync ", path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

RecordingWriter::Contents RecordingWriter::Snapshot() const {
  if (fd_ >= 0) return {.path = path_, .pieces = {}};
  Contents c;
  c.pieces.push_back(memory_head_);
  c.pieces.insert(c.pieces.end(), finished_.begin(), finished_.end());
  c.pieces.push_back(std::make_shared<const std::string>(open_));
  return c;
}

absl::StatusOr<v1::Recording> RecordingWriter::Parse(const Contents& contents) {
  std::string bytes;
  if (contents.path.empty()) {
    size_t size = 0;
    for (const auto& piece : contents.pieces) size += piece->size();
    bytes.reserve(size);
    for (const auto& piece : contents.pieces) bytes += *piece;
  }
  absl::StatusOr<sim::ParsedRecording> r = contents.path.empty()
                                               ? sim::ParseRecording(bytes)
                                               : sim::ReadRecording(contents.path);
  if (!r.ok()) return r.status();
  return std::move(r->recording);
}

absl::Status RecordingWriter::MoveTo(const std::string& path) {
  if (fd_ < 0) return absl::OkStatus();
  if (rename(path_.c_str(), path.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("rename ", path_, " to ", path, ": ", std::strerror(errno)));
  }
  path_ = path;
  return absl::OkStatus();
}

absl::Status RecordingWriter::Remove() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
    if (unlink(path_.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("unlink ", path_, ": ", std::strerror(errno)));
    }
  }
  finished_.clear();
  finished_bytes_ = 0;
  open_.clear();
  return absl::OkStatus();
}

}  // namespace atl::server
