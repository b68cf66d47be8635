#include "recording.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace atl::server {
namespace {

// File layout (docs/recording.md): an 8-byte magic and a u32 version, then
// records of [u32 payload length][u8 type][u64 FNV-1a of type+payload]
// [payload: a serialized proto]. Little-endian.
constexpr char kMagic[8] = {'A', 'T', 'O', 'L', 'L', 'R', 'E', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kFileHeaderSize = 12;
constexpr size_t kRecordHeaderSize = 13;
constexpr uint32_t kMaxRecordSize = 1u << 30;

enum RecordType : uint8_t { kHeader = 1, kCheckpoint = 2, kTick = 3 };

uint64_t Fnv1a(uint8_t type, const char* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  h = (h ^ type) * 1099511628211ull;
  for (size_t i = 0; i < size; ++i) {
    h = (h ^ static_cast<uint8_t>(data[i])) * 1099511628211ull;
  }
  return h;
}

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetLE(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

std::string FileHeader() {
  std::string out(kMagic, sizeof(kMagic));
  PutU32(&out, kFormatVersion);
  return out;
}

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

absl::StatusOr<ReadRecordingResult> ParseRecording(const std::string& bytes) {
  if (bytes.size() < kFileHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError("recording: missing ATOLLREC magic");
  }
  if (GetLE(bytes.data() + 8, 4) != kFormatVersion) {
    return absl::DataLossError(absl::StrCat("recording: unsupported format version ",
                                            GetLE(bytes.data() + 8, 4)));
  }
  ReadRecordingResult result;
  size_t at = kFileHeaderSize;
  bool have_header = false;
  while (at + kRecordHeaderSize <= bytes.size()) {
    const uint64_t size = GetLE(bytes.data() + at, 4);
    const uint8_t type = static_cast<uint8_t>(bytes[at + 4]);
    const uint64_t checksum = GetLE(bytes.data() + at + 5, 8);
    if (size > kMaxRecordSize || at + kRecordHeaderSize + size > bytes.size()) break;
    const char* payload = bytes.data() + at + kRecordHeaderSize;
    if (Fnv1a(type, payload, size) != checksum) break;
    bool parsed = false;
    switch (type) {
      case kHeader:
        parsed = !have_header &&
                 result.recording.mutable_header()->ParseFromArray(payload, static_cast<int>(size));
        have_header = parsed;
        break;
      case kCheckpoint:
        parsed = result.recording.add_checkpoints()->ParseFromArray(payload, static_cast<int>(size));
        break;
      case kTick:
        parsed = result.recording.add_ticks()->ParseFromArray(payload, static_cast<int>(size));
        break;
      default:
        break;
    }
    if (!parsed) break;
    at += kRecordHeaderSize + size;
    result.valid_bytes = at;
  }
  if (!have_header || result.recording.checkpoints_size() == 0) {
    return absl::DataLossError("recording: no header and initial checkpoint");
  }
  return result;
}

absl::StatusOr<ReadRecordingResult> ReadRecordingFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("recording ", path, ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<ReadRecordingResult> r = ParseRecording(buffer.str());
  if (!r.ok()) {
    return absl::Status(r.status().code(),
                        absl::StrCat(path, ": ", std::string(r.status().message())));
  }
  return r;
}

absl::StatusOr<std::unique_ptr<RecordingWriter>> RecordingWriter::Create(
    const std::string& path, const v1::RecordingHeader& header, const v1::Checkpoint& initial) {
  int fd = -1;
  if (!path.empty()) {
    fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
      const int err = errno;
      const std::string what = absl::StrCat("recording ", path, ": ", std::strerror(err));
      return err == EEXIST ? absl::AlreadyExistsError(what) : absl::InternalError(what);
    }
  }
  std::unique_ptr<RecordingWriter> w(new RecordingWriter(path, fd));
  if (fd >= 0) {
    if (absl::Status s = WriteAll(fd, FileHeader(), path); !s.ok()) return s;
  } else {
    w->memory_ = FileHeader();
  }
  if (absl::Status s = w->Append(kHeader, header.SerializeAsString()); !s.ok()) return s;
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

absl::Status RecordingWriter::Append(uint8_t type, const std::string& payload) {
  std::string record;
  record.reserve(kRecordHeaderSize + payload.size());
  PutU32(&record, static_cast<uint32_t>(payload.size()));
  record.push_back(static_cast<char>(type));
  PutU64(&record, Fnv1a(type, payload.data(), payload.size()));
  record += payload;
  if (fd_ < 0) {
    memory_ += record;
    return absl::OkStatus();
  }
  return WriteAll(fd_, record, path_);
}

absl::Status RecordingWriter::AppendTick(const v1::RecordedTick& tick) {
  return Append(kTick, tick.SerializeAsString());
}

absl::Status RecordingWriter::AppendCheckpoint(const v1::Checkpoint& checkpoint) {
  if (absl::Status s = Append(kCheckpoint, checkpoint.SerializeAsString()); !s.ok()) return s;
  return Sync();
}

absl::Status RecordingWriter::Sync() {
  if (fd_ >= 0 && fdatasync(fd_) != 0) {
    return absl::InternalError(absl::StrCat("fdatasync ", path_, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Recording> RecordingWriter::Read() const {
  absl::StatusOr<ReadRecordingResult> r =
      fd_ >= 0 ? ReadRecordingFile(path_) : ParseRecording(memory_);
  if (!r.ok()) return r.status();
  return std::move(r->recording);
}

absl::Status RecordingWriter::Remove() {
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
    if (unlink(path_.c_str()) != 0) {
      return absl::InternalError(absl::StrCat("unlink ", path_, ": ", std::strerror(errno)));
    }
  }
  memory_.clear();
  return absl::OkStatus();
}

}  // namespace atl::server
