#include "atoll/delta.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "state/byte_io.h"
#include "state/snapshot_format.h"
#include "state/xxh3.h"

namespace atl {
namespace {

constexpr size_t kSnapshotHeader = kSnapshotHeaderSize;
constexpr size_t kSnapshotTrailer = kSnapshotTrailerSize;
constexpr char kDeltaMagic[8] = {'A', 'T', 'O', 'L', 'L', 'D', 'L', 'T'};
constexpr uint32_t kDeltaVersion = 1;
// A rebuilt snapshot may not exceed this (bounds what a crafted delta can
// make the decoder allocate).
constexpr size_t kMaxSnapshotBytes = size_t{1} << 30;

enum Op : uint8_t {
  kCopy = 1,      // u32 n: the next n base records, unchanged
  kSkipBase = 2,  // u32 n: drop the next n base records
  kPatch = 3,     // u32 segment count, then (u32 offset, u32 length, bytes)*:
                  // the next base record with those byte ranges replaced
  kInsert = 4,    // u32 key, u32 length, bytes: a record not taken from base
};

struct Record {
  uint32_t key;
  std::span<const uint8_t> bytes;  // the whole framed record (key + length + payload)
};

std::span<const uint8_t> AsBytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Splits a snapshot into its records; false when the frame is malformed.
bool SplitRecords(const std::string& snapshot, std::vector<Record>* out, std::string* header) {
  if (snapshot.size() < kSnapshotHeader + kSnapshotTrailer) return false;
  uint32_t body_size = 0;
  std::memcpy(&body_size, snapshot.data() + 12, 4);
  if (snapshot.size() != kSnapshotHeader + size_t{body_size} + kSnapshotTrailer) return false;
  *header = snapshot.substr(0, kSnapshotHeader);
  ByteReader r(AsBytes(snapshot).subspan(kSnapshotHeader, body_size));
  out->clear();
  const uint8_t* body = reinterpret_cast<const uint8_t*>(snapshot.data()) + kSnapshotHeader;
  size_t pos = 0;
  while (!r.AtEnd()) {
    const uint32_t key = r.Get<uint32_t>();
    const uint32_t length = r.Get<uint32_t>();
    r.GetBytes(length);
    if (!r.ok()) return false;
    out->push_back({key, {body + pos, size_t{8} + length}});
    pos += 8 + size_t{length};
  }
  return true;
}

uint64_t BodyHash(const std::string& snapshot) {
  return Xxh3(snapshot.data() + kSnapshotHeader,
              snapshot.size() - kSnapshotHeader - kSnapshotTrailer);
}

constexpr size_t kNoDifference = ~size_t{0};

uint64_t Word(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The first position in [from, a.size()) where a and b differ, a.size()
// when none. Eight bytes at a time; the lowest differing byte of a word
// is its first (little-endian).
size_t FirstDifference(std::span<const uint8_t> a, std::span<const uint8_t> b, size_t from) {
  size_t i = from;
  for (; i + 8 <= a.size(); i += 8) {
    const uint64_t x = Word(a.data() + i) ^ Word(b.data() + i);
    if (x != 0) return i + static_cast<size_t>(std::countr_zero(x)) / 8;
  }
  for (; i < a.size(); ++i) {
    if (a[i] != b[i]) return i;
  }
  return a.size();
}

// The last position in [from, from + n) where a and b differ (n <= 8),
// kNoDifference when none.
size_t LastDifference(std::span<const uint8_t> a, std::span<const uint8_t> b, size_t from,
                      size_t n) {
  if (n == 8) {
    const uint64_t x = Word(a.data() + from) ^ Word(b.data() + from);
    if (x == 0) return kNoDifference;
    return from + static_cast<size_t>(63 - std::countl_zero(x)) / 8;
  }
  for (size_t i = from + n; i > from; --i) {
    if (a[i - 1] != b[i - 1]) return i - 1;
  }
  return kNoDifference;
}

// Changed byte ranges of two equal-length records, merging ranges closer
// than a segment header so the encoding stays small: a range goes on while
// another difference lies within kMergeGap bytes after its last one.
void PatchSegments(std::span<const uint8_t> a, std::span<const uint8_t> b,
                   std::vector<std::pair<uint32_t, uint32_t>>* segments) {
  segments->clear();
  constexpr size_t kMergeGap = 8;
  size_t i = FirstDifference(a, b, 0);
  while (i < a.size()) {
    size_t last_diff = i;
    for (;;) {
      const size_t from = last_diff + 1;
      const size_t d = LastDifference(a, b, from, std::min(kMergeGap, a.size() - from));
      if (d == kNoDifference) break;
      last_diff = d;
    }
    segments->push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(last_diff + 1 - i)});
    i = FirstDifference(a, b, last_diff + 1);
  }
}

}  // namespace

absl::StatusOr<std::string> MakeDelta(const std::string& base, const std::string& target) {
  std::vector<Record> base_records, target_records;
  std::string base_header, target_header;
  if (!SplitRecords(base, &base_records, &base_header)) {
    return absl::InvalidArgumentError("delta: base is not a snapshot");
  }
  if (!SplitRecords(target, &target_records, &target_header)) {
    return absl::InvalidArgumentError("delta: target is not a snapshot");
  }
  std::string out;
  ByteWriter w(&out);
  for (char c : kDeltaMagic) w.Put(c);
  w.Put(kDeltaVersion);
  w.Put(BodyHash(base));
  w.Put(BodyHash(target));
  out.append(target_header.data() + 8, 4);  // the target's snapshot version

  uint32_t pending_copies = 0;
  auto flush_copies = [&]() {
    if (pending_copies == 0) return;
    w.Put(kCopy);
    w.Put(pending_copies);
    pending_copies = 0;
  };
  std::vector<std::pair<uint32_t, uint32_t>> segments;
  size_t bi = 0;
  for (const Record& t : target_records) {
    // Base records with smaller keys are gone from the target.
    uint32_t skipped = 0;
    while (bi < base_records.size() && base_records[bi].key < t.key) {
      ++bi;
      ++skipped;
    }
    if (skipped > 0) {
      flush_copies();
      w.Put(kSkipBase);
      w.Put(skipped);
    }
    const bool same_key = bi < base_records.size() && base_records[bi].key == t.key;
    if (same_key && base_records[bi].bytes.size() == t.bytes.size()) {
      const std::span<const uint8_t> b = base_records[bi].bytes;
      if (std::memcmp(b.data(), t.bytes.data(), b.size()) == 0) {
        ++pending_copies;
        ++bi;
        continue;
      }
      PatchSegments(b, t.bytes, &segments);
      size_t patch_size = 4;
      for (const auto& [offset, length] : segments) patch_size += 8 + length;
      if (patch_size < t.bytes.size()) {
        flush_copies();
        w.Put(kPatch);
        w.Put(static_cast<uint32_t>(segments.size()));
        for (const auto& [offset, length] : segments) {
          w.Put(offset);
          w.Put(length);
          out.append(reinterpret_cast<const char*>(t.bytes.data()) + offset, length);
        }
        ++bi;
        continue;
      }
    }
    if (same_key) {
      // Replaced whole: drop the base version.
      flush_copies();
      w.Put(kSkipBase);
      w.Put<uint32_t>(1);
      ++bi;
    }
    flush_copies();
    w.Put(kInsert);
    w.Put(static_cast<uint32_t>(t.bytes.size()));
    out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  }
  flush_copies();
  return out;
}

absl::StatusOr<std::string> ApplyDelta(const std::string& base, const std::string& delta) {
  std::vector<Record> base_records;
  std::string base_header;
  if (!SplitRecords(base, &base_records, &base_header)) {
    return absl::InvalidArgumentError("delta: base is not a snapshot");
  }
  ByteReader r(AsBytes(delta));
  char magic[8];
  for (char& c : magic) c = r.Get<char>();
  const uint32_t version = r.Get<uint32_t>();
  const uint64_t base_hash = r.Get<uint64_t>();
  const uint64_t target_hash = r.Get<uint64_t>();
  const uint32_t snapshot_version = r.Get<uint32_t>();
  if (!r.ok() || std::memcmp(magic, kDeltaMagic, 8) != 0) {
    return absl::InvalidArgumentError("delta: not an Atoll delta (bad magic or truncated)");
  }
  if (version != kDeltaVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat("delta: version ", version, ", this build reads ", kDeltaVersion));
  }
  if (base_hash != BodyHash(base)) {
    return absl::FailedPreconditionError("delta: made against a different base snapshot");
  }

  // The snapshot is rebuilt in place: its header, then the body record by
  // record, then the trailer. Every byte of the body comes from a base
  // record (each used once at most) or from the delta, so base + delta
  // bounds it and the buffer is allocated once.
  std::string out;
  out.reserve(base.size() + delta.size() + kSnapshotHeader + kSnapshotTrailer);
  ByteWriter w(&out);
  for (char c : kSnapshotMagic) w.Put(c);
  w.Put(snapshot_version);
  w.Put<uint32_t>(0);  // body size, patched below
  size_t bi = 0;
  while (!r.AtEnd()) {
    const uint8_t op = r.Get<uint8_t>();
    if (op == kCopy || op == kSkipBase) {
      const uint32_t n = r.Get<uint32_t>();
      if (!r.ok() || n > base_records.size() - bi) {
        return absl::InvalidArgumentError("delta: record count past the end of the base");
      }
      if (op == kCopy) {
        for (uint32_t k = 0; k < n; ++k, ++bi) {
          out.append(reinterpret_cast<const char*>(base_records[bi].bytes.data()),
                     base_records[bi].bytes.size());
        }
      } else {
        bi += n;
      }
    } else if (op == kPatch) {
      if (bi >= base_records.size()) return absl::InvalidArgumentError("delta: patch past the base");
      const std::span<const uint8_t> record = base_records[bi++].bytes;
      const size_t start = out.size();
      out.append(reinterpret_cast<const char*>(record.data()), record.size());
      const uint32_t count = r.Get<uint32_t>();
      for (uint32_t k = 0; k < count && r.ok(); ++k) {
        const uint32_t offset = r.Get<uint32_t>();
        const uint32_t length = r.Get<uint32_t>();
        const std::span<const uint8_t> bytes = r.GetBytes(length);
        if (!r.ok() || offset > record.size() || length > record.size() - offset) {
          return absl::InvalidArgumentError("delta: patch outside its record");
        }
        std::memcpy(out.data() + start + offset, bytes.data(), length);
      }
    } else if (op == kInsert) {
      const uint32_t length = r.Get<uint32_t>();
      const std::span<const uint8_t> bytes = r.GetBytes(length);
      if (!r.ok()) return absl::InvalidArgumentError("delta: truncated record");
      out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    } else {
      return absl::InvalidArgumentError(absl::StrCat("delta: unknown operation ", op));
    }
    if (!r.ok()) return absl::InvalidArgumentError("delta: truncated");
    if (out.size() - kSnapshotHeader > kMaxSnapshotBytes) {
      return absl::InvalidArgumentError("delta: result too large");
    }
  }
  const size_t body_size = out.size() - kSnapshotHeader;
  if (Xxh3(out.data() + kSnapshotHeader, body_size) != target_hash) {
    return absl::DataLossError("delta: result does not match the target hash (corrupted)");
  }
  const uint32_t body_size32 = static_cast<uint32_t>(body_size);
  std::memcpy(out.data() + 12, &body_size32, sizeof(body_size32));
  w.Put(target_hash);
  return out;
}

}  // namespace atl
