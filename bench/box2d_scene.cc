#include "box2d_scene.h"

#include <algorithm>
#include <cstdint>
#include <variant>
#include <vector>

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
      // Box2D welds polygon vertices closer than half its linear slop, so
      // the core box must be at least that thick.
      const Vec2 side = b2_linearSlop * LeftPerp(axis);
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

// Box2D 2.4.1 joints are Atoll's minus a few features: it has no rotational
// spring on revolute joints, no spring on prismatic joints and no linear
// softness on welds; those parts are left out. A target joint becomes a
// mouse joint on a shared static body.
class JointBuilder {
 public:
  JointBuilder(b2World* world, const std::vector<b2Body*>& bodies)
      : world_(world), bodies_(bodies) {}

  void Add(const SceneJoint& j) {
    std::visit([&](const auto& def) { Build(j, def); }, j.def);
  }

 private:
  template <typename B2Def>
  void Finish(const SceneJoint& j, B2Def* def, bool collide_connected) {
    def->bodyA = bodies_[j.body_a];
    def->bodyB = bodies_[j.body_b];
    def->collideConnected = collide_connected;
    world_->CreateJoint(def);
  }

  void Build(const SceneJoint& j, const DistanceJointDef& d) {
    b2DistanceJointDef def;
    def.localAnchorA = V(d.local_anchor_a);
    def.localAnchorB = V(d.local_anchor_b);
    def.length = d.length;
    if (!d.enable_spring) {
      def.minLength = def.maxLength = d.length;  // rigid in 2.4.1
    } else {
      def.minLength = d.enable_limit ? d.min_length : 0.0f;
      def.maxLength = d.enable_limit ? d.max_length : kJointHugeLength;
      b2LinearStiffness(def.stiffness, def.damping, d.hertz, d.damping_ratio, bodies_[j.body_a],
                        bodies_[j.body_b]);
    }
    Finish(j, &def, d.collide_connected);
  }

  void Build(const SceneJoint& j, const RevoluteJointDef& d) {
    b2RevoluteJointDef def;
    def.localAnchorA = V(d.local_anchor_a);
    def.localAnchorB = V(d.local_anchor_b);
    def.referenceAngle = d.reference_angle;
    def.enableLimit = d.enable_limit;
    def.lowerAngle = d.lower_angle;
    def.upperAngle = d.upper_angle;
    def.enableMotor = d.enable_motor;
    def.motorSpeed = d.motor_speed;
    def.maxMotorTorque = d.max_motor_torque;
    Finish(j, &def, d.collide_connected);
  }

  void Build(const SceneJoint& j, const PrismaticJointDef& d) {
    b2PrismaticJointDef def;
    def.localAnchorA = V(d.local_anchor_a);
    def.localAnchorB = V(d.local_anchor_b);
    def.localAxisA = V(Normalize(d.local_axis_a));
    def.referenceAngle = d.reference_angle;
    def.enableLimit = d.enable_limit;
    def.lowerTranslation = d.lower_translation;
    def.upperTranslation = d.upper_translation;
    def.enableMotor = d.enable_motor;
    def.motorSpeed = d.motor_speed;
    def.maxMotorForce = d.max_motor_force;
    Finish(j, &def, d.collide_connected);
  }

  void Build(const SceneJoint& j, const WeldJointDef& d) {
    b2WeldJointDef def;
    def.localAnchorA = V(d.local_anchor_a);
    def.localAnchorB = V(d.local_anchor_b);
    def.referenceAngle = d.reference_angle;
    if (d.angular_hertz > 0.0f) {
      b2AngularStiffness(def.stiffness, def.damping, d.angular_hertz, d.angular_damping_ratio,
                         bodies_[j.body_a], bodies_[j.body_b]);
    }
    Finish(j, &def, d.collide_connected);
  }

  void Build(const SceneJoint& j, const WheelJointDef& d) {
    b2WheelJointDef def;
    def.localAnchorA = V(d.local_anchor_a);
    def.localAnchorB = V(d.local_anchor_b);
    def.localAxisA = V(Normalize(d.local_axis_a));
    def.enableLimit = d.enable_limit;
    def.lowerTranslation = d.lower_translation;
    def.upperTranslation = d.upper_translation;
    def.enableMotor = d.enable_motor;
    def.motorSpeed = d.motor_speed;
    def.maxMotorTorque = d.max_motor_torque;
    if (d.enable_spring) {
      b2LinearStiffness(def.stiffness, def.damping, d.hertz, d.damping_ratio, bodies_[j.body_a],
                        bodies_[j.body_b]);
    }
    Finish(j, &def, d.collide_connected);
  }

  void Build(const SceneJoint& j, const MotorJointDef& d) {
    b2MotorJointDef def;
    def.linearOffset = V(d.linear_offset);
    def.angularOffset = d.angular_offset;
    def.maxForce = d.max_force;
    def.maxTorque = d.max_torque;
    def.correctionFactor = d.correction_factor;
    Finish(j, &def, d.collide_connected);
  }

  void Build(const SceneJoint& j, const TargetJointDef& d) {
    if (anchor_ == nullptr) {
      b2BodyDef bd;
      anchor_ = world_->CreateBody(&bd);
    }
    b2MouseJointDef def;
    def.bodyA = anchor_;
    def.bodyB = bodies_[j.body_b];
    def.target = V(d.target);
    def.maxForce = d.max_force;
    b2LinearStiffness(def.stiffness, def.damping, d.hertz, d.damping_ratio, anchor_, def.bodyB);
    world_->CreateJoint(&def);
  }

  b2World* world_;
  const std::vector<b2Body*>& bodies_;
  b2Body* anchor_ = nullptr;
};

b2Body* AddBody(b2World* world, const SceneBody& sb) {
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
  // Waves remove bodies by this tag (SceneWave::destroy_tags).
  bd.userData.pointer = static_cast<uintptr_t>(sb.def.user_data);
  b2Body* body = world->CreateBody(&bd);
  for (const SceneShape& s : sb.shapes) AddFixture(body, s);
  return body;
}

}  // namespace

std::unique_ptr<b2World> BuildBox2DWorld(const SceneDesc& desc) {
  auto world = std::make_unique<b2World>(V(desc.world.gravity));
  world->SetContinuousPhysics(desc.world.enable_continuous);
  world->SetAllowSleeping(desc.world.enable_sleep);
  std::vector<b2Body*> bodies;
  bodies.reserve(desc.bodies.size());
  for (const SceneBody& sb : desc.bodies) bodies.push_back(AddBody(world.get(), sb));
  JointBuilder joints(world.get(), bodies);
  for (const SceneJoint& j : desc.joints) joints.Add(j);
  return world;
}

int32_t ApplyBox2DWaves(b2World* world, const SceneDesc& desc, int64_t step) {
  int32_t created = 0;
  // Same order as atl::ApplySceneWaves: waves by index, each its removals,
  // bodies, then joints; the drives last.
  for (const SceneWave& wave : desc.waves) {
    if (wave.step != step) continue;
    if (!wave.destroy_tags.empty()) {
      std::vector<b2Body*> doomed;
      for (b2Body* b = world->GetBodyList(); b != nullptr; b = b->GetNext()) {
        const uint64_t tag = b->GetUserData().pointer;
        if (tag != 0 && std::find(wave.destroy_tags.begin(), wave.destroy_tags.end(), tag) !=
                            wave.destroy_tags.end()) {
          doomed.push_back(b);
        }
      }
      for (b2Body* b : doomed) world->DestroyBody(b);
    }
    std::vector<b2Body*> bodies;
    bodies.reserve(wave.bodies.size());
    for (const SceneBody& sb : wave.bodies) bodies.push_back(AddBody(world, sb));
    created += static_cast<int32_t>(bodies.size());
    JointBuilder joints(world, bodies);
    for (const SceneJoint& j : wave.joints) joints.Add(j);
  }
  if (!desc.drives.empty()) {
    // The body list is newest first and the scene's own bodies were created
    // before any wave's, so they are its tail, last one first.
    std::vector<b2Body*> all;
    for (b2Body* b = world->GetBodyList(); b != nullptr; b = b->GetNext()) all.push_back(b);
    const size_t count = desc.bodies.size();
    for (const SceneDrive& drive : desc.drives) {
      if (drive.body < 0 || static_cast<size_t>(drive.body) >= count || all.size() < count) continue;
      b2Body* body = all[all.size() - 1 - static_cast<size_t>(drive.body)];
      const float time = desc.time_step * static_cast<float>(step);
      const float sine = MakeRot(drive.angular_frequency * time).s;
      const Vec2 target = drive.center + sine * drive.amplitude;
      const b2Vec2 p = body->GetPosition();
      body->SetLinearVelocity(V((1.0f / desc.time_step) * (target - Vec2{p.x, p.y})));
    }
  }
  return created;
}

}  // namespace atl::bench
