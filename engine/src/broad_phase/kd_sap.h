// Atoll — KD-tree + sweep-and-prune broad phase (paper 001, §3).
//
// The tree. A binary KD-tree whose nodes hold objects: an object sits in
// the deepest node whose (open) region contains its box, so inner nodes
// keep the objects that straddle their plane. All objects live in one array
// in in-order (left subtree, own objects, right subtree), so a node's own
// objects and any subtree are contiguous runs. Leaves hold up to
// kLeafCapacity (T, 256) objects; sweep-and-prune inside each node (along
// the plane in inner nodes, on the axis estimated cheaper in leaves) does
// the fine pruning the shallow tree leaves undone.
//
// The update, once per step, keeps the tree instead of rebuilding it:
//   refit (bottom-up)   objects that left their node's region climb to the
//                       nearest ancestor that contains them;
//   optimize (top-down) Collapse underpopulated subtrees, Partition crowded
//                       leaves at the mean of the axis of largest variance,
//                       Filter objects down to the child they fit, Evaluate
//                       each plane (expected pair tests against balance),
//                       Translate a bad plane to its objects' mean and, if
//                       that does not help, Erase the node and its smaller
//                       branch.
// Instead of shifting objects in place and correcting indices lazily, as
// the paper does, the optimize pass writes the in-order array afresh into a
// second buffer: node positions follow from subtree populations, which the
// refit pass counts, so every object moves at most once per step and a
// coherent step is a streaming copy.
//
// Pair detection is fused into the optimize pass: each node sweeps its own
// objects (internal pairs) and its external objects, the ancestors' objects
// reaching into its region (bipartite sweep), then hands the externals that
// reach into each child down to it.
//
// Temporal coherence (§3.4-3.5). An object whose new box still lies inside
// its previous box grown by epsilon (1/100 of the mean object size) is "at
// rest" and keeps that grown box. When at least K = 60% of objects are at
// rest the search is incremental: pairs of two resting objects come from
// the previous step's pair cache, only pairs with a moving object are
// searched. Every reported pair is still checked against the real boxes, so
// the output equals the other strategies' exactly.

#ifndef ATOLL_BROAD_PHASE_KD_SAP_H_
#define ATOLL_BROAD_PHASE_KD_SAP_H_

#include <cstdint>
#include <vector>

#include "broad_phase/box_index.h"
#include "broad_phase/broad_phase.h"
#include "broad_phase/pair_sort.h"

namespace atl {

/// The KD-tree + SAP broad phase (see file comment).
class KdSap final : public BroadPhase {
 public:
  /// T: the most objects a leaf holds and the least a subtree keeps. The
  /// paper uses 512 (3D, SIMD box tests) and reports a wide plateau around
  /// it; in this 2D engine 256 measured slightly faster on its benchmark.
  static constexpr int32_t kLeafCapacity = 256;
  /// K: the share of resting objects from which the search is incremental.
  static constexpr float kIncrementalShare = 0.6f;
  /// Epsilon as a fraction of the mean object size.
  static constexpr float kEpsilonFraction = 0.01f;

  /// An empty broad phase whose leaves hold up to `leaf_capacity` objects.
  explicit KdSap(int32_t leaf_capacity = kLeafCapacity);

  /// True when the last UpdatePairs searched incrementally.
  bool last_step_incremental() const { return mode_ == Mode::kIncremental; }
  /// The number of tree nodes (for tests and statistics).
  int32_t node_count() const {
    return static_cast<int32_t>(nodes_.size() - free_nodes_.size());
  }

 private:
  // Item flag bits beyond the base's kStaticFlag / kCustomFilterFlag.
  static constexpr uint32_t kRestFlag = 1u << 3;
  static constexpr uint32_t kGoneFlag = 1u << 4;  // dead or climbed away
  static constexpr int32_t kMaxDepth = 40;
  // A leaf reconsiders its sweep axis every this many steps.
  static constexpr uint32_t kAxisPeriod = 16;

  // One object. `box` is what the tree and the search use: the grown box
  // when a pair cache is kept, the real box otherwise; `other` is the other
  // one (the real box for the pair output, or the grown box for the next
  // step's rest test), so neither needs a lookup by id.
  struct Item {
    AABB box;
    AABB other;
    int32_t id;
    uint32_t body;
    uint32_t flags;
    uint32_t serial;  // the proxy's generation, to spot destroyed ids
  };
  static_assert(sizeof(Item) == 48, "Item layout");

  struct Node {
    AABB region;  // open: objects lie strictly inside
    float plane = 0.0f;
    int32_t axis = -1;  // -1 for a leaf
    int32_t left = -1;
    int32_t right = -1;
    int32_t parent = -1;
    int32_t begin = 0;  // own objects in objs_
    int32_t count = 0;
    int32_t sap_axis = 0;
    // Per-step scratch of the update.
    int32_t stay = 0;  // own objects still inside the region
    int32_t arrive_begin = 0;
    int32_t arrive_count = 0;  // objects that climbed up to here
    int32_t population = 0;    // stay + arrive over the subtree
    bool drained = false;      // objects already pulled up by an ancestor
    // How far its own objects moved this step, per axis (doubled; only on
    // the steps it reconsiders its sweep axis).
    Vec2 motion;
    bool new_leaf = true;  // a leaf whose sweep axis was not chosen yet
  };

  enum class Mode { kComplete, kCompleteCached, kIncremental };

  void OnCreate(int32_t id) override;
  void OnDestroy(int32_t id) override;
  void OnMove(int32_t id) override;
  void OnRefit(int32_t id) override;
  void ComputePairs(std::vector<ProxyPair>* pairs) override;
  void CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) override;
  void CollectStaticAabb(const AABB& aabb, std::vector<int32_t>* ids) override;
  void PrepareStatic() override;
  void TraverseRay(RayVisitor* visitor) override;

  void MarkStale(int32_t id);
  // The whole update; with kDetect also the pair search into keys_.
  template <bool kDetect>
  void Update();
  void Refresh();
  template <bool kWasGrown, bool kGrown, bool kTrack>
  void RefreshNodes();
  template <bool kWasGrown, bool kGrown, bool kTrack>
  void Classify(Item* item, float epsilon);
  template <bool kDetect>
  void Process(int32_t node, const AABB& region, int32_t in_begin,
               int32_t in_end, int32_t ext_begin, int32_t ext_end,
               int32_t out_begin, int32_t depth);
  void PullSubtree(int32_t node);
  void FreeSubtree(int32_t node);
  int32_t NewNode();
  // Estimates the work of sweeping a leaf's block on each axis (candidate
  // pairs met plus keeping the block sorted, given how far its objects
  // moved) into cost[]; false when it cannot tell.
  bool SweepCosts(const Item* block, int32_t count, Vec2 motion,
                  double cost[2]);
  // Sorts a block by its boxes' lower bound on `axis`; the first `sorted`
  // items are nearly in order already.
  void SortBlock(Item* block, int32_t sorted, int32_t count, int32_t axis);
  void SortFully(Item* block, int32_t count, int32_t axis);
  template <Mode kMode, int kAxis>
  void Detect(const Item* block, int32_t count, const Item* ext,
              int32_t ext_count);
  template <Mode kMode>
  void DetectOnAxis(const Item* block, int32_t count, int32_t axis,
                    const Item* ext, int32_t ext_count);
  void EnsureQueryable();

  std::vector<Node> nodes_;
  std::vector<int32_t> free_nodes_;
  int32_t root_ = 0;
  std::vector<int32_t> preorder_;  // nodes in pre-order, from the last update
  std::vector<int32_t> next_preorder_;
  std::vector<Item> objs_;  // the in-order object array
  std::vector<Item> next_objs_;
  // Scratch stacks of the optimize pass: moving objects (incoming, pulled)
  // and external objects, each node's run above its parent's.
  std::vector<Item> work_;
  int32_t work_top_ = 0;
  std::vector<Item> ext_;
  std::vector<Item> left_goers_;
  std::vector<Item> right_goers_;
  std::vector<Item> stay_scratch_;
  std::vector<Item> merge_scratch_;
  std::vector<Item> movers_;
  std::vector<uint64_t> sort_keys_;
  std::vector<int32_t> moving_;  // a block's moving objects, see Detect
  int32_t written_ = 0;  // objects placed in next_objs_ this update
  // Objects that climbed this step, grouped by target node.
  std::vector<std::pair<int32_t, Item>> climbers_;
  std::vector<Item> arrivals_;
  // Proxies created since the last update: (id, generation).
  std::vector<std::pair<int32_t, uint32_t>> pending_;

  // Per proxy id.
  std::vector<uint8_t> rest_;   // at rest this step
  std::vector<uint8_t> same_;   // real box unchanged since last step
  std::vector<uint8_t> stale_;  // moved since the last update
  std::vector<int32_t> stale_list_;

  int32_t leaf_capacity_;
  Mode mode_ = Mode::kComplete;
  bool box_is_grown_ = false;       // Item::box is the grown box this step
  bool prev_box_is_grown_ = false;  // ... in the last update
  bool cache_valid_ = false;
  float epsilon_ = 0.0f;
  uint32_t step_ = 0;  // counts pair updates, to stagger periodic work
  float rest_share_ = 0.0f;
  int32_t live_items_ = 0;
  // Pair keys: a << 32 | b << 1 | (real boxes overlap).
  std::vector<uint64_t> keys_;
  // The search writes keys here: the first found_count_ are this step's,
  // the rest is room to write into. Only grows, so it is zeroed only once.
  std::vector<uint64_t> found_;
  int64_t found_count_ = 0;
  std::vector<uint64_t> cache_;
  std::vector<uint64_t> merged_;
  std::vector<int32_t> stack_;
  PairSorter sorter_;
  // The static proxies again, for static queries, as of static epoch
  // statics_epoch_ (0: never gathered; see CollectStaticAabb).
  BoxIndex statics_;
  uint64_t statics_epoch_ = 0;
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_KD_SAP_H_
