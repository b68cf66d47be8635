#include "broad_phase/broad_phase.h"

#include <algorithm>
#include <atomic>
#include <functional>

#include "atoll/assert.h"
#include "broad_phase/batch_bvh.h"
#include "broad_phase/brute_force.h"
#include "broad_phase/dynamic_tree.h"
#include "broad_phase/kd_sap.h"

namespace atl {
namespace {

// Static epochs come from one process-wide counter, so a broad phase built
// afresh (a restored world rebuilds its own) never repeats a value that an
// earlier one handed out: a cache keyed by the epoch cannot mistake one
// broad phase's statics for another's. The value never affects results.
uint64_t NextStaticEpoch() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

BroadPhase::BroadPhase(BroadPhaseType type)
    : type_(type), static_epoch_(NextStaticEpoch()), executor_(SerialExecutor()) {}

void BroadPhase::set_executor(Executor* executor) {
  executor_ = executor != nullptr ? executor : SerialExecutor();
}

BroadPhase::~BroadPhase() = default;

void BroadPhase::Allocate(int32_t id, const AABB& aabb, const ProxyData& data) {
  ATOLL_ASSERT(IsValid(aabb));
  ATOLL_ASSERT(id >= 0);
  if (id >= id_capacity()) {
    // Ids skipped over become free, so CreateProxy can hand them out later.
    for (int32_t skipped = id_capacity(); skipped < id; ++skipped) {
      free_ids_.push_back(skipped);
      std::push_heap(free_ids_.begin(), free_ids_.end(), std::greater<>());
    }
    const size_t size = static_cast<size_t>(id) + 1;
    proxies_.resize(size);
    filters_.resize(size);
  }
  ATOLL_ASSERT((proxies_[id].flags & kLiveFlag) == 0);
  uint32_t flags = kLiveFlag;
  if (data.is_static) flags |= kStaticFlag;
  if (data.filter != Filter{}) flags |= kCustomFilterFlag;
  ProxyRecord& record = proxies_[id];
  record.aabb = aabb;
  record.body = data.body_id;
  record.flags = flags;
  ++record.generation;
  filters_[id] = data.filter;
  ++live_count_;
  if (data.is_static) {
    ++static_count_;
    static_epoch_ = NextStaticEpoch();
  }
  changed_ = true;
  OnCreate(id);
}

int32_t BroadPhase::CreateProxy(const AABB& aabb, const ProxyData& data) {
  // Pop the lowest free id; entries reused meanwhile by CreateProxyWithId
  // are stale and dropped here.
  while (!free_ids_.empty()) {
    std::pop_heap(free_ids_.begin(), free_ids_.end(), std::greater<>());
    const int32_t id = free_ids_.back();
    free_ids_.pop_back();
    if ((proxies_[id].flags & kLiveFlag) == 0) {
      Allocate(id, aabb, data);
      return id;
    }
  }
  const int32_t id = id_capacity();
  Allocate(id, aabb, data);
  return id;
}

void BroadPhase::CreateProxyWithId(int32_t id, const AABB& aabb,
                                   const ProxyData& data) {
  Allocate(id, aabb, data);
}

void BroadPhase::DestroyProxy(int32_t id) {
  ATOLL_ASSERT(IsLive(id));
  proxies_[id].flags &= ~kLiveFlag;
  --live_count_;
  if ((proxies_[id].flags & kStaticFlag) != 0) {
    --static_count_;
    static_epoch_ = NextStaticEpoch();
  }
  changed_ = true;
  OnDestroy(id);
  proxies_[id].flags = 0;
  ++proxies_[id].generation;
  free_ids_.push_back(id);
  std::push_heap(free_ids_.begin(), free_ids_.end(), std::greater<>());
}

void BroadPhase::MoveProxy(int32_t id, const AABB& aabb) {
  ATOLL_ASSERT(IsLive(id));
  ATOLL_ASSERT(IsValid(aabb));
  proxies_[id].aabb = aabb;
  if ((proxies_[id].flags & kStaticFlag) != 0) static_epoch_ = NextStaticEpoch();
  changed_ = true;
  OnMove(id);
}

void BroadPhase::Refit(int32_t id, const AABB& aabb) {
  ATOLL_ASSERT(IsLive(id));
  ATOLL_ASSERT(IsValid(aabb));
  proxies_[id].aabb = aabb;
  if ((proxies_[id].flags & kStaticFlag) != 0) static_epoch_ = NextStaticEpoch();
  changed_ = true;
  OnRefit(id);
}

void BroadPhase::UpdatePairs(std::vector<ProxyPair>* pairs) {
  pairs->clear();
  ComputePairs(pairs);
  changed_ = false;
}

ProxyData BroadPhase::GetData(int32_t id) const {
  ATOLL_ASSERT(IsLive(id));
  ProxyData data;
  data.body_id = proxies_[id].body;
  data.is_static = (proxies_[id].flags & kStaticFlag) != 0;
  data.filter = filters_[id];
  return data;
}

void BroadPhase::QueryAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  ids->clear();
  CollectAabb(aabb, ids);
  std::sort(ids->begin(), ids->end());
}

void BroadPhase::QueryStaticAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  ids->clear();
  if (static_count_ == 0) return;
  CollectStaticAabb(aabb, ids);
  std::sort(ids->begin(), ids->end());
}

void BroadPhase::CollectStaticAabb(const AABB& aabb, std::vector<int32_t>* ids) {
  const size_t begin = ids->size();
  CollectAabb(aabb, ids);
  ids->erase(std::remove_if(ids->begin() + static_cast<std::ptrdiff_t>(begin), ids->end(),
                            [this](int32_t id) { return (proxies_[id].flags & kStaticFlag) == 0; }),
             ids->end());
}

void BroadPhase::QueryAabb(const AABB& aabb,
                           absl::FunctionRef<bool(int32_t)> callback) {
  // Collect first and call in id order: the order a strategy finds proxies
  // in is an accident of its index and must not leak into results.
  QueryAabb(aabb, &query_scratch_);
  for (int32_t id : query_scratch_) {
    if (!callback(id)) break;
  }
}

bool BroadPhase::RayCastClosest(const RayCastInput& input, RayCastFn callback,
                                RayHit* hit) {
  RayVisitor visitor(this, input, callback, /*closest=*/true);
  TraverseRay(&visitor);
  if (!visitor.has_hit()) return false;
  *hit = visitor.best();
  return true;
}

void BroadPhase::RayCastAll(const RayCastInput& input, RayCastFn callback,
                            std::vector<RayHit>* hits) {
  RayVisitor visitor(this, input, callback, /*closest=*/false);
  TraverseRay(&visitor);
  hits->swap(*visitor.all());
  std::sort(hits->begin(), hits->end(), [](const RayHit& x, const RayHit& y) {
    return x.fraction < y.fraction ||
           (x.fraction == y.fraction && x.proxy_id < y.proxy_id);
  });
}

BroadPhase::RayVisitor::RayVisitor(const BroadPhase* owner,
                                   const RayCastInput& input,
                                   RayCastFn callback, bool closest)
    : owner_(owner),
      input_(input),
      callback_(callback),
      closest_(closest),
      limit_(input.max_fraction) {}

void BroadPhase::RayVisitor::Visit(int32_t id) {
  float t_enter = 0.0f;
  // The leaf test always uses the full segment, and the pruning limit only
  // skips proxies entered strictly after the best hit, which cannot beat or
  // tie it: so the visiting order never changes the answer.
  if (!RayEntersAabb(input_, owner_->proxies_[id].aabb, &t_enter)) return;
  if (t_enter > limit_) return;
  const float fraction = callback_(id, input_);
  if (!(fraction >= 0.0f) || fraction > input_.max_fraction) return;
  if (!closest_) {
    all_.push_back({id, fraction});
    return;
  }
  if (!has_hit_ || fraction < best_.fraction ||
      (fraction == best_.fraction && id < best_.proxy_id)) {
    has_hit_ = true;
    best_ = {id, fraction};
    limit_ = fraction;
  }
}

bool RayEntersAabb(const RayCastInput& input, const AABB& box, float* t_enter) {
  float t_min = 0.0f;
  float t_max = input.max_fraction;
  const float origin[2] = {input.origin.x, input.origin.y};
  const float delta[2] = {input.translation.x, input.translation.y};
  const float lower[2] = {box.lower.x, box.lower.y};
  const float upper[2] = {box.upper.x, box.upper.y};
  for (int axis = 0; axis < 2; ++axis) {
    if (delta[axis] == 0.0f) {
      // Parallel to this slab: inside it for every t or for none. Handled
      // apart because 0 * inf would be NaN.
      if (origin[axis] < lower[axis] || origin[axis] > upper[axis]) {
        return false;
      }
      continue;
    }
    const float inv = 1.0f / delta[axis];
    float t1 = (lower[axis] - origin[axis]) * inv;
    float t2 = (upper[axis] - origin[axis]) * inv;
    if (t1 > t2) std::swap(t1, t2);
    t_min = Max(t_min, t1);
    t_max = Min(t_max, t2);
    if (t_min > t_max) return false;
  }
  *t_enter = t_min;
  return true;
}

std::unique_ptr<BroadPhase> MakeBroadPhase(BroadPhaseType type) {
  switch (type) {
    case BroadPhaseType::kBatchBvh:
      return std::make_unique<BatchBvh>();
    case BroadPhaseType::kKdSap:
      return std::make_unique<KdSap>();
    case BroadPhaseType::kDynamicTree:
      return std::make_unique<DynamicTree>();
    case BroadPhaseType::kBruteForce:
      return std::make_unique<BruteForce>();
  }
  ATOLL_ASSERT(false && "unknown BroadPhaseType");
  return nullptr;
}

}  // namespace atl
