// Atoll — brute-force broad phase: every pair of proxies, tested directly.
//
// O(n^2) per step. It exists as the oracle the other strategies are tested
// against, so it is written to be obviously correct rather than fast: it
// keeps no index, walks ids in ascending order and therefore emits pairs
// already in canonical order.

#ifndef ATOLL_BROAD_PHASE_BRUTE_FORCE_H_
#define ATOLL_BROAD_PHASE_BRUTE_FORCE_H_

#include <vector>

#include "broad_phase/broad_phase.h"

namespace atl {

/// The reference broad phase (see file comment).
class BruteForce final : public BroadPhase {
 public:
  /// An empty broad phase.
  BruteForce() : BroadPhase(BroadPhaseType::kBruteForce) { boxes_move_in_place_ = true; }

 private:
  void OnCreate(int32_t) override {}
  void OnDestroy(int32_t) override {}
  void OnMove(int32_t) override {}
  void OnRefit(int32_t) override {}
  void ComputePairs(std::vector<ProxyPair>* pairs) override;
  void CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) override;
  void TraverseRay(RayVisitor* visitor) override;
};

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_BRUTE_FORCE_H_
