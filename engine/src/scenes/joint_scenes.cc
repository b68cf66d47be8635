#include "scenes/joint_scenes.h"

#include <algorithm>

#include "scenes/scene_builder.h"

namespace atl::scenes {
namespace {

SceneShape CapsuleShape(Vec2 c1, Vec2 c2, float radius, float density = 1.0f) {
  SceneShape s{ShapeGeometry(Capsule{c1, c2, radius}), ShapeDef()};
  s.def.density = density;
  s.def.friction = 0.6f;
  return s;
}

// A revolute joint pinning scene bodies a and b at world point p (both
// bodies at their initial poses, unrotated).
SceneJoint Pin(const SceneDesc& d, int32_t a, int32_t b, Vec2 p) {
  RevoluteJointDef def;
  def.local_anchor_a = p - d.bodies[a].def.position;
  def.local_anchor_b = p - d.bodies[b].def.position;
  return {a, b, def};
}

int32_t Add(SceneDesc* d, SceneBody body) {
  d->bodies.push_back(std::move(body));
  return static_cast<int32_t>(d->bodies.size()) - 1;
}

}  // namespace

SceneDesc Chain(int32_t links) {
  SceneDesc d;
  d.name = "chain";
  d.steps = 600;
  const float top = 1.0f + static_cast<float>(links);
  d.bodies.push_back(Ground(static_cast<float>(links) + 10.0f));
  const int32_t anchor = Add(&d, StaticBody({0.0f, top}));
  int32_t previous = anchor;
  for (int32_t i = 0; i < links; ++i) {
    // Laid out horizontally to the right of the anchor; they swing down.
    SceneBody link = DynamicBody({0.5f + static_cast<float>(i), top});
    link.shapes.push_back(CapsuleShape({-0.5f, 0.0f}, {0.5f, 0.0f}, 0.125f, 20.0f));
    const int32_t index = Add(&d, std::move(link));
    d.joints.push_back(Pin(d, previous, index, {static_cast<float>(i), top}));
    previous = index;
  }
  d.bounds = 3.0f * static_cast<float>(links) + 20.0f;
  return d;
}

SceneDesc Bridge(int32_t planks) {
  SceneDesc d;
  d.name = "bridge";
  d.steps = 600;
  d.bodies.push_back(Ground(static_cast<float>(planks) + 10.0f));
  const float span = static_cast<float>(planks);
  const float x0 = -0.5f * span, height = 10.0f;
  const int32_t left = Add(&d, StaticBody({x0, height}));
  const int32_t right = Add(&d, StaticBody({x0 + span, height}));
  int32_t previous = left;
  for (int32_t i = 0; i < planks; ++i) {
    SceneBody plank = DynamicBody({x0 + 0.5f + static_cast<float>(i), height});
    plank.shapes.push_back(ShapeOf(Box(0.5f, 0.125f), 20.0f));
    const int32_t index = Add(&d, std::move(plank));
    d.joints.push_back(Pin(d, previous, index, {x0 + static_cast<float>(i), height}));
    previous = index;
  }
  d.joints.push_back(Pin(d, previous, right, {x0 + span, height}));
  // A few loads dropped onto the deck.
  for (int32_t i = 0; i < planks / 8; ++i) {
    SceneBody load = DynamicBody({x0 + 4.0f + 8.0f * static_cast<float>(i), height + 3.0f});
    load.shapes.push_back(ShapeOf(Box(0.5f, 0.5f), 5.0f));
    d.bodies.push_back(std::move(load));
  }
  d.bounds = span + 40.0f;
  return d;
}

SceneDesc JointGrid(int32_t side) {
  SceneDesc d;
  d.name = "joint_grid";
  d.steps = 500;
  d.world.enable_sleep = false;
  // No ground: the net hangs from the static circles in the middle of its
  // top row. Column by column, top to bottom; each circle is pinned to the
  // one above and the one to its left, halfway between them.
  Circle circle{{0.0f, 0.0f}, 0.4f};
  SceneShape shape = ShapeOf(circle);
  // The circles never touch each other: only the joints hold the net.
  shape.def.filter.category_bits = 2;
  shape.def.filter.mask_bits = ~uint64_t{2};
  for (int32_t col = 0; col < side; ++col) {
    for (int32_t row = 0; row < side; ++row) {
      const Vec2 p{static_cast<float>(col), -static_cast<float>(row)};
      const bool fixed = row == 0 && col >= side / 2 - 3 && col <= side / 2 + 3;
      SceneBody body = fixed ? StaticBody(p) : DynamicBody(p);
      body.shapes.push_back(shape);
      const int32_t index = Add(&d, std::move(body));
      if (row > 0) d.joints.push_back(Pin(d, index - 1, index, p + Vec2{0.0f, 0.5f}));
      if (col > 0) d.joints.push_back(Pin(d, index - side, index, p - Vec2{0.5f, 0.0f}));
    }
  }
  d.bounds = 4.0f * static_cast<float>(side) + 20.0f;
  return d;
}

namespace {

// One ragdoll standing with its feet at `feet`, its bones unable to hit
// each other (negative group `group`).
void AddRagdoll(SceneDesc* d, Vec2 feet, int32_t group) {
  struct Bone {
    Vec2 center;
    float half_length;
    float radius;
  };
  // Pelvis, torso, head, upper and lower arms (two each), thighs, shins.
  const Bone bones[11] = {
      {{0.0f, 0.95f}, 0.05f, 0.12f}, {{0.0f, 1.25f}, 0.12f, 0.13f}, {{0.0f, 1.60f}, 0.03f, 0.10f},
      {{0.0f, 1.22f}, 0.12f, 0.045f}, {{0.0f, 1.22f}, 0.12f, 0.045f},
      {{0.0f, 0.94f}, 0.12f, 0.04f},  {{0.0f, 0.94f}, 0.12f, 0.04f},
      {{0.0f, 0.68f}, 0.15f, 0.065f}, {{0.0f, 0.68f}, 0.15f, 0.065f},
      {{0.0f, 0.29f}, 0.17f, 0.055f}, {{0.0f, 0.29f}, 0.17f, 0.055f},
  };
  const int32_t first = static_cast<int32_t>(d->bodies.size());
  for (const Bone& bone : bones) {
    SceneBody body = DynamicBody(feet + bone.center);
    SceneShape shape = CapsuleShape({0.0f, -bone.half_length}, {0.0f, bone.half_length}, bone.radius);
    shape.def.filter.group_index = -group;
    body.shapes.push_back(shape);
    d->bodies.push_back(std::move(body));
  }
  // (parent, child, joint height above the feet, lower, upper limit)
  struct Link {
    int32_t parent, child;
    float y, lower, upper;
  };
  const Link links[10] = {
      {0, 1, 1.05f, -0.25f * kPi, 0.0f},  {1, 2, 1.45f, -0.3f * kPi, 0.1f * kPi},
      {1, 3, 1.36f, -0.1f * kPi, 0.8f * kPi}, {1, 4, 1.36f, -0.1f * kPi, 0.8f * kPi},
      {3, 5, 1.08f, 0.0f, 0.5f * kPi},    {4, 6, 1.08f, 0.0f, 0.5f * kPi},
      {0, 7, 0.86f, -0.05f * kPi, 0.4f * kPi}, {0, 8, 0.86f, -0.05f * kPi, 0.4f * kPi},
      {7, 9, 0.50f, -0.5f * kPi, -0.02f * kPi}, {8, 10, 0.50f, -0.5f * kPi, -0.02f * kPi},
  };
  for (const Link& link : links) {
    SceneJoint joint = Pin(*d, first + link.parent, first + link.child, feet + Vec2{0.0f, link.y});
    auto& def = std::get<RevoluteJointDef>(joint.def);
    def.enable_limit = true;
    def.lower_angle = link.lower;
    def.upper_angle = link.upper;
    // A little joint friction so limbs do not flail forever.
    def.enable_motor = true;
    def.max_motor_torque = 0.5f;
    d->joints.push_back(joint);
  }
}

}  // namespace

namespace {

// Appends a mobile node (a vertical rod) hanging at world point `hook` and,
// below it, its two subtrees; returns the node's scene index.
int32_t AddMobileNode(SceneDesc* d, Vec2 hook, int32_t level, int32_t depth) {
  constexpr float kHalfHeight = 0.4f;
  SceneBody body = DynamicBody(hook - Vec2{0.0f, kHalfHeight});
  body.shapes.push_back(ShapeOf(Box(0.1f, kHalfHeight), 20.0f));
  if (level == depth - 1) {
    // Leaves start swinging, alternately left and right, so the balanced
    // tree moves instead of falling asleep at once.
    const int32_t leaf = static_cast<int32_t>(d->bodies.size());
    body.def.linear_velocity = {leaf % 2 == 0 ? 1.0f : -1.0f, 0.0f};
  }
  // Children hang from the ends of a bar under the rod, half as far apart
  // each level down, leaves 1 m apart. The bar is part of the node (a
  // second fixture): its mass and inertia grow with its span, which keeps
  // the wide upper levels from being light levers carrying heavy trees.
  const float offset = level < depth - 1 ? 0.5f * static_cast<float>(1 << (depth - 2 - level)) : 0.0f;
  if (level < depth - 1) {
    body.shapes.push_back(ShapeOf(OffsetBox(offset, 0.05f, {0.0f, -kHalfHeight - 0.2f}, 0.0f), 20.0f));
  }
  const int32_t index = Add(d, std::move(body));
  if (level == depth - 1) return index;
  const Vec2 bottom = hook - Vec2{0.0f, 2.0f * kHalfHeight + 0.2f};
  for (float side : {-1.0f, 1.0f}) {
    const Vec2 child_hook = bottom + Vec2{side * offset, 0.0f};
    const int32_t child = AddMobileNode(d, child_hook, level + 1, depth);
    d->joints.push_back(Pin(*d, index, child, child_hook));
  }
  return index;
}

}  // namespace

SceneDesc BigMobile(int32_t depth) {
  SceneDesc d;
  d.name = "big_mobile";
  d.steps = 300;
  depth = std::max(depth, 1);
  const float top = 1.2f * static_cast<float>(depth) + 5.0f;
  const int32_t anchor = Add(&d, StaticBody({0.0f, top}));
  const int32_t root = AddMobileNode(&d, {0.0f, top}, 0, depth);
  d.joints.push_back(Pin(d, anchor, root, {0.0f, top}));
  const float width = depth >= 2 ? static_cast<float>(1 << (depth - 1)) : 1.0f;
  d.bounds = width + top + 50.0f;
  return d;
}

namespace {

// A Box2D v3 benchmark "human" standing with its feet at `feet`: eleven
// capsule bones (the shins with a flat foot polygon), each pinned to its
// parent by a limited revolute joint with a little motor friction and a
// soft spring towards its rest angle. Bones of one human never collide
// (negative group `group`); feet collide with the ground only. Every body
// carries `tag` as user_data.
void AddHuman(SceneDesc* d, Vec2 feet, int32_t group, uint64_t tag) {
  constexpr float kJointFriction = 0.05f;  // N m, scaled per bone
  constexpr float kJointHertz = 5.0f;
  constexpr float kJointDamping = 0.5f;
  struct Bone {
    int32_t parent;  // index within this human, -1 for the hip
    float y;         // body origin above the feet
    float bottom, top, radius;  // capsule along the body's y axis
    float linear_damping;
    float friction_scale;  // of the joint to the parent
    float pivot_y;         // joint above the feet
    float lower, upper;    // joint limits, radians
    float reference;       // joint reference angle, radians
    bool foot;
  };
  // Hip, torso, head, left leg (upper, lower), right leg, left arm (upper,
  // lower), right arm.
  const Bone bones[11] = {
      {-1, 0.95f, -0.02f, 0.02f, 0.095f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 0.0f, false},
      {0, 1.2f, -0.135f, 0.135f, 0.09f, 0.0f, 0.5f, 1.0f, -0.25f * kPi, 0.0f, 0.0f, false},
      {1, 1.475f, -0.038f, 0.039f, 0.075f, 0.1f, 0.25f, 1.4f, -0.3f * kPi, 0.1f * kPi, 0.0f, false},
      {0, 0.775f, -0.125f, 0.125f, 0.06f, 0.0f, 1.0f, 0.9f, -0.05f * kPi, 0.4f * kPi, 0.0f, false},
      {3, 0.475f, -0.155f, 0.125f, 0.045f, 0.0f, 0.5f, 0.625f, -0.5f * kPi, -0.02f * kPi, 0.0f, true},
      {0, 0.775f, -0.125f, 0.125f, 0.06f, 0.0f, 1.0f, 0.9f, -0.05f * kPi, 0.4f * kPi, 0.0f, false},
      {5, 0.475f, -0.155f, 0.125f, 0.045f, 0.0f, 0.5f, 0.625f, -0.5f * kPi, -0.02f * kPi, 0.0f, true},
      {1, 1.225f, -0.125f, 0.125f, 0.035f, 0.0f, 0.5f, 1.35f, -0.1f * kPi, 0.8f * kPi, 0.0f, false},
      {7, 0.975f, -0.125f, 0.125f, 0.03f, 0.1f, 0.1f, 1.1f, -0.2f * kPi, 0.3f * kPi, 0.25f * kPi, false},
      {1, 1.225f, -0.125f, 0.125f, 0.035f, 0.0f, 0.5f, 1.35f, -0.1f * kPi, 0.8f * kPi, 0.0f, false},
      {9, 0.975f, -0.125f, 0.125f, 0.03f, 0.1f, 0.1f, 1.1f, -0.2f * kPi, 0.3f * kPi, 0.25f * kPi, false},
  };
  const Vec2 foot_points[4] = {{-0.03f, -0.185f}, {0.11f, -0.185f}, {0.11f, -0.16f}, {-0.03f, -0.14f}};
  absl::StatusOr<Hull> foot_hull = ComputeHull(foot_points);
  ATOLL_ASSERT(foot_hull.ok());
  absl::StatusOr<Polygon> foot = MakePolygon(*foot_hull, 0.015f);
  ATOLL_ASSERT(foot.ok());

  Filter filter;
  filter.category_bits = 2;
  filter.mask_bits = 1 | 2;
  filter.group_index = -group;
  const int32_t first = static_cast<int32_t>(d->bodies.size());
  for (const Bone& bone : bones) {
    SceneBody body = DynamicBody(feet + Vec2{0.0f, bone.y});
    body.def.sleep_threshold = 0.1f;
    body.def.linear_damping = bone.linear_damping;
    body.def.user_data = tag;
    SceneShape capsule{ShapeGeometry(Capsule{{0.0f, bone.bottom}, {0.0f, bone.top}, bone.radius}),
                       ShapeDef()};
    capsule.def.friction = 0.2f;
    capsule.def.filter = filter;
    body.shapes.push_back(capsule);
    if (bone.foot) {
      SceneShape sole = ShapeOf(*foot, 1.0f, 0.05f);
      sole.def.filter = filter;
      sole.def.filter.mask_bits = 1;  // feet do not catch on other ragdolls
      body.shapes.push_back(sole);
    }
    d->bodies.push_back(std::move(body));
  }
  for (int32_t i = 0; i < 11; ++i) {
    const Bone& bone = bones[i];
    if (bone.parent < 0) continue;
    SceneJoint joint = Pin(*d, first + bone.parent, first + i, feet + Vec2{0.0f, bone.pivot_y});
    auto& def = std::get<RevoluteJointDef>(joint.def);
    def.reference_angle = bone.reference;
    def.enable_limit = true;
    def.lower_angle = bone.lower;
    def.upper_angle = bone.upper;
    def.enable_motor = true;
    def.max_motor_torque = bone.friction_scale * kJointFriction;
    def.enable_spring = true;
    def.hertz = kJointHertz;
    def.damping_ratio = kJointDamping;
    d->joints.push_back(joint);
  }
}

}  // namespace

SceneDesc Rain(int32_t columns) {
  SceneDesc d;
  d.name = "rain";
  d.steps = 1000;
  columns = std::max(columns, 1);
  constexpr int32_t kRows = 5;
  constexpr int32_t kGroupSize = 5;
  constexpr int32_t kEvery = 8;
  constexpr float kRowSpacing = 45.0f;
  constexpr float kCell = 0.5f;
  constexpr int32_t kCells = 500;
  const float span = kCell * static_cast<float>(kCells);
  // One static body: a floor of small boxes under each row of groups.
  SceneBody ground = StaticBody();
  for (int32_t row = 0; row < kRows; ++row) {
    for (int32_t i = 0; i <= kCells; ++i) {
      const Vec2 center{-0.5f * span + kCell * static_cast<float>(i), kRowSpacing * static_cast<float>(row)};
      ground.shapes.push_back(ShapeOf(OffsetBox(0.5f * kCell, 0.5f * kCell, center, 0.0f)));
    }
  }
  d.bodies.push_back(std::move(ground));
  // Every 8 steps one column of groups (one group per row) appears; once
  // every column is full, the oldest column is removed and dropped again.
  // Group (row, column) tags its bodies 1 + row * columns + column.
  const float spacing = span / static_cast<float>(columns);
  int32_t drop = 0;
  for (int32_t step = 0; step < d.steps; step += kEvery, ++drop) {
    const int32_t column = drop % columns;
    for (int32_t row = 0; row < kRows; ++row) {
      const uint64_t tag = 1 + static_cast<uint64_t>(row * columns + column);
      SceneDesc group;
      Vec2 feet{-0.5f * span + spacing * (static_cast<float>(column) + 0.5f),
                40.0f + kRowSpacing * static_cast<float>(row)};
      for (int32_t i = 0; i < kGroupSize; ++i) {
        AddHuman(&group, feet, i + 1, tag);
        feet.x += 0.5f;
      }
      SceneWave wave;
      wave.step = step;
      if (drop >= columns) wave.destroy_tags.push_back(tag);
      wave.bodies = std::move(group.bodies);
      wave.joints = std::move(group.joints);
      d.waves.push_back(std::move(wave));
    }
  }
  d.bounds = span + 100.0f;
  return d;
}

SceneDesc Ragdolls(int32_t count) {
  SceneDesc d;
  d.name = "ragdolls";
  d.steps = 1000;
  const int32_t columns = 10;
  const float pitch = 1.5f;
  d.bodies.push_back(Ground(pitch * static_cast<float>(columns) + 20.0f));
  for (int32_t i = 0; i < count; ++i) {
    const int32_t row = i / columns, col = i % columns;
    // Rows 2.5 m apart, each a little to the side of the last, so they fall
    // in turn and tumble over each other.
    const Vec2 feet{pitch * (static_cast<float>(col) - 0.5f * static_cast<float>(columns - 1)) +
                        0.3f * static_cast<float>(row % 3),
                    4.0f + 2.5f * static_cast<float>(row)};
    AddRagdoll(&d, feet, i + 1);
  }
  d.bounds = 2.5f * static_cast<float>(count / columns + 1) + 100.0f;
  return d;
}

}  // namespace atl::scenes
