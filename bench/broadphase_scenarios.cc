#include "broadphase_scenarios.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace atl::bench {
namespace {

// Free Fall's drop schedule, in frames: objects start falling uniformly
// over [kFirstStart, kLastStart), so at frame 0 about three quarters of
// them already lie in the heap and the rest keep coming for 100 frames.
constexpr int32_t kFirstStart = -300;
constexpr int32_t kLastStart = 100;
constexpr int32_t kMaxBounces = 2;
constexpr float kRestitution = 0.3f;
// No object moves more than this per frame: Box2D's b2_maxTranslation, the
// most a body can move in one step of a physics engine.
constexpr float kMaxSpeed = 2.0f;
// Free Fall: earth gravity at 30 frames per second (units are meters),
// drops of a few body lengths.
constexpr float kGravity = 9.8f / 900.0f;
constexpr float kMinDrop = 5.0f;
constexpr float kMaxDrop = 25.0f;
// Gravity: the attractor glides along a circle at this speed (per frame),
// slower than any object can follow; each object is pulled toward its place
// in the cluster with a strength in [0.5, 1.5] times kPull, against drag.
constexpr float kAttractorSpeed = 0.5f;
constexpr float kPull = 0.15f;
constexpr float kDrag = 0.9f;
constexpr float kJitter = 0.2f;
constexpr int32_t kGravityPreroll = 30;

}  // namespace

const char* ScenarioName(ScenarioKind kind) {
  switch (kind) {
    case ScenarioKind::kFreeFall:
      return "free_fall";
    case ScenarioKind::kBrownian:
      return "brownian";
    case ScenarioKind::kGravity:
      return "gravity";
  }
  return "unknown";
}

const char* SizeMixName(SizeMix sizes) {
  return sizes == SizeMix::kEqual ? "equal" : "assorted";
}

float Scenario::RandomUnit() {
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * (1.0f / 16777216.0f);
}

Scenario::Scenario(ScenarioKind kind, SizeMix sizes, int32_t count,
                   uint64_t seed)
    : kind_(kind), sizes_(sizes), rng_(seed) {
  objects_.resize(static_cast<size_t>(count));
  // Shapes. Assorted: bars, planks, squares, big, small and random squares,
  // turned at random, then scaled so the mean area is 1 like unit squares.
  double area = 0.0;
  for (Object& object : objects_) {
    if (sizes_ == SizeMix::kEqual) {
      object.half = {0.5f, 0.5f};
    } else {
      switch (static_cast<int32_t>(RandomUnit() * 6.0f)) {
        case 0:  // bar: very thin and long
          object.half = {1.5f, 0.05f};
          break;
        case 1:  // plank
          object.half = {1.0f, 0.2f};
          break;
        case 2:  // square
          object.half = {0.5f, 0.5f};
          break;
        case 3:  // big square
          object.half = {1.0f, 1.0f};
          break;
        case 4:  // small square
          object.half = {0.25f, 0.25f};
          break;
        default: {  // random square
          const float h = Uniform(0.2f, 0.8f);
          object.half = {h, h};
          break;
        }
      }
      // A random direction without trigonometry: a normalized point of the
      // unit disc.
      Vec2 d;
      do {
        d = {Uniform(-1.0f, 1.0f), Uniform(-1.0f, 1.0f)};
      } while (LengthSquared(d) > 1.0f || LengthSquared(d) < 0.01f);
      d = Normalize(d);
      object.rotation = {d.x, d.y};
    }
    area += 4.0 * static_cast<double>(object.half.x) * object.half.y;
  }
  if (sizes_ == SizeMix::kAssorted && count > 0) {
    const float scale =
        static_cast<float>(std::sqrt(static_cast<double>(count) / area));
    for (Object& object : objects_) object.half *= scale;
  }
  side_ = std::sqrt(50.0f * static_cast<float>(count));
  boxes_.resize(objects_.size());
  displacement_.assign(objects_.size(), Vec2{});
  switch (kind_) {
    case ScenarioKind::kFreeFall:
      InitFreeFall();
      break;
    case ScenarioKind::kBrownian:
      InitBrownian();
      break;
    case ScenarioKind::kGravity:
      InitGravity();
      break;
  }
  for (size_t i = 0; i < objects_.size(); ++i) boxes_[i] = BoxOf(objects_[i]);
  moved_.clear();
}

AABB Scenario::BoxOf(const Object& object) const {
  const float c = Abs(object.rotation.c);
  const float s = Abs(object.rotation.s);
  const Vec2 e{c * object.half.x + s * object.half.y,
               s * object.half.x + c * object.half.y};
  return {object.position - e, object.position + e};
}

void Scenario::InitFreeFall() {
  // Resting places: objects stack in a skyline of unit columns in the order
  // they start falling, each sinking a little into the one below so a heap
  // has contacts like a real one.
  const int32_t columns = std::max(1, static_cast<int32_t>(side_));
  std::vector<float> height(static_cast<size_t>(columns), 0.0f);
  for (Object& object : objects_) {
    object.start_frame =
        kFirstStart +
        static_cast<int32_t>(RandomUnit() * (kLastStart - kFirstStart));
  }
  std::vector<int32_t> order(objects_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [this](int32_t a, int32_t b) {
    return objects_[a].start_frame < objects_[b].start_frame;
  });
  for (int32_t index : order) {
    Object& object = objects_[index];
    const AABB shape = BoxOf(object);  // at the origin
    const float ex = shape.upper.x;
    const float ey = shape.upper.y;
    const float x = Uniform(ex, Max(ex, side_ - ex));
    const int32_t c0 = std::clamp(static_cast<int32_t>(x - ex), 0, columns - 1);
    const int32_t c1 = std::clamp(static_cast<int32_t>(x + ex), 0, columns - 1);
    float bottom = 0.0f;
    for (int32_t c = c0; c <= c1; ++c) bottom = Max(bottom, height[c]);
    bottom = Max(0.0f, bottom - 0.05f);
    for (int32_t c = c0; c <= c1; ++c) height[c] = bottom + 2.0f * ey;
    object.rest_y = bottom + ey;
    object.position = {x, object.rest_y + Uniform(kMinDrop, kMaxDrop)};
  }
  // Objects that started before frame 0 have been falling (or lie still).
  for (Object& object : objects_) {
    for (int32_t f = object.start_frame; f < 0 && !object.resting; ++f) {
      object.velocity.y = Max(object.velocity.y - kGravity, -kMaxSpeed);
      object.position.y += object.velocity.y;
      if (object.position.y <= object.rest_y) {
        object.position.y = object.rest_y;
        if (object.bounces < kMaxBounces) {
          object.velocity.y = -kRestitution * object.velocity.y;
          ++object.bounces;
        } else {
          object.velocity.y = 0.0f;
          object.resting = true;
        }
      }
    }
  }
}

void Scenario::InitBrownian() {
  for (Object& object : objects_) {
    object.position = {Uniform(0.0f, side_), Uniform(0.0f, side_)};
  }
}

void Scenario::InitGravity() {
  // Each object's place in the packed cluster: a random point of a disc
  // holding all objects at slightly below full density. The objects start
  // there (plus a little scatter) and a short pre-roll sets them moving.
  const float radius =
      std::sqrt(1.15f * static_cast<float>(objects_.size()) / kPi);
  const Vec2 attractor = AttractorAt(0);
  for (Object& object : objects_) {
    Vec2 d;
    do {
      d = {Uniform(-1.0f, 1.0f), Uniform(-1.0f, 1.0f)};
    } while (LengthSquared(d) > 1.0f);
    object.slot = radius * d;
    object.position = attractor + object.slot +
                      Vec2{Uniform(-2.0f, 2.0f), Uniform(-2.0f, 2.0f)};
    // Objects differ in how hard they are pulled, so they churn and
    // stream past each other instead of moving as one block.
    object.stiffness = Uniform(0.5f, 1.5f);
  }
  for (int32_t f = 0; f < kGravityPreroll; ++f) StepGravity();
  frame_ = 0;
}

Vec2 Scenario::AttractorAt(int32_t frame) const {
  // A circle of radius side/4 around the center, travelled at
  // kAttractorSpeed. (The bench may use libm; only the engine may not.)
  const float radius = 0.25f * side_;
  const float angle = kAttractorSpeed * static_cast<float>(frame) / radius;
  return {0.5f * side_ + radius * std::cos(angle),
          0.5f * side_ + radius * std::sin(angle)};
}

void Scenario::StepFreeFall() {
  for (size_t i = 0; i < objects_.size(); ++i) {
    Object& object = objects_[i];
    if (object.resting || frame_ < object.start_frame) continue;
    const Vec2 before = object.position;
    object.velocity.y = Max(object.velocity.y - kGravity, -kMaxSpeed);
    object.position.y += object.velocity.y;
    if (object.position.y <= object.rest_y) {
      object.position.y = object.rest_y;
      if (object.bounces < kMaxBounces) {
        object.velocity.y = -kRestitution * object.velocity.y;
        ++object.bounces;
      } else {
        object.velocity.y = 0.0f;
        object.resting = true;
      }
    }
    displacement_[i] = object.position - before;
    moved_.push_back(static_cast<int32_t>(i));
  }
}

void Scenario::StepBrownian() {
  const bool spin = sizes_ == SizeMix::kAssorted;
  for (size_t i = 0; i < objects_.size(); ++i) {
    Object& object = objects_[i];
    const Vec2 before = object.position;
    Vec2 p = before + Vec2{Uniform(-0.5f, 0.5f), Uniform(-0.5f, 0.5f)};
    // Reflect at the walls.
    if (p.x < 0.0f) p.x = -p.x;
    if (p.y < 0.0f) p.y = -p.y;
    if (p.x > side_) p.x = 2.0f * side_ - p.x;
    if (p.y > side_) p.y = 2.0f * side_ - p.y;
    object.position = p;
    if (spin)
      object.rotation =
          IntegrateRotation(object.rotation, Uniform(-0.1f, 0.1f));
    displacement_[i] = p - before;
    moved_.push_back(static_cast<int32_t>(i));
  }
}

void Scenario::StepGravity() {
  const Vec2 attractor = AttractorAt(frame_);
  const bool spin = sizes_ == SizeMix::kAssorted;
  for (size_t i = 0; i < objects_.size(); ++i) {
    Object& object = objects_[i];
    const Vec2 before = object.position;
    // A constant pull toward the object's place, softened into a spring in
    // the last 2 units, with drag, a random kick and the speed limit.
    const Vec2 to_target = attractor + object.slot - object.position;
    const float distance = Length(to_target);
    const float pull = object.stiffness * kPull / Max(distance, 2.0f);
    Vec2 v = kDrag * object.velocity + pull * to_target +
             Vec2{Uniform(-kJitter, kJitter), Uniform(-kJitter, kJitter)};
    const float speed = Length(v);
    if (speed > kMaxSpeed) v *= kMaxSpeed / speed;
    object.velocity = v;
    object.position += v;
    if (spin)
      object.rotation =
          IntegrateRotation(object.rotation, Uniform(-0.05f, 0.05f));
    displacement_[i] = object.position - before;
    moved_.push_back(static_cast<int32_t>(i));
  }
}

void Scenario::Advance() {
  moved_.clear();
  switch (kind_) {
    case ScenarioKind::kFreeFall:
      StepFreeFall();
      break;
    case ScenarioKind::kBrownian:
      StepBrownian();
      break;
    case ScenarioKind::kGravity:
      StepGravity();
      break;
  }
  ++frame_;
  for (int32_t i : moved_) boxes_[i] = BoxOf(objects_[i]);
}

}  // namespace atl::bench
