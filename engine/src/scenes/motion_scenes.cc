// Scenes driven by a moving body, after Box2D v3's benchmark set: tumbler
// and smash. Geometry and parameters are v3's (shared/benchmarks.c at
// 617d32a); where Atoll lacks a v3 feature the scene's comment says what
// stands in for it.

#include "scenes/motion_scenes.h"

#include "scenes/scene_builder.h"

namespace atl::scenes {

SceneDesc Tumbler(int32_t side) {
  SceneDesc d;
  d.name = "tumbler";
  d.steps = 750;
  // A shapeless static anchor and the drum: four heavy walls of one
  // dynamic body around (0, 10), turned at 25 deg/s by a revolute motor.
  d.bodies.push_back(StaticBody());
  SceneBody drum = DynamicBody({0.0f, 10.0f});
  drum.shapes.push_back(ShapeOf(OffsetBox(0.5f, 10.0f, {10.0f, 0.0f}, 0.0f), 50.0f));
  drum.shapes.push_back(ShapeOf(OffsetBox(0.5f, 10.0f, {-10.0f, 0.0f}, 0.0f), 50.0f));
  drum.shapes.push_back(ShapeOf(OffsetBox(10.0f, 0.5f, {0.0f, 10.0f}, 0.0f), 50.0f));
  drum.shapes.push_back(ShapeOf(OffsetBox(10.0f, 0.5f, {0.0f, -10.0f}, 0.0f), 50.0f));
  d.bodies.push_back(std::move(drum));
  RevoluteJointDef motor;
  motor.local_anchor_a = {0.0f, 10.0f};
  motor.enable_motor = true;
  motor.motor_speed = 25.0f * kPi / 180.0f;
  motor.max_motor_torque = 1e8f;
  d.joints.push_back({0, 1, motor});
  // side x side boxes (half-extent 0.125) 0.4 m apart, row by row from the
  // bottom; larger sides shrink the pitch so the block fits the drum.
  const float pitch = Min(0.4f, 18.0f / static_cast<float>(side));
  const float h = Min(0.125f, 0.4f * pitch);
  const Polygon box = Box(h, h);
  const float start = -0.5f * pitch * static_cast<float>(side);
  for (int32_t i = 0; i < side; ++i) {
    for (int32_t j = 0; j < side; ++j) {
      SceneBody b = DynamicBody({start + pitch * static_cast<float>(j),
                                 10.0f + start + pitch * static_cast<float>(i)});
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
  // An 8 x 8 m ram at 40 m/s.
  SceneBody ram = DynamicBody({-20.0f, 0.0f});
  ram.def.linear_velocity = {40.0f, 0.0f};
  ram.shapes.push_back(ShapeOf(Box(4.0f, 4.0f), 8.0f));
  d.bodies.push_back(std::move(ram));
  // A block of touching 0.4 m boxes 1.5 times wider than tall (9 600 = 120
  // columns of 80), its left edge at x = 30, asleep until hit; created
  // column by column.
  const float size = 0.4f;
  int32_t rows = 1;
  while (rows * rows * 3 / 2 < count) ++rows;
  const int32_t columns = (count + rows - 1) / rows;
  const Polygon box = Box(0.5f * size, 0.5f * size);
  int32_t placed = 0;
  for (int32_t c = 0; c < columns && placed < count; ++c) {
    for (int32_t r = 0; r < rows && placed < count; ++r, ++placed) {
      SceneBody b = DynamicBody({size * static_cast<float>(c) + 30.0f,
                                 size * (static_cast<float>(r) - 0.5f * static_cast<float>(rows))});
      b.def.is_awake = false;
      b.shapes.push_back(ShapeOf(box));
      d.bodies.push_back(std::move(b));
    }
  }
  d.bounds = 1000.0f;
  return d;
}

}  // namespace atl::scenes
