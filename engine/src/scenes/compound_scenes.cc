// Multi-fixture scenes after seed 000 §8.1 (dimensions are ours).

#include "scenes/compound_scenes.h"

#include <algorithm>

#include "atoll/hull.h"
#include "scenes/scene_builder.h"

namespace atl::scenes {
namespace {

// A table with its top centered on the body origin: a 3 m x 0.2 m top cut
// into `pieces` boxes with 2 cm gaps, and two legs 1 m long.
void AddTableShapes(SceneBody* body, int32_t pieces, float scale) {
  const float width = 3.0f * scale, gap = 0.02f * scale;
  const float piece = width / static_cast<float>(pieces);
  for (int32_t k = 0; k < pieces; ++k) {
    const float cx = -0.5f * width + piece * (static_cast<float>(k) + 0.5f);
    body->shapes.push_back(ShapeOf(OffsetBox(0.5f * (piece - gap), 0.1f * scale, {cx, 0.0f}, 0.0f)));
  }
  for (float side : {-1.0f, 1.0f}) {
    body->shapes.push_back(
        ShapeOf(OffsetBox(0.1f * scale, 0.5f * scale, {side * 1.3f * scale, -0.6f * scale}, 0.0f)));
  }
}

}  // namespace

SceneDesc MultiFixture(int32_t count) {
  SceneDesc d;
  d.name = "multi_fixture";
  d.steps = 400;
  constexpr int32_t kColumns = 8;
  constexpr float kPitchX = 4.5f, kPitchY = 2.5f;
  const int32_t rows = (count + kColumns - 1) / kColumns;
  const float inner = 0.5f * kPitchX * kColumns + 2.0f;  // half the U's inner width
  const float top = 4.0f + kPitchY * static_cast<float>(rows);
  // The U: a floor and two walls taller than the drop grid.
  SceneBody u = StaticBody();
  u.shapes.push_back(ShapeOf(OffsetBox(inner + 1.0f, 1.0f, {0.0f, -1.0f}, 0.0f)));
  for (float side : {-1.0f, 1.0f}) {
    u.shapes.push_back(ShapeOf(OffsetBox(1.0f, 0.5f * top + 5.0f, {side * (inner + 1.0f), 0.5f * top + 4.0f}, 0.0f)));
  }
  d.bodies.push_back(std::move(u));
  for (int32_t i = 0; i < count; ++i) {
    const int32_t row = i / kColumns, col = i % kColumns;
    SceneBody table = DynamicBody({kPitchX * (static_cast<float>(col) - 0.5f * (kColumns - 1)),
                                   3.0f + kPitchY * static_cast<float>(row)});
    // Thrown: sideways towards the middle, with a little spin.
    table.def.linear_velocity = {col < kColumns / 2 ? 2.0f : -2.0f, 0.0f};
    table.def.angular_velocity = 0.25f * static_cast<float>(i % 5 - 2);
    AddTableShapes(&table, 1 + i % 16, 1.0f);
    d.bodies.push_back(std::move(table));
  }
  d.bounds = 2.0f * (inner + top) + 50.0f;
  return d;
}

SceneDesc MildN2(int32_t count) {
  SceneDesc d;
  d.name = "mild_n2";
  d.steps = 300;
  // A deep ground: the first steps push bodies hard out of the pile.
  SceneBody ground = StaticBody({0.0f, -5.0f});
  ground.shapes.push_back(ShapeOf(Box(80.0f, 5.0f)));
  d.bodies.push_back(std::move(ground));
  const SceneShape hull = [] {
    const Vec2 points[3] = {{-0.8f, 0.0f}, {0.8f, 0.0f}, {0.0f, 1.2f}};
    absl::StatusOr<Hull> hull = ComputeHull(points);
    ATOLL_ASSERT(hull.ok());
    absl::StatusOr<Polygon> p = MakePolygon(*hull, 0.0f);
    ATOLL_ASSERT(p.ok());
    return ShapeOf(*p);
  }();
  for (int32_t i = 0; i < count; ++i) {
    // Nearly coincident, like n2, but every body is a compound.
    SceneBody b = DynamicBody({0.001f * static_cast<float>(i % 100), 10.0f + 0.001f * static_cast<float>(i)});
    if (i % 2 == 0) {
      AddTableShapes(&b, 1, 0.5f);
    } else {
      b.shapes.push_back(hull);
      b.shapes.push_back(ShapeOf(OffsetBox(1.0f, 0.1f, {0.0f, 0.3f}, 0.0f)));
    }
    d.bodies.push_back(std::move(b));
  }
  d.bounds = 500.0f;
  return d;
}

SceneDesc Compounds(int32_t count) {
  // Box2D v3's compounds benchmark (its sample "barrel" with compound
  // bodies): a static U of boxes 80 m wide with 100 m walls, a long safety
  // segment 80 m below, and `count` bodies of two triangles each dropped
  // into it in 20 columns, column by column.
  SceneDesc d;
  d.name = "compounds";
  d.steps = 500;
  SceneBody ground = StaticBoxU(40, 100);
  ground.shapes.push_back(ShapeOf(Segment{{-800.0f, -80.0f}, {800.0f, -80.0f}}));
  d.bodies.push_back(std::move(ground));

  auto triangle = [](Vec2 a, Vec2 b, Vec2 c) {
    const Vec2 points[3] = {a, b, c};
    absl::StatusOr<Hull> hull = ComputeHull(points);
    ATOLL_ASSERT(hull.ok());
    absl::StatusOr<Polygon> polygon = MakePolygon(*hull, 0.0f);
    ATOLL_ASSERT(polygon.ok());
    return ShapeOf(*polygon, 1.0f, 0.5f);
  };
  const SceneShape left = triangle({-1.0f, 0.0f}, {0.5f, 1.0f}, {0.0f, 2.0f});
  const SceneShape right = triangle({1.0f, 0.0f}, {-0.5f, 1.0f}, {0.0f, 2.0f});
  constexpr int32_t kColumns = 20;
  const int32_t rows = (count + kColumns - 1) / kColumns;
  // Columns 2 m apart, rows 2.25 m apart from y = 5.575, every other body
  // 0.25 m to the right or left.
  const float center_x = 2.0f * static_cast<float>(kColumns) / 2.0f - 1.0f;
  float side = 0.25f;
  int32_t placed = 0;
  for (int32_t i = 0; i < kColumns && placed < count; ++i) {
    const float x = 2.0f * static_cast<float>(i) - center_x;
    for (int32_t j = 0; j < rows && placed < count; ++j, ++placed) {
      const float y = 2.25f * static_cast<float>(j) + 0.575f + 5.0f;
      SceneBody b = DynamicBody({x + side, y});
      side = -side;
      b.shapes.push_back(left);
      b.shapes.push_back(right);
      d.bodies.push_back(std::move(b));
    }
  }
  d.bounds = 1000.0f;
  return d;
}

}  // namespace atl::scenes
