// Atoll — a read-only box hierarchy for a set of boxes that rarely changes.
//
// Built once over (box, id) records, then queried any number of times: a
// strategy whose main index is costly to bring up to date mid-step keeps
// its static proxies here too, so continuous collision's static queries
// (BroadPhase::CollectStaticAabb) never touch the main index. Top-down,
// median split on the axis where the centers spread most (ties by id, so
// the hierarchy is a function of the records alone), nodes in pre-order
// with each node's skip index (the next node outside its subtree), so a
// query is one forward walk without a stack.

#ifndef ATOLL_BROAD_PHASE_BOX_INDEX_H_
#define ATOLL_BROAD_PHASE_BOX_INDEX_H_

#include <cstdint>
#include <vector>

#include "atoll/math.h"

namespace atl {

class BoxIndex {
 public:
  struct Record {
    AABB box;
    int32_t id = -1;
  };
  /// Replaces the contents by these records.
  void Build(std::vector<Record> records);
  /// Appends the id of every record whose box overlaps `aabb`, in no
  /// particular order.
  void Collect(const AABB& aabb, std::vector<int32_t>* ids) const;
  /// The number of records.
  int32_t size() const { return static_cast<int32_t>(records_.size()); }

 private:
  static constexpr int32_t kLeafSize = 4;
  struct Node {
    AABB box;
    int32_t begin = 0;
    int32_t count = 0;  // records of a leaf; 0 for an inner node
    int32_t skip = 0;   // the first node after this one's subtree
  };
  void BuildNode(int32_t begin, int32_t end);

  std::vector<Record> records_;
  std::vector<Node> nodes_;
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_BOX_INDEX_H_
