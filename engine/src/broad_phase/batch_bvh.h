// Atoll — batch BVH broad phase (the default strategy).
//
// The hierarchy is rebuilt from scratch, top-down (every step, unless the
// proxies stayed inside their grown boxes: see below), splitting each
// node's proxies at the midpoint of their centers' bounds on the wider axis
// ("barycenter split"). The proxies' boxes are never enlarged, so the pair
// list is minimal. Pair detection is fused into the build
// (dissertation 000, §3.5-3.6, "Query-All3"): each node carries a candidate
// set of outside proxies that may touch its subtree; after a split, the
// proxies of one child that touch the other child's bounds join the other
// child's candidates. A pair is therefore found exactly once, at the leaf of
// one of its proxies, and the whole step reads the proxies a logarithmic
// number of times in streaming order.
//
// Static proxies: when they exceed 1/8 of all proxies they are kept in a
// second tree that is only rebuilt when a static proxy changes; the moving
// proxies are then tested against it with Query-All2 (§3.7.1).
//
// Single operations (create, move, destroy) only mark the index stale
// (§3.7.2); a query on a stale index rebuilds it. Refit() instead updates
// one proxy's box and its ancestors' bounds in place (§6.3).
//
// Steps where little moves far (resting stacks, a hanging mobile, a few
// movers among resting bodies). A build may give each moving proxy a grown
// box (its box enlarged by kGrowFraction of its mean extent) and keep the
// accepted pairs of grown boxes as candidates. While a proxy's box stays
// inside its grown box, each of its overlapping pairs is a candidate, so a
// step checks every box against its grown box and filters the candidates
// by the real boxes instead of building. The few proxies that left their
// grown boxes get new ones, refit into the tree (which therefore bounds
// every grown box), and their candidates are searched again in the tree;
// once more than 1/kEscapeShare of the moving proxies left in one step or
// since the build, the step builds instead. The output is the same exact
// pair list either way. Grown boxes that served fewer than two steps
// (everything moves; proxies come and go) make the next builds tight
// again, for 1, 2, 4, ... kMaxGrowBackoff builds, so scenes in motion pay
// one check a step and one grown build in kMaxGrowBackoff + 1. Queries on
// a grown tree test the proxies' own boxes at the leaves.
//
// Statics that come and go (bodies falling asleep are refiled as static,
// and back when they wake) do not rebuild the static tree while they are
// few: a new static joins the moving part's build as an extra, and a
// destroyed one stays in the tree, skipped by generation, until the
// changes exceed 1/kStaticDeltaShare of the statics.
//
// Node layout. An inner node covering items [begin, end) split at m is
// stored at index m, and a leaf is named by its item range; both are pure
// functions of the split decisions, so two subtrees can be built
// concurrently without coordinating node allocation, and each writes its
// pairs to its own buffer: the final canonical sort makes the concatenation
// order irrelevant. With an executor of several threads, a pair-finding
// build runs its top levels on the calling thread down to subtrees of about
// n / (2 * threads) items, then builds those subtrees concurrently, each
// with its own candidate stack (a copy of its inherited candidates) and
// pair buffer. The tree and the pairs are the same at every thread count.

#ifndef ATOLL_BROAD_PHASE_BATCH_BVH_H_
#define ATOLL_BROAD_PHASE_BATCH_BVH_H_

#include <cstdint>
#include <vector>

#include "broad_phase/broad_phase.h"
#include "broad_phase/pair_sort.h"
#include "broad_phase/proxy_item.h"

namespace atl {

/// The batch BVH broad phase (see file comment).
class BatchBvh final : public BroadPhase {
 public:
  /// An empty broad phase.
  BatchBvh() : BroadPhase(BroadPhaseType::kBatchBvh) { boxes_move_in_place_ = true; }

  /// True when the last index build kept static proxies in their own tree.
  bool uses_static_tree() const { return split_static_; }
  /// True when the last UpdatePairs filtered kept candidates instead of
  /// building (see the file comment).
  bool last_pairs_from_candidates() const { return last_from_candidates_; }
  /// How many times the static tree was built.
  int64_t static_builds() const { return static_builds_; }

 private:
  // A child reference: an inner node index, or kLeafBit | begin << kCountBits
  // | (count - 1) for a leaf of `count` consecutive items.
  static constexpr uint32_t kLeafBit = 0x80000000u;
  static constexpr int kCountBits = 3;
  static constexpr int32_t kMaxLeafSize = 8;
  // Below this depth splits are barycentric; deeper (only in pathological
  // layouts, e.g. exponentially spaced proxies) they halve the items, which
  // bounds the recursion depth by kMedianDepth + log2(n).
  static constexpr int32_t kMedianDepth = 48;
  static_assert(kMaxLeafSize <= (1 << kCountBits), "leaf count must fit");
  // Grown boxes: margin as a fraction of the proxy's mean extent.
  static constexpr float kGrowFraction = 0.2f;
  static constexpr int32_t kMaxGrowBackoff = 32;
  // The static tree is kept while the statics created and destroyed since
  // its build are at most 1 / kStaticDeltaShare of the statics (or
  // kMinStaticDelta); see the file comment.
  static constexpr int32_t kStaticDeltaShare = 16;
  static constexpr int32_t kMinStaticDelta = 64;
  // At most 1 / kEscapeShare of the moving proxies (or kMinEscapes) may
  // leave their grown boxes in one step, and in all since the build,
  // before a build.
  static constexpr int32_t kEscapeShare = 8;
  static constexpr int32_t kMinEscapes = 16;

  // Both children's boxes live in the parent, so a traversal decides on both
  // from one record.
  struct Node {
    AABB box[2];
    uint32_t child[2];
  };
  static_assert(sizeof(Node) == 40, "Node layout");

  // One hierarchy over a set of items.
  struct Tree {
    std::vector<ProxyItem> items;
    std::vector<Node> nodes;  // indexed by split position
    uint32_t root = 0;
    AABB root_box;
    bool empty() const { return items.empty(); }
    // Items hold grown boxes (containing their proxies' boxes): a leaf test
    // of a query reads the proxy's own box.
    bool grown = false;
    // Refit support, built on the first Refit after a build: per item
    // position and per inner node, the parent as (node << 1 | slot), -1 for
    // the root.
    bool links_ready = false;
    std::vector<int32_t> item_up;
    std::vector<int32_t> node_up;
    std::vector<int32_t> item_pos;  // by proxy id; -1 when not in this tree
  };

  static bool IsLeaf(uint32_t code) { return (code & kLeafBit) != 0; }
  static int32_t LeafBegin(uint32_t code) {
    return static_cast<int32_t>((code & ~kLeafBit) >> kCountBits);
  }
  static int32_t LeafCount(uint32_t code) {
    return static_cast<int32_t>(code & ((1u << kCountBits) - 1)) + 1;
  }
  static uint32_t LeafCode(int32_t begin, int32_t count) {
    return kLeafBit | (static_cast<uint32_t>(begin) << kCountBits) |
           static_cast<uint32_t>(count - 1);
  }

  void OnCreate(int32_t id) override;
  void OnDestroy(int32_t id) override;
  void OnMove(int32_t id) override;
  void OnMovedBoxes() override { index_valid_ = false; }
  void OnRefit(int32_t id) override;
  void ComputePairs(std::vector<ProxyPair>* pairs) override;
  void CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) override;
  void CollectStaticAabb(const AABB& aabb, std::vector<int32_t>* ids) override;
  void PrepareStatic() override { EnsureIndex(); }
  void TraverseRay(RayVisitor* visitor) override;

  void Invalidate(int32_t id);
  bool WantStaticTree() const;
  // One build pass over (part of) a tree: the candidate sets of the nodes
  // on the current path, as a stack, and the pairs found. The top of a
  // build and each subtree built concurrently have their own.
  struct BuildContext {
    std::vector<ProxyItem> cand;
    int32_t cand_top = 0;
    std::vector<uint64_t> keys;
    // Nodes of at most this many items (> kMaxLeafSize) become Subtrees
    // instead of being built; 0: build everything.
    int32_t defer_below = 0;
  };
  // A subtree the top of a build left for concurrent building; its
  // inherited candidates are subtree_contexts_[i].cand[0, cand_count).
  struct Subtree {
    int32_t begin = 0;
    int32_t end = 0;
    Vec2 cmin;
    Vec2 cmax;
    int32_t depth = 0;
    bool in_scratch = false;
    int32_t cand_count = 0;
    uint32_t* code = nullptr;  // where the parent keeps its child code
  };

  // Copies the live proxies' records into tree->items; `which` selects
  // static (1), non-static (0) or all (-1) proxies. With `grow`, non-static
  // items get grown boxes, also kept in grown_.
  void Gather(int which, bool grow, Tree* tree);
  // Static tree edits without a rebuild (see the file comment).
  bool StaticDeltaFits() const;
  void ClearStaticDelta();
  bool IsExtraStatic(int32_t id) const {
    return static_cast<size_t>(id) < extra_static_pos_.size() &&
           extra_static_pos_[static_cast<size_t>(id)] >= 0;
  }
  bool HasGoneItems(const Tree& tree) const { return &tree == &statics_ && static_gone_ > 0; }
  // A static tree item whose proxy was destroyed since the build.
  bool IsGone(const ProxyItem& item) const {
    return proxies_[item.id].generation != static_cast<uint32_t>(item.aux);
  }
  static void ListAdd(int32_t id, std::vector<int32_t>* ids, std::vector<int32_t>* pos);
  static void ListRemove(int32_t id, std::vector<int32_t>* ids, std::vector<int32_t>* pos);
  // A box grown by kGrowFraction of its mean extent.
  static AABB Grow(const AABB& box);
  // Brings the candidates up to date when few proxies left their grown
  // boxes (see the file comment); false when a build must replace them.
  bool UpdateCandidates();
  // Writes the candidates whose proxies' boxes overlap to *pairs.
  void FilterCandidates(std::vector<ProxyPair>* pairs) const;
  // Builds `tree` over its items; with kCollide also reports every
  // accepted overlapping pair of its items into top_.keys.
  template <bool kCollide>
  void Build(Tree* tree);
  // Builds the node over items [begin, end) and stores its child code in
  // *code.
  template <bool kCollide>
  void BuildNode(Tree* tree, BuildContext* ctx, int32_t begin, int32_t end, Vec2 cmin,
                 Vec2 cmax, int32_t cand_begin, int32_t cand_end, int32_t depth,
                 bool in_scratch, uint32_t* code);
  // Query-All2: items q[0, count) against the subtree `code` of `tree`.
  void QueryAll2(const Tree& tree, uint32_t code, ProxyItem* q, int32_t count);
  // Makes the query index current (rebuilding without pair detection).
  void EnsureIndex();
  // Appends the proxies whose boxes overlap `aabb`: in a grown tree their
  // own boxes, or with `item_boxes` the items' (grown) boxes.
  void CollectTree(const Tree& tree, const AABB& aabb, bool item_boxes,
                   std::vector<int32_t>* ids);
  void RayTree(const Tree& tree, RayVisitor* visitor);
  void BuildLinks(Tree* tree);
  // Sets proxy `id`'s item box and its ancestors' bounds.
  void RefitTree(Tree* tree, int32_t id, const AABB& box);

  Tree main_;     // all proxies; when split_static_, the non-static ones and extras
  Tree statics_;  // static proxies when split_static_
  bool split_static_ = false;
  bool index_valid_ = true;  // main_ (and statics_) match the store
  bool statics_valid_ = false;
  // The build's own context (its keys collect every pair of the step), and
  // the subtrees it deferred with theirs.
  BuildContext top_;
  std::vector<Subtree> subtrees_;
  std::vector<BuildContext> subtree_contexts_;
  // The other half of the build's double buffer (see BuildNode).
  std::vector<ProxyItem> scratch_;
  std::vector<ProxyItem> query_items_;
  std::vector<uint32_t> stack_;
  PairSorter sorter_;
  // Candidate pairs (see the file comment): valid while no proxy was
  // created or destroyed and no static proxy moved since the grown build.
  bool candidates_valid_ = false;
  bool candidates_built_ = false;   // the last build made candidates
  int32_t candidates_served_ = 0;   // steps that used them
  bool last_from_candidates_ = false;
  std::vector<uint64_t> candidates_;  // sorted pair keys of grown boxes
  std::vector<AABB> grown_;           // by proxy id, for non-static proxies
  int32_t grow_backoff_ = 0;          // tight builds after the next failure
  int32_t tight_builds_left_ = 0;
  int32_t escapes_since_build_ = 0;
  std::vector<int32_t> escaped_;
  std::vector<uint8_t> escaped_mark_;  // by proxy id
  std::vector<uint64_t> fresh_keys_;
  std::vector<uint64_t> merged_;
  std::vector<int32_t> hits_;
  // The live non-static proxies, in no particular order, and each one's
  // position in that list by id (-1 for others).
  std::vector<int32_t> moving_ids_;
  std::vector<int32_t> moving_pos_;
  // Static proxies created since the static tree was built (kept with the
  // moving part), likewise; and how many of the tree's statics were
  // destroyed since (their items stay, told apart by generation).
  std::vector<int32_t> extra_static_ids_;
  std::vector<int32_t> extra_static_pos_;
  int32_t static_gone_ = 0;
  int64_t static_builds_ = 0;
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_BATCH_BVH_H_
