// Atoll — helpers shared by the built-in scene builders.

#ifndef ATOLL_SCENES_SCENE_BUILDER_H_
#define ATOLL_SCENES_SCENE_BUILDER_H_

#include "atoll/assert.h"
#include "atoll/scene.h"

namespace atl::scenes {

/// A box polygon; the scene builders only pass valid constant sizes.
inline Polygon Box(float hx, float hy) {
  absl::StatusOr<Polygon> box = MakeBox(hx, hy);
  ATOLL_ASSERT(box.ok());
  return *box;
}

inline Polygon OffsetBox(float hx, float hy, Vec2 center, float angle) {
  absl::StatusOr<Polygon> box = MakeOffsetBox(hx, hy, center, angle);
  ATOLL_ASSERT(box.ok());
  return *box;
}

inline SceneShape ShapeOf(const Polygon& polygon, float density = 1.0f, float friction = 0.6f) {
  SceneShape s{ShapeGeometry(polygon), ShapeDef()};
  s.def.density = density;
  s.def.friction = friction;
  return s;
}

inline SceneShape ShapeOf(const Circle& circle, float density = 1.0f, float friction = 0.6f) {
  SceneShape s{ShapeGeometry(circle), ShapeDef()};
  s.def.density = density;
  s.def.friction = friction;
  return s;
}

inline SceneShape ShapeOf(const Segment& segment, float friction = 0.6f) {
  SceneShape s{ShapeGeometry(segment), ShapeDef()};
  s.def.friction = friction;
  return s;
}

inline SceneBody DynamicBody(Vec2 position, float angle = 0.0f) {
  SceneBody b;
  b.def.type = BodyType::kDynamic;
  b.def.position = position;
  b.def.angle = angle;
  return b;
}

inline SceneBody StaticBody(Vec2 position = {}) {
  SceneBody b;
  b.def.position = position;
  return b;
}

/// A static ground box whose top face is at y = 0, spanning [-half_width,
/// half_width].
inline SceneBody Ground(float half_width) {
  SceneBody b = StaticBody({0.0f, -1.0f});
  b.shapes.push_back(ShapeOf(Box(half_width, 1.0f)));
  return b;
}

/// A static U of boxes on one body, as Box2D v3's benchmarks build it: a
/// floor of 2 half_width + 1 boxes centred on y = 0 from x = -half_width to
/// half_width, and at each end a wall of `wall_boxes` boxes from y = 1 up,
/// each box a little longer than its 1 m pitch so the joints overlap.
inline SceneBody StaticBoxU(int32_t half_width, int32_t wall_boxes) {
  SceneBody u = StaticBody();
  const float w = static_cast<float>(half_width);
  for (int32_t i = 0; i <= 2 * half_width; ++i) {
    u.shapes.push_back(ShapeOf(OffsetBox(0.55f, 0.5f, {-w + static_cast<float>(i), 0.0f}, 0.0f)));
  }
  for (float x : {-w, w}) {
    for (int32_t i = 0; i < wall_boxes; ++i) {
      u.shapes.push_back(ShapeOf(OffsetBox(0.5f, 0.55f, {x, 1.0f + static_cast<float>(i)}, 0.0f)));
    }
  }
  return u;
}

/// Appends a pyramid of boxes with half-extent `h`: `base` boxes in the
/// bottom row, one fewer per row, bottom row resting on y = y0, centered on
/// x = cx.
void AddPyramid(SceneDesc* desc, int32_t base, float h, float cx, float y0);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_SCENE_BUILDER_H_
