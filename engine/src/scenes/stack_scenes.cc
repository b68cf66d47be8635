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
  // Box2D v3's large_pyramid: its ground is 200 m wide whatever the base
  // (wider only for bases that would not fit), and sleep is off.
  SceneDesc d;
  d.name = "large_pyramid";
  d.steps = 500;
  d.world.enable_sleep = false;
  d.bodies.push_back(Ground(Max(100.0f, 0.5f * static_cast<float>(base) + 10.0f)));
  AddPyramid(&d, base, 0.5f, 0.0f, 0.0f);
  d.bounds = static_cast<float>(base) + 140.0f;
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
  // Box2D v3's many_pyramids: `count` pyramids of base 10 in rows of 20,
  // every row on its own floor segment, 11 m above the floor below; the
  // floors are shapes of one static body. Sleep is off.
  SceneDesc d;
  d.name = "many_pyramids";
  d.steps = 200;
  d.world.enable_sleep = false;
  constexpr int32_t kPerRow = 20;
  constexpr int32_t kBase = 10;
  constexpr float kH = 0.5f;
  const int32_t columns = std::min(count, kPerRow);
  const int32_t rows = (count + kPerRow - 1) / kPerRow;
  const float row_height = 2.0f * kH * (static_cast<float>(kBase) + 1.0f);
  const float width = row_height * static_cast<float>(columns);
  const float pitch = 2.0f * kH * static_cast<float>(kBase) + 2.0f * kH;
  SceneBody ground = StaticBody();
  for (int32_t r = 0; r < rows; ++r) {
    const float y = row_height * static_cast<float>(r);
    ground.shapes.push_back(ShapeOf(Segment{{-0.5f * width, y}, {0.5f * width, y}}));
  }
  d.bodies.push_back(std::move(ground));
  for (int32_t p = 0; p < count; ++p) {
    const int32_t r = p / kPerRow, c = p % kPerRow;
    // The leftmost box of the bottom row sits one box in from the row's
    // slot; AddPyramid wants the pyramid's center.
    const float left = -0.5f * width + pitch * static_cast<float>(c) + 2.0f * kH;
    AddPyramid(&d, kBase, kH, left + kH * static_cast<float>(kBase - 1),
               row_height * static_cast<float>(r));
  }
  d.bounds = std::max(width, row_height * static_cast<float>(rows)) + 50.0f;
  return d;
}

}  // namespace atl::scenes
