// Atoll — dynamic AABB tree broad phase (the classic incremental baseline).
//
// A binary tree of "fat" boxes: each proxy's box grown by a constant margin.
// A move that stays inside the fat box costs nothing; one that leaves it
// removes the leaf and re-inserts it, descending to the sibling that adds
// the least perimeter (surface-area heuristic in 2D) and rotating nodes on
// the way back up where a rotation shrinks the tree.
//
// Pairs are kept between steps: a sorted cache of pairs whose fat boxes
// overlap. Each step only re-inserted (or new) proxies are queried; their
// old cache entries are dropped and the fresh ones merged in, since a pair
// of two proxies that stayed put keeps its fat overlap. The fat superset is
// then filtered by the proxies' real boxes, so this strategy reports exactly
// the pairs the others do, in the same canonical order.

#ifndef ATOLL_BROAD_PHASE_DYNAMIC_TREE_H_
#define ATOLL_BROAD_PHASE_DYNAMIC_TREE_H_

#include <cstdint>
#include <vector>

#include "broad_phase/broad_phase.h"
#include "broad_phase/pair_sort.h"

namespace atl {

/// The incremental fat-box tree broad phase (see file comment).
class DynamicTree final : public BroadPhase {
 public:
  /// How far fat boxes extend beyond the real ones, in world units. A
  /// constant, like the speculative margin; sized for shapes around 1 m.
  static constexpr float kFatMargin = 0.1f;

  /// An empty broad phase.
  DynamicTree() : BroadPhase(BroadPhaseType::kDynamicTree) {}

  /// The height of the tree (0 when empty, 1 for a single leaf). For tests
  /// and statistics.
  int32_t Height() const;

 private:
  struct Node {
    AABB box;
    int32_t parent;  // next free node while on the free list
    int32_t child1;  // -1 for a leaf
    int32_t child2;
    int32_t proxy;  // leaf only
  };
  static_assert(sizeof(Node) == 32, "Node layout");

  void OnCreate(int32_t id) override;
  void OnDestroy(int32_t id) override;
  void OnMove(int32_t id) override;
  void OnRefit(int32_t id) override;
  void ComputePairs(std::vector<ProxyPair>* pairs) override;
  void CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) override;
  // CollectAabb over the subtree at `start`; only reads the tree.
  void CollectFrom(int32_t start, const AABB& aabb, std::vector<int32_t>* ids) const;
  void TraverseRay(RayVisitor* visitor) override;

  int32_t AllocateNode();
  void FreeNode(int32_t node);
  void InsertLeaf(int32_t leaf);
  void RemoveLeaf(int32_t leaf);
  int32_t FindBestSibling(const AABB& box) const;
  void RotateAt(int32_t node);
  void MarkMoved(int32_t id);
  int32_t HeightOf(int32_t node) const;

  std::vector<Node> nodes_;
  int32_t root_ = -1;
  int32_t free_node_ = -1;
  std::vector<int32_t> leaf_of_;  // by proxy id; -1 when not in the tree
  // Proxies inserted or re-inserted since the last UpdatePairs.
  std::vector<int32_t> moved_;
  std::vector<uint8_t> is_moved_;  // by proxy id
  // Pairs whose fat boxes overlap (and that pass the pair rules), sorted.
  std::vector<uint64_t> cache_;
  std::vector<uint64_t> fresh_;
  std::vector<uint64_t> merged_;
  std::vector<int32_t> stack_;
  PairSorter sorter_;
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_DYNAMIC_TREE_H_
