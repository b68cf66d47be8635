#include "scenes/joint_scenes.h"

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
  // No ground: the net hangs from its static top-middle circles.
  const float radius = 0.4f;
  const Circle circle{{0.0f, 0.0f}, radius};
  for (int32_t row = 0; row < side; ++row) {
    for (int32_t col = 0; col < side; ++col) {
      const Vec2 p{static_cast<float>(col), -static_cast<float>(row)};
      const bool fixed = row == 0 && col >= side / 2 - 3 && col <= side / 2 + 3;
      SceneBody body = fixed ? StaticBody(p) : DynamicBody(p);
      body.shapes.push_back(ShapeOf(circle));
      const int32_t index = Add(&d, std::move(body));
      if (col > 0) d.joints.push_back(Pin(d, index - 1, index, p - Vec2{0.5f, 0.0f}));
      if (row > 0) d.joints.push_back(Pin(d, index - side, index, p + Vec2{0.0f, 0.5f}));
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
