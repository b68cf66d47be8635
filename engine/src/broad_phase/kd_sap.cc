#include "broad_phase/kd_sap.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <utility>

#include "atoll/assert.h"

namespace atl {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr int32_t kPrefetchDistance = 16;

inline float Lo(const AABB& b, int32_t axis) {
  return axis == 0 ? b.lower.x : b.lower.y;
}
inline float Hi(const AABB& b, int32_t axis) {
  return axis == 0 ? b.upper.x : b.upper.y;
}
template <int kAxis>
inline float LoOf(const AABB& b) {
  return kAxis == 0 ? b.lower.x : b.lower.y;
}
template <int kAxis>
inline float HiOf(const AABB& b) {
  return kAxis == 0 ? b.upper.x : b.upper.y;
}

// Regions are open: an object belongs to a child only when it lies strictly
// on that child's side of every plane, so objects in different subtrees can
// never touch (boxes touching at an edge count as overlapping).
inline bool FitsInside(const AABB& region, const AABB& box) {
  return box.lower.x > region.lower.x && box.upper.x < region.upper.x &&
         box.lower.y > region.lower.y && box.upper.y < region.upper.y;
}

// Side of an object relative to a plane: -1 strictly left, +1 strictly
// right, 0 touching or straddling it (stays in the node).
inline int Side(const AABB& box, int32_t axis, float plane) {
  if (Hi(box, axis) < plane) return -1;
  if (Lo(box, axis) > plane) return 1;
  return 0;
}

// Paper 001, eq. (1)-(3): the expected number of pair tests of a node with
// n own objects and subtree populations pl, pr, normalized between a
// perfect split and no split, against the balance of the two subtrees.
// True when the plane is good enough to keep.
bool EvaluatePlane(int64_t n, int64_t pl, int64_t pr) {
  const double total = static_cast<double>(n + pl + pr);
  if (total < 2.0) return true;
  auto pairs = [](double k) { return 0.5 * k * (k - 1.0); };
  const double dn = static_cast<double>(n);
  const double dl = static_cast<double>(pl);
  const double dr = static_cast<double>(pr);
  const double tests = pairs(dn) + pairs(dl) + pairs(dr) + dn * (dl + dr);
  const double worst = pairs(total);
  const double best = 2.0 * pairs(0.5 * total);
  if (worst <= best) return true;
  const double cost = (tests - best) / (worst - best);
  const double denominator = dn + static_cast<double>(std::max(pl, pr));
  const double balance =
      denominator > 0.0 ? static_cast<double>(std::min(pl, pr)) / denominator
                        : 0.0;
  return cost <= balance;
}

// Mean and variance of object centers (doubled, lower + upper) per axis.
struct Spread {
  double sum[2] = {0.0, 0.0};
  double sum_sq[2] = {0.0, 0.0};
  int64_t count = 0;
  void Add(const AABB& b) {
    const double cx = static_cast<double>(b.lower.x) + b.upper.x;
    const double cy = static_cast<double>(b.lower.y) + b.upper.y;
    sum[0] += cx;
    sum[1] += cy;
    sum_sq[0] += cx * cx;
    sum_sq[1] += cy * cy;
    ++count;
  }
  double Mean(int axis) const { return sum[axis] / static_cast<double>(count); }
  double Variance(int axis) const {
    const double mean = Mean(axis);
    return sum_sq[axis] / static_cast<double>(count) - mean * mean;
  }
};

}  // namespace

KdSap::KdSap(int32_t leaf_capacity)
    : BroadPhase(BroadPhaseType::kKdSap), leaf_capacity_(leaf_capacity) {
  ATOLL_ASSERT(leaf_capacity >= 2);
  nodes_.emplace_back();
  nodes_[0].region = {{-kInf, -kInf}, {kInf, kInf}};
  root_ = 0;
  preorder_.push_back(0);
}

void KdSap::MarkStale(int32_t id) {
  if (stale_[id] == 0) {
    stale_[id] = 1;
    stale_list_.push_back(id);
  }
}

void KdSap::OnCreate(int32_t id) {
  const size_t capacity = static_cast<size_t>(id_capacity());
  if (rest_.size() < capacity) {
    rest_.resize(capacity, 0);
    same_.resize(capacity, 0);
    stale_.resize(capacity, 0);
  }
  rest_[id] = 0;
  same_[id] = 0;
  pending_.push_back({id, proxies_[id].generation});
  MarkStale(id);
}

void KdSap::OnDestroy(int32_t id) {
  // Its item stays in the array until the next update, which drops it
  // (IsLive fails, or the serial differs if the id was reused).
  rest_[id] = 0;
  same_[id] = 0;
  MarkStale(id);
}

void KdSap::OnMove(int32_t id) { MarkStale(id); }

// Queries tolerate a few stale proxies (a side list, see CollectAabb), so a
// refit is just a move here.
void KdSap::OnRefit(int32_t id) { MarkStale(id); }

int32_t KdSap::NewNode() {
  int32_t index;
  if (!free_nodes_.empty()) {
    index = free_nodes_.back();
    free_nodes_.pop_back();
  } else {
    index = static_cast<int32_t>(nodes_.size());
    nodes_.emplace_back();
  }
  nodes_[index] = Node();
  return index;
}

void KdSap::FreeSubtree(int32_t node) {
  stack_.clear();
  stack_.push_back(node);
  while (!stack_.empty()) {
    const int32_t n = stack_.back();
    stack_.pop_back();
    if (nodes_[n].axis >= 0) {
      stack_.push_back(nodes_[n].left);
      stack_.push_back(nodes_[n].right);
    }
    nodes_[n].axis = -1;
    free_nodes_.push_back(n);
  }
}

void KdSap::PullSubtree(int32_t node) {
  // Moves every object of the subtree (still in its old place in objs_, or
  // waiting among this step's arrivals) onto the work stack.
  stack_.clear();
  stack_.push_back(node);
  while (!stack_.empty()) {
    const int32_t n = stack_.back();
    stack_.pop_back();
    Node& x = nodes_[n];
    if (x.axis >= 0) {
      stack_.push_back(x.left);
      stack_.push_back(x.right);
    }
    if (x.drained) continue;
    const size_t needed =
        static_cast<size_t>(work_top_) + x.stay + x.arrive_count;
    if (work_.size() < needed) work_.resize(std::max(needed, 2 * work_.size()));
    const Item* own = objs_.data() + x.begin;
    for (int32_t k = 0; k < x.count; ++k) {
      if ((own[k].flags & kGoneFlag) == 0) work_[work_top_++] = own[k];
    }
    for (int32_t k = 0; k < x.arrive_count; ++k) {
      work_[work_top_++] = arrivals_[x.arrive_begin + k];
    }
    x.drained = true;
    x.population = 0;
  }
}

template <bool kWasGrown, bool kGrown, bool kTrack>
[[gnu::always_inline]] inline void KdSap::Classify(Item* item, float epsilon) {
  // Item::box / Item::other hold (grown, real) or (real, grown) boxes
  // depending on the mode of the update that wrote them.
  const int32_t id = item->id;
  const AABB tight = proxies_[id].aabb;
  const AABB prev_tight = kWasGrown ? item->other : item->box;
  const AABB prev_grown = kWasGrown ? item->box : item->other;
  const bool rest = Contains(prev_grown, tight);
  const AABB g = rest ? prev_grown : Inflate(tight, epsilon);
  if constexpr (kTrack) {
    // Only the incremental search reads these (for the pair cache).
    same_[id] = tight == prev_tight ? 1 : 0;
    rest_[id] = rest ? 1 : 0;
  }
  item->box = kGrown ? g : tight;
  item->other = kGrown ? tight : g;
  item->flags = (item->flags & (kStaticFlag | kCustomFilterFlag)) |
                (rest ? kRestFlag : 0u);
}

template <bool kWasGrown, bool kGrown, bool kTrack>
void KdSap::RefreshNodes() {
  const float epsilon = epsilon_;
  int64_t rest_count = 0;
  int64_t live = 0;
  double size_sum = 0.0;
  for (int32_t n : preorder_) {
    Node& node = nodes_[n];
    node.stay = 0;
    node.arrive_count = 0;
    node.drained = false;
    Item* own = objs_.data() + node.begin;
    float node_size = 0.0f;
    // Only the leaves that reconsider their sweep axis this step (see
    // Process) need to know how far their objects moved.
    const bool track_motion =
        (step_ + static_cast<uint32_t>(n)) % kAxisPeriod == 0;
    Vec2 node_motion{0.0f, 0.0f};
    int32_t node_rest = 0;
    int32_t node_live = 0;
    for (int32_t k = 0; k < node.count; ++k) {
      Item& item = own[k];
      // Objects are in spatial order, records in id order: each lookup is
      // a likely cache miss, so ask for records well ahead of use.
      if (k + kPrefetchDistance < node.count) {
        __builtin_prefetch(&proxies_[own[k + kPrefetchDistance].id]);
      }
      if constexpr (kWasGrown == kGrown) {
        if (stale_[item.id] == 0) {
          // Not moved (nor destroyed) since the last update: Classify would
          // find it at rest, keep its boxes and leave it in this node, the
          // node it was put in. Skipping that saves the lookup by id, which
          // in a mostly resting scene is most of the refresh.
          item.flags = (item.flags & (kStaticFlag | kCustomFilterFlag)) |
                       kRestFlag;
          if constexpr (kTrack) {
            same_[item.id] = 1;
            rest_[item.id] = 1;
          }
          const AABB& real = kGrown ? item.other : item.box;
          node_size +=
              (real.upper.x - real.lower.x) + (real.upper.y - real.lower.y);
          ++node_rest;
          ++node_live;
          ++node.stay;
          continue;
        }
      }
      // A destroyed proxy (its id maybe reused since) changed generation.
      if (proxies_[item.id].generation != item.serial) {
        item.flags |= kGoneFlag;
        continue;
      }
      if (track_motion) {
        // How far the (doubled) center moved on each axis.
        const AABB& was = kWasGrown ? item.other : item.box;
        const AABB& now = proxies_[item.id].aabb;
        node_motion += Vec2{Abs((now.lower.x + now.upper.x) -
                                (was.lower.x + was.upper.x)),
                            Abs((now.lower.y + now.upper.y) -
                                (was.lower.y + was.upper.y))};
      }
      Classify<kWasGrown, kGrown, kTrack>(&item, epsilon);
      const AABB& real = kGrown ? item.other : item.box;
      node_size +=
          (real.upper.x - real.lower.x) + (real.upper.y - real.lower.y);
      node_rest += (item.flags & kRestFlag) != 0 ? 1 : 0;
      ++node_live;
      if (FitsInside(node.region, item.box)) {
        ++node.stay;
        continue;
      }
      // Refit: climb to the nearest ancestor that contains the box. The
      // root's region is the whole plane, so the climb ends there at worst
      // (and the root keeps even boxes that reach infinity).
      if (node.parent < 0) {
        ++node.stay;
        continue;
      }
      int32_t target = node.parent;
      while (nodes_[target].parent >= 0 &&
             !FitsInside(nodes_[target].region, item.box)) {
        target = nodes_[target].parent;
      }
      climbers_.push_back({target, item});
      item.flags |= kGoneFlag;
    }
    node.motion = node_motion;
    size_sum += node_size;
    rest_count += node_rest;
    live += node_live;
  }
  for (const auto& [id, serial] : pending_) {
    if (proxies_[id].generation != serial) continue;
    Item item;
    item.id = id;
    item.body = proxies_[id].body;
    item.flags = proxies_[id].flags & (kStaticFlag | kCustomFilterFlag);
    item.serial = serial;
    // No previous real box (differs from any) and an empty grown box.
    const AABB none_real = {{kInf, kInf}, {kInf, kInf}};
    const AABB none_grown = {{kInf, kInf}, {-kInf, -kInf}};
    item.box = kWasGrown ? none_grown : none_real;
    item.other = kWasGrown ? none_real : none_grown;
    Classify<kWasGrown, kGrown, kTrack>(&item, epsilon);
    const AABB& real = kGrown ? item.other : item.box;
    size_sum += (real.upper.x - real.lower.x) + (real.upper.y - real.lower.y);
    ++live;
    climbers_.push_back({root_, item});
  }
  live_items_ = static_cast<int32_t>(live);
  rest_share_ = live > 0 ? static_cast<float>(static_cast<double>(rest_count) /
                                              static_cast<double>(live))
                         : 0.0f;
  // Epsilon for the next step: 1/100 of the mean object size.
  epsilon_ = live > 0 ? static_cast<float>(kEpsilonFraction * size_sum /
                                           (2.0 * static_cast<double>(live)))
                      : 0.0f;
}

void KdSap::Refresh() {
  climbers_.clear();
  const bool track = mode_ == Mode::kIncremental;
  if (prev_box_is_grown_) {
    if (box_is_grown_) {
      track ? RefreshNodes<true, true, true>()
            : RefreshNodes<true, true, false>();
    } else {
      RefreshNodes<true, false, false>();
    }
  } else {
    if (box_is_grown_) {
      track ? RefreshNodes<false, true, true>()
            : RefreshNodes<false, true, false>();
    } else {
      RefreshNodes<false, false, false>();
    }
  }
  pending_.clear();

  // Group the climbers by target node (pre-order of targets, then arrival
  // order): a counting sort over the node list.
  for (const auto& climber : climbers_) ++nodes_[climber.first].arrive_count;
  int32_t offset = 0;
  for (int32_t n : preorder_) {
    nodes_[n].arrive_begin = offset;
    offset += nodes_[n].arrive_count;
    nodes_[n].arrive_count = 0;
  }
  arrivals_.resize(climbers_.size());
  for (const auto& [target, item] : climbers_) {
    Node& node = nodes_[target];
    arrivals_[node.arrive_begin + node.arrive_count++] = item;
  }
  // Subtree populations after the refit, children before parents.
  for (auto it = preorder_.rbegin(); it != preorder_.rend(); ++it) {
    Node& node = nodes_[*it];
    node.population = node.stay + node.arrive_count;
    if (node.axis >= 0) {
      node.population +=
          nodes_[node.left].population + nodes_[node.right].population;
    }
  }
}

bool KdSap::SweepCosts(const Item* block, int32_t count, Vec2 motion,
                       double cost[2]) {
  // A sweep on axis a meets the pairs whose intervals on a overlap, and of
  // those only the pairs the search wants (with a moving object, when
  // incremental). Estimated from a histogram of the (doubled) centers in
  // bins about two mean extents wide: pairs sharing a bin, times the share
  // of such pairs that overlap. The objects' variance alone misjudges
  // clustered blocks, such as a heap with a few objects falling onto it,
  // whose centers spread on the vertical but crowd along it. Keeping the
  // block sorted costs too: about one step per object a mover passes, the
  // distance the movers travelled on a (`motion`, doubled) times the
  // objects per unit. Objects falling onto a heap pass many on the
  // vertical and none across it. Single precision is plenty for an
  // estimate.
  constexpr int32_t kBins = 32;
  const bool all = mode_ != Mode::kIncremental;
  float lo_x = kInf, hi_x = -kInf, lo_y = kInf, hi_y = -kInf;
  float extent_x = 0.0f, extent_y = 0.0f;
  int32_t searched = 0;
  for (int32_t k = 0; k < count; ++k) {
    const AABB& b = block[k].box;
    const float cx = b.lower.x + b.upper.x;
    const float cy = b.lower.y + b.upper.y;
    lo_x = Min(lo_x, cx);
    hi_x = Max(hi_x, cx);
    lo_y = Min(lo_y, cy);
    hi_y = Max(hi_y, cy);
    extent_x += b.upper.x - b.lower.x;
    extent_y += b.upper.y - b.lower.y;
    searched += all || (block[k].flags & kRestFlag) == 0 ? 1 : 0;
  }
  if (searched == 0) return false;
  const float span[2] = {hi_x - lo_x, hi_y - lo_y};
  // In doubled centers two boxes overlap when their centers lie within
  // about two mean extents.
  const float reach[2] = {2.0f * extent_x / static_cast<float>(count),
                          2.0f * extent_y / static_cast<float>(count)};
  int32_t bins[2];
  float scale[2];
  for (int a = 0; a < 2; ++a) {
    // Boxes reaching to infinity (kept by the root): no estimate.
    if (!(span[a] < kInf) || !(reach[a] < kInf)) return false;
    bins[a] = span[a] > 0.0f && reach[a] > 0.0f
                  ? static_cast<int32_t>(Min(span[a] / reach[a],
                                             static_cast<float>(kBins)))
                  : 1;
    bins[a] = std::max(bins[a], 1);
    scale[a] = span[a] > 0.0f ? static_cast<float>(bins[a]) / span[a] : 0.0f;
  }
  int32_t all_in[2][kBins] = {};
  int32_t searched_in[2][kBins] = {};
  for (int32_t k = 0; k < count; ++k) {
    const AABB& b = block[k].box;
    const int32_t wanted = all || (block[k].flags & kRestFlag) == 0 ? 1 : 0;
    const int32_t bx = std::min(
        bins[0] - 1,
        static_cast<int32_t>((b.lower.x + b.upper.x - lo_x) * scale[0]));
    const int32_t by = std::min(
        bins[1] - 1,
        static_cast<int32_t>((b.lower.y + b.upper.y - lo_y) * scale[1]));
    ++all_in[0][bx];
    searched_in[0][bx] += wanted;
    ++all_in[1][by];
    searched_in[1][by] += wanted;
  }
  for (int a = 0; a < 2; ++a) {
    double pairs = 0.0;
    for (int32_t bin = 0; bin < bins[a]; ++bin) {
      pairs += static_cast<double>(all_in[a][bin]) * searched_in[a][bin];
    }
    const double overlap =
        span[a] > 0.0f
            ? std::min(1.0, static_cast<double>(reach[a]) * bins[a] / span[a])
            : 1.0;
    const double travel = a == 0 ? motion.x : motion.y;
    const double passes =
        travel < kInf && span[a] > 0.0f ? travel * count / span[a] : 0.0;
    cost[a] = pairs * overlap + passes;
  }
  return true;
}

void KdSap::SortBlock(Item* block, int32_t sorted, int32_t count,
                      int32_t axis) {
  if (count < 2) return;
  auto less = [axis](const Item& x, const Item& y) {
    const float kx = Lo(x.box, axis);
    const float ky = Lo(y.box, axis);
    return kx < ky || (kx == ky && x.id < y.id);
  };
  // The first `sorted` items were in order last step. When they moved only
  // a little (few descents), insertion sort is linear in the displacement
  // and newcomers are merged in; otherwise (incoherent motion) sort afresh.
  auto count_descents = [&](int32_t end) {
    int32_t descents = 0;
    for (int32_t i = 1; i < end; ++i) {
      descents += less(block[i], block[i - 1]) ? 1 : 0;
    }
    return descents;
  };
  if (sorted * 2 < count) {
    SortFully(block, count, axis);
    return;
  }
  if (count_descents(sorted) * 16 > sorted) {
    // Incoherent as a whole, but often only because some objects crossed
    // a resting crowd (objects falling onto a heap, along the vertical):
    // then the resting ones, whose boxes barely change (not at all when
    // grown), are still in order among themselves. Keep them in place and
    // treat the others as newcomers.
    int32_t resting = 0;
    for (int32_t i = 0; i < sorted; ++i) {
      resting += (block[i].flags & kRestFlag) != 0 ? 1 : 0;
    }
    if (resting * 2 < count) {
      SortFully(block, count, axis);
      return;
    }
    movers_.clear();
    int32_t kept = 0;
    for (int32_t i = 0; i < sorted; ++i) {
      if ((block[i].flags & kRestFlag) != 0) {
        block[kept++] = block[i];
      } else {
        movers_.push_back(block[i]);
      }
    }
    std::copy(movers_.begin(), movers_.end(), block + kept);
    sorted = kept;
    if (count_descents(sorted) * 16 > sorted) {
      SortFully(block, count, axis);
      return;
    }
  }
  for (int32_t i = 1; i < sorted; ++i) {
    if (!less(block[i], block[i - 1])) continue;
    const Item value = block[i];
    int32_t j = i;
    while (j > 0 && less(value, block[j - 1])) {
      block[j] = block[j - 1];
      --j;
    }
    block[j] = value;
  }
  if (sorted == count) return;
  // Newcomers: sorted apart, then merged in from the back.
  std::sort(block + sorted, block + count, less);
  merge_scratch_.assign(block + sorted, block + count);
  int32_t a = sorted - 1;
  int32_t b = count - sorted - 1;
  for (int32_t out = count - 1; b >= 0; --out) {
    if (a >= 0 && less(merge_scratch_[b], block[a])) {
      block[out] = block[a--];
    } else {
      block[out] = merge_scratch_[b--];
    }
  }
}

void KdSap::SortFully(Item* block, int32_t count, int32_t axis) {
  // Sorting 8-byte keys and moving each 48-byte item once beats sorting the
  // items. Key: the lower bound as an order-preserving integer, then the
  // position (the order of equal bounds does not matter to the sweep).
  sort_keys_.resize(static_cast<size_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    uint32_t bits;
    const float lo = Lo(block[i].box, axis);
    std::memcpy(&bits, &lo, sizeof(bits));
    bits ^= (bits & 0x80000000u) != 0 ? 0xffffffffu : 0x80000000u;
    sort_keys_[i] =
        static_cast<uint64_t>(bits) << 32 | static_cast<uint32_t>(i);
  }
  std::sort(sort_keys_.begin(), sort_keys_.end());
  merge_scratch_.assign(block, block + count);
  for (int32_t i = 0; i < count; ++i) {
    block[i] = merge_scratch_[static_cast<uint32_t>(sort_keys_[i])];
  }
}

template <KdSap::Mode kMode, int kAxis>
void KdSap::Detect(const Item* block, int32_t count, const Item* ext,
                   int32_t ext_count) {
  if (count == 0) return;
  constexpr int kOther = 1 - kAxis;
  // A candidate pair is kept when `ok` (it overlaps on the sweep axis),
  // it overlaps on the other axis and it passes the rules. In a crowded
  // node about half the candidates fail, at random, so a branch on the
  // outcome would mispredict about every other time; instead every
  // candidate's key is written and the cursor advances by the outcome.
  // Key: a << 32 | b << 1 | (real boxes overlap; always, when the boxes are
  // the real ones).
  uint64_t* keys = found_.data();
  int64_t n = found_count_;
  int64_t capacity = static_cast<int64_t>(found_.size());
  // Makes room for `more` keys beyond the cursor.
  auto reserve = [&](int64_t more) {
    if (n + more <= capacity) return;
    found_.resize(static_cast<size_t>(std::max(n + more, 2 * capacity)));
    keys = found_.data();
    capacity = static_cast<int64_t>(found_.size());
  };
  auto emit = [&](const Item& x, const Item& y, uint32_t ok) {
    ok &= static_cast<uint32_t>(LoOf<kOther>(x.box) <= HiOf<kOther>(y.box)) &
          static_cast<uint32_t>(LoOf<kOther>(y.box) <= HiOf<kOther>(x.box)) &
          static_cast<uint32_t>(x.body != y.body) &
          static_cast<uint32_t>((x.flags & y.flags & kStaticFlag) == 0);
    // Rare, so this branch predicts well.
    if (((x.flags | y.flags) & kCustomFilterFlag) != 0) {
      ok &= ShouldCollide(filters_[x.id], filters_[y.id]) ? 1u : 0u;
    }
    uint64_t real = 1;
    if constexpr (kMode != Mode::kComplete) {
      real = static_cast<uint64_t>(x.other.lower.x <= y.other.upper.x) &
             static_cast<uint64_t>(y.other.lower.x <= x.other.upper.x) &
             static_cast<uint64_t>(x.other.lower.y <= y.other.upper.y) &
             static_cast<uint64_t>(y.other.lower.y <= x.other.upper.y);
    }
    // The id order is random too: min and max by masks, not a branch.
    const uint32_t a = static_cast<uint32_t>(x.id);
    const uint32_t b = static_cast<uint32_t>(y.id);
    const uint32_t swap = (a ^ b) & (0u - static_cast<uint32_t>(b < a));
    const uint64_t lo = a ^ swap;
    const uint64_t hi = b ^ swap;
    keys[n] = lo << 32 | hi << 1 | real;
    n += ok;
  };
  // In incremental mode pairs of two resting objects come from the cache,
  // so only pairs with a moving object are searched: the positions of the
  // moving objects in the block, in sweep order.
  constexpr bool kIncremental = kMode == Mode::kIncremental;
  if constexpr (kIncremental) moving_.clear();
  float max_extent = 0.0f;
  for (int32_t i = 0; i < count; ++i) {
    if constexpr (kIncremental) {
      if ((block[i].flags & kRestFlag) == 0) moving_.push_back(i);
    }
    max_extent =
        Max(max_extent, HiOf<kAxis>(block[i].box) - LoOf<kAxis>(block[i].box));
  }
  const int32_t* moving = moving_.data();
  const int32_t moving_count =
      kIncremental ? static_cast<int32_t>(moving_.size()) : count;
  // Internal pairs: sweep along the sorted axis. Each pair is found from
  // the object that comes first; in incremental mode a resting object only
  // looks at the moving objects after it.
  // Object i against every object after it whose interval starts in reach.
  const auto sweep_after = [&](int32_t i) {
    const Item& x = block[i];
    const float hi = HiOf<kAxis>(x.box);
    reserve(count - i);
    for (int32_t j = i + 1; j < count && LoOf<kAxis>(block[j].box) <= hi; ++j) {
      emit(x, block[j], 1u);
    }
  };
  if constexpr (kIncremental) {
    int32_t i = 0;
    for (int32_t k = 0; k <= moving_count; ++k) {
      const int32_t stop = k < moving_count ? moving[k] : count;
      for (; i < stop; ++i) {
        const Item& x = block[i];
        const float hi = HiOf<kAxis>(x.box);
        reserve(moving_count - k);
        for (int32_t m = k;
             m < moving_count && LoOf<kAxis>(block[moving[m]].box) <= hi;
             ++m) {
          emit(x, block[moving[m]], 1u);
        }
      }
      if (k == moving_count) break;
      sweep_after(i++);
    }
  } else {
    for (int32_t i = 0; i < count; ++i) sweep_after(i);
  }
  // External pairs: for each external object the run of own objects whose
  // interval can reach it (in incremental mode, of the moving ones when the
  // external rests). Objects starting more than the widest extent before
  // it cannot; the margin covers the rounding of that bound.
  for (int32_t e = 0; e < ext_count; ++e) {
    const Item& x = ext[e];
    const float lo_x = LoOf<kAxis>(x.box);
    const float hi_x = HiOf<kAxis>(x.box);
    const float margin = (Abs(lo_x) + 2.0f * max_extent) * 1.0e-6f + 1.0e-30f;
    const float from = (lo_x - max_extent) - margin;
    if (kIncremental && (x.flags & kRestFlag) != 0) {
      int32_t first = 0;
      int32_t last = moving_count;
      while (first < last) {
        const int32_t mid = first + (last - first) / 2;
        if (LoOf<kAxis>(block[moving[mid]].box) < from) {
          first = mid + 1;
        } else {
          last = mid;
        }
      }
      reserve(moving_count - first);
      for (int32_t m = first;
           m < moving_count && LoOf<kAxis>(block[moving[m]].box) <= hi_x;
           ++m) {
        const Item& y = block[moving[m]];
        emit(x, y, static_cast<uint32_t>(HiOf<kAxis>(y.box) >= lo_x));
      }
      continue;
    }
    int32_t first = 0;
    int32_t last = count;
    while (first < last) {
      const int32_t mid = first + (last - first) / 2;
      if (LoOf<kAxis>(block[mid].box) < from) {
        first = mid + 1;
      } else {
        last = mid;
      }
    }
    reserve(count - first);
    for (int32_t i = first; i < count && LoOf<kAxis>(block[i].box) <= hi_x;
         ++i) {
      // Starting within reach does not mean reaching: check the axis.
      emit(x, block[i],
           static_cast<uint32_t>(HiOf<kAxis>(block[i].box) >= lo_x));
    }
  }
  found_count_ = n;
}

template <KdSap::Mode kMode>
void KdSap::DetectOnAxis(const Item* block, int32_t count, int32_t axis,
                         const Item* ext, int32_t ext_count) {
  if (axis == 0) {
    Detect<kMode, 0>(block, count, ext, ext_count);
  } else {
    Detect<kMode, 1>(block, count, ext, ext_count);
  }
}

template <bool kDetect>
void KdSap::Process(int32_t n, const AABB& region, int32_t in_begin,
                    int32_t in_end, int32_t ext_begin, int32_t ext_end,
                    int32_t out_begin, int32_t depth) {
  nodes_[n].region = region;
  // The work stack run of this node: objects arriving from below (refit),
  // from the parent (filter) and pulled up by Translate/Collapse. The
  // node's remaining own objects are read where they are, in objs_.
  const int32_t work_begin = work_top_;
  {
    const Node& node = nodes_[n];
    const int32_t arrive = node.drained ? 0 : node.arrive_count;
    const size_t needed =
        static_cast<size_t>(work_top_) + arrive + (in_end - in_begin);
    if (work_.size() < needed) work_.resize(std::max(needed, 2 * work_.size()));
    for (int32_t k = 0; k < arrive; ++k) {
      work_[work_top_++] = arrivals_[node.arrive_begin + k];
    }
    for (int32_t k = in_begin; k < in_end; ++k) work_[work_top_++] = work_[k];
  }
  auto own_stays = [this](int32_t node) {
    return nodes_[node].drained ? 0 : nodes_[node].stay;
  };
  auto for_each_object = [this, &work_begin](int32_t node, auto&& fn) {
    const Node& x = nodes_[node];
    if (!x.drained) {
      const Item* own = objs_.data() + x.begin;
      for (int32_t k = 0; k < x.count; ++k) {
        if ((own[k].flags & kGoneFlag) == 0) fn(own[k]);
      }
    }
    for (int32_t k = work_begin; k < work_top_; ++k) fn(work_[k]);
  };
  auto count_sides = [&](int32_t node, int64_t* nl, int64_t* ns, int64_t* nr) {
    const int32_t axis = nodes_[node].axis;
    const float plane = nodes_[node].plane;
    *nl = *ns = *nr = 0;
    for_each_object(node, [&](const Item& item) {
      const int side = Side(item.box, axis, plane);
      if (side < 0) {
        ++*nl;
      } else if (side > 0) {
        ++*nr;
      } else {
        ++*ns;
      }
    });
  };

  // Optimize (paper 001, figure 7).
  for (;;) {
    const int32_t movers = work_top_ - work_begin;
    if (nodes_[n].axis >= 0) {
      const int32_t left = nodes_[n].left;
      const int32_t right = nodes_[n].right;
      const int64_t pop_left = nodes_[left].population;
      const int64_t pop_right = nodes_[right].population;
      if (own_stays(n) + movers + pop_left + pop_right < leaf_capacity_) {
        // Collapse: the subtree is underpopulated; fold it into this node.
        PullSubtree(left);
        PullSubtree(right);
        FreeSubtree(left);
        FreeSubtree(right);
        Node& node = nodes_[n];
        node.axis = -1;
        node.left = node.right = -1;
        node.new_leaf = true;
        continue;  // now a leaf
      }
      int64_t nl, ns, nr;
      count_sides(n, &nl, &ns, &nr);
      if (EvaluatePlane(ns, pop_left + nl, pop_right + nr)) break;
      // Translate: gather the whole subtree here and move the plane to the
      // objects' mean; the filter below sends them down again.
      PullSubtree(left);
      PullSubtree(right);
      Spread spread;
      for_each_object(n, [&](const Item& item) { spread.Add(item.box); });
      nodes_[n].plane = static_cast<float>(0.5 * spread.Mean(nodes_[n].axis));
      count_sides(n, &nl, &ns, &nr);
      if (EvaluatePlane(ns, nl, nr)) break;
      // Erase: drop this node and its smaller branch; the larger branch
      // takes its place and all objects (already gathered) go there.
      const int32_t keep = nl >= nr ? left : right;
      const int32_t drop = keep == left ? right : left;
      FreeSubtree(drop);
      {
        // This node's own objects join the work stack before it goes.
        Node& node = nodes_[n];
        if (!node.drained) {
          const size_t needed = static_cast<size_t>(work_top_) + node.count;
          if (work_.size() < needed) {
            work_.resize(std::max(needed, 2 * work_.size()));
          }
          const Item* own = objs_.data() + node.begin;
          for (int32_t k = 0; k < node.count; ++k) {
            if ((own[k].flags & kGoneFlag) == 0) work_[work_top_++] = own[k];
          }
          node.drained = true;
        }
      }
      const int32_t parent = nodes_[n].parent;
      nodes_[keep].parent = parent;
      if (parent < 0) {
        root_ = keep;
      } else if (nodes_[parent].left == n) {
        nodes_[parent].left = keep;
      } else {
        nodes_[parent].right = keep;
      }
      nodes_[n].axis = -1;
      free_nodes_.push_back(n);
      n = keep;
      nodes_[n].region = region;
      continue;
    }
    // Leaf: Partition when crowded, at the mean of the axis of largest
    // variance.
    if (own_stays(n) + movers > leaf_capacity_ && depth < kMaxDepth) {
      Spread spread;
      for_each_object(n, [&](const Item& item) { spread.Add(item.box); });
      const double var_x = spread.Variance(0);
      const double var_y = spread.Variance(1);
      if (var_x > 0.0 || var_y > 0.0) {
        const int32_t axis = var_x >= var_y ? 0 : 1;
        const float plane = static_cast<float>(0.5 * spread.Mean(axis));
        const int32_t left = NewNode();
        const int32_t right = NewNode();
        nodes_[left].parent = n;
        nodes_[right].parent = n;
        nodes_[left].sap_axis = nodes_[right].sap_axis = 1 - axis;
        Node& node = nodes_[n];
        node.axis = axis;
        node.plane = plane;
        node.left = left;
        node.right = right;
      }
    }
    break;
  }

  // Filter: objects strictly on one side go down; the rest stay. Goers are
  // compacted on the work stack (left run, then right run) as the
  // children's incoming objects; stayers go to their final place, own
  // objects (sorted last step) first, then newcomers.
  next_preorder_.push_back(n);
  const int32_t axis = nodes_[n].axis;
  const float plane = nodes_[n].plane;
  const bool leaf = axis < 0;
  const int32_t work_end = work_top_;
  const bool drained = nodes_[n].drained;
  const Item* own = objs_.data() + nodes_[n].begin;
  const int32_t own_count = drained ? 0 : nodes_[n].count;
  int32_t left_count = 0;
  int32_t right_count = 0;
  int32_t stay_count = 0;
  int32_t sorted_count = 0;  // the leading stayers still in last step's order
  int32_t block_begin = out_begin;
  Item* block;
  if (leaf) {
    // Nothing goes down: copy straight to the final place.
    block = next_objs_.data() + block_begin;
    for (int32_t k = 0; k < own_count; ++k) {
      if ((own[k].flags & kGoneFlag) == 0) block[stay_count++] = own[k];
    }
    sorted_count = stay_count;
    for (int32_t k = work_begin; k < work_end; ++k)
      block[stay_count++] = work_[k];
    work_top_ = work_begin;
  } else {
    stay_scratch_.clear();
    right_goers_.clear();
    left_goers_.clear();
    // Own objects first into the scratch (no slot of the work run is
    // written before it is read: left goers of the run compact in place).
    for (int32_t k = 0; k < own_count; ++k) {
      const Item& item = own[k];
      if ((item.flags & kGoneFlag) != 0) continue;
      const int side = Side(item.box, axis, plane);
      if (side < 0) {
        left_goers_.push_back(item);
      } else if (side > 0) {
        right_goers_.push_back(item);
      } else {
        stay_scratch_.push_back(item);
      }
    }
    sorted_count = static_cast<int32_t>(stay_scratch_.size());
    for (int32_t k = work_begin; k < work_end; ++k) {
      const Item& item = work_[k];
      const int side = Side(item.box, axis, plane);
      if (side < 0) {
        work_[work_begin + left_count++] = item;
      } else if (side > 0) {
        right_goers_.push_back(item);
      } else {
        stay_scratch_.push_back(item);
      }
    }
    // Own left goers join the left run; the right run follows.
    const size_t needed = static_cast<size_t>(work_begin) + left_count +
                          left_goers_.size() + right_goers_.size();
    if (work_.size() < needed) work_.resize(std::max(needed, 2 * work_.size()));
    for (const Item& item : left_goers_)
      work_[work_begin + left_count++] = item;
    for (const Item& item : right_goers_) {
      work_[work_begin + left_count + right_count++] = item;
    }
    work_top_ = work_begin + left_count + right_count;
    stay_count = static_cast<int32_t>(stay_scratch_.size());
    block_begin = out_begin + nodes_[nodes_[n].left].population + left_count;
    block = next_objs_.data() + block_begin;
    std::copy(stay_scratch_.begin(), stay_scratch_.end(), block);
  }
  ATOLL_ASSERT(block_begin + stay_count <= live_items_);
  written_ += stay_count;

  // The sweep axis: across the plane for inner nodes (their objects line
  // up along it); for leaves the cheaper axis by SweepCosts, switched only
  // on a clear win so the order survives from step to step. The estimate
  // takes two passes over the block, a good part of what a coherent step
  // spends on a leaf, so a leaf is looked at when it is new and then every
  // kAxisPeriod steps (staggered).
  int32_t sap_axis = nodes_[n].sap_axis;
  if (leaf && stay_count > 1 &&
      (nodes_[n].new_leaf ||
       (step_ + static_cast<uint32_t>(n)) % kAxisPeriod == 0)) {
    nodes_[n].new_leaf = false;
    double cost[2];
    if (SweepCosts(block, stay_count, nodes_[n].motion, cost) &&
        1.2 * cost[1 - sap_axis] < cost[sap_axis]) {
      sap_axis = 1 - sap_axis;
    }
  } else if (!leaf) {
    sap_axis = 1 - axis;
  }
  SortBlock(block, sap_axis == nodes_[n].sap_axis ? sorted_count : 0,
            stay_count, sap_axis);
  const int32_t left = nodes_[n].left;
  const int32_t right = nodes_[n].right;
  {
    Node& node = nodes_[n];
    node.sap_axis = sap_axis;
    node.begin = block_begin;
    node.count = stay_count;
  }
  if constexpr (kDetect) {
    const Item* ext = ext_.data() + ext_begin;
    const int32_t ext_count = ext_end - ext_begin;
    switch (mode_) {
      case Mode::kComplete:
        DetectOnAxis<Mode::kComplete>(block, stay_count, sap_axis, ext,
                                      ext_count);
        break;
      case Mode::kCompleteCached:
        DetectOnAxis<Mode::kCompleteCached>(block, stay_count, sap_axis, ext,
                                            ext_count);
        break;
      case Mode::kIncremental:
        DetectOnAxis<Mode::kIncremental>(block, stay_count, sap_axis, ext,
                                         ext_count);
        break;
    }
  }
  if (!leaf) {
    // Externals of a child: the ancestors' and this node's objects that
    // reach into the child's half of the region.
    auto push_externals = [&](bool to_left) {
      const size_t needed =
          static_cast<size_t>(ext_end) + (ext_end - ext_begin) + stay_count;
      if (ext_.size() < needed) ext_.resize(std::max(needed, 2 * ext_.size()));
      int32_t top = ext_end;
      auto take = [&](const Item& item) {
        if (to_left ? Lo(item.box, axis) < plane : Hi(item.box, axis) > plane) {
          ext_[top++] = item;
        }
      };
      for (int32_t k = ext_begin; k < ext_end; ++k) take(ext_[k]);
      const Item* stayers = next_objs_.data() + block_begin;
      for (int32_t k = 0; k < stay_count; ++k) take(stayers[k]);
      return top;
    };
    AABB left_region = region;
    AABB right_region = region;
    if (axis == 0) {
      left_region.upper.x = plane;
      right_region.lower.x = plane;
    } else {
      left_region.upper.y = plane;
      right_region.lower.y = plane;
    }
    int32_t top = kDetect ? push_externals(true) : ext_end;
    Process<kDetect>(left, left_region, work_begin, work_begin + left_count,
                     ext_end, top, out_begin, depth + 1);
    top = kDetect ? push_externals(false) : ext_end;
    Process<kDetect>(right, right_region, work_begin + left_count,
                     work_begin + left_count + right_count, ext_end, top,
                     block_begin + stay_count, depth + 1);
  }
  work_top_ = work_begin;
}

template <bool kDetect>
void KdSap::Update() {
  Refresh();
  next_objs_.resize(static_cast<size_t>(live_items_));
  next_preorder_.clear();
  work_top_ = 0;
  written_ = 0;
  Process<kDetect>(root_, {{-kInf, -kInf}, {kInf, kInf}}, 0, 0, 0, 0, 0, 0);
  ATOLL_ASSERT(written_ == live_items_);
  objs_.swap(next_objs_);
  preorder_.swap(next_preorder_);
  prev_box_is_grown_ = box_is_grown_;
  for (int32_t id : stale_list_) stale_[id] = 0;
  stale_list_.clear();
}

void KdSap::ComputePairs(std::vector<ProxyPair>* pairs) {
  // The mode follows the previous step's share of resting objects (this
  // step's is only known after the refresh that the mode configures).
  if (rest_share_ >= kIncrementalShare && cache_valid_) {
    mode_ = Mode::kIncremental;
  } else if (rest_share_ >= 0.5f * kIncrementalShare) {
    mode_ = Mode::kCompleteCached;
  } else {
    mode_ = Mode::kComplete;
  }
  box_is_grown_ = mode_ != Mode::kComplete;
  ++step_;
  found_count_ = 0;
  Update<true>();
  keys_.assign(found_.begin(), found_.begin() + found_count_);
  sorter_.SortKeys(&keys_, id_capacity());

  if (mode_ == Mode::kIncremental) {
    // Pairs of two resting objects carry over (their grown boxes did not
    // change); their real-overlap bit is refreshed unless both real boxes
    // are unchanged too. Everything else was searched afresh.
    merged_.clear();
    merged_.reserve(cache_.size() + keys_.size());
    size_t f = 0;
    for (uint64_t key : cache_) {
      const int32_t a = static_cast<int32_t>(key >> 32);
      const int32_t b = static_cast<int32_t>((key & 0xffffffffull) >> 1);
      if (rest_[a] == 0 || rest_[b] == 0) continue;
      uint64_t updated = key;
      if (same_[a] == 0 || same_[b] == 0) {
        updated = (key & ~1ull) |
                  (Overlaps(proxies_[a].aabb, proxies_[b].aabb) ? 1u : 0u);
      }
      while (f < keys_.size() && keys_[f] < updated)
        merged_.push_back(keys_[f++]);
      merged_.push_back(updated);
    }
    while (f < keys_.size()) merged_.push_back(keys_[f++]);
    cache_.swap(merged_);
    cache_valid_ = true;
  } else if (mode_ == Mode::kCompleteCached) {
    cache_.swap(keys_);
    cache_valid_ = true;
  } else {
    cache_.swap(keys_);
    cache_valid_ = false;
  }
  pairs->reserve(cache_.size());
  for (uint64_t key : cache_) {
    if ((key & 1u) == 0) continue;
    pairs->push_back({static_cast<int32_t>(key >> 32),
                      static_cast<int32_t>((key & 0xffffffffull) >> 1)});
  }
  if (!cache_valid_) cache_.clear();
}

void KdSap::EnsureQueryable() {
  // A few stale proxies are answered from the side list; many would make
  // every query linear, so the tree is brought up to date instead. That
  // re-classifies objects behind the pair cache's back, so the next step
  // searches completely.
  const size_t limit =
      std::max<size_t>(64, static_cast<size_t>(live_items_) / 16);
  if (stale_list_.size() <= limit) return;
  Update<false>();
  cache_valid_ = false;
}

void KdSap::CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  EnsureQueryable();
  stack_.clear();
  stack_.push_back(root_);
  while (!stack_.empty()) {
    const Node& node = nodes_[stack_.back()];
    stack_.pop_back();
    if (!Overlaps(node.region, aabb)) continue;
    const Item* own = objs_.data() + node.begin;
    for (int32_t k = 0; k < node.count; ++k) {
      const AABB& real = box_is_grown_ ? own[k].other : own[k].box;
      if (stale_[own[k].id] == 0 && Overlaps(real, aabb)) {
        ids->push_back(own[k].id);
      }
    }
    if (node.axis >= 0) {
      stack_.push_back(node.right);
      stack_.push_back(node.left);
    }
  }
  for (int32_t id : stale_list_) {
    if (IsLive(id) && Overlaps(proxies_[id].aabb, aabb)) ids->push_back(id);
  }
}

// Continuous collision queries the statics for each fast body after the
// solver moved every awake proxy: answering from the tree would bring it up
// to date mid-step (EnsureQueryable), which costs a second update and the
// next step's pair cache. The statics' own index only changes with them.
void KdSap::CollectStaticAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  PrepareStatic();
  statics_.Collect(aabb, ids);
}

void KdSap::PrepareStatic() {
  if (statics_epoch_ != static_epoch()) {
    std::vector<BoxIndex::Record> records;
    records.reserve(static_cast<size_t>(static_count()));
    for (int32_t id = 0; id < id_capacity(); ++id) {
      const uint32_t flags = proxies_[id].flags;
      if ((flags & kLiveFlag) != 0 && (flags & kStaticFlag) != 0) {
        records.push_back({proxies_[id].aabb, id});
      }
    }
    statics_.Build(std::move(records));
    statics_epoch_ = static_epoch();
  }
}

void KdSap::TraverseRay(RayVisitor* visitor) {
  EnsureQueryable();
  stack_.clear();
  stack_.push_back(root_);
  while (!stack_.empty()) {
    const Node& node = nodes_[stack_.back()];
    stack_.pop_back();
    float t = 0.0f;
    if (!RayEntersAabb(visitor->input(), node.region, &t) ||
        t > visitor->Limit()) {
      continue;
    }
    const int32_t begin = node.begin;
    const int32_t count = node.count;
    const int32_t left = node.left;
    const int32_t right = node.right;
    const bool inner = node.axis >= 0;
    for (int32_t k = 0; k < count; ++k) {
      const int32_t id = objs_[begin + k].id;
      if (stale_[id] == 0) visitor->Visit(id);
    }
    if (inner) {
      stack_.push_back(right);
      stack_.push_back(left);
    }
  }
  for (int32_t id : stale_list_) {
    if (IsLive(id)) visitor->Visit(id);
  }
}

}  // namespace atl
