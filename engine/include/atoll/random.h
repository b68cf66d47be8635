// Atoll — a small portable random number generator.

#ifndef ATOLL_RANDOM_H_
#define ATOLL_RANDOM_H_

#include <cstdint>

namespace atl {

/// SplitMix64: the same sequence on every platform and standard library
/// (std::uniform_*_distribution is implementation-defined, so scenes and
/// tests that must replay bit for bit use this instead).
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}

  uint64_t NextU64() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1): 24 random bits, exactly representable.
  float NextFloat() {
    return static_cast<float>(NextU64() >> 40) * (1.0f / 16777216.0f);
  }

  /// Uniform in [lo, hi).
  float Uniform(float lo, float hi) { return lo + (hi - lo) * NextFloat(); }

  /// Uniform integer in [0, n), n > 0.
  uint32_t Below(uint32_t n) {
    return static_cast<uint32_t>((NextU64() >> 32) * n >> 32);
  }

 private:
  uint64_t state_;
};

}  // namespace atl

#endif  // ATOLL_RANDOM_H_
