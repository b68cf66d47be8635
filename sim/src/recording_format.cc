#include "atoll/sim/recording_format.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace atl::sim {
namespace {

constexpr char kMagic[8] = {'A', 'T', 'O', 'L', 'L', 'R', 'E', 'C'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kFileHeaderSize = 12;
constexpr size_t kRecordHeaderSize = 13;
constexpr uint64_t kMaxRecordSize = uint64_t{1} << 30;

uint64_t Fnv1a(uint8_t type, const char* data, size_t size) {
  uint64_t h = 1469598103934665603ull;
  h = (h ^ type) * 1099511628211ull;
  for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<uint8_t>(data[i])) * 1099511628211ull;
  return h;
}

void PutLE(std::string* out, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLE(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

}  // namespace

std::string RecordingFileHeader() {
  std::string out(kMagic, sizeof(kMagic));
  PutLE(&out, kFormatVersion, 4);
  return out;
}

std::string EncodeRecord(RecordType type, const std::string& payload) {
  const auto t = static_cast<uint8_t>(type);
  std::string record;
  record.reserve(kRecordHeaderSize + payload.size());
  PutLE(&record, payload.size(), 4);
  record.push_back(static_cast<char>(t));
  PutLE(&record, Fnv1a(t, payload.data(), payload.size()), 8);
  record += payload;
  return record;
}

absl::StatusOr<ParsedRecording> ParseRecording(const std::string& bytes) {
  if (bytes.size() < kFileHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError("not a recording (no ATOLLREC magic)");
  }
  if (GetLE(bytes.data() + 8, 4) != kFormatVersion) {
    return absl::DataLossError(
        absl::StrCat("unsupported recording format version ", GetLE(bytes.data() + 8, 4)));
  }
  ParsedRecording result;
  v1::Recording& recording = result.recording;
  bool have_header = false;
  size_t at = kFileHeaderSize;
  while (at + kRecordHeaderSize <= bytes.size()) {
    const uint64_t size = GetLE(bytes.data() + at, 4);
    const uint8_t type = static_cast<uint8_t>(bytes[at + 4]);
    const uint64_t checksum = GetLE(bytes.data() + at + 5, 8);
    if (size > kMaxRecordSize || at + kRecordHeaderSize + size > bytes.size()) break;
    const char* payload = bytes.data() + at + kRecordHeaderSize;
    if (Fnv1a(type, payload, size) != checksum) break;
    const int n = static_cast<int>(size);
    bool parsed = false;
    switch (static_cast<RecordType>(type)) {
      case RecordType::kHeader:
        parsed = !have_header && recording.mutable_header()->ParseFromArray(payload, n);
        have_header = parsed;
        break;
      case RecordType::kCheckpoint:
        parsed = recording.add_checkpoints()->ParseFromArray(payload, n);
        break;
      case RecordType::kTick: parsed = recording.add_ticks()->ParseFromArray(payload, n); break;
    }
    if (!parsed) break;
    at += kRecordHeaderSize + size;
    result.valid_bytes = at;
  }
  if (!have_header || recording.checkpoints_size() == 0) {
    return absl::DataLossError("the recording has no header and initial checkpoint");
  }
  return result;
}

absl::StatusOr<ParsedRecording> ReadRecording(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream buffer;
  buffer << in.rdbuf();
  absl::StatusOr<ParsedRecording> r = ParseRecording(buffer.str());
  if (!r.ok()) return absl::Status(r.status().code(), absl::StrCat(path, ": ", r.status().message()));
  return r;
}

std::string EncodeRecording(const v1::Recording& recording) {
  std::string out = RecordingFileHeader();
  out += EncodeRecord(RecordType::kHeader, recording.header().SerializeAsString());
  int c = 0;
  auto checkpoints_up_to = [&](uint64_t tick) {
    while (c < recording.checkpoints_size() && recording.checkpoints(c).tick() <= tick) {
      out += EncodeRecord(RecordType::kCheckpoint, recording.checkpoints(c++).SerializeAsString());
    }
  };
  checkpoints_up_to(recording.checkpoints_size() > 0 ? recording.checkpoints(0).tick() : 0);
  for (const v1::RecordedTick& t : recording.ticks()) {
    out += EncodeRecord(RecordType::kTick, t.SerializeAsString());
    checkpoints_up_to(t.tick());
  }
  checkpoints_up_to(UINT64_MAX);
  return out;
}

}  // namespace atl::sim
