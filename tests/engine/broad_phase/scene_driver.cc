#include "scene_driver.h"

#include <gtest/gtest.h>

#include <cmath>

namespace atl::test {

std::string SceneName(SceneKind kind) {
  switch (kind) {
    case SceneKind::kUniform:
      return "Uniform";
    case SceneKind::kClustered:
      return "Clustered";
    case SceneKind::kOneSpot:
      return "OneSpot";
    case SceneKind::kHugeAndTiny:
      return "HugeAndTiny";
    case SceneKind::kDiagonal:
      return "Diagonal";
    case SceneKind::kMostlyStatic:
      return "MostlyStatic";
  }
  return "Unknown";
}

SceneDriver::SceneDriver(SceneKind kind, int32_t count, uint64_t seed,
                         const std::vector<BroadPhaseType>& types)
    : kind_(kind), rng_(seed), target_count_(count) {
  for (BroadPhaseType type : types) phases_.push_back(MakeBroadPhase(type));
  extent_ = std::sqrt(static_cast<float>(count)) * 2.0f;
  if (kind == SceneKind::kMostlyStatic) {
    // A static floor of touching tiles (static-static pairs everywhere,
    // all to be filtered) under a layer of movers.
    const int32_t statics = count * 3 / 4;
    const int32_t columns =
        static_cast<int32_t>(std::sqrt(static_cast<float>(statics))) + 1;
    for (int32_t i = 0; i < statics; ++i) {
      const float x = -extent_ + 2.0f * extent_ *
                                     static_cast<float>(i % columns) /
                                     static_cast<float>(columns);
      const float y = -extent_ + 2.0f * extent_ *
                                     static_cast<float>(i / columns) /
                                     static_cast<float>(columns);
      const float w = extent_ / static_cast<float>(columns);
      SceneObject object;
      object.box = {{x, y}, {x + 2.0f * w, y + 2.0f * w}};
      object.data.is_static = true;
      object.data.body_id = 0;  // one static ground body
      object.live = true;
      object.id = phases_[0]->CreateProxy(object.box, object.data);
      for (int32_t p = 1; p < size(); ++p) {
        EXPECT_EQ(phases_[p]->CreateProxy(object.box, object.data), object.id);
      }
      if (static_cast<int32_t>(objects_.size()) <= object.id)
        objects_.resize(object.id + 1);
      objects_[object.id] = object;
    }
    for (int32_t i = statics; i < count; ++i) CreateObject();
    return;
  }
  for (int32_t i = 0; i < count; ++i) CreateObject();
}

AABB SceneDriver::MakeBox(Vec2 c) {
  float hw = 0.5f;
  float hh = 0.5f;
  switch (kind_) {
    case SceneKind::kUniform:
    case SceneKind::kClustered:
    case SceneKind::kMostlyStatic:
      hw = rng_.Uniform(0.15f, 1.0f);
      hh = rng_.Uniform(0.15f, 1.0f);
      break;
    case SceneKind::kOneSpot:
      return {{-0.5f, -0.5f}, {0.5f, 0.5f}};
    case SceneKind::kHugeAndTiny:
      if (rng_.Chance(0.03f)) {
        hw = rng_.Uniform(10.0f, 80.0f);
        hh = rng_.Uniform(10.0f, 80.0f);
      } else {
        hw = rng_.Uniform(0.005f, 0.1f);
        hh = rng_.Uniform(0.005f, 0.1f);
      }
      break;
    case SceneKind::kDiagonal: {
      // A thin bar of length l, width w, turned to within ~15 degrees of
      // the diagonal: its box is a long square-ish hull.
      const float l = rng_.Uniform(3.0f, 9.0f);
      const float w = rng_.Uniform(0.05f, 0.2f);
      const float c = rng_.Uniform(0.55f, 0.85f);
      const float s = std::sqrt(1.0f - c * c);
      hw = 0.5f * (c * l + s * w);
      hh = 0.5f * (s * l + c * w);
      break;
    }
  }
  return {{c.x - hw, c.y - hh}, {c.x + hw, c.y + hh}};
}

void SceneDriver::CreateObject() {
  SceneObject object;
  Vec2 c;
  switch (kind_) {
    case SceneKind::kClustered: {
      // Eight clumps; the sum of three uniforms is a bell-ish spread.
      const int32_t k = rng_.Int(8);
      const Vec2 center{
          -extent_ + 0.25f * extent_ * static_cast<float>(k) * 2.0f,
          (k % 2 == 0 ? 0.5f : -0.5f) * extent_};
      const float r = 0.12f * extent_;
      c = {center.x + rng_.Uniform(-r, r) + rng_.Uniform(-r, r) +
               rng_.Uniform(-r, r),
           center.y + rng_.Uniform(-r, r) + rng_.Uniform(-r, r) +
               rng_.Uniform(-r, r)};
      break;
    }
    case SceneKind::kOneSpot:
      c = {0.0f, 0.0f};
      break;
    case SceneKind::kDiagonal: {
      const float t = rng_.Uniform(-extent_, extent_);
      const float off = rng_.Uniform(-2.0f, 2.0f);
      c = {t + off, t - off};
      break;
    }
    default:
      c = {rng_.Uniform(-extent_, extent_), rng_.Uniform(-extent_, extent_)};
      break;
  }
  object.box = MakeBox(c);
  const float speed = kind_ == SceneKind::kOneSpot ? 0.0f : 0.3f;
  object.velocity = {rng_.Uniform(-speed, speed), rng_.Uniform(-speed, speed)};
  if (kind_ == SceneKind::kDiagonal) object.velocity.y = object.velocity.x;
  // Some bodies own several shapes (they must never pair with each other).
  if (next_body_ > 1 && rng_.Chance(0.1f)) {
    object.data.body_id = next_body_ - 1;
  } else {
    object.data.body_id = next_body_++;
  }
  object.data.is_static =
      kind_ != SceneKind::kMostlyStatic && rng_.Chance(0.05f);
  if (object.data.is_static) object.velocity = {0.0f, 0.0f};
  if (rng_.Chance(0.1f)) {
    object.data.filter.category_bits = 1ull << rng_.Int(4);
    object.data.filter.mask_bits = rng_.Next() & 0xfull;
  }
  if (rng_.Chance(0.05f)) object.data.filter.group_index = rng_.Int(5) - 2;
  object.live = true;
  object.id = phases_[0]->CreateProxy(object.box, object.data);
  for (int32_t p = 1; p < size(); ++p) {
    EXPECT_EQ(phases_[p]->CreateProxy(object.box, object.data), object.id);
  }
  if (static_cast<int32_t>(objects_.size()) <= object.id)
    objects_.resize(object.id + 1);
  objects_[object.id] = object;
}

void SceneDriver::Apply(int32_t index, bool refit) {
  const SceneObject& object = objects_[index];
  for (auto& phase : phases_) {
    if (refit) {
      phase->Refit(object.id, object.box);
    } else {
      phase->MoveProxy(object.id, object.box);
    }
  }
}

void SceneDriver::Step() {
  int32_t destroyed = 0;
  for (SceneObject& object : objects_) {
    if (!object.live) continue;
    if (rng_.Chance(0.005f)) {
      for (auto& phase : phases_) phase->DestroyProxy(object.id);
      object.live = false;
      ++destroyed;
      continue;
    }
    if (object.data.is_static) {
      // Levels change rarely, but they do.
      if (rng_.Chance(0.002f)) {
        const float dx = rng_.Uniform(-0.5f, 0.5f);
        object.box.lower.x += dx;
        object.box.upper.x += dx;
        Apply(object.id, false);
      }
      continue;
    }
    if (kind_ == SceneKind::kOneSpot) {
      // Everything stays piled up; a few boxes shuffle in place.
      if (rng_.Chance(0.05f)) Apply(object.id, false);
      continue;
    }
    if (rng_.Chance(0.05f)) {
      object.velocity = {rng_.Uniform(-0.3f, 0.3f), rng_.Uniform(-0.3f, 0.3f)};
      if (kind_ == SceneKind::kDiagonal) object.velocity.y = object.velocity.x;
    }
    // Some objects rest for a while (coherence for the incremental paths).
    if (rng_.Chance(0.3f)) continue;
    Vec2 c = Center(object.box);
    c += object.velocity;
    if (c.x < -extent_ || c.x > extent_) object.velocity.x = -object.velocity.x;
    if (c.y < -extent_ || c.y > extent_) object.velocity.y = -object.velocity.y;
    object.box.lower += object.velocity;
    object.box.upper += object.velocity;
    Apply(object.id, false);
  }
  const int32_t creations = destroyed + rng_.Int(3);
  for (int32_t i = 0; i < creations; ++i) CreateObject();
}

void SceneDriver::RefitSome(int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    SceneObject& object =
        objects_[rng_.Int(static_cast<int32_t>(objects_.size()))];
    if (!object.live) continue;
    const Vec2 d{rng_.Uniform(-1.0f, 1.0f), rng_.Uniform(-1.0f, 1.0f)};
    object.box.lower += d;
    object.box.upper += d;
    Apply(object.id, true);
  }
}

AABB SceneDriver::RandomQueryBox() {
  const Vec2 c{rng_.Uniform(-extent_, extent_),
               rng_.Uniform(-extent_, extent_)};
  const float hw = rng_.Uniform(0.0f, 0.2f * extent_);
  const float hh = rng_.Uniform(0.0f, 0.2f * extent_);
  return {{c.x - hw, c.y - hh}, {c.x + hw, c.y + hh}};
}

RayCastInput SceneDriver::RandomRay() {
  RayCastInput input;
  input.origin = {rng_.Uniform(-extent_, extent_),
                  rng_.Uniform(-extent_, extent_)};
  input.translation = {rng_.Uniform(-extent_, extent_),
                       rng_.Uniform(-extent_, extent_)};
  // Axis-parallel rays exercise the slab test's special case.
  if (rng_.Chance(0.2f)) input.translation.y = 0.0f;
  input.max_fraction = rng_.Uniform(0.2f, 1.0f);
  return input;
}

float DiscRayCast(const AABB& box, const RayCastInput& input) {
  const Vec2 c = Center(box);
  const Vec2 e = Extents(box);
  const float r = 0.9f * Min(e.x, e.y);
  const Vec2 m = input.origin - c;
  const float cc = Dot(m, m) - r * r;
  if (cc <= 0.0f) return 0.0f;  // starts inside
  const Vec2 d = input.translation;
  const float a = Dot(d, d);
  if (a == 0.0f) return -1.0f;
  const float b = Dot(m, d);
  const float disc = b * b - a * cc;
  if (disc < 0.0f) return -1.0f;
  const float t = (-b - Sqrt(disc)) / a;
  if (t < 0.0f || t > input.max_fraction) return -1.0f;
  return t;
}

}  // namespace atl::test
