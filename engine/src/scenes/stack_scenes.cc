// Stacking scenes: pyramids and a vertical stack. The solver's stability
// test bench.

#include "scenes/stack_scenes.h"

#include <algorithm>

#include "scenes/scene_builder.h"

namespace atl::scenes {

void AddPyramid(SceneDesc* desc, int32_t base, float h, float cx, float y0) {
  const Polygon box = Box(h, h);
  for (int32_t row = 0; row < base; ++row) {
    const int32_t count = base - row;
    const float y = y0 + h + 2.0f * h * static_cast<float>(row);
    const float x0 = cx - h * static_cast<float>(count - 1);
    for (int32_t i = 0; i < count; ++i) {
      SceneBody b = DynamicBody({x0 + 2.0f * h * static_cast<float>(i), y});
      b.shapes.push_back(ShapeOf(box));
      desc->bodies.push_back(std::move(b));
    }
  }
}

SceneDesc Pyramid(int32_t base) {
  SceneDesc d;
  d.name = "pyramid";
  d.steps = 600;
  d.bodies.push_back(Ground(static_cast<float>(base) + 20.0f));
  AddPyramid(&d, base, 0.5f, 0.0f, 0.0f);
  d.bounds = static_cast<float>(base) + 40.0f;
  return d;
}

SceneDesc LargePyramid(int32_t base) {
  SceneDesc d = Pyramid(base);
  d.name = "large_pyramid";
  d.steps = 500;
  return d;
}

SceneDesc VerticalStack(int32_t count) {
  SceneDesc d;
  d.name = "vertical_stack";
  d.steps = 600;
  d.bodies.push_back(Ground(20.0f));
  const Polygon box = Box(0.5f, 0.5f);
  for (int32_t i = 0; i < count; ++i) {
    SceneBody b = DynamicBody({0.0f, 0.5f + static_cast<float>(i)});
    b.shapes.push_back(ShapeOf(box));
    d.bodies.push_back(std::move(b));
  }
  d.bounds = static_cast<float>(count) + 30.0f;
  return d;
}

SceneDesc ManyPyramids(int32_t count) {
  // `count` pyramids of base 10 in rows of up to 20, each row on its own
  // ground so rows do not interact.
  SceneDesc d;
  d.name = "many_pyramids";
  d.steps = 200;
  constexpr int32_t kPerRow = 20;
  constexpr int32_t kBase = 10;
  constexpr float kH = 0.5f;
  const float spacing = 2.0f * kH * kBase + 2.0f;
  const float row_height = 2.0f * kH * kBase + 4.0f;
  const int32_t rows = (count + kPerRow - 1) / kPerRow;
  const float width = spacing * static_cast<float>(std::min(count, kPerRow));
  for (int32_t r = 0; r < rows; ++r) {
    const float y0 = static_cast<float>(r) * row_height;
    SceneBody ground = StaticBody({0.0f, y0 - 1.0f});
    ground.shapes.push_back(ShapeOf(Box(0.5f * width + 2.0f, 1.0f)));
    d.bodies.push_back(std::move(ground));
  }
  for (int32_t p = 0; p < count; ++p) {
    const int32_t r = p / kPerRow, c = p % kPerRow;
    const float cx = -0.5f * width + spacing * (static_cast<float>(c) + 0.5f);
    AddPyramid(&d, kBase, kH, cx, static_cast<float>(r) * row_height);
  }
  d.bounds = std::max(width, row_height * static_cast<float>(rows)) + 50.0f;
  return d;
}

}  // namespace atl::scenes
