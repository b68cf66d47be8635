#include "box2d_scene.h"

namespace atl::bench {
namespace {

b2Vec2 V(Vec2 v) { return {v.x, v.y}; }

b2BodyType TypeOf(BodyType t) {
  switch (t) {
    case BodyType::kStatic: return b2_staticBody;
    case BodyType::kKinematic: return b2_kinematicBody;
    case BodyType::kDynamic: break;
  }
  return b2_dynamicBody;
}

void AddFixture(b2Body* body, const SceneShape& s) {
  b2FixtureDef fd;
  fd.density = s.def.density;
  fd.friction = s.def.friction;
  fd.restitution = s.def.restitution;
  fd.isSensor = s.def.is_sensor;
  // Box2D 2.4 filters are 16 bits wide; the low bits carry over.
  fd.filter.categoryBits = static_cast<uint16>(s.def.filter.category_bits & 0xffff);
  fd.filter.maskBits = static_cast<uint16>(s.def.filter.mask_bits & 0xffff);
  fd.filter.groupIndex = static_cast<int16>(s.def.filter.group_index);
  const ShapeGeometry& g = s.geometry;
  switch (g.type) {
    case ShapeType::kCircle: {
      b2CircleShape c;
      c.m_p = V(g.circle.center);
      c.m_radius = g.circle.radius;
      fd.shape = &c;
      body->CreateFixture(&fd);
      return;
    }
    case ShapeType::kCapsule: {
      const Vec2 axis = Normalize(g.capsule.center2 - g.capsule.center1);
      const Vec2 side = 0.001f * LeftPerp(axis);
      const b2Vec2 pts[4] = {V(g.capsule.center1 - side), V(g.capsule.center2 - side),
                             V(g.capsule.center2 + side), V(g.capsule.center1 + side)};
      b2PolygonShape p;
      p.Set(pts, 4);
      p.m_radius = g.capsule.radius;
      fd.shape = &p;
      body->CreateFixture(&fd);
      return;
    }
    case ShapeType::kPolygon: {
      b2Vec2 pts[b2_maxPolygonVertices];
      for (int32_t i = 0; i < g.polygon.count; ++i) pts[i] = V(g.polygon.vertices[i]);
      b2PolygonShape p;
      p.Set(pts, g.polygon.count);
      // Box2D keeps its own thin skin on sharp polygons; only rounded ones
      // get their radius.
      if (g.polygon.radius > 0.0f) p.m_radius = g.polygon.radius;
      fd.shape = &p;
      body->CreateFixture(&fd);
      return;
    }
    case ShapeType::kSegment: {
      b2EdgeShape e;
      e.SetTwoSided(V(g.segment.point1), V(g.segment.point2));
      fd.shape = &e;
      body->CreateFixture(&fd);
      return;
    }
    case ShapeType::kChainSegment: {
      b2EdgeShape e;
      e.SetOneSided(V(g.chain_segment.ghost1), V(g.chain_segment.segment.point1),
                    V(g.chain_segment.segment.point2), V(g.chain_segment.ghost2));
      fd.shape = &e;
      body->CreateFixture(&fd);
      return;
    }
  }
}

}  // namespace

std::unique_ptr<b2World> BuildBox2DWorld(const SceneDesc& desc) {
  auto world = std::make_unique<b2World>(V(desc.world.gravity));
  world->SetContinuousPhysics(desc.world.enable_continuous);
  world->SetAllowSleeping(desc.world.enable_sleep);
  for (const SceneBody& sb : desc.bodies) {
    b2BodyDef bd;
    bd.type = TypeOf(sb.def.type);
    bd.position = V(sb.def.position);
    bd.angle = sb.def.angle;
    bd.linearVelocity = V(sb.def.linear_velocity);
    bd.angularVelocity = sb.def.angular_velocity;
    bd.linearDamping = sb.def.linear_damping;
    bd.angularDamping = sb.def.angular_damping;
    bd.gravityScale = sb.def.gravity_scale;
    bd.fixedRotation = sb.def.fixed_rotation;
    bd.bullet = sb.def.is_bullet;
    bd.allowSleep = sb.def.allow_sleep;
    bd.awake = sb.def.is_awake;
    bd.enabled = sb.def.is_enabled;
    b2Body* body = world->CreateBody(&bd);
    for (const SceneShape& s : sb.shapes) AddFixture(body, s);
  }
  return world;
}

}  // namespace atl::bench
