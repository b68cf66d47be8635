// atoll-bench broadphase — the moving scenes (paper 001, §4, in 2D).
//
// Free Fall   coherent: objects drop onto a floor, bounce, come to rest in
//             a heap; at any time most are at rest and few change.
// Brownian    incoherent: uniformly spread objects jump in random
//             directions every frame.
// Gravity     incoherent and clustered: objects packed densely around an
//             attractor that glides across the world; each is pulled a
//             little harder or softer and kicked at random, so they churn
//             and stream past each other.
//
// As in the paper the world's area is 50 times the objects' total area.
// Unlike the paper, speeds do not grow with the world: no object moves more
// than 2 units (its own size) per frame, Box2D's b2_maxTranslation, the
// most a body moves in one step of a physics engine; falls are a few dozen
// units under earth gravity at 30 frames per second. "assorted" mixes bars,
// planks, squares and small/big/random squares, scaled so that the total
// area equals the "equal" (unit squares) case.
//
// A scenario is a pure function of (kind, sizes, count, seed): every
// contender replays exactly the same boxes.

#ifndef ATOLL_BENCH_BROADPHASE_SCENARIOS_H_
#define ATOLL_BENCH_BROADPHASE_SCENARIOS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "atoll/math.h"

namespace atl::bench {

enum class ScenarioKind { kFreeFall, kBrownian, kGravity };
enum class SizeMix { kEqual, kAssorted };

const char* ScenarioName(ScenarioKind kind);
const char* SizeMixName(SizeMix sizes);

/// Generates the boxes of one scene frame by frame.
class Scenario {
 public:
  Scenario(ScenarioKind kind, SizeMix sizes, int32_t count, uint64_t seed);

  /// Boxes of the current frame, by object index.
  const std::vector<AABB>& boxes() const { return boxes_; }
  /// Indices of the objects whose box changed in the last Advance().
  const std::vector<int32_t>& moved() const { return moved_; }
  /// How far object i's center moved in the last Advance().
  Vec2 displacement(int32_t i) const { return displacement_[i]; }

  /// Steps to the next frame.
  void Advance();

 private:
  struct Object {
    Vec2 position;
    Vec2 velocity;
    Vec2 half;  // half width/height of the unrotated shape
    Rot rotation;
    float spin = 0.0f;  // rotation per frame (radians, small)
    // Free Fall.
    float rest_y = 0.0f;
    int32_t start_frame = 0;
    int32_t bounces = 0;
    bool resting = false;
    // Gravity: the object's place in the packed cluster.
    Vec2 slot;
    float stiffness = 0.0f;  // gravity multiplier
  };

  AABB BoxOf(const Object& object) const;
  Vec2 AttractorAt(int32_t frame) const;
  void InitFreeFall();
  void InitBrownian();
  void InitGravity();
  void StepFreeFall();
  void StepBrownian();
  void StepGravity();
  float RandomUnit();  // [0, 1)
  float Uniform(float lo, float hi) { return lo + (hi - lo) * RandomUnit(); }

  ScenarioKind kind_;
  SizeMix sizes_;
  uint64_t rng_;
  int32_t frame_ = 0;
  float side_ = 0.0f;  // world side length
  std::vector<Object> objects_;
  std::vector<AABB> boxes_;
  std::vector<Vec2> displacement_;
  std::vector<int32_t> moved_;
};

}  // namespace atl::bench

#endif  // ATOLL_BENCH_BROADPHASE_SCENARIOS_H_
