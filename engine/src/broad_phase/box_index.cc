#include "broad_phase/box_index.h"

#include <algorithm>
#include <utility>

#include "broad_phase/center_order.h"

namespace atl {

void BoxIndex::Build(std::vector<Record> records) {
  records_ = std::move(records);
  nodes_.clear();
  if (records_.empty()) return;
  nodes_.reserve(2 * records_.size() / kLeafSize + 1);
  BuildNode(0, static_cast<int32_t>(records_.size()));
}

void BoxIndex::BuildNode(int32_t begin, int32_t end) {
  const size_t index = nodes_.size();
  nodes_.emplace_back();
  AABB box = records_[begin].box;
  Vec2 cmin = box.lower + box.upper;
  Vec2 cmax = cmin;
  for (int32_t i = begin + 1; i < end; ++i) {
    const AABB& b = records_[i].box;
    box = Union(box, b);
    const Vec2 c = b.lower + b.upper;  // doubled center
    cmin = Min(cmin, c);
    cmax = Max(cmax, c);
  }
  nodes_[index].box = box;
  nodes_[index].begin = begin;
  if (end - begin <= kLeafSize) {
    nodes_[index].count = end - begin;
  } else {
    const bool x_axis = cmax.x - cmin.x >= cmax.y - cmin.y;
    const int32_t mid = begin + (end - begin) / 2;
    std::nth_element(records_.begin() + begin, records_.begin() + mid, records_.begin() + end,
                     CenterOrder{x_axis});
    BuildNode(begin, mid);
    BuildNode(mid, end);
  }
  nodes_[index].skip = static_cast<int32_t>(nodes_.size());
}

void BoxIndex::Collect(const AABB& aabb, std::vector<int32_t>* ids) const {
  const int32_t n = static_cast<int32_t>(nodes_.size());
  int32_t i = 0;
  while (i < n) {
    const Node& node = nodes_[i];
    if (!Overlaps(node.box, aabb)) {
      i = node.skip;
      continue;
    }
    for (int32_t k = node.begin; k < node.begin + node.count; ++k) {
      if (Overlaps(records_[k].box, aabb)) ids->push_back(records_[k].id);
    }
    ++i;  // a leaf's skip is the next node
  }
}

}  // namespace atl
