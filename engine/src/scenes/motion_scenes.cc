// Scenes driven by a moving body, after Box2D v3's benchmark set: tumbler,
// smash, spinner, washer and junkyard. Geometry and parameters are v3's
// (shared/benchmarks.c at 617d32a); where Atoll lacks a v3 feature the
// scene's comment says what stands in for it.

#include "scenes/motion_scenes.h"

#include <algorithm>
#include <limits>
#include <vector>

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

SceneDesc Spinner(int32_t count) {
  SceneDesc d;
  d.name = "spinner";
  d.steps = 500;
  // A static ring of radius 40 around (0, 32): a closed chain of 360
  // segments, wound clockwise so it holds the bodies inside.
  constexpr int32_t kPoints = 360;
  std::vector<Vec2> points;
  points.reserve(kPoints);
  const Rot q = MakeRot(-2.0f * kPi / static_cast<float>(kPoints));
  Vec2 p{40.0f, 0.0f};
  for (int32_t i = 0; i < kPoints; ++i) {
    points.push_back({p.x, p.y + 32.0f});
    p = RotateVector(q, p);
  }
  absl::StatusOr<std::vector<ChainSegment>> ring = MakeChainSegments(points, /*loop=*/true);
  ATOLL_ASSERT(ring.ok());
  SceneBody ground = StaticBody();
  for (const ChainSegment& segment : *ring) {
    SceneShape s{ShapeGeometry(segment), ShapeDef()};
    s.def.friction = 0.1f;
    ground.shapes.push_back(s);
  }
  d.bodies.push_back(std::move(ground));
  // The spinner: a frictionless rounded 1.2 x 40.4 m bar pinned at its
  // center (0, 12), driven at 5 rad/s by a motor of unbounded torque (v3's
  // FLT_MAX); it never sleeps.
  SceneBody spinner = DynamicBody({0.0f, 12.0f});
  spinner.def.allow_sleep = false;
  absl::StatusOr<Polygon> bar = MakeRoundedBox(0.4f, 20.0f, 0.2f);
  ATOLL_ASSERT(bar.ok());
  spinner.shapes.push_back(ShapeOf(*bar, 1.0f, 0.0f));
  d.bodies.push_back(std::move(spinner));
  RevoluteJointDef motor;
  motor.local_anchor_a = {0.0f, 12.0f};
  motor.enable_motor = true;
  motor.motor_speed = 5.0f;
  motor.max_motor_torque = std::numeric_limits<float>::max();
  d.joints.push_back({0, 1, motor});
  // `count` light, slippery, slightly bouncy bodies, in turn a capsule, a
  // circle and a square, in rows of 92 every 0.5 m from (-23, 2) up.
  const Capsule capsule{{-0.25f, 0.0f}, {0.25f, 0.0f}, 0.25f};
  const Circle circle{{0.0f, 0.0f}, 0.35f};
  const Polygon square = Box(0.35f, 0.35f);
  float x = -23.0f, y = 2.0f;
  for (int32_t i = 0; i < count; ++i) {
    SceneBody b = DynamicBody({x, y});
    SceneShape s;
    switch (i % 3) {
      case 0: s.geometry = ShapeGeometry(capsule); break;
      case 1: s.geometry = ShapeGeometry(circle); break;
      default: s.geometry = ShapeGeometry(square); break;
    }
    s.def.density = 0.25f;
    s.def.friction = 0.1f;
    s.def.restitution = 0.1f;
    b.shapes.push_back(s);
    d.bodies.push_back(std::move(b));
    x += 0.5f;
    if (x >= 23.0f) {
      x = -23.0f;
      y += 0.5f;
    }
  }
  d.bounds = Max(100.0f, y + 100.0f);
  return d;
}

SceneDesc Washer(int32_t side) {
  SceneDesc d;
  d.name = "washer";
  d.steps = 500;
  // A shapeless static body (v3 creates one for a joint it leaves out).
  d.bodies.push_back(StaticBody());
  // The drum: a kinematic ring around (0, 10) turning at 25 deg/s and
  // drifting very slowly. 36 quads from radius 16 to 18, each 12 degrees
  // wide so neighbours overlap by 2 degrees, and four paddles from 14 to
  // 16 every 90 degrees.
  SceneBody drum;
  drum.def.type = BodyType::kKinematic;
  drum.def.position = {0.0f, 10.0f};
  drum.def.angular_velocity = 25.0f * kPi / 180.0f;
  drum.def.linear_velocity = {0.001f, -0.002f};
  constexpr float kR0 = 14.0f, kR1 = 16.0f, kR2 = 18.0f;
  const float step = kPi / 18.0f;
  const Rot q = MakeRot(step);
  const Rot overlap = MakeRot(0.1f * step);
  auto quad = [](Vec2 p1, Vec2 p2, Vec2 p3, Vec2 p4) {
    const Vec2 corners[4] = {p1, p2, p3, p4};
    absl::StatusOr<Hull> hull = ComputeHull(corners);
    ATOLL_ASSERT(hull.ok());
    absl::StatusOr<Polygon> polygon = MakePolygon(*hull, 0.0f);
    ATOLL_ASSERT(polygon.ok());
    return ShapeOf(*polygon);
  };
  Vec2 u1{1.0f, 0.0f};
  for (int32_t i = 0; i < 36; ++i) {
    const Vec2 u2 = i == 35 ? Vec2{1.0f, 0.0f} : RotateVector(q, u1);
    const Vec2 a1 = InvRotateVector(overlap, u1);
    const Vec2 a2 = RotateVector(overlap, u2);
    drum.shapes.push_back(quad(kR1 * a1, kR2 * a1, kR1 * a2, kR2 * a2));
    if (i % 9 == 0) drum.shapes.push_back(quad(kR0 * u1, kR1 * u1, kR0 * u2, kR1 * u2));
    u1 = u2;
  }
  d.bodies.push_back(std::move(drum));
  // side x side boxes (half-extent 0.1, hit events on) 0.21 m apart, row
  // by row from the bottom, the block a little left of and below the
  // center; larger sides shrink the boxes so the block keeps its size.
  const float a = Min(0.1f, 9.0f / static_cast<float>(side));
  const Polygon box = Box(a, a);
  const float start = -1.1f * a * static_cast<float>(side);
  for (int32_t i = 0; i < side; ++i) {
    for (int32_t j = 0; j < side; ++j) {
      SceneBody b = DynamicBody({start + 2.1f * a * static_cast<float>(j),
                                 10.0f + start + 2.1f * a * static_cast<float>(i)});
      SceneShape s = ShapeOf(box);
      s.def.enable_hit_events = true;
      b.shapes.push_back(s);
      d.bodies.push_back(std::move(b));
    }
  }
  d.bounds = 60.0f;
  return d;
}

SceneDesc Junkyard(int32_t count) {
  SceneDesc d;
  d.name = "junkyard";
  d.steps = 800;
  // A static U 160 m wide with 50 m walls.
  d.bodies.push_back(StaticBoxU(80, 50));
  // `count` irregular pentagons of radius 0.25 (five points of a Fibonacci
  // spiral on the circle) in 200 columns, column by column, rows 1 m apart
  // from y = 15, every other one 0.1 m to the left or right.
  constexpr int32_t kColumns = 200;
  constexpr float kRadius = 0.25f;
  Vec2 points[5];
  const float phi = kPi * (Sqrt(5.0f) - 1.0f);
  for (int32_t i = 0; i < 5; ++i) {
    const Rot r = MakeRot(phi * static_cast<float>(i));
    points[i] = {kRadius * r.c, kRadius * r.s};
  }
  absl::StatusOr<Hull> hull = ComputeHull(points);
  ATOLL_ASSERT(hull.ok());
  absl::StatusOr<Polygon> pentagon = MakePolygon(*hull, 0.0f);
  ATOLL_ASSERT(pentagon.ok());
  const int32_t rows = (count + kColumns - 1) / kColumns;
  float side = -0.1f;
  int32_t placed = 0;
  for (int32_t i = 0; i < kColumns && placed < count; ++i) {
    const float x = 1.5f * static_cast<float>(2 * i - kColumns) * kRadius;
    for (int32_t j = 0; j < rows && placed < count; ++j, ++placed) {
      SceneBody b = DynamicBody({x + side, 4.0f * kRadius * static_cast<float>(j) + 15.0f});
      side = -side;
      b.shapes.push_back(ShapeOf(*pentagon));
      d.bodies.push_back(std::move(b));
    }
  }
  // The pusher: a kinematic 4 x 8 m block standing on the floor, swept
  // back and forth along x = 60 sin(0.2 t). Atoll has no kinematic target
  // (v3's b2Body_SetTargetTransform); a SceneDrive sets its velocity each
  // step the same way.
  SceneBody pusher;
  pusher.def.type = BodyType::kKinematic;
  pusher.shapes.push_back(ShapeOf(OffsetBox(2.0f, 4.0f, {0.0f, 4.0f}, 0.0f)));
  d.bodies.push_back(std::move(pusher));
  d.drives.push_back({static_cast<int32_t>(d.bodies.size()) - 1, {0.0f, 0.0f}, {60.0f, 0.0f}, 0.2f});
  d.bounds = 500.0f;
  return d;
}

}  // namespace atl::scenes
