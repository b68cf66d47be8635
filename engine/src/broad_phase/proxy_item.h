// Atoll — the per-proxy record the batch strategies work on.

#ifndef ATOLL_BROAD_PHASE_PROXY_ITEM_H_
#define ATOLL_BROAD_PHASE_PROXY_ITEM_H_

#include <cstdint>

#include "atoll/math.h"

namespace atl {

/// One proxy as the batch strategies (batch_bvh, kd_sap) move it around:
/// the box plus everything the pair rules need, so the hot loops never
/// leave the record they already have in cache. Two records per cache line.
struct alignas(32) ProxyItem {
  AABB box;
  int32_t id = -1;
  uint32_t body = 0;
  /// BroadPhase's kStaticFlag / kCustomFilterFlag bits (and strategy bits).
  uint32_t flags = 0;
  /// Free for the strategy (kd_sap keeps its sort key's tie-break here).
  int32_t aux = 0;
};
static_assert(sizeof(ProxyItem) == 32, "ProxyItem is two per cache line");

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_PROXY_ITEM_H_
