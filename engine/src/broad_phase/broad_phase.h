// Atoll — the broad phase: which proxies' boxes overlap.
//
// A proxy is one shape's axis-aligned box. The world gives every shape a
// proxy, moves the proxies each step and asks for the list of overlapping
// pairs; the narrow phase then tests those pairs exactly.
//
// The box rule. Callers pass the shape's tight bounds plus a constant
// speculative margin (the same margin for every shape and every step).
// Nothing here enlarges boxes by velocity or displacement, and no strategy
// reports a pair whose boxes do not overlap: the dynamic tree's internal fat
// boxes are an implementation detail it filters away. Boxes touching at an
// edge overlap (closed intervals, as in Overlaps() of atoll/math.h).
//
// Proxy ids. A proxy id is a dense index in [0, id_capacity()). Either the
// caller chooses it (CreateProxyWithId; the world passes its shape index, so
// ids survive snapshot and restore) or CreateProxy takes the lowest free id.
// Both are pure functions of the call sequence, never of addresses.
//
// Pair order. UpdatePairs returns every pair of live proxies whose boxes
// overlap and that may collide (see AcceptPair below), each once, as
// (a, b) with a < b, sorted by a then b. This one canonical order is why a
// world's state hash does not depend on the strategy.
//
// Queries (QueryAabb, RayCastClosest, RayCastAll) see the boxes as last
// passed to CreateProxy / MoveProxy / Refit and return results in a
// documented order that is the same for every strategy.
//
// Not thread-safe: one thread at a time, queries included (a strategy may
// lazily rebuild its index inside a query), with one exception: after
// PrepareStaticQueries, and until the next change to a proxy,
// QueryStaticAabb only reads and may be called from several threads at
// once. A strategy may split its own work over the executor it is given
// (set_executor); the pairs never depend on it.

#ifndef ATOLL_BROAD_PHASE_BROAD_PHASE_H_
#define ATOLL_BROAD_PHASE_BROAD_PHASE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/functional/function_ref.h"
#include "atoll/assert.h"
#include "atoll/broad_phase_type.h"
#include "atoll/cast.h"
#include "atoll/executor.h"
#include "atoll/filter.h"
#include "atoll/math.h"

namespace atl {

/// What the broad phase needs to know about a proxy besides its box.
struct ProxyData {
  /// The body owning the shape. Proxies of the same body never pair.
  uint32_t body_id = 0;
  /// Static proxies never pair with static proxies.
  bool is_static = false;
  /// Category/mask/group filtering, see ShouldCollide().
  Filter filter;
};

/// Two overlapping proxies, always with a < b.
struct ProxyPair {
  int32_t a = 0;
  int32_t b = 0;
};
inline bool operator==(ProxyPair x, ProxyPair y) {
  return x.a == y.a && x.b == y.b;
}
inline bool operator!=(ProxyPair x, ProxyPair y) { return !(x == y); }

/// One ray hit reported by a RayCastFn.
struct RayHit {
  int32_t proxy_id = -1;
  /// The hit parameter t of the ray (see RayCastInput).
  float fraction = 0.0f;
};

/// The caller's exact test of one proxy (e.g. a shape ray cast). Returns the
/// hit fraction in [0, input.max_fraction], or a negative value for "no hit"
/// (also the way to filter a proxy out). It must be a pure function of the
/// proxy and the input, and a hit must lie inside the proxy's box (true for
/// any shape inside its bounds); then every strategy returns the same hits.
using RayCastFn =
    absl::FunctionRef<float(int32_t proxy_id, const RayCastInput& input)>;

/// The id of no proxy.
inline constexpr int32_t kNullProxy = -1;

/// The strategy-independent part of a broad phase: the proxy store (boxes,
/// bodies, filters, id allocation), the pair rules and the result ordering.
/// Strategies derive from it and implement the index and the searches.
class BroadPhase {
 public:
  BroadPhase(const BroadPhase&) = delete;
  BroadPhase& operator=(const BroadPhase&) = delete;
  virtual ~BroadPhase();

  /// The strategy of this broad phase.
  BroadPhaseType type() const { return type_; }

  /// Adds a proxy with the lowest id not in use and returns that id.
  /// `aabb` must be valid (finite, lower <= upper).
  int32_t CreateProxy(const AABB& aabb, const ProxyData& data);

  /// Adds a proxy under the caller's id, which must be >= 0 and not in use.
  /// Keep ids dense: storage grows to the largest id.
  void CreateProxyWithId(int32_t id, const AABB& aabb, const ProxyData& data);

  /// Removes a live proxy; its id becomes free.
  void DestroyProxy(int32_t id);

  /// Sets a live proxy's box for the next UpdatePairs (tight bounds plus the
  /// constant margin; see the file comment).
  void MoveProxy(int32_t id, const AABB& aabb);

  /// Moving many proxies at once (a step's awake bodies), where the
  /// strategy allows it: while BoxesMoveInPlace(), MoveProxy of a live
  /// proxy that is not static only stores its box and invalidates the
  /// strategy's index as a whole. Then SetMovedBox(id, box) for each such
  /// proxy (from any thread, distinct ids) followed by one FinishMovedBoxes()
  /// is the same as MoveProxy for each.
  bool BoxesMoveInPlace() const { return boxes_move_in_place_; }
  bool IsStatic(int32_t id) const { return (proxies_[id].flags & kStaticFlag) != 0; }
  void SetMovedBox(int32_t id, const AABB& aabb) {
    ATOLL_ASSERT(IsLive(id) && !IsStatic(id) && IsValid(aabb));
    proxies_[id].aabb = aabb;
  }
  void FinishMovedBoxes() {
    changed_ = true;
    OnMovedBoxes();
  }

  /// Sets a live proxy's box like MoveProxy, but cheaply keeps the existing
  /// query index usable instead of invalidating it (local refit, for
  /// continuous collision which moves a few proxies between queries). The
  /// next UpdatePairs treats the proxy as moved.
  void Refit(int32_t id, const AABB& aabb);

  /// Replaces *pairs with this step's pairs: every two live proxies whose
  /// boxes overlap, that are not on the same body, not both static and
  /// whose filters accept each other; each once as (a < b), sorted by
  /// (a, b).
  void UpdatePairs(std::vector<ProxyPair>* pairs);

  /// Replaces *ids with the live proxies whose boxes overlap `aabb`, in
  /// ascending id order.
  void QueryAabb(const AABB& aabb, std::vector<int32_t>* ids);

  /// Like QueryAabb, but only static proxies. Strategies that keep static
  /// proxies apart search only those.
  void QueryStaticAabb(const AABB& aabb, std::vector<int32_t>* ids);

  /// Brings the index QueryStaticAabb searches up to date. From then until
  /// the next create, destroy, move or refit, QueryStaticAabb only reads,
  /// so several threads may call it at once (with their own `ids`).
  void PrepareStaticQueries() { PrepareStatic(); }

  /// Calls `callback(id)` for each live proxy whose box overlaps `aabb`, in
  /// ascending id order, until it returns false.
  void QueryAabb(const AABB& aabb, absl::FunctionRef<bool(int32_t)> callback);

  /// Casts a ray against the proxies, calling `callback` for proxies whose
  /// boxes the ray reaches. Returns true and the hit with the smallest
  /// fraction in *hit (ties: the smaller proxy id), or false when nothing
  /// is hit. Proxies behind the closest hit found so far may be skipped.
  bool RayCastClosest(const RayCastInput& input, RayCastFn callback,
                      RayHit* hit);

  /// Replaces *hits with every hit `callback` reports along the ray, sorted
  /// by fraction, then proxy id.
  void RayCastAll(const RayCastInput& input, RayCastFn callback,
                  std::vector<RayHit>* hits);

  /// The number of live proxies.
  int32_t proxy_count() const { return live_count_; }
  /// One more than the largest id ever allocated; ids lie in [0, this).
  int32_t id_capacity() const { return static_cast<int32_t>(proxies_.size()); }
  /// True when `id` names a live proxy.
  bool IsLive(int32_t id) const {
    return id >= 0 && id < id_capacity() &&
           (proxies_[id].flags & kLiveFlag) != 0;
  }
  /// The box of a live proxy.
  const AABB& GetAabb(int32_t id) const { return proxies_[id].aabb; }
  /// The data a live proxy was created with.
  ProxyData GetData(int32_t id) const;

  /// The number of live static proxies.
  int32_t static_count() const { return static_count_; }

  /// A value that changes whenever a static proxy is created, destroyed,
  /// moved or refit, and that no other broad phase in the process ever
  /// takes: while it is unchanged, every static query gives the same answer
  /// as before, so a caller may keep such answers (see continuous.h).
  uint64_t static_epoch() const { return static_epoch_; }

  /// False while no proxy was created, destroyed, moved or refit since the
  /// last UpdatePairs: its pairs, a function of the proxy set alone, are
  /// still this step's, so a caller that kept them can skip the update (a
  /// world whose movers all sleep stops paying for every static proxy).
  bool pairs_may_have_changed() const { return changed_; }

  /// The executor UpdatePairs may spread its work over (the serial one
  /// until set; null restores it). Results do not depend on it.
  void set_executor(Executor* executor);

 protected:
  // Bits of proxies_[id].flags. kStaticFlag and kCustomFilterFlag are also
  // copied into the strategies' per-item records, so pair rules need no
  // lookups.
  static constexpr uint32_t kLiveFlag = 1u << 0;
  static constexpr uint32_t kStaticFlag = 1u << 1;
  // Set when the filter differs from the default, which accepts everything;
  // only then does a pair need the (cold) filter records.
  static constexpr uint32_t kCustomFilterFlag = 1u << 2;

  explicit BroadPhase(BroadPhaseType type);

  // Set by a strategy whose OnMove of a non-static proxy is OnMovedBoxes.
  bool boxes_move_in_place_ = false;

  Executor* executor() const { return executor_; }

  /// The pair rule shared by all strategies, on the packed per-proxy fields.
  bool AcceptPair(int32_t a, uint32_t body_a, uint32_t flags_a, int32_t b,
                  uint32_t body_b, uint32_t flags_b) const {
    if (body_a == body_b) return false;
    if ((flags_a & flags_b & kStaticFlag) != 0) return false;
    if (((flags_a | flags_b) & kCustomFilterFlag) != 0) {
      return ShouldCollide(filters_[a], filters_[b]);
    }
    return true;
  }
  /// The pair rule on two ids.
  bool AcceptPair(int32_t a, int32_t b) const {
    return AcceptPair(a, proxies_[a].body, proxies_[a].flags, b,
                      proxies_[b].body, proxies_[b].flags);
  }

  // Strategy hooks. The store is already updated when they run (for
  // OnDestroy: the id is marked dead but its box and data are still there).
  virtual void OnCreate(int32_t id) = 0;
  virtual void OnDestroy(int32_t id) = 0;
  virtual void OnMove(int32_t id) = 0;
  virtual void OnRefit(int32_t id) = 0;
  /// What OnMove does for every non-static proxy, for a strategy that sets
  /// boxes_move_in_place_ (see BoxesMoveInPlace).
  virtual void OnMovedBoxes() {}

  /// Writes this step's pairs, in canonical order, to *pairs (cleared).
  virtual void ComputePairs(std::vector<ProxyPair>* pairs) = 0;

  /// Appends the live proxies whose boxes overlap `aabb`, each once, in
  /// any order.
  virtual void CollectAabb(const AABB& aabb, std::vector<int32_t>* ids) = 0;

  /// Appends the live static proxies whose boxes overlap `aabb`, each once,
  /// in any order. The default filters CollectAabb. After PrepareStatic it
  /// must only read (see PrepareStaticQueries).
  virtual void CollectStaticAabb(const AABB& aabb, std::vector<int32_t>* ids);
  /// Does whatever CollectStaticAabb would do lazily to its index.
  virtual void PrepareStatic() {}

  /// Drives a ray cast: a strategy's TraverseRay walks its index and calls
  /// Visit() for each proxy it cannot rule out (each at most once), skipping
  /// index nodes whose entry parameter exceeds Limit().
  class RayVisitor {
   public:
    RayVisitor(const BroadPhase* owner, const RayCastInput& input,
               RayCastFn callback, bool closest);
    const RayCastInput& input() const { return input_; }
    /// Index nodes the ray enters later than this can be skipped.
    float Limit() const { return limit_; }
    /// Tests proxy `id` against the ray and, if its box is reached, asks
    /// the callback.
    void Visit(int32_t id);
    bool has_hit() const { return has_hit_; }
    RayHit best() const { return best_; }
    std::vector<RayHit>* all() { return &all_; }

   private:
    const BroadPhase* owner_;
    RayCastInput input_;
    RayCastFn callback_;
    bool closest_;
    float limit_;
    bool has_hit_ = false;
    RayHit best_;
    std::vector<RayHit> all_;
  };
  virtual void TraverseRay(RayVisitor* visitor) = 0;

  // The hot part of a proxy, in one record so a lookup by id touches one
  // cache line. The filter is cold (only read when kCustomFilterFlag).
  struct ProxyRecord {
    AABB aabb;
    uint32_t body = 0;
    uint32_t flags = 0;
    // Counts creations and destructions of this id, so a strategy can tell
    // a record it copied from a later proxy reusing the id.
    uint32_t generation = 0;
    uint32_t unused = 0;
  };
  static_assert(sizeof(ProxyRecord) == 32, "two records per cache line");

  // The proxy store, indexed by id; strategies read it directly.
  std::vector<ProxyRecord> proxies_;
  std::vector<Filter> filters_;

 private:
  void Allocate(int32_t id, const AABB& aabb, const ProxyData& data);

  BroadPhaseType type_;
  // Free ids below id_capacity(), as a min-heap so CreateProxy takes the
  // lowest; may hold ids since reused by CreateProxyWithId (skipped lazily).
  std::vector<int32_t> free_ids_;
  int32_t live_count_ = 0;
  int32_t static_count_ = 0;
  uint64_t static_epoch_;
  bool changed_ = true;  // see pairs_may_have_changed()
  Executor* executor_;
  std::vector<int32_t> query_scratch_;
};

/// A new, empty broad phase of the given strategy.
std::unique_ptr<BroadPhase> MakeBroadPhase(BroadPhaseType type);

/// The entry and exit parameters of the ray segment `input` through `box`.
/// Returns false when the segment misses the box (closed box, t in
/// [0, max_fraction]). Shared by every strategy so they agree on which
/// proxies a ray reaches; the entry parameter grows monotonically with the
/// box shrinking, so a node's entry never exceeds its contents' entries.
bool RayEntersAabb(const RayCastInput& input, const AABB& box, float* t_enter);

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_BROAD_PHASE_H_
