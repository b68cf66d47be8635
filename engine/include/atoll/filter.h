// Atoll — collision filtering.

#ifndef ATOLL_FILTER_H_
#define ATOLL_FILTER_H_

#include <cstdint>

namespace atl {

/// Which shapes may collide with which. The defaults collide with
/// everything.
struct Filter {
  /// The categories this shape belongs to (usually one bit).
  uint64_t category_bits = 1;
  /// The categories this shape accepts collisions with.
  uint64_t mask_bits = ~0ull;
  /// Shapes that share a nonzero group always collide when the group is
  /// positive and never collide when it is negative, whatever their bits.
  int32_t group_index = 0;
};

/// Field-wise equality.
inline bool operator==(const Filter& a, const Filter& b) {
  return a.category_bits == b.category_bits && a.mask_bits == b.mask_bits &&
         a.group_index == b.group_index;
}
inline bool operator!=(const Filter& a, const Filter& b) { return !(a == b); }

/// True when two shapes with these filters may collide. The rule is
/// symmetric: when both share the same nonzero group, the group's sign
/// decides (positive: always, negative: never); otherwise each shape's
/// category must be accepted by the other's mask.
inline bool ShouldCollide(const Filter& a, const Filter& b) {
  if (a.group_index == b.group_index && a.group_index != 0) {
    return a.group_index > 0;
  }
  return (a.mask_bits & b.category_bits) != 0 &&
         (a.category_bits & b.mask_bits) != 0;
}

}  // namespace atl

#endif  // ATOLL_FILTER_H_
