// Stress scenes after seed 000 §8.1 (dimensions are ours).

#include "scenes/stress_scenes.h"

#include <algorithm>
#include <cstdlib>

#include "atoll/random.h"
#include "scenes/scene_builder.h"

namespace atl::scenes {
namespace {

// Columns x rows for `count` items in a roughly square block.
int32_t ColumnsFor(int32_t count) {
  int32_t c = 1;
  while (c * c < count) ++c;
  return c;
}

}  // namespace

SceneDesc AddPair(int32_t count, uint64_t seed) {
  SceneDesc d;
  d.name = "add_pair";
  d.steps = 300;
  d.world.gravity = {0.0f, 0.0f};
  Random rng(seed);
  // Keep the circles' density constant as the count grows.
  const float scale = Sqrt(static_cast<float>(count) / 400.0f);
  const float min_x = -6.0f * scale, max_x = 0.0f, min_y = 5.0f - scale, max_y = 5.0f + scale;
  const Circle circle{{0.0f, 0.0f}, 0.1f};
  for (int32_t i = 0; i < count; ++i) {
    SceneBody b = DynamicBody({rng.Uniform(min_x, max_x), rng.Uniform(min_y, max_y)});
    b.shapes.push_back(ShapeOf(circle, 0.01f));
    d.bodies.push_back(std::move(b));
  }
  SceneBody ram = DynamicBody({-40.0f * std::max(1.0f, scale), 5.0f});
  ram.def.is_bullet = true;
  ram.def.linear_velocity = {150.0f, 0.0f};
  ram.shapes.push_back(ShapeOf(Box(1.5f, 1.5f), 1.0f));
  d.bodies.push_back(std::move(ram));
  d.bounds = 1000.0f * std::max(1.0f, scale);
  return d;
}

SceneDesc FallingSquares(int32_t count, uint64_t seed) {
  SceneDesc d;
  d.name = "falling_squares";
  d.steps = 500;
  Random rng(seed);
  const int32_t columns = ColumnsFor(count);
  const float pitch = 1.2f;
  const float half_width = 0.5f * pitch * static_cast<float>(columns) + 2.0f;
  d.bodies.push_back(Ground(half_width));
  // Walls keep the heap from spreading forever.
  for (float side : {-1.0f, 1.0f}) {
    SceneBody wall = StaticBody({side * half_width, 0.0f});
    wall.shapes.push_back(ShapeOf(OffsetBox(0.5f, 1.5f * pitch * static_cast<float>(columns) + 10.0f,
                                            {0.0f, 1.5f * pitch * static_cast<float>(columns)}, 0.0f)));
    d.bodies.push_back(std::move(wall));
  }
  for (int32_t i = 0; i < count; ++i) {
    const int32_t col = i % columns, row = i / columns;
    const float h = rng.Uniform(0.1f, 0.5f);
    SceneBody b = DynamicBody({-half_width + 2.0f + pitch * (static_cast<float>(col) + 0.5f),
                               1.0f + pitch * static_cast<float>(row)});
    b.shapes.push_back(ShapeOf(Box(h, h)));
    d.bodies.push_back(std::move(b));
  }
  d.bounds = 4.0f * pitch * static_cast<float>(columns) + 50.0f;
  return d;
}

SceneDesc FallingCircles(int32_t count, uint64_t seed) {
  SceneDesc d = FallingSquares(count, seed);
  d.name = "falling_circles";
  Random rng(seed);
  for (SceneBody& b : d.bodies) {
    if (b.def.type != BodyType::kDynamic) continue;
    b.shapes[0] = ShapeOf(Circle{{0.0f, 0.0f}, rng.Uniform(0.1f, 0.5f)});
  }
  return d;
}

SceneDesc SlowExplosion(int32_t count) {
  SceneDesc d;
  d.name = "slow_explosion";
  d.steps = 500;
  d.world.gravity = {0.0f, 0.0f};
  const int32_t columns = ColumnsFor(count);
  const float pitch = 1.0f;
  const float half = 0.5f * pitch * static_cast<float>(columns - 1);
  for (int32_t i = 0; i < count; ++i) {
    const Vec2 p{-half + pitch * static_cast<float>(i % columns),
                 -half + pitch * static_cast<float>(i / columns)};
    SceneBody b = DynamicBody(p);
    // Outward at 0.5 m/s per 10 m from the center: slow, rarely colliding.
    b.def.linear_velocity = 0.05f * p;
    b.shapes.push_back(ShapeOf(Circle{{0.0f, 0.0f}, 0.25f}));
    d.bodies.push_back(std::move(b));
  }
  d.bounds = 4.0f * half + 50.0f;
  return d;
}

SceneDesc N2(int32_t count) {
  SceneDesc d;
  d.name = "n2";
  d.steps = 300;
  d.bodies.push_back(Ground(60.0f));
  const Polygon box = Box(0.5f, 0.5f);
  for (int32_t i = 0; i < count; ++i) {
    // Nearly coincident: offsets far below the box size.
    SceneBody b = DynamicBody({0.001f * static_cast<float>(i % 100),
                               10.0f + 0.001f * static_cast<float>(i)});
    b.shapes.push_back(ShapeOf(box));
    d.bodies.push_back(std::move(b));
  }
  d.bounds = 500.0f;
  return d;
}

SceneDesc MostlyStatic(int32_t count, bool single_body) {
  SceneDesc d;
  d.name = single_body ? "mostly_static_single" : "mostly_static";
  d.steps = 300;
  // The single-body variant puts every static box on this one body, created
  // first; the multi-body one gives each box its own body.
  if (single_body) d.bodies.push_back(StaticBody());
  const int32_t side = ColumnsFor(count);
  const Polygon box = Box(0.5f, 0.5f);
  const float half = 0.5f * static_cast<float>(side);
  int32_t placed = 0;
  std::vector<Vec2> channel;
  for (int32_t r = 0; r < side && placed < count; ++r) {
    for (int32_t c = 0; c < side && placed < count; ++c) {
      const Vec2 p{-half + static_cast<float>(c) + 0.5f, -half + static_cast<float>(r) + 0.5f};
      // The channel: cells on and next to the rising diagonal stay empty.
      if (std::abs(r - c) <= 1) {
        if (r == c) channel.push_back(p);
        continue;
      }
      if (single_body) {
        d.bodies[0].shapes.push_back(ShapeOf(OffsetBox(0.5f, 0.5f, p, 0.0f)));
      } else {
        SceneBody b = StaticBody(p);
        b.shapes.push_back(ShapeOf(box));
        d.bodies.push_back(std::move(b));
      }
      ++placed;
    }
  }
  // A few dynamic bodies spread along the channel.
  const size_t stride = std::max<size_t>(1, channel.size() / 32);
  for (size_t i = stride; i < channel.size(); i += stride) {
    SceneBody b = DynamicBody(channel[i]);
    b.shapes.push_back(ShapeOf(Circle{{0.0f, 0.0f}, 0.3f}));
    d.bodies.push_back(std::move(b));
  }
  d.bounds = 2.0f * half + 50.0f;
  return d;
}

SceneDesc Diagonal(int32_t count, uint64_t seed) {
  SceneDesc d;
  d.name = "diagonal";
  d.steps = 400;
  Random rng(seed);
  const int32_t columns = ColumnsFor(count);
  const float pitch = 3.0f;
  const float half = 0.5f * pitch * static_cast<float>(columns);
  d.bodies.push_back(Ground(half + 5.0f));
  SceneBody lines = StaticBody();
  for (int32_t i = 0; i < count; ++i) {
    const float x = -half + pitch * static_cast<float>(i % columns);
    const float y = 3.0f + pitch * static_cast<float>(i / columns);
    // Alternate the slope so bodies zig-zag down.
    const float dir = (i / columns) % 2 == 0 ? 1.0f : -1.0f;
    lines.shapes.push_back(ShapeOf(Segment{{x, y}, {x + dir * 2.0f, y + 2.0f}}));
  }
  d.bodies.push_back(std::move(lines));
  const float top = 3.0f + pitch * static_cast<float>((count + columns - 1) / columns) + 2.0f;
  for (int32_t i = 0; i < std::max(1, count / 4); ++i) {
    SceneBody b = DynamicBody({rng.Uniform(-half, half), top + rng.Uniform(0.0f, 10.0f)});
    b.shapes.push_back(ShapeOf(Circle{{0.0f, 0.0f}, 0.2f}));
    d.bodies.push_back(std::move(b));
  }
  d.bounds = top + 2.0f * half + 50.0f;
  return d;
}

SceneDesc MixedStaticDynamic(int32_t count, uint64_t seed) {
  SceneDesc d;
  d.name = "mixed_static_dynamic";
  d.steps = 500;
  Random rng(seed);
  const int32_t pegs = count / 2;
  const int32_t columns = ColumnsFor(pegs);
  const float pitch = 2.0f;
  const float half = 0.5f * pitch * static_cast<float>(columns);
  d.bodies.push_back(Ground(half + 5.0f));
  for (int32_t i = 0; i < pegs; ++i) {
    const int32_t row = i / columns;
    // Staggered rows, like a pachinko board.
    const float x = -half + pitch * (static_cast<float>(i % columns) + (row % 2 == 0 ? 0.25f : 0.75f));
    SceneBody b = StaticBody({x, 2.0f + pitch * static_cast<float>(row)});
    if (i % 2 == 0) {
      b.shapes.push_back(ShapeOf(Circle{{0.0f, 0.0f}, 0.3f}));
    } else {
      b.shapes.push_back(ShapeOf(OffsetBox(0.3f, 0.3f, {0.0f, 0.0f}, 0.7853982f)));
    }
    d.bodies.push_back(std::move(b));
  }
  const float top = 4.0f + pitch * static_cast<float>((pegs + columns - 1) / columns);
  for (int32_t i = 0; i < count - pegs; ++i) {
    SceneBody b = DynamicBody({rng.Uniform(-half, half), top + 0.8f * static_cast<float>(i / columns)});
    if (i % 2 == 0) {
      b.shapes.push_back(ShapeOf(Circle{{0.0f, 0.0f}, rng.Uniform(0.15f, 0.35f)}));
    } else {
      const float h = rng.Uniform(0.15f, 0.35f);
      b.shapes.push_back(ShapeOf(Box(h, h)));
    }
    d.bodies.push_back(std::move(b));
  }
  d.bounds = top + 2.0f * half + 50.0f;
  return d;
}

}  // namespace atl::scenes
