#include "broad_phase/dynamic_tree.h"

#include <algorithm>

#include "atoll/assert.h"

namespace atl {

int32_t DynamicTree::AllocateNode() {
  if (free_node_ < 0) {
    nodes_.push_back({});
    free_node_ = static_cast<int32_t>(nodes_.size()) - 1;
    nodes_[free_node_].parent = -1;
  }
  const int32_t node = free_node_;
  free_node_ = nodes_[node].parent;
  nodes_[node] = {{}, -1, -1, -1, -1};
  return node;
}

void DynamicTree::FreeNode(int32_t node) {
  nodes_[node].parent = free_node_;
  nodes_[node].child1 = -1;
  nodes_[node].proxy = -1;
  free_node_ = node;
}

int32_t DynamicTree::FindBestSibling(const AABB& box) const {
  // Greedy descent on the perimeter heuristic: at each node compare making
  // it the sibling (a new parent of perimeter P(node u box)) with the lower
  // bound of going further down, which grows this node by the same amount
  // plus whatever the chosen child adds.
  int32_t index = root_;
  while (nodes_[index].child1 >= 0) {
    const Node& node = nodes_[index];
    const float perimeter = Perimeter(node.box);
    const float combined = Perimeter(Union(node.box, box));
    const float here = combined;
    const float inherited = combined - perimeter;
    auto descend_cost = [&](int32_t child) {
      const Node& c = nodes_[child];
      const float grown = Perimeter(Union(c.box, box));
      // A leaf child would get a new parent of perimeter `grown`; an inner
      // child grows by the difference (a lower bound for its subtree).
      return (c.child1 < 0 ? grown : grown - Perimeter(c.box)) + inherited;
    };
    const float cost1 = descend_cost(node.child1);
    const float cost2 = descend_cost(node.child2);
    if (here <= cost1 && here <= cost2) break;
    index = cost1 <= cost2 ? node.child1 : node.child2;
  }
  return index;
}

void DynamicTree::InsertLeaf(int32_t leaf) {
  if (root_ < 0) {
    root_ = leaf;
    nodes_[leaf].parent = -1;
    return;
  }
  const AABB box = nodes_[leaf].box;
  const int32_t sibling = FindBestSibling(box);
  const int32_t old_parent = nodes_[sibling].parent;
  const int32_t parent = AllocateNode();
  nodes_[parent].parent = old_parent;
  nodes_[parent].box = Union(box, nodes_[sibling].box);
  nodes_[parent].child1 = sibling;
  nodes_[parent].child2 = leaf;
  nodes_[sibling].parent = parent;
  nodes_[leaf].parent = parent;
  if (old_parent < 0) {
    root_ = parent;
  } else if (nodes_[old_parent].child1 == sibling) {
    nodes_[old_parent].child1 = parent;
  } else {
    nodes_[old_parent].child2 = parent;
  }
  // Refit the ancestors, improving each with a rotation where one helps.
  for (int32_t index = nodes_[leaf].parent; index >= 0;
       index = nodes_[index].parent) {
    Node& node = nodes_[index];
    node.box = Union(nodes_[node.child1].box, nodes_[node.child2].box);
    RotateAt(index);
  }
}

void DynamicTree::RotateAt(int32_t a) {
  // Node a has children b and c. Swapping b with a grandchild under c (or c
  // with one under b) changes only the box of the inner child; take the
  // swap that shrinks that box's perimeter the most, if any does.
  const int32_t b = nodes_[a].child1;
  const int32_t c = nodes_[a].child2;
  float best_gain = 0.0f;
  int32_t lift = -1;    // the grandchild moved up to a
  int32_t lower = -1;   // the child of a moved down in its place
  int32_t middle = -1;  // the inner child whose children change
  auto consider = [&](int32_t down, int32_t inner) {
    if (nodes_[inner].child1 < 0) return;
    const int32_t g1 = nodes_[inner].child1;
    const int32_t g2 = nodes_[inner].child2;
    const float before = Perimeter(nodes_[inner].box);
    const AABB& down_box = nodes_[down].box;
    // Lift g1: inner keeps g2 and gains `down`; and the other way round.
    const float gain1 = before - Perimeter(Union(down_box, nodes_[g2].box));
    const float gain2 = before - Perimeter(Union(down_box, nodes_[g1].box));
    if (gain1 > best_gain) {
      best_gain = gain1;
      lift = g1;
      lower = down;
      middle = inner;
    }
    if (gain2 > best_gain) {
      best_gain = gain2;
      lift = g2;
      lower = down;
      middle = inner;
    }
  };
  consider(b, c);
  consider(c, b);
  if (lift < 0) return;
  // Swap `lower` (child of a) with `lift` (child of middle).
  Node& na = nodes_[a];
  if (na.child1 == lower) {
    na.child1 = lift;
  } else {
    na.child2 = lift;
  }
  Node& nm = nodes_[middle];
  if (nm.child1 == lift) {
    nm.child1 = lower;
  } else {
    nm.child2 = lower;
  }
  nodes_[lift].parent = a;
  nodes_[lower].parent = middle;
  nm.box = Union(nodes_[nm.child1].box, nodes_[nm.child2].box);
}

void DynamicTree::RemoveLeaf(int32_t leaf) {
  if (leaf == root_) {
    root_ = -1;
    return;
  }
  const int32_t parent = nodes_[leaf].parent;
  const int32_t grand = nodes_[parent].parent;
  const int32_t sibling = nodes_[parent].child1 == leaf ? nodes_[parent].child2
                                                        : nodes_[parent].child1;
  FreeNode(parent);
  nodes_[sibling].parent = grand;
  if (grand < 0) {
    root_ = sibling;
    return;
  }
  if (nodes_[grand].child1 == parent) {
    nodes_[grand].child1 = sibling;
  } else {
    nodes_[grand].child2 = sibling;
  }
  for (int32_t index = grand; index >= 0; index = nodes_[index].parent) {
    Node& node = nodes_[index];
    node.box = Union(nodes_[node.child1].box, nodes_[node.child2].box);
  }
}

void DynamicTree::MarkMoved(int32_t id) {
  if (is_moved_[id] == 0) {
    is_moved_[id] = 1;
    moved_.push_back(id);
  }
}

void DynamicTree::OnCreate(int32_t id) {
  if (static_cast<int32_t>(leaf_of_.size()) < id_capacity()) {
    leaf_of_.resize(static_cast<size_t>(id_capacity()), -1);
    is_moved_.resize(static_cast<size_t>(id_capacity()), 0);
  }
  const int32_t leaf = AllocateNode();
  nodes_[leaf].box = Inflate(proxies_[id].aabb, kFatMargin);
  nodes_[leaf].proxy = id;
  leaf_of_[id] = leaf;
  InsertLeaf(leaf);
  MarkMoved(id);
}

void DynamicTree::OnDestroy(int32_t id) {
  const int32_t leaf = leaf_of_[id];
  RemoveLeaf(leaf);
  FreeNode(leaf);
  leaf_of_[id] = -1;
  // Its cache entries are dropped at the next UpdatePairs: marking it moved
  // makes them stale whether or not the id is reused by then.
  MarkMoved(id);
}

void DynamicTree::OnMove(int32_t id) {
  const int32_t leaf = leaf_of_[id];
  const AABB& box = proxies_[id].aabb;
  const AABB& fat = nodes_[leaf].box;
  // Stay while inside the fat box, unless the box shrank so much that the
  // fat one is mostly empty (4 margins of slack) and would cost pairs.
  if (Contains(fat, box) && Contains(Inflate(box, 4.0f * kFatMargin), fat)) {
    return;
  }
  RemoveLeaf(leaf);
  nodes_[leaf].box = Inflate(box, kFatMargin);
  InsertLeaf(leaf);
  MarkMoved(id);
}

void DynamicTree::OnRefit(int32_t id) { OnMove(id); }

void DynamicTree::ComputePairs(std::vector<ProxyPair>* pairs) {
  // 1. Fresh fat pairs of every moved proxy. A pair of two moved proxies is
  //    taken from the smaller id's query only.
  fresh_.clear();
  for (int32_t id : moved_) {
    if (!IsLive(id)) continue;
    const AABB fat = nodes_[leaf_of_[id]].box;
    stack_.clear();
    if (root_ >= 0) stack_.push_back(root_);
    while (!stack_.empty()) {
      const int32_t index = stack_.back();
      stack_.pop_back();
      const Node& node = nodes_[index];
      if (!Overlaps(node.box, fat)) continue;
      if (node.child1 >= 0) {
        stack_.push_back(node.child1);
        stack_.push_back(node.child2);
        continue;
      }
      const int32_t other = node.proxy;
      if (other == id || (is_moved_[other] != 0 && other < id)) continue;
      if (AcceptPair(id, other)) fresh_.push_back(PairKey(id, other));
    }
  }
  sorter_.SortKeys(&fresh_, id_capacity());

  // 2. Merge with the cache minus every pair touching a moved proxy (those
  //    are all in fresh_ again if still valid).
  merged_.clear();
  merged_.reserve(cache_.size() + fresh_.size());
  size_t f = 0;
  for (uint64_t key : cache_) {
    if (is_moved_[PairKeyA(key)] != 0 || is_moved_[PairKeyB(key)] != 0) {
      continue;
    }
    while (f < fresh_.size() && fresh_[f] < key) merged_.push_back(fresh_[f++]);
    merged_.push_back(key);
  }
  while (f < fresh_.size()) merged_.push_back(fresh_[f++]);
  cache_.swap(merged_);
  for (int32_t id : moved_) is_moved_[id] = 0;
  moved_.clear();

  // 3. The exact pairs: fat overlap filtered by the real boxes.
  pairs->reserve(cache_.size());
  const size_t count = cache_.size();
  for (size_t i = 0; i < count; ++i) {
    // The second ids jump around: fetch their records ahead of use.
    if (i + 16 < count) __builtin_prefetch(&proxies_[PairKeyB(cache_[i + 16])]);
    const int32_t a = PairKeyA(cache_[i]);
    const int32_t b = PairKeyB(cache_[i]);
    if (Overlaps(proxies_[a].aabb, proxies_[b].aabb)) pairs->push_back({a, b});
  }
}

void DynamicTree::CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  if (root_ >= 0) CollectFrom(root_, aabb, ids);
}

void DynamicTree::CollectFrom(int32_t start, const AABB& aabb, std::vector<int32_t>* ids) const {
  // A stack of its own, not stack_: static queries may run on several
  // threads at once (see BroadPhase::PrepareStaticQueries). It holds one
  // entry per level plus one; a subtree deeper than that (the rotations
  // keep trees far shallower) is walked by a nested call.
  constexpr int32_t kStackSize = 128;
  int32_t stack[kStackSize];
  int32_t top = 0;
  stack[top++] = start;
  while (top > 0) {
    const int32_t index = stack[--top];
    const Node& node = nodes_[index];
    if (!Overlaps(node.box, aabb)) continue;
    if (node.child1 >= 0) {
      if (top + 2 > kStackSize) {
        CollectFrom(node.child2, aabb, ids);
      } else {
        stack[top++] = node.child2;
      }
      stack[top++] = node.child1;
    } else if (Overlaps(proxies_[node.proxy].aabb, aabb)) {
      ids->push_back(node.proxy);
    }
  }
}

void DynamicTree::TraverseRay(RayVisitor* visitor) {
  if (root_ < 0) return;
  stack_.clear();
  stack_.push_back(root_);
  while (!stack_.empty()) {
    const int32_t index = stack_.back();
    stack_.pop_back();
    const Node& node = nodes_[index];
    float t = 0.0f;
    if (!RayEntersAabb(visitor->input(), node.box, &t) ||
        t > visitor->Limit()) {
      continue;
    }
    if (node.child1 >= 0) {
      stack_.push_back(node.child2);
      stack_.push_back(node.child1);
    } else {
      visitor->Visit(node.proxy);
    }
  }
}

int32_t DynamicTree::HeightOf(int32_t node) const {
  if (node < 0) return 0;
  if (nodes_[node].child1 < 0) return 1;
  return 1 +
         std::max(HeightOf(nodes_[node].child1), HeightOf(nodes_[node].child2));
}

int32_t DynamicTree::Height() const { return HeightOf(root_); }

}  // namespace atl
