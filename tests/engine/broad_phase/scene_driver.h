// Test scenes for the broad phases: deterministic random worlds of boxes
// that move, appear and disappear, driven identically into several broad
// phases at once so their answers can be compared step by step.

#ifndef ATOLL_TESTS_ENGINE_BROAD_PHASE_SCENE_DRIVER_H_
#define ATOLL_TESTS_ENGINE_BROAD_PHASE_SCENE_DRIVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "atoll/broad_phase_type.h"
#include "atoll/filter.h"
#include "atoll/math.h"
#include "broad_phase/broad_phase.h"

namespace atl::test {

/// A small deterministic generator (splitmix64): the same sequence on every
/// platform, unlike the standard distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  float Unit() {
    return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
  }
  float Uniform(float lo, float hi) { return lo + (hi - lo) * Unit(); }
  /// Uniform in [0, n).
  int32_t Int(int32_t n) {
    return static_cast<int32_t>(Next() % static_cast<uint64_t>(n));
  }
  bool Chance(float p) { return Unit() < p; }

 private:
  uint64_t state_;
};

/// The kinds of test scenes.
enum class SceneKind {
  kUniform,       // boxes of mixed size spread evenly
  kClustered,     // dense clumps with empty space between
  kOneSpot,       // every box at the same place
  kHugeAndTiny,   // a few enormous boxes among many tiny ones
  kDiagonal,      // long thin rotated boxes along a diagonal: long AABBs
  kMostlyStatic,  // a static level (most proxies) with movers on it
};

std::string SceneName(SceneKind kind);

/// One simulated proxy.
struct SceneObject {
  int32_t id = -1;
  bool live = false;
  AABB box;
  Vec2 velocity;
  ProxyData data;
};

/// Drives the same scene into a set of broad phases.
class SceneDriver {
 public:
  SceneDriver(SceneKind kind, int32_t count, uint64_t seed,
              const std::vector<BroadPhaseType>& types);

  /// Advances one frame: moves boxes, creates and destroys some proxies.
  void Step();
  /// Moves every live proxy's box by `delta` via Refit (not MoveProxy).
  void RefitSome(int32_t count);

  int32_t size() const { return static_cast<int32_t>(phases_.size()); }
  BroadPhase& phase(int32_t i) { return *phases_[i]; }
  const std::vector<SceneObject>& objects() const { return objects_; }
  Rng& rng() { return rng_; }
  /// A box somewhere in the scene's extent (for queries).
  AABB RandomQueryBox();
  /// A ray across the scene.
  RayCastInput RandomRay();

 private:
  void CreateObject();
  AABB MakeBox(Vec2 center);
  void Apply(int32_t index, bool refit);

  SceneKind kind_;
  Rng rng_;
  float extent_;
  int32_t target_count_;
  uint32_t next_body_ = 1;
  std::vector<std::unique_ptr<BroadPhase>> phases_;
  std::vector<SceneObject> objects_;  // by id
};

/// The exact test used as a "shape" in ray-cast tests: a disc centered in
/// the proxy's box, inside it. Returns the hit fraction or -1.
float DiscRayCast(const AABB& box, const RayCastInput& input);

}  // namespace atl::test

#endif  // ATOLL_TESTS_ENGINE_BROAD_PHASE_SCENE_DRIVER_H_
