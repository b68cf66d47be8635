#include "scenes/motion_scenes.h"

#include "scenes/scene_builder.h"

namespace atl::scenes {

SceneDesc Tumbler(int32_t side) {
  SceneDesc d;
  d.name = "tumbler";
  d.steps = 750;
  // The drum: four walls of one kinematic body around (0, 10).
  SceneBody drum;
  drum.def.type = BodyType::kKinematic;
  drum.def.position = {0.0f, 10.0f};
  drum.def.angular_velocity = 25.0f * kPi / 180.0f;
  drum.shapes.push_back(ShapeOf(OffsetBox(0.5f, 10.0f, {10.0f, 0.0f}, 0.0f), 5.0f));
  drum.shapes.push_back(ShapeOf(OffsetBox(0.5f, 10.0f, {-10.0f, 0.0f}, 0.0f), 5.0f));
  drum.shapes.push_back(ShapeOf(OffsetBox(10.0f, 0.5f, {0.0f, 10.0f}, 0.0f), 5.0f));
  drum.shapes.push_back(ShapeOf(OffsetBox(10.0f, 0.5f, {0.0f, -10.0f}, 0.0f), 5.0f));
  d.bodies.push_back(std::move(drum));
  // A side x side block of small boxes in the middle of the drum; the grid
  // pitch shrinks so any side fits inside.
  const float pitch = Min(0.3f, 18.0f / static_cast<float>(side));
  const float h = Min(0.125f, 0.4f * pitch);
  const Polygon box = Box(h, h);
  const float start = -0.5f * pitch * static_cast<float>(side - 1);
  for (int32_t i = 0; i < side; ++i) {
    for (int32_t j = 0; j < side; ++j) {
      SceneBody b = DynamicBody({start + pitch * static_cast<float>(i),
                                 10.0f + start + pitch * static_cast<float>(j)});
      b.shapes.push_back(ShapeOf(box));
      d.bodies.push_back(std::move(b));
    }
  }
  d.bounds = 40.0f;
  return d;
}

SceneDesc Smash(int32_t count) {
  SceneDesc d;
  d.name = "smash";
  d.steps = 300;
  d.world.gravity = {0.0f, 0.0f};
  SceneBody ram = DynamicBody({-20.0f, 0.0f});
  ram.def.linear_velocity = {40.0f, 0.0f};
  ram.shapes.push_back(ShapeOf(Box(2.0f, 2.0f), 8.0f));
  d.bodies.push_back(std::move(ram));
  // A block about 1.5 times wider than tall, boxes touching, asleep until hit.
  const float h = 0.2f;
  int32_t rows = 1;
  while (rows * rows * 3 / 2 < count) ++rows;
  const int32_t columns = (count + rows - 1) / rows;
  const Polygon box = Box(h, h);
  int32_t placed = 0;
  for (int32_t c = 0; c < columns && placed < count; ++c) {
    for (int32_t r = 0; r < rows && placed < count; ++r, ++placed) {
      SceneBody b = DynamicBody({2.0f * h * static_cast<float>(c),
                                 2.0f * h * (static_cast<float>(r) - 0.5f * static_cast<float>(rows - 1))});
      b.def.is_awake = false;
      b.shapes.push_back(ShapeOf(box));
      d.bodies.push_back(std::move(b));
    }
  }
  d.bounds = 1000.0f;
  return d;
}

}  // namespace atl::scenes
