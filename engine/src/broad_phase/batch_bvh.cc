#include "broad_phase/batch_bvh.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "atoll/assert.h"
#include "broad_phase/center_order.h"

namespace atl {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// A grown box no real box fits in.
constexpr AABB kNowhere{{kInf, kInf}, {-kInf, -kInf}};

// Running bounds of a group of items: their boxes' union and the bounds of
// their doubled centers (lower + upper, which orders like the center and
// saves a multiply per item).
struct GroupBounds {
  float lx = kInf, ly = kInf, ux = -kInf, uy = -kInf;
  float clx = kInf, cly = kInf, cux = -kInf, cuy = -kInf;

  void Add(const AABB& b) {
    lx = Min(lx, b.lower.x);
    ly = Min(ly, b.lower.y);
    ux = Max(ux, b.upper.x);
    uy = Max(uy, b.upper.y);
    const float cx = b.lower.x + b.upper.x;
    const float cy = b.lower.y + b.upper.y;
    clx = Min(clx, cx);
    cly = Min(cly, cy);
    cux = Max(cux, cx);
    cuy = Max(cuy, cy);
  }
  AABB box() const { return {{lx, ly}, {ux, uy}}; }
  Vec2 center_min() const { return {clx, cly}; }
  Vec2 center_max() const { return {cux, cuy}; }
};

// Below this many items a pair-finding build stays on one thread: the
// subtrees would be too small to pay for the hand-over.
constexpr int32_t kParallelBuildMin = 2048;

// Items of a node with fewer than this many items fit in the L2 cache; larger
// ones stream from memory (see BuildNode).
constexpr int32_t kFusedBoundsMin = 8192;

template <int kAxis>
inline float DoubledCenter(const AABB& b) {
  return kAxis == 0 ? b.lower.x + b.upper.x : b.lower.y + b.upper.y;
}

// Partitions src[begin, end) into dst by doubled center against `split`:
// left-goers fill dst from the front, right-goers from the back. Each item
// is stored at both ends and only the matching cursor advances, so the loop
// has no data-dependent branch. With kBounds also accumulates each side's
// bounds into sides[0] (left) and sides[1] (right). Returns the split index.
template <int kAxis, bool kBounds>
int32_t Partition(const ProxyItem* src, ProxyItem* dst, int32_t begin,
                  int32_t end, float split, GroupBounds sides[2]) {
  ProxyItem* front = dst + begin;
  ProxyItem* back = dst + end - 1;
  for (int32_t k = begin; k < end; ++k) {
    const ProxyItem& item = src[k];
    const bool left = DoubledCenter<kAxis>(item.box) < split;
    *front = item;
    *back = item;
    front += left ? 1 : 0;
    back -= left ? 0 : 1;
    if constexpr (kBounds) sides[left ? 0 : 1].Add(item.box);
  }
  return static_cast<int32_t>(front - dst);
}

}  // namespace

void BatchBvh::Invalidate(int32_t id) {
  index_valid_ = false;
  if ((proxies_[id].flags & kStaticFlag) != 0) {
    statics_valid_ = false;
    candidates_valid_ = false;
  }
}

bool BatchBvh::StaticDeltaFits() const {
  const int32_t delta = static_cast<int32_t>(extra_static_ids_.size()) + static_gone_ + 1;
  return split_static_ && statics_valid_ &&
         delta <= std::max(kMinStaticDelta, static_count() / kStaticDeltaShare);
}

void BatchBvh::OnCreate(int32_t id) {
  candidates_valid_ = false;
  if ((proxies_[id].flags & kStaticFlag) != 0) {
    index_valid_ = false;
    // A body falling asleep among many statics refiles its proxies as
    // static: they join the moving part's build as extras instead of
    // costing a rebuild of the static tree.
    if (StaticDeltaFits()) {
      ListAdd(id, &extra_static_ids_, &extra_static_pos_);
    } else {
      Invalidate(id);
    }
    return;
  }
  index_valid_ = false;
  ListAdd(id, &moving_ids_, &moving_pos_);
}

void BatchBvh::OnDestroy(int32_t id) {
  candidates_valid_ = false;
  if ((proxies_[id].flags & kStaticFlag) != 0) {
    index_valid_ = false;
    if (IsExtraStatic(id)) {
      ListRemove(id, &extra_static_ids_, &extra_static_pos_);
    } else if (StaticDeltaFits()) {
      // Left in the static tree, where its item no longer matches the
      // proxy's generation (IsGone).
      ++static_gone_;
    } else {
      Invalidate(id);
    }
    return;
  }
  Invalidate(id);
  ListRemove(id, &moving_ids_, &moving_pos_);
}

void BatchBvh::ClearStaticDelta() {
  for (const int32_t id : extra_static_ids_) extra_static_pos_[static_cast<size_t>(id)] = -1;
  extra_static_ids_.clear();
  static_gone_ = 0;
}

void BatchBvh::ListAdd(int32_t id, std::vector<int32_t>* ids, std::vector<int32_t>* pos) {
  if (pos->size() <= static_cast<size_t>(id)) pos->resize(static_cast<size_t>(id) + 1, -1);
  (*pos)[static_cast<size_t>(id)] = static_cast<int32_t>(ids->size());
  ids->push_back(id);
}

void BatchBvh::ListRemove(int32_t id, std::vector<int32_t>* ids, std::vector<int32_t>* pos) {
  // Swap-remove: a list's order is only the order builds gather in.
  const int32_t at = (*pos)[static_cast<size_t>(id)];
  const int32_t last = ids->back();
  (*ids)[static_cast<size_t>(at)] = last;
  (*pos)[static_cast<size_t>(last)] = at;
  ids->pop_back();
  (*pos)[static_cast<size_t>(id)] = -1;
}
void BatchBvh::OnMove(int32_t id) { Invalidate(id); }

void BatchBvh::OnRefit(int32_t id) {
  const bool is_static = (proxies_[id].flags & kStaticFlag) != 0;
  if (is_static && split_static_ && !IsExtraStatic(id)) {
    candidates_valid_ = false;
    // The static tree outlives index rebuilds, so it is refit even when the
    // moving part of the index is stale.
    if (statics_valid_) {
      RefitTree(&statics_, id, proxies_[id].aabb);
    }
    return;
  }
  if (is_static) {
    candidates_valid_ = false;
  } else if (candidates_valid_ && main_.grown) {
    // Inside its grown box the proxy's item (its grown box) still bounds
    // it. Outside, the next step must treat it as escaped (see
    // UpdateCandidates), and the item takes the real box so queries stay
    // exact. (A tree a query rebuilt tight since takes the real box; the
    // candidates then go with the next build.)
    if (Contains(grown_[static_cast<size_t>(id)], proxies_[id].aabb)) return;
    grown_[static_cast<size_t>(id)] = kNowhere;
  }
  if (index_valid_) RefitTree(&main_, id, proxies_[id].aabb);
}

bool BatchBvh::WantStaticTree() const {
  // Dissertation §3.7.1: two trees cost some pruning (their roots overlap
  // freely), which only pays off once statics are a sizable share.
  return static_count() > 0 &&
         static_cast<int64_t>(static_count()) * 8 > proxy_count();
}

void BatchBvh::Gather(int which, bool grow, Tree* tree) {
  const int32_t extras = static_cast<int32_t>(extra_static_ids_.size());
  const int32_t count = which == 1   ? static_count() - extras
                        : which == 0 ? proxy_count() - static_count() + extras
                                     : proxy_count();
  tree->items.resize(static_cast<size_t>(count));
  ProxyItem* out = tree->items.data();
  const ProxyRecord* records = proxies_.data();
  const int32_t capacity = id_capacity();
  if (grow) grown_.resize(static_cast<size_t>(capacity));
  tree->grown = grow;
  int32_t k = 0;
  if (which == 0) {
    // The moving proxies from their list: a step costs them, not the
    // statics (the tree's shape does not change the pairs); and the static
    // extras, which the static tree does not hold.
    for (const int32_t id : moving_ids_) {
      const ProxyRecord& record = records[id];
      ProxyItem& item = out[k++];
      item.box = grow ? Grow(record.aabb) : record.aabb;
      if (grow) grown_[static_cast<size_t>(id)] = item.box;
      item.id = id;
      item.body = record.body;
      item.flags = record.flags & kCustomFilterFlag;
      item.aux = 0;
    }
    for (const int32_t id : extra_static_ids_) {
      const ProxyRecord& record = records[id];
      ProxyItem& item = out[k++];
      item.box = record.aabb;
      item.id = id;
      item.body = record.body;
      item.flags = record.flags & (kStaticFlag | kCustomFilterFlag);
      item.aux = 0;
    }
    ATOLL_ASSERT(k == count);
    return;
  }
  for (int32_t id = 0; id < capacity; ++id) {
    const ProxyRecord& record = records[id];
    const uint32_t f = record.flags;
    if ((f & kLiveFlag) == 0) continue;
    if (which >= 0 && ((f & kStaticFlag) != 0) != (which == 1)) continue;
    ProxyItem& item = out[k++];
    item.box = record.aabb;
    if (grow && (f & kStaticFlag) == 0) {
      item.box = Grow(record.aabb);
      grown_[static_cast<size_t>(id)] = item.box;
    }
    item.id = id;
    item.body = record.body;
    item.flags = f & (kStaticFlag | kCustomFilterFlag);
    item.aux = static_cast<int32_t>(record.generation);
  }
  ATOLL_ASSERT(k == count);
}

AABB BatchBvh::Grow(const AABB& b) {
  const float extent = 0.5f * ((b.upper.x - b.lower.x) + (b.upper.y - b.lower.y));
  return Inflate(b, kGrowFraction * extent);
}

bool BatchBvh::UpdateCandidates() {
  if (!main_.grown) return false;  // a query rebuilt the index since
  const ProxyRecord* records = proxies_.data();
  const int32_t capacity = id_capacity();
  const int32_t moving = proxy_count() - static_count();
  const int32_t limit = std::max(kMinEscapes, moving / kEscapeShare);
  escaped_.clear();
  for (const int32_t id : moving_ids_) {
    if (Contains(grown_[static_cast<size_t>(id)], records[id].aabb)) continue;
    if (static_cast<int32_t>(escaped_.size()) >= limit) return false;
    escaped_.push_back(id);
  }
  if (escaped_.empty()) return true;
  escapes_since_build_ += static_cast<int32_t>(escaped_.size());
  // Refit items spread their ancestors' bounds; past this the tree is
  // worth rebuilding.
  if (escapes_since_build_ > limit) return false;

  // The escaped proxies get new grown boxes, in the tree as well, so it
  // bounds every grown box again; their candidates are searched afresh.
  if (escaped_mark_.size() < static_cast<size_t>(capacity)) {
    escaped_mark_.resize(static_cast<size_t>(capacity), 0);
  }
  for (const int32_t id : escaped_) {
    grown_[static_cast<size_t>(id)] = Grow(records[id].aabb);
    escaped_mark_[static_cast<size_t>(id)] = 1;
    RefitTree(&main_, id, grown_[static_cast<size_t>(id)]);
  }
  const uint8_t* mark = escaped_mark_.data();
  candidates_.erase(std::remove_if(candidates_.begin(), candidates_.end(),
                                   [mark](uint64_t key) {
                                     return mark[PairKeyA(key)] != 0 || mark[PairKeyB(key)] != 0;
                                   }),
                    candidates_.end());
  fresh_keys_.clear();
  for (const int32_t e : escaped_) {
    const AABB& box = grown_[static_cast<size_t>(e)];
    hits_.clear();
    CollectTree(main_, box, /*item_boxes=*/true, &hits_);
    if (split_static_) CollectTree(statics_, box, /*item_boxes=*/true, &hits_);
    const ProxyRecord& re = records[e];
    for (const int32_t x : hits_) {
      // Two escaped proxies find each other; keep the pair once.
      if (x == e || (mark[x] != 0 && x < e)) continue;
      if (AcceptPair(e, re.body, re.flags, x, records[x].body, records[x].flags)) {
        fresh_keys_.push_back(PairKey(e, x));
      }
    }
  }
  for (const int32_t id : escaped_) escaped_mark_[static_cast<size_t>(id)] = 0;
  std::sort(fresh_keys_.begin(), fresh_keys_.end());
  merged_.resize(candidates_.size() + fresh_keys_.size());
  std::merge(candidates_.begin(), candidates_.end(), fresh_keys_.begin(), fresh_keys_.end(),
             merged_.begin());
  candidates_.swap(merged_);
  return true;
}

void BatchBvh::FilterCandidates(std::vector<ProxyPair>* pairs) const {
  pairs->clear();
  const ProxyRecord* records = proxies_.data();
  for (const uint64_t key : candidates_) {
    const int32_t a = PairKeyA(key);
    const int32_t b = PairKeyB(key);
    if (Overlaps(records[a].aabb, records[b].aabb)) pairs->push_back({a, b});
  }
}

template <bool kCollide>
void BatchBvh::Build(Tree* tree) {
  tree->links_ready = false;
  const int32_t n = static_cast<int32_t>(tree->items.size());
  if (n == 0) return;
  // Inner nodes are indexed by their split position, which lies in [1, n).
  tree->nodes.resize(static_cast<size_t>(n));
  if (scratch_.size() < static_cast<size_t>(n))
    scratch_.resize(static_cast<size_t>(n));
  GroupBounds all;
  for (const ProxyItem& item : tree->items) all.Add(item.box);
  tree->root_box = all.box();
  const int32_t threads = executor()->concurrency();
  top_.cand_top = 0;
  top_.defer_below = kCollide && threads > 1 && n >= kParallelBuildMin
                         ? std::max(n / (2 * threads), kMaxLeafSize + 1)
                         : 0;
  subtrees_.clear();
  BuildNode<kCollide>(tree, &top_, 0, n, all.center_min(), all.center_max(), 0, 0, 0, false,
                      &tree->root);
  if (subtrees_.empty()) return;
  executor()->ParallelFor(static_cast<int32_t>(subtrees_.size()), 1,
                          [this, tree](int32_t first, int32_t last) {
                            for (int32_t i = first; i < last; ++i) {
                              const Subtree& sub = subtrees_[static_cast<size_t>(i)];
                              BuildContext* ctx = &subtree_contexts_[static_cast<size_t>(i)];
                              ctx->cand_top = sub.cand_count;
                              ctx->defer_below = 0;
                              ctx->keys.clear();
                              BuildNode<kCollide>(tree, ctx, sub.begin, sub.end, sub.cmin,
                                                  sub.cmax, 0, sub.cand_count, sub.depth,
                                                  sub.in_scratch, sub.code);
                            }
                          });
  // Any order: the pairs are sorted afterwards.
  for (size_t i = 0; i < subtrees_.size(); ++i) {
    const std::vector<uint64_t>& keys = subtree_contexts_[i].keys;
    top_.keys.insert(top_.keys.end(), keys.begin(), keys.end());
  }
}

template <bool kCollide>
void BatchBvh::BuildNode(Tree* tree, BuildContext* ctx, int32_t begin, int32_t end, Vec2 cmin,
                         Vec2 cmax, int32_t cand_begin, int32_t cand_end, int32_t depth,
                         bool in_scratch, uint32_t* code) {
  // The items of a node are in one buffer and its children's go to the
  // other: an out-of-place partition can be branch-free, where an in-place
  // one mispredicts on every other item. Leaves copy their items home.
  ProxyItem* const items = tree->items.data();
  ProxyItem* const src = in_scratch ? scratch_.data() : items;
  ProxyItem* const dst = in_scratch ? items : scratch_.data();
  const int32_t count = end - begin;
  if (count <= ctx->defer_below && count > kMaxLeafSize) {
    // Left for a concurrent build (see Build), with a copy of its inherited
    // candidates: this stack's entries are overwritten as the top goes on.
    const size_t i = subtrees_.size();
    subtrees_.push_back({begin, end, cmin, cmax, depth, in_scratch, cand_end - cand_begin, code});
    if (subtree_contexts_.size() <= i) subtree_contexts_.resize(i + 1);
    subtree_contexts_[i].cand.assign(ctx->cand.begin() + cand_begin,
                                     ctx->cand.begin() + cand_end);
    return;
  }
  if (count <= kMaxLeafSize) {
    if (in_scratch) std::copy(src + begin, src + end, items + begin);
    if constexpr (kCollide) {
      for (int32_t i = begin; i < end; ++i) {
        for (int32_t j = i + 1; j < end; ++j) {
          const ProxyItem& x = items[i];
          const ProxyItem& y = items[j];
          if (Overlaps(x.box, y.box) &&
              AcceptPair(x.id, x.body, x.flags, y.id, y.body, y.flags)) {
            ctx->keys.push_back(PairKey(x.id, y.id));
          }
        }
      }
      const ProxyItem* cand = ctx->cand.data();
      for (int32_t c = cand_begin; c < cand_end; ++c) {
        const ProxyItem& x = cand[c];
        for (int32_t i = begin; i < end; ++i) {
          const ProxyItem& y = items[i];
          if (Overlaps(x.box, y.box) &&
              AcceptPair(x.id, x.body, x.flags, y.id, y.body, y.flags)) {
            ctx->keys.push_back(PairKey(x.id, y.id));
          }
        }
      }
    }
    *code = LeafCode(begin, count);
    return;
  }

  // Barycenter split on the axis where the centers spread most.
  const bool x_axis = cmax.x - cmin.x >= cmax.y - cmin.y;
  const float lo = x_axis ? cmin.x : cmin.y;
  const float hi = x_axis ? cmax.x : cmax.y;
  int32_t mid = begin + count / 2;
  GroupBounds sides[2];
  bool have_bounds = false;
  if (depth >= kMedianDepth) {
    // Ties broken by id so the arrangement is a function of the input only.
    std::nth_element(src + begin, src + mid, src + end, CenterOrder{x_axis});
    std::copy(src + begin, src + end, dst + begin);
  } else if (lo < hi) {
    const float split = 0.5f * lo + 0.5f * hi;
    // Big nodes stream from memory: there the children's bounds are taken
    // in the same pass instead of re-reading the items.
    const bool fused = count >= kFusedBoundsMin;
    mid =
        x_axis
            ? (fused ? Partition<0, true>(src, dst, begin, end, split, sides)
                     : Partition<0, false>(src, dst, begin, end, split, sides))
            : (fused ? Partition<1, true>(src, dst, begin, end, split, sides)
                     : Partition<1, false>(src, dst, begin, end, split, sides));
    have_bounds = fused;
    // All centers on one side (rounding): any halving is as good.
    if (mid == begin || mid == end) {
      mid = begin + count / 2;
      have_bounds = false;
    }
  } else {
    // All centers coincide.
    std::copy(src + begin, src + end, dst + begin);
  }
  if (!have_bounds) {
    sides[0] = GroupBounds();
    sides[1] = GroupBounds();
    for (int32_t i = begin; i < mid; ++i) sides[0].Add(dst[i].box);
    for (int32_t i = mid; i < end; ++i) sides[1].Add(dst[i].box);
  }
  const GroupBounds& left = sides[0];
  const GroupBounds& right = sides[1];
  const AABB left_box = left.box();
  const AABB right_box = right.box();
  Node& node = tree->nodes[mid];
  node.box[0] = left_box;
  node.box[1] = right_box;
  *code = static_cast<uint32_t>(mid);

  if constexpr (kCollide) {
    // Query-All3: only one child's items are tested against the other
    // child's bounds, so each cross pair is found from one side only. Test
    // the smaller side; nothing crosses when the children do not touch.
    const int32_t left_count = mid - begin;
    const int32_t right_count = end - mid;
    const bool touch = Overlaps(left_box, right_box);
    const bool left_to_right = touch && left_count <= right_count;
    const bool right_to_left = touch && !left_to_right;
    const int32_t inherited = cand_end - cand_begin;
    // Both children's candidate sets are stacked before either is built
    // (the left build reuses the buffers the right child's items are read
    // from); indices, not pointers, because the stack may grow.
    const int32_t saved_top = ctx->cand_top;
    const size_t needed = static_cast<size_t>(ctx->cand_top) + 2 * inherited +
                          (right_to_left ? right_count : 0) +
                          (left_to_right ? left_count : 0);
    if (ctx->cand.size() < needed) ctx->cand.resize(std::max(needed, 2 * ctx->cand.size()));
    ProxyItem* cand = ctx->cand.data();
    const int32_t left_begin = ctx->cand_top;
    int32_t top = left_begin;
    for (int32_t c = cand_begin; c < cand_end; ++c) {
      if (Overlaps(cand[c].box, left_box)) cand[top++] = cand[c];
    }
    if (right_to_left) {
      for (int32_t i = mid; i < end; ++i) {
        if (Overlaps(dst[i].box, left_box)) cand[top++] = dst[i];
      }
    }
    const int32_t left_end = top;
    for (int32_t c = cand_begin; c < cand_end; ++c) {
      if (Overlaps(cand[c].box, right_box)) cand[top++] = cand[c];
    }
    if (left_to_right) {
      for (int32_t i = begin; i < mid; ++i) {
        if (Overlaps(dst[i].box, right_box)) cand[top++] = dst[i];
      }
    }
    ctx->cand_top = top;
    BuildNode<true>(tree, ctx, begin, mid, left.center_min(), left.center_max(), left_begin,
                    left_end, depth + 1, !in_scratch, &node.child[0]);
    BuildNode<true>(tree, ctx, mid, end, right.center_min(), right.center_max(), left_end, top,
                    depth + 1, !in_scratch, &node.child[1]);
    ctx->cand_top = saved_top;
  } else {
    BuildNode<false>(tree, ctx, begin, mid, left.center_min(), left.center_max(), 0, 0,
                     depth + 1, !in_scratch, &node.child[0]);
    BuildNode<false>(tree, ctx, mid, end, right.center_min(), right.center_max(), 0, 0,
                     depth + 1, !in_scratch, &node.child[1]);
  }
}

void BatchBvh::QueryAll2(const Tree& tree, uint32_t code, ProxyItem* q,
                         int32_t count) {
  if (IsLeaf(code)) {
    const ProxyItem* leaf = tree.items.data() + LeafBegin(code);
    const int32_t leaf_count = LeafCount(code);
    const bool check = HasGoneItems(tree);
    for (int32_t s = 0; s < leaf_count; ++s) {
      const ProxyItem& y = leaf[s];
      if (check && IsGone(y)) continue;
      for (int32_t i = 0; i < count; ++i) {
        const ProxyItem& x = q[i];
        if (Overlaps(x.box, y.box) &&
            AcceptPair(x.id, x.body, x.flags, y.id, y.body, y.flags)) {
          top_.keys.push_back(PairKey(x.id, y.id));
        }
      }
    }
    return;
  }
  const Node& node = tree.nodes[code];
  for (int slot = 0; slot < 2; ++slot) {
    // In place: the queries touching this child move to the front.
    const AABB box = node.box[slot];
    int32_t k = 0;
    for (int32_t i = 0; i < count; ++i) {
      if (Overlaps(q[i].box, box)) {
        if (i != k) std::swap(q[i], q[k]);
        ++k;
      }
    }
    if (k > 0) QueryAll2(tree, node.child[slot], q, k);
  }
}

void BatchBvh::ComputePairs(std::vector<ProxyPair>* pairs) {
  last_from_candidates_ = candidates_valid_ && UpdateCandidates();
  if (last_from_candidates_) {
    FilterCandidates(pairs);
    ++candidates_served_;
    // The grown tree bounds every proxy.
    index_valid_ = true;
    return;
  }
  if (candidates_built_) {
    // Grown boxes that served fewer than two steps (everything moves, or
    // proxies come and go) are not worth their cost for a while.
    candidates_built_ = false;
    grow_backoff_ = candidates_served_ >= 2
                        ? 0
                        : std::min(std::max(1, 2 * grow_backoff_), kMaxGrowBackoff);
    tight_builds_left_ = grow_backoff_;
  }
  candidates_valid_ = false;
  const bool grow = tight_builds_left_ == 0;
  if (!grow) --tight_builds_left_;
  top_.keys.clear();
  const bool split = WantStaticTree();
  if (split) {
    if (!statics_valid_ || !split_static_) {
      ClearStaticDelta();
      Gather(1, false, &statics_);
      Build<false>(&statics_);
      statics_valid_ = true;
      ++static_builds_;
    }
    Gather(0, grow, &main_);
    Build<true>(&main_);
    if (!statics_.empty() && !main_.empty()) {
      // The moving proxies (now in spatial order from the build) against
      // the persistent static tree; a copy, since Query-All2 reorders.
      query_items_.clear();
      for (const ProxyItem& item : main_.items) {
        if (Overlaps(item.box, statics_.root_box)) query_items_.push_back(item);
      }
      if (!query_items_.empty()) {
        QueryAll2(statics_, statics_.root, query_items_.data(),
                  static_cast<int32_t>(query_items_.size()));
      }
    }
  } else {
    Gather(-1, grow, &main_);
    Build<true>(&main_);
    statics_valid_ = false;
    statics_.items.clear();
    ClearStaticDelta();
  }
  split_static_ = split;
  index_valid_ = true;
  if (!grow) {
    sorter_.Sort(top_.keys, id_capacity(), pairs);
    return;
  }
  sorter_.SortKeys(&top_.keys, id_capacity());
  candidates_.swap(top_.keys);
  candidates_valid_ = true;
  candidates_built_ = true;
  candidates_served_ = 0;
  escapes_since_build_ = 0;
  FilterCandidates(pairs);
}

void BatchBvh::EnsureIndex() {
  if (index_valid_) return;
  const bool split = WantStaticTree();
  if (split) {
    if (!statics_valid_ || !split_static_) {
      ClearStaticDelta();
      Gather(1, false, &statics_);
      Build<false>(&statics_);
      statics_valid_ = true;
      ++static_builds_;
    }
    Gather(0, false, &main_);
  } else {
    Gather(-1, false, &main_);
    statics_valid_ = false;
    statics_.items.clear();
    ClearStaticDelta();
  }
  Build<false>(&main_);
  split_static_ = split;
  index_valid_ = true;
}

void BatchBvh::CollectTree(const Tree& tree, const AABB& aabb, bool item_boxes,
                           std::vector<int32_t>* ids) {
  const bool real_boxes = tree.grown && !item_boxes;
  const bool check = HasGoneItems(tree);
  if (tree.empty() || !Overlaps(tree.root_box, aabb)) return;
  // Depth-first: the stack never holds more than one entry per level (plus
  // one), and levels are bounded by kMedianDepth + log2(n).
  uint32_t stack[kMedianDepth + 34];
  int32_t top = 0;
  stack[top++] = tree.root;
  while (top > 0) {
    const uint32_t code = stack[--top];
    if (IsLeaf(code)) {
      const ProxyItem* leaf = tree.items.data() + LeafBegin(code);
      for (int32_t k = 0; k < LeafCount(code); ++k) {
        if (check && IsGone(leaf[k])) continue;
        const AABB& box = real_boxes ? proxies_[leaf[k].id].aabb : leaf[k].box;
        if (Overlaps(box, aabb)) ids->push_back(leaf[k].id);
      }
      continue;
    }
    const Node& node = tree.nodes[code];
    if (Overlaps(node.box[1], aabb)) stack[top++] = node.child[1];
    if (Overlaps(node.box[0], aabb)) stack[top++] = node.child[0];
  }
}

void BatchBvh::CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  EnsureIndex();
  CollectTree(main_, aabb, /*item_boxes=*/false, ids);
  if (split_static_) CollectTree(statics_, aabb, /*item_boxes=*/false, ids);
}

void BatchBvh::CollectStaticAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  EnsureIndex();
  if (split_static_) {
    CollectTree(statics_, aabb, /*item_boxes=*/false, ids);
    for (const int32_t id : extra_static_ids_) {
      if (Overlaps(proxies_[id].aabb, aabb)) ids->push_back(id);
    }
    return;
  }
  BroadPhase::CollectStaticAabb(aabb, ids);
}

void BatchBvh::RayTree(const Tree& tree, RayVisitor* visitor) {
  float t = 0.0f;
  if (tree.empty() || !RayEntersAabb(visitor->input(), tree.root_box, &t)) {
    return;
  }
  const bool check = HasGoneItems(tree);
  stack_.clear();
  stack_.push_back(tree.root);
  while (!stack_.empty()) {
    const uint32_t code = stack_.back();
    stack_.pop_back();
    if (IsLeaf(code)) {
      const ProxyItem* leaf = tree.items.data() + LeafBegin(code);
      for (int32_t k = 0; k < LeafCount(code); ++k) {
        if (!(check && IsGone(leaf[k]))) visitor->Visit(leaf[k].id);
      }
      continue;
    }
    const Node& node = tree.nodes[code];
    float t0 = 0.0f;
    float t1 = 0.0f;
    const bool hit0 = RayEntersAabb(visitor->input(), node.box[0], &t0) &&
                      t0 <= visitor->Limit();
    const bool hit1 = RayEntersAabb(visitor->input(), node.box[1], &t1) &&
                      t1 <= visitor->Limit();
    // Nearer child on top of the stack: an early close hit prunes more.
    if (hit0 && hit1) {
      if (t0 <= t1) {
        stack_.push_back(node.child[1]);
        stack_.push_back(node.child[0]);
      } else {
        stack_.push_back(node.child[0]);
        stack_.push_back(node.child[1]);
      }
    } else if (hit0) {
      stack_.push_back(node.child[0]);
    } else if (hit1) {
      stack_.push_back(node.child[1]);
    }
  }
}

void BatchBvh::TraverseRay(RayVisitor* visitor) {
  EnsureIndex();
  RayTree(main_, visitor);
  if (split_static_) RayTree(statics_, visitor);
}

void BatchBvh::BuildLinks(Tree* tree) {
  const int32_t n = static_cast<int32_t>(tree->items.size());
  tree->item_up.assign(static_cast<size_t>(n), -1);
  tree->node_up.assign(static_cast<size_t>(n), -1);
  tree->item_pos.assign(static_cast<size_t>(id_capacity()), -1);
  for (int32_t pos = 0; pos < n; ++pos)
    tree->item_pos[tree->items[pos].id] = pos;
  if (n > 0 && !IsLeaf(tree->root)) {
    stack_.clear();
    stack_.push_back(tree->root);
    while (!stack_.empty()) {
      const uint32_t m = stack_.back();
      stack_.pop_back();
      for (int slot = 0; slot < 2; ++slot) {
        const uint32_t code = tree->nodes[m].child[slot];
        const int32_t up = static_cast<int32_t>(m << 1) | slot;
        if (IsLeaf(code)) {
          for (int32_t k = 0; k < LeafCount(code); ++k) {
            tree->item_up[LeafBegin(code) + k] = up;
          }
        } else {
          tree->node_up[code] = up;
          stack_.push_back(code);
        }
      }
    }
  }
  tree->links_ready = true;
}

void BatchBvh::RefitTree(Tree* tree, int32_t id, const AABB& box) {
  if (!tree->links_ready) BuildLinks(tree);
  ATOLL_ASSERT(id < static_cast<int32_t>(tree->item_pos.size()));
  const int32_t pos = tree->item_pos[id];
  ATOLL_ASSERT(pos >= 0);
  tree->items[pos].box = box;
  int32_t up = tree->item_up[pos];
  if (up < 0) {
    // The root is a single leaf.
    GroupBounds leaf;
    for (const ProxyItem& item : tree->items) leaf.Add(item.box);
    tree->root_box = leaf.box();
    return;
  }
  // The leaf's box, then each ancestor's, recomputed exactly (they may
  // shrink as well as grow); the tree's shape is left alone (§6.3).
  int32_t node = up >> 1;
  const uint32_t code = tree->nodes[node].child[up & 1];
  GroupBounds leaf;
  for (int32_t k = 0; k < LeafCount(code); ++k) {
    leaf.Add(tree->items[LeafBegin(code) + k].box);
  }
  tree->nodes[node].box[up & 1] = leaf.box();
  for (;;) {
    const AABB box = Union(tree->nodes[node].box[0], tree->nodes[node].box[1]);
    up = tree->node_up[node];
    if (up < 0) {
      tree->root_box = box;
      return;
    }
    node = up >> 1;
    tree->nodes[node].box[up & 1] = box;
  }
}

}  // namespace atl
