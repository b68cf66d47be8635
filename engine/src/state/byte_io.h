// Atoll — little-endian byte writer and bounds-checked reader for snapshots.

#ifndef ATOLL_STATE_BYTE_IO_H_
#define ATOLL_STATE_BYTE_IO_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "atoll/math.h"
#include "state/xxh3.h"

namespace atl {

static_assert(std::endian::native == std::endian::little,
              "snapshots are written little-endian by memcpy");

class ByteWriter {
 public:
  explicit ByteWriter(std::string* out) : out_(out) {}
  template <typename T>
  void Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    // append, not resize + memcpy: resize zero-fills first, which doubled
    // the cost of a snapshot.
    out_->append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  void PutBool(bool v) { Put<uint8_t>(v ? 1 : 0); }
  void PutVec(Vec2 v) {
    Put(v.x);
    Put(v.y);
  }
  void PutRot(Rot q) {
    Put(q.c);
    Put(q.s);
  }
  template <typename T>
  void PutArray(const std::vector<T>& values) {
    Put<uint32_t>(static_cast<uint32_t>(values.size()));
    out_->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
  }
  size_t size() const { return out_->size(); }

  /// Starts a framed record: u32 key, u32 length (patched by EndRecord).
  void BeginRecord(uint32_t key) {
    Put(key);
    record_start_ = out_->size();
    Put<uint32_t>(0);
  }
  void EndRecord() {
    const uint32_t length = static_cast<uint32_t>(out_->size() - record_start_ - 4);
    std::memcpy(out_->data() + record_start_, &length, 4);
  }

 private:
  std::string* out_;
  size_t record_start_ = 0;
};

/// Unchecked writes at a cursor, into room that BufferWriter::PutRecord
/// made. It is one pointer, passed and returned by value: a char store may
/// alias anything, so a cursor that lives in memory (a BufferWriter's
/// member, or a writer passed by pointer to a function not inlined) is
/// reloaded and stored back around every field, while a by-value one stays
/// in a register and a field costs one store.
class RawWriter {
 public:
  explicit RawWriter(char* at) : p_(at) {}
  template <typename T>
  void Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::memcpy(p_, &value, sizeof(T));
    p_ += sizeof(T);
  }
  void PutBool(bool v) { Put<uint8_t>(v ? 1 : 0); }
  void PutVec(Vec2 v) {
    Put(v.x);
    Put(v.y);
  }
  void PutRot(Rot q) {
    Put(q.c);
    Put(q.s);
  }
  template <typename T>
  void PutArray(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    Put<uint32_t>(static_cast<uint32_t>(values.size()));
    // One element at a time: these are a body's few shapes, contacts and
    // joints, and a libc memcpy call for a few bytes took two thirds of a
    // settled world's hash (docs/benchmarks.md, session 18).
    for (const T& v : values) Put(v);
  }
  char* end() const { return p_; }

 private:
  char* p_;
};

/// The snapshot writer: like ByteWriter, but it writes fields with a plain
/// memcpy at a cursor into `out` used as a buffer (grown in large steps,
/// trimmed by Finish), so a field costs a compare and a store instead of a
/// string append. Writing over the old contents of a reused string also
/// skips zero-filling it. Call Finish() before using `out`.
class BufferWriter {
 public:
  /// Writes from the start of `out`, overwriting it; `size_hint` bytes are
  /// made room for up front.
  BufferWriter(std::string* out, size_t size_hint) : out_(out) {
    if (out_->size() < size_hint) out_->resize(size_hint);
    data_ = out_->data();
    capacity_ = out_->size();
  }
  template <typename T>
  void Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (pos_ + sizeof(T) > capacity_) Grow(sizeof(T));
    std::memcpy(data_ + pos_, &value, sizeof(T));
    pos_ += sizeof(T);
  }
  void PutBool(bool v) { Put<uint8_t>(v ? 1 : 0); }
  void PutVec(Vec2 v) {
    Put(v.x);
    Put(v.y);
  }
  void PutRot(Rot q) {
    Put(q.c);
    Put(q.s);
  }
  void PutBytes(const void* bytes, size_t n) {
    if (pos_ + n > capacity_) Grow(n);
    if (n > 0) std::memcpy(data_ + pos_, bytes, n);
    pos_ += n;
  }
  template <typename T>
  void PutArray(const std::vector<T>& values) {
    static_assert(std::is_trivially_copyable_v<T>);
    Put<uint32_t>(static_cast<uint32_t>(values.size()));
    PutBytes(values.data(), values.size() * sizeof(T));
  }
  size_t size() const { return pos_; }
  /// The bytes written so far (valid until the next Put).
  char* data() { return data_; }

  /// Starts a framed record: u32 key, u32 length (patched by EndRecord).
  void BeginRecord(uint32_t key) {
    Put(key);
    record_start_ = pos_;
    Put<uint32_t>(0);
  }
  void EndRecord() {
    const uint32_t length = static_cast<uint32_t>(pos_ - record_start_ - 4);
    std::memcpy(data_ + record_start_, &length, 4);
    if (hash_ != nullptr && pos_ >= hash_chunk_) HashWritten();
  }
  /// From now on, whenever a record ends with at least `chunk` bytes
  /// written, hands them to `state` and writes over them again: the bytes
  /// are hashed, not kept, in a buffer small enough to stay in the cache.
  /// FlushHash() hands over the rest. Hash only whole records: Put between
  /// records is not flushed until the next record ends.
  void HashInto(XXH3_state_t* state, size_t chunk) {
    hash_ = state;
    hash_chunk_ = chunk;
  }
  void FlushHash() {
    if (pos_ > 0) HashWritten();
  }
  /// A whole framed record of at most `bound` bytes after its framing,
  /// written by `put` (RawWriter -> RawWriter) without a check per field.
  /// Aborts if `put` wrote past `bound`: the bound is wrong, and the
  /// buffer may already be corrupt.
  template <typename PutFn>
  void PutRecord(uint32_t key, size_t bound, PutFn put) {
    if (pos_ + 8 + bound > capacity_) Grow(8 + bound);
    char* const start = data_ + pos_;
    std::memcpy(start, &key, 4);
    const char* const end = put(RawWriter(start + 8)).end();
    const size_t length = static_cast<size_t>(end - (start + 8));
    if (length > bound) {
      std::fprintf(stderr, "atoll: snapshot record %08x wrote %zu bytes, past its bound of %zu\n",
                   key, length, bound);
      std::abort();
    }
    const uint32_t length32 = static_cast<uint32_t>(length);
    std::memcpy(start + 4, &length32, 4);
    pos_ += 8 + length;
    if (hash_ != nullptr && pos_ >= hash_chunk_) HashWritten();
  }
  /// Trims `out` to the bytes written.
  void Finish() { out_->resize(pos_); }

 private:
  void Grow(size_t n) {
    out_->resize(std::max(pos_ + n, capacity_ + capacity_ / 2 + 4096));
    data_ = out_->data();
    capacity_ = out_->size();
  }
  void HashWritten() {
    XXH3_64bits_update(hash_, data_, pos_);
    pos_ = 0;
  }

  std::string* out_;
  char* data_ = nullptr;
  size_t capacity_ = 0;
  size_t pos_ = 0;
  size_t record_start_ = 0;
  XXH3_state_t* hash_ = nullptr;  // HashInto
  size_t hash_chunk_ = 0;
};

/// Reads fields; the first read past the end or of a bad value sets ok()
/// false and every later read returns zeros, so parsers check once at the
/// end of a section instead of after every field.
class ByteReader {
 public:
  explicit ByteReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    T value{};
    if (!ok_ || bytes_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return value;
    }
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  bool GetBool() {
    const uint8_t v = Get<uint8_t>();
    if (v > 1) ok_ = false;
    return v == 1;
  }
  Vec2 GetVec() {
    const float x = Get<float>();
    return {x, Get<float>()};
  }
  Rot GetRot() {
    const float c = Get<float>();
    return {c, Get<float>()};
  }
  /// An array of at most `max_count` elements.
  template <typename T>
  std::vector<T> GetArray(uint32_t max_count) {
    const uint32_t n = Get<uint32_t>();
    std::vector<T> values;
    if (!ok_ || n > max_count || (bytes_.size() - pos_) / sizeof(T) < n) {
      ok_ = false;
      return values;
    }
    values.resize(n);
    if (n > 0) std::memcpy(values.data(), bytes_.data() + pos_, n * sizeof(T));
    pos_ += n * sizeof(T);
    return values;
  }
  /// The next `length` bytes as a span (empty and !ok() past the end).
  std::span<const uint8_t> GetBytes(uint32_t length) {
    if (!ok_ || bytes_.size() - pos_ < length) {
      ok_ = false;
      return {};
    }
    const std::span<const uint8_t> out = bytes_.subspan(pos_, length);
    pos_ += length;
    return out;
  }
  void Fail() { ok_ = false; }
  bool ok() const { return ok_; }
  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace atl

#endif  // ATOLL_STATE_BYTE_IO_H_
