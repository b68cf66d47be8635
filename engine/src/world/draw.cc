// World::Draw: feeds the world's contents to a DebugDraw.

#include "atoll/debug_draw.h"
#include "atoll/world.h"
#include "world/world_state.h"

namespace atl {
namespace {

constexpr Color kStaticColor{0.45f, 0.75f, 0.45f, 1.0f};
constexpr Color kKinematicColor{0.45f, 0.55f, 0.95f, 1.0f};
constexpr Color kDisabledColor{0.35f, 0.35f, 0.35f, 1.0f};
// Distinct hues for islands, so neighbouring islands are told apart.
constexpr Color kIslandPalette[] = {
    {0.95f, 0.60f, 0.30f, 1.0f}, {0.90f, 0.85f, 0.35f, 1.0f}, {0.40f, 0.80f, 0.95f, 1.0f},
    {0.95f, 0.45f, 0.60f, 1.0f}, {0.60f, 0.90f, 0.60f, 1.0f}, {0.75f, 0.55f, 0.95f, 1.0f},
    {0.95f, 0.75f, 0.55f, 1.0f}, {0.45f, 0.95f, 0.80f, 1.0f}, {0.85f, 0.40f, 0.35f, 1.0f},
    {0.55f, 0.65f, 0.95f, 1.0f}, {0.90f, 0.55f, 0.90f, 1.0f}, {0.70f, 0.85f, 0.40f, 1.0f},
};
constexpr Color kDynamicColor{0.90f, 0.70f, 0.70f, 1.0f};

Color Mix(Color a, Color b, float t) {
  return {a.r + t * (b.r - a.r), a.g + t * (b.g - a.g), a.b + t * (b.b - a.b), a.a};
}

Color BodyColor(const Body& b, const DebugDrawOptions& options) {
  if (!b.enabled) return kDisabledColor;
  if (b.type == BodyType::kStatic) return kStaticColor;
  if (b.type == BodyType::kKinematic) return kKinematicColor;
  Color c = options.color_islands && b.island >= 0
                ? kIslandPalette[b.island % static_cast<int32_t>(std::size(kIslandPalette))]
                : kDynamicColor;
  // Sleeping bodies are tinted grey.
  if (!b.awake) c = Mix(c, {0.55f, 0.55f, 0.6f, 1.0f}, 0.7f);
  return c;
}

void DrawShape(DebugDraw* draw, const Shape& shape, const Transform& xf, Color color) {
  Color fill = color;
  fill.a = 0.5f;
  const ShapeGeometry& g = shape.geometry;
  switch (g.type) {
    case ShapeType::kCircle:
      draw->DrawCircle(TransformPoint(xf, g.circle.center), g.circle.radius,
                       RotateVector(xf.q, {1.0f, 0.0f}), fill, color);
      break;
    case ShapeType::kCapsule:
      draw->DrawCapsule(TransformPoint(xf, g.capsule.center1), TransformPoint(xf, g.capsule.center2),
                        g.capsule.radius, fill, color);
      break;
    case ShapeType::kSegment:
      draw->DrawSegment(TransformPoint(xf, g.segment.point1), TransformPoint(xf, g.segment.point2),
                        color);
      break;
    case ShapeType::kChainSegment:
      draw->DrawSegment(TransformPoint(xf, g.chain_segment.segment.point1),
                        TransformPoint(xf, g.chain_segment.segment.point2), color);
      break;
    case ShapeType::kPolygon: {
      Vec2 vertices[kMaxPolygonVertices];
      for (int32_t i = 0; i < g.polygon.count; ++i) {
        vertices[i] = TransformPoint(xf, g.polygon.vertices[i]);
      }
      draw->DrawPolygon({vertices, static_cast<size_t>(g.polygon.count)}, g.polygon.radius, fill,
                        color);
      break;
    }
  }
}

// A joint as Box2D draws it: each body's center to its anchor, and the
// anchors to each other (their gap is the joint's error); axes of sliding
// joints and the target of a target joint on top.
void DrawJoint(DebugDraw* draw, const WorldState& w, const Joint& j) {
  constexpr Color kLink{0.5f, 0.8f, 0.8f, 1.0f};
  constexpr Color kGap{0.9f, 0.3f, 0.3f, 1.0f};
  constexpr Color kAxis{0.9f, 0.9f, 0.4f, 1.0f};
  const JointPose pose = GetJointPose(w, j);
  const Vec2 cb = w.bodies[j.body_b].center;
  if (j.type == JointType::kTarget) {
    draw->DrawPoint(pose.anchor_a, 6.0f, kAxis);
    draw->DrawSegment(pose.anchor_a, pose.anchor_b, kGap);
    return;
  }
  const Vec2 ca = w.bodies[j.body_a].center;
  if (j.type == JointType::kDistance) {
    draw->DrawSegment(pose.anchor_a, pose.anchor_b, kLink);
  } else {
    draw->DrawSegment(ca, pose.anchor_a, kLink);
    draw->DrawSegment(cb, pose.anchor_b, kLink);
    draw->DrawSegment(pose.anchor_a, pose.anchor_b, kGap);
  }
  Vec2 local_axis{0.0f, 0.0f};
  if (const auto* p = std::get_if<PrismaticJoint>(&j.data)) local_axis = p->local_axis_a;
  if (const auto* wh = std::get_if<WheelJoint>(&j.data)) local_axis = wh->local_axis_a;
  if (local_axis != Vec2{0.0f, 0.0f}) {
    const Vec2 axis = RotateVector(pose.rotation_a, local_axis);
    draw->DrawSegment(MulSub(pose.anchor_a, 0.5f, axis), MulAdd(pose.anchor_a, 0.5f, axis), kAxis);
  }
  draw->DrawPoint(pose.anchor_a, 4.0f, kLink);
  draw->DrawPoint(pose.anchor_b, 4.0f, kLink);
}

}  // namespace

void World::Draw(DebugDraw* draw, const DebugDrawOptions& options) const {
  const WorldState& w = *state_;
  if (options.shapes) {
    for (int32_t i = 0; i < w.shape_ids.Capacity(); ++i) {
      if (!w.shape_ids.IsAlive(i)) continue;
      const Shape& shape = w.shapes[i];
      const Body& body = w.bodies[shape.body];
      Color color = BodyColor(body, options);
      if (shape.is_sensor) color.a = 0.4f;
      DrawShape(draw, shape, body.transform, color);
    }
  }
  if (options.joints) {
    for (int32_t i = 0; i < w.joint_ids.Capacity(); ++i) {
      if (w.joint_ids.IsAlive(i)) DrawJoint(draw, w, w.joints[i]);
    }
  }
  if (options.aabbs) {
    const Color c{0.9f, 0.3f, 0.9f, 0.8f};
    for (int32_t i = 0; i < w.shape_ids.Capacity(); ++i) {
      if (!w.shape_ids.IsAlive(i) || !w.shapes[i].has_proxy) continue;
      const AABB& b = w.shapes[i].aabb;
      const Vec2 v[4] = {b.lower, {b.upper.x, b.lower.y}, b.upper, {b.lower.x, b.upper.y}};
      for (int k = 0; k < 4; ++k) draw->DrawSegment(v[k], v[(k + 1) % 4], c);
    }
  }
  if (options.mass_centers) {
    for (int32_t i = 0; i < w.body_ids.Capacity(); ++i) {
      if (w.body_ids.IsAlive(i) && w.bodies[i].type == BodyType::kDynamic) {
        draw->DrawPoint(w.bodies[i].center, 4.0f, {1.0f, 1.0f, 1.0f, 1.0f});
      }
    }
  }
  if (options.contacts) {
    for (int32_t i = 0; i < w.contact_ids.Capacity(); ++i) {
      if (!w.contact_ids.IsAlive(i)) continue;
      const Contact& c = w.contacts[i];
      if ((c.flags & kContactTouching) == 0) continue;
      for (int32_t j = 0; j < c.manifold.point_count; ++j) {
        const ManifoldPoint& p = c.manifold.points[j];
        // Speculative points (still apart) in blue, penetrating ones in red.
        const Color pc = p.separation > kLinearSlop ? Color{0.3f, 0.5f, 1.0f, 1.0f}
                                                    : Color{1.0f, 0.3f, 0.3f, 1.0f};
        draw->DrawPoint(p.point, 5.0f, pc);
        if (options.contact_normals) {
          draw->DrawSegment(p.point, MulAdd(p.point, 0.3f, c.manifold.normal),
                            {0.9f, 0.9f, 0.3f, 1.0f});
        }
      }
    }
  }
}

}  // namespace atl
