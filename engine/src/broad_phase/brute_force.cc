#include "broad_phase/brute_force.h"

namespace atl {

void BruteForce::ComputePairs(std::vector<ProxyPair>* pairs) {
  const int32_t capacity = id_capacity();
  for (int32_t a = 0; a < capacity; ++a) {
    if (!IsLive(a)) continue;
    for (int32_t b = a + 1; b < capacity; ++b) {
      if (!IsLive(b)) continue;
      if (Overlaps(proxies_[a].aabb, proxies_[b].aabb) && AcceptPair(a, b)) {
        pairs->push_back({a, b});
      }
    }
  }
}

void BruteForce::CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  for (int32_t id = 0; id < id_capacity(); ++id) {
    if (IsLive(id) && Overlaps(proxies_[id].aabb, aabb)) ids->push_back(id);
  }
}

void BruteForce::TraverseRay(RayVisitor* visitor) {
  for (int32_t id = 0; id < id_capacity(); ++id) {
    if (IsLive(id)) visitor->Visit(id);
  }
}

}  // namespace atl
