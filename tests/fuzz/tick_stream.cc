#include "tick_stream.h"

#include <algorithm>
#include <cstdlib>

namespace atl::fuzz {

std::vector<v1::RecordedTick> DecodeTicks(const uint8_t* data, size_t size, size_t max_ticks) {
  std::vector<v1::RecordedTick> ticks;
  size_t at = 0;
  while (at < size && ticks.size() < max_ticks) {
    size_t length = data[at];
    if (at + 1 < size) length |= static_cast<size_t>(data[at + 1]) << 8;
    at = std::min(at + 2, size);
    length = std::min(length, size - at);
    v1::RecordedTick& tick = ticks.emplace_back();
    if (!tick.ParseFromArray(data + at, static_cast<int>(length))) tick.Clear();
    at += length;
  }
  return ticks;
}

std::string EncodeTicks(const std::vector<v1::RecordedTick>& ticks) {
  std::string out;
  for (const v1::RecordedTick& tick : ticks) {
    const std::string bytes = tick.SerializeAsString();
    // Only the seed writer encodes, and its ticks are small.
    if (bytes.size() > 0xffff) std::abort();
    out.push_back(static_cast<char>(bytes.size() & 0xff));
    out.push_back(static_cast<char>(bytes.size() >> 8));
    out += bytes;
  }
  return out;
}

}  // namespace atl::fuzz
