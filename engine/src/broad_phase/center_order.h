// Atoll — the order of a median split: boxes by their center on one axis.

#ifndef ATOLL_BROAD_PHASE_CENTER_ORDER_H_
#define ATOLL_BROAD_PHASE_CENTER_ORDER_H_

namespace atl {

/// Orders records that have a `box` and an `id` by the doubled center of
/// the box (lower + upper, which orders like the center) on the x or the y
/// axis, ties by id, so that a split at the median is a function of the
/// records alone.
struct CenterOrder {
  bool x_axis;
  template <typename T>
  bool operator()(const T& a, const T& b) const {
    const float ca = x_axis ? a.box.lower.x + a.box.upper.x : a.box.lower.y + a.box.upper.y;
    const float cb = x_axis ? b.box.lower.x + b.box.upper.x : b.box.lower.y + b.box.upper.y;
    return ca < cb || (ca == cb && a.id < b.id);
  }
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_CENTER_ORDER_H_
