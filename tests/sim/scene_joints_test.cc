// Joints and chains in a SceneSpec: every field of every joint type reaches
// the engine (the world equals one built through the engine API, hash for
// hash), and every value the engine would refuse is refused by BuildScene
// first, InvalidArgument naming the field, with no world made.

#include <gmock/gmock.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "atoll/geometry.h"
#include "atoll/joint.h"
#include "atoll/scene.h"
#include "atoll/sim/simulation.h"
#include "atoll/snapshot.h"
#include "atoll/world.h"

namespace atl::sim {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int kSteps = 120;
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

v1::WorldConfig Config() {
  absl::StatusOr<v1::WorldConfig> config = NormalizeWorldConfig(v1::WorldConfig(), 1000);
  EXPECT_TRUE(config.ok()) << config.status();
  return *config;
}

void SetVec(v1::Vec2* v, float x, float y) {
  v->set_x(x);
  v->set_y(y);
}

// The terrain: a static body with an open chain, right to left so that its
// solid side is on top.
const std::vector<Vec2> kTerrain = {{20.0f, 1.0f}, {6.0f, 0.0f}, {-6.0f, 0.0f}, {-20.0f, 1.0f}};

// Body 0 the terrain; bodies 1..7 dynamic, in a row at y = 2: a box, a
// circle, a capsule, a box, a circle, a box, a circle (x = -6, -4, ... 6).
v1::BodySpec Body(int i) {
  v1::BodySpec b;
  if (i == 0) {
    b.set_type(v1::BODY_TYPE_STATIC);
    v1::ChainGeometry* chain = b.add_shapes()->mutable_chain();
    for (const Vec2& p : kTerrain) SetVec(chain->add_points(), p.x, p.y);
    return b;
  }
  b.set_type(v1::BODY_TYPE_DYNAMIC);
  SetVec(b.mutable_position(), -8.0f + 2.0f * static_cast<float>(i), 2.0f);
  v1::ShapeSpec* shape = b.add_shapes();
  switch (i % 3) {
    case 1:
      shape->mutable_box()->set_half_width(0.5f);
      shape->mutable_box()->set_half_height(0.4f);
      break;
    case 2: shape->mutable_circle()->set_radius(0.45f); break;
    default:
      SetVec(shape->mutable_capsule()->mutable_center1(), -0.4f, 0.0f);
      SetVec(shape->mutable_capsule()->mutable_center2(), 0.4f, 0.0f);
      shape->mutable_capsule()->set_radius(0.3f);
  }
  return b;
}

// One joint of each type, every field set to a value other than its
// default, so a field that does not reach the engine changes the world.
v1::SceneSpec EveryJointScene() {
  v1::SceneSpec spec;
  for (int i = 0; i < 8; ++i) *spec.add_bodies() = Body(i);

  v1::DistanceJointSpec* d = spec.add_joints()->mutable_distance();
  d->set_body_a(1);
  d->set_body_b(2);
  SetVec(d->mutable_local_anchor_a(), 0.1f, 0.2f);
  SetVec(d->mutable_local_anchor_b(), -0.1f, 0.05f);
  d->set_length(1.9f);
  d->set_enable_spring(true);
  d->set_hertz(3.0f);
  d->set_damping_ratio(0.4f);
  d->set_enable_limit(true);
  d->set_min_length(1.5f);
  d->set_max_length(2.5f);
  d->set_collide_connected(true);
  d->set_user_data(11);

  v1::RevoluteJointSpec* r = spec.add_joints()->mutable_revolute();
  r->set_body_a(2);
  r->set_body_b(3);
  SetVec(r->mutable_local_anchor_a(), 1.0f, 0.0f);
  SetVec(r->mutable_local_anchor_b(), -1.0f, 0.0f);
  r->set_reference_angle(0.1f);
  r->set_enable_spring(true);
  r->set_hertz(2.0f);
  r->set_damping_ratio(0.3f);
  r->set_enable_limit(true);
  r->set_lower_angle(-0.5f);
  r->set_upper_angle(0.7f);
  r->set_enable_motor(true);
  r->set_motor_speed(1.5f);
  r->set_max_motor_torque(20.0f);
  r->set_collide_connected(true);
  r->set_user_data(12);

  v1::PrismaticJointSpec* p = spec.add_joints()->mutable_prismatic();
  p->set_body_a(3);
  p->set_body_b(4);
  SetVec(p->mutable_local_anchor_a(), 1.0f, 0.1f);
  SetVec(p->mutable_local_anchor_b(), -1.0f, 0.0f);
  SetVec(p->mutable_local_axis_a(), 1.0f, 1.0f);
  p->set_reference_angle(-0.2f);
  p->set_enable_spring(true);
  p->set_hertz(1.5f);
  p->set_damping_ratio(0.6f);
  p->set_enable_limit(true);
  p->set_lower_translation(-0.3f);
  p->set_upper_translation(0.4f);
  p->set_enable_motor(true);
  p->set_motor_speed(-0.5f);
  p->set_max_motor_force(30.0f);
  p->set_collide_connected(true);
  p->set_user_data(13);

  v1::WeldJointSpec* w = spec.add_joints()->mutable_weld();
  w->set_body_a(4);
  w->set_body_b(5);
  SetVec(w->mutable_local_anchor_a(), 1.0f, 0.0f);
  SetVec(w->mutable_local_anchor_b(), -1.0f, 0.1f);
  w->set_reference_angle(0.3f);
  w->set_linear_hertz(5.0f);
  w->set_linear_damping_ratio(0.7f);
  w->set_angular_hertz(4.0f);
  w->set_angular_damping_ratio(0.9f);
  w->set_collide_connected(true);
  w->set_user_data(14);

  v1::WheelJointSpec* h = spec.add_joints()->mutable_wheel();
  h->set_body_a(6);
  h->set_body_b(5);
  SetVec(h->mutable_local_anchor_a(), -1.0f, -0.2f);
  SetVec(h->mutable_local_anchor_b(), 0.0f, 0.1f);
  SetVec(h->mutable_local_axis_a(), 0.2f, 1.0f);
  h->set_enable_spring(false);
  h->set_hertz(2.5f);
  h->set_damping_ratio(0.2f);
  h->set_enable_limit(true);
  h->set_lower_translation(-0.2f);
  h->set_upper_translation(0.25f);
  h->set_enable_motor(true);
  h->set_motor_speed(4.0f);
  h->set_max_motor_torque(8.0f);
  h->set_collide_connected(true);
  h->set_user_data(15);

  v1::MotorJointSpec* m = spec.add_joints()->mutable_motor();
  m->set_body_a(0);
  m->set_body_b(6);
  SetVec(m->mutable_linear_offset(), 4.0f, 3.0f);
  m->set_angular_offset(0.4f);
  m->set_max_force(50.0f);
  m->set_max_torque(6.0f);
  m->set_correction_factor(0.5f);
  m->set_collide_connected(true);
  m->set_user_data(16);

  v1::TargetJointSpec* t = spec.add_joints()->mutable_target();
  t->set_body(7);
  SetVec(t->mutable_target(), 6.2f, 2.1f);
  t->set_hertz(6.0f);
  t->set_damping_ratio(0.5f);
  t->set_max_force(300.0f);
  t->set_user_data(17);
  return spec;
}

// EveryJointScene through the engine's own API: World calls, CreateChain,
// the Create*Joint calls with the engine's defs.
std::unique_ptr<World> EveryJointWorld() {
  WorldDef world_def;
  world_def.world_id = 1;  // the server's worlds
  world_def.broad_phase = BroadPhaseType::kBatchBvh;
  std::unique_ptr<World> world = *World::Create(world_def);
  std::vector<BodyId> b;
  BodyDef ground;
  b.push_back(*world->CreateBody(ground));
  EXPECT_TRUE(world->CreateChain(b[0], ShapeDef(), kTerrain, false).ok());
  for (int i = 1; i < 8; ++i) {
    BodyDef def;
    def.type = BodyType::kDynamic;
    def.position = {-8.0f + 2.0f * static_cast<float>(i), 2.0f};
    b.push_back(*world->CreateBody(def));
    absl::StatusOr<ShapeId> shape;
    switch (i % 3) {
      case 1: shape = world->CreatePolygonShape(b[i], ShapeDef(), *MakeBox(0.5f, 0.4f)); break;
      case 2: shape = world->CreateCircleShape(b[i], ShapeDef(), {{0.0f, 0.0f}, 0.45f}); break;
      default:
        shape = world->CreateCapsuleShape(b[i], ShapeDef(), {{-0.4f, 0.0f}, {0.4f, 0.0f}, 0.3f});
    }
    EXPECT_TRUE(shape.ok()) << shape.status();
  }

  DistanceJointDef d;
  d.body_a = b[1];
  d.body_b = b[2];
  d.local_anchor_a = {0.1f, 0.2f};
  d.local_anchor_b = {-0.1f, 0.05f};
  d.length = 1.9f;
  d.enable_spring = true;
  d.hertz = 3.0f;
  d.damping_ratio = 0.4f;
  d.enable_limit = true;
  d.min_length = 1.5f;
  d.max_length = 2.5f;
  d.collide_connected = true;
  d.user_data = 11;
  EXPECT_TRUE(world->CreateDistanceJoint(d).ok());

  RevoluteJointDef r;
  r.body_a = b[2];
  r.body_b = b[3];
  r.local_anchor_a = {1.0f, 0.0f};
  r.local_anchor_b = {-1.0f, 0.0f};
  r.reference_angle = 0.1f;
  r.enable_spring = true;
  r.hertz = 2.0f;
  r.damping_ratio = 0.3f;
  r.enable_limit = true;
  r.lower_angle = -0.5f;
  r.upper_angle = 0.7f;
  r.enable_motor = true;
  r.motor_speed = 1.5f;
  r.max_motor_torque = 20.0f;
  r.collide_connected = true;
  r.user_data = 12;
  EXPECT_TRUE(world->CreateRevoluteJoint(r).ok());

  PrismaticJointDef p;
  p.body_a = b[3];
  p.body_b = b[4];
  p.local_anchor_a = {1.0f, 0.1f};
  p.local_anchor_b = {-1.0f, 0.0f};
  p.local_axis_a = {1.0f, 1.0f};
  p.reference_angle = -0.2f;
  p.enable_spring = true;
  p.hertz = 1.5f;
  p.damping_ratio = 0.6f;
  p.enable_limit = true;
  p.lower_translation = -0.3f;
  p.upper_translation = 0.4f;
  p.enable_motor = true;
  p.motor_speed = -0.5f;
  p.max_motor_force = 30.0f;
  p.collide_connected = true;
  p.user_data = 13;
  EXPECT_TRUE(world->CreatePrismaticJoint(p).ok());

  WeldJointDef w;
  w.body_a = b[4];
  w.body_b = b[5];
  w.local_anchor_a = {1.0f, 0.0f};
  w.local_anchor_b = {-1.0f, 0.1f};
  w.reference_angle = 0.3f;
  w.linear_hertz = 5.0f;
  w.linear_damping_ratio = 0.7f;
  w.angular_hertz = 4.0f;
  w.angular_damping_ratio = 0.9f;
  w.collide_connected = true;
  w.user_data = 14;
  EXPECT_TRUE(world->CreateWeldJoint(w).ok());

  WheelJointDef h;
  h.body_a = b[6];
  h.body_b = b[5];
  h.local_anchor_a = {-1.0f, -0.2f};
  h.local_anchor_b = {0.0f, 0.1f};
  h.local_axis_a = {0.2f, 1.0f};
  h.enable_spring = false;
  h.hertz = 2.5f;
  h.damping_ratio = 0.2f;
  h.enable_limit = true;
  h.lower_translation = -0.2f;
  h.upper_translation = 0.25f;
  h.enable_motor = true;
  h.motor_speed = 4.0f;
  h.max_motor_torque = 8.0f;
  h.collide_connected = true;
  h.user_data = 15;
  EXPECT_TRUE(world->CreateWheelJoint(h).ok());

  MotorJointDef m;
  m.body_a = b[0];
  m.body_b = b[6];
  m.linear_offset = {4.0f, 3.0f};
  m.angular_offset = 0.4f;
  m.max_force = 50.0f;
  m.max_torque = 6.0f;
  m.correction_factor = 0.5f;
  m.collide_connected = true;
  m.user_data = 16;
  EXPECT_TRUE(world->CreateMotorJoint(m).ok());

  TargetJointDef t;
  t.body = b[7];
  t.target = {6.2f, 2.1f};
  t.hertz = 6.0f;
  t.damping_ratio = 0.5f;
  t.max_force = 300.0f;
  t.user_data = 17;
  EXPECT_TRUE(world->CreateTargetJoint(t).ok());
  return world;
}

// BuildScene refuses `spec` with InvalidArgument and a message starting
// with `field`, and Simulation::Create makes no world of it.
void ExpectRefused(const v1::SceneSpec& spec, const std::string& field,
                   const std::string& says = "") {
  absl::StatusOr<BuiltScene> scene = BuildScene(spec, 0);
  ASSERT_FALSE(scene.ok()) << "accepted; expected a refusal naming " << field;
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument) << scene.status();
  EXPECT_THAT(std::string(scene.status().message()), StartsWith(field + ": "));
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr(says));
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(spec, Config());
  ASSERT_FALSE(sim.ok());
  EXPECT_EQ(sim.status(), scene.status());
}

TEST(SceneJointsTest, EveryJointTypeAndAChainMatchTheEngineApiHashForHash) {
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(EveryJointScene(), Config());
  ASSERT_TRUE(sim.ok()) << sim.status();
  const WorldCounters counters = (*sim)->world().GetCounters();
  EXPECT_EQ(counters.joints, 7);
  EXPECT_EQ(counters.shapes, 3 + 7);  // three chain edges, one shape per body
  std::unique_ptr<World> engine = EveryJointWorld();
  ASSERT_EQ((*sim)->hash(), HashWorld(*engine));
  bool touched_terrain = false;
  for (int step = 1; step <= kSteps; ++step) {
    ASSERT_TRUE((*sim)->Step({}, nullptr).ok());
    ASSERT_TRUE(engine->Step((*sim)->time_step()).ok());
    ASSERT_EQ((*sim)->hash(), HashWorld(*engine)) << "step " << step;
    touched_terrain |= engine->GetCounters().touching_contacts > 0;
  }
  EXPECT_TRUE(touched_terrain);
}

TEST(SceneJointsTest, UnsetFieldsMeanTheEngineDefaults) {
  v1::SceneSpec spec;
  for (int i = 0; i < 8; ++i) *spec.add_bodies() = Body(i);
  auto pair = [](auto* j, uint32_t a, uint32_t b) {
    j->set_body_a(a);
    j->set_body_b(b);
  };
  pair(spec.add_joints()->mutable_distance(), 1, 2);
  pair(spec.add_joints()->mutable_revolute(), 2, 3);
  pair(spec.add_joints()->mutable_prismatic(), 3, 4);
  pair(spec.add_joints()->mutable_weld(), 4, 5);
  pair(spec.add_joints()->mutable_wheel(), 6, 5);
  pair(spec.add_joints()->mutable_motor(), 0, 6);
  spec.add_joints()->mutable_target()->set_body(7);
  absl::StatusOr<BuiltScene> scene = BuildScene(spec, 0);
  ASSERT_TRUE(scene.ok()) << scene.status();
  ASSERT_EQ(scene->desc.joints.size(), 7u);
  const std::vector<SceneJointDef> defaults = {
      DistanceJointDef(), RevoluteJointDef(), PrismaticJointDef(), WeldJointDef(),
      WheelJointDef(),    MotorJointDef(),    TargetJointDef()};
  for (size_t i = 0; i < defaults.size(); ++i) {
    // Compared through worlds: the same def gives the same snapshot.
    SceneDesc a = scene->desc;
    SceneDesc b = scene->desc;
    a.joints = {scene->desc.joints[i]};
    b.joints = {scene->desc.joints[i]};
    b.joints[0].def = defaults[i];
    absl::StatusOr<std::unique_ptr<World>> wa = BuildWorld(a);
    absl::StatusOr<std::unique_ptr<World>> wb = BuildWorld(b);
    ASSERT_TRUE(wa.ok() && wb.ok()) << "joint " << i;
    EXPECT_EQ(HashWorld(**wa), HashWorld(**wb)) << "joint " << i;
  }
}

TEST(SceneJointsTest, JointIndicesCountTheBuiltInBodiesFirst) {
  SceneParams params;
  params.size = 3;
  absl::StatusOr<SceneDesc> pyramid = MakeScene("pyramid", params);
  ASSERT_TRUE(pyramid.ok()) << pyramid.status();
  const uint32_t builtin = static_cast<uint32_t>(pyramid->bodies.size());
  v1::SceneSpec spec;
  spec.mutable_builtin()->set_name("pyramid");
  spec.mutable_builtin()->set_size(3);
  *spec.add_bodies() = Body(2);  // body `builtin`
  v1::RevoluteJointSpec* r = spec.add_joints()->mutable_revolute();
  r->set_body_a(builtin - 1);  // the pyramid's top box
  r->set_body_b(builtin);
  absl::StatusOr<std::unique_ptr<Simulation>> sim = Simulation::Create(spec, Config());
  ASSERT_TRUE(sim.ok()) << sim.status();
  EXPECT_EQ((*sim)->world().GetCounters().joints,
            static_cast<int32_t>(pyramid->joints.size()) + 1);

  r->set_body_b(builtin + 1);
  ExpectRefused(spec, "scene.joints[0].revolute.body_b",
                absl::StrCat("no body ", builtin + 1, ": the scene's bodies are 0..", builtin));
}

TEST(SceneJointsTest, AJointNamingAMissingBodyIsRefused) {
  v1::SceneSpec spec = EveryJointScene();
  spec.mutable_joints(1)->mutable_revolute()->set_body_b(8);
  ExpectRefused(spec, "scene.joints[1].revolute.body_b", "no body 8");
  spec = EveryJointScene();
  spec.mutable_joints(0)->mutable_distance()->set_body_a(0xffffffffu);
  ExpectRefused(spec, "scene.joints[0].distance.body_a", "no body 4294967295");
  spec = EveryJointScene();
  spec.mutable_joints(6)->mutable_target()->set_body(9);
  ExpectRefused(spec, "scene.joints[6].target.body", "no body 9");
  v1::SceneSpec empty;
  empty.add_joints()->mutable_weld()->set_body_b(1);
  ExpectRefused(empty, "scene.joints[0].weld.body_a", "the scene has no bodies");
}

TEST(SceneJointsTest, AJointNamingOneBodyTwiceIsRefused) {
  v1::SceneSpec spec = EveryJointScene();
  spec.mutable_joints(4)->mutable_wheel()->set_body_b(6);
  ExpectRefused(spec, "scene.joints[4].wheel.body_b", "a joint joins two bodies");
}

TEST(SceneJointsTest, AJointBetweenTwoStaticBodiesIsRefused) {
  v1::SceneSpec spec = EveryJointScene();
  *spec.add_bodies() = Body(0);  // body 8, a second static terrain
  spec.mutable_joints(5)->mutable_motor()->set_body_b(8);
  ExpectRefused(spec, "scene.joints[5].motor.body_b", "bodies 0 and 8 are both static");
  // A target joint's other side is the fixed world.
  spec = EveryJointScene();
  spec.mutable_joints(6)->mutable_target()->set_body(0);
  ExpectRefused(spec, "scene.joints[6].target.body", "body 0 is static");
}

TEST(SceneJointsTest, AJointWithoutAKindIsRefused) {
  v1::SceneSpec spec = EveryJointScene();
  spec.add_joints();
  ExpectRefused(spec, "scene.joints[7]", "no joint kind");
}

TEST(SceneJointsTest, NonFiniteJointFieldsAreRefusedByName) {
  v1::SceneSpec spec = EveryJointScene();
  spec.mutable_joints(1)->mutable_revolute()->mutable_local_anchor_a()->set_x(kNan);
  ExpectRefused(spec, "scene.joints[1].revolute.local_anchor_a", "must be finite");
  // The upper bound by its own name (the engine names a range by its lower
  // field).
  spec = EveryJointScene();
  spec.mutable_joints(1)->mutable_revolute()->set_upper_angle(kNan);
  ExpectRefused(spec, "scene.joints[1].revolute.upper_angle", "must be finite");
  spec = EveryJointScene();
  spec.mutable_joints(2)->mutable_prismatic()->mutable_local_axis_a()->set_y(kInf);
  ExpectRefused(spec, "scene.joints[2].prismatic.local_axis_a", "must be finite");
  spec = EveryJointScene();
  spec.mutable_joints(3)->mutable_weld()->set_reference_angle(-kInf);
  ExpectRefused(spec, "scene.joints[3].weld.reference_angle", "must be finite");
  spec = EveryJointScene();
  spec.mutable_joints(5)->mutable_motor()->set_angular_offset(kNan);
  ExpectRefused(spec, "scene.joints[5].motor.angular_offset", "must be finite");
  spec = EveryJointScene();
  spec.mutable_joints(6)->mutable_target()->mutable_target()->set_y(kNan);
  ExpectRefused(spec, "scene.joints[6].target.target", "must be finite");
  // Outside the world bound, by the engine's rule.
  spec = EveryJointScene();
  spec.mutable_joints(0)->mutable_distance()->mutable_local_anchor_b()->set_x(2e4f);
  ExpectRefused(spec, "scene.joints[0].distance.local_anchor_b", "world bound");
}

TEST(SceneJointsTest, ALowerLimitAboveTheUpperIsRefused) {
  v1::SceneSpec spec = EveryJointScene();
  spec.mutable_joints(1)->mutable_revolute()->set_lower_angle(0.8f);
  ExpectRefused(spec, "scene.joints[1].revolute.lower_angle", "must not exceed the upper bound");
  spec = EveryJointScene();
  spec.mutable_joints(2)->mutable_prismatic()->set_lower_translation(0.5f);
  ExpectRefused(spec, "scene.joints[2].prismatic.lower_translation", "must not exceed");
  spec = EveryJointScene();
  spec.mutable_joints(4)->mutable_wheel()->set_upper_translation(-0.3f);
  ExpectRefused(spec, "scene.joints[4].wheel.lower_translation", "must not exceed");
  spec = EveryJointScene();
  spec.mutable_joints(0)->mutable_distance()->set_min_length(3.0f);
  ExpectRefused(spec, "scene.joints[0].distance.min_length", "must not exceed");
  // Checked whether or not the limit is enabled, as the engine does.
  spec = EveryJointScene();
  spec.mutable_joints(1)->mutable_revolute()->set_enable_limit(false);
  spec.mutable_joints(1)->mutable_revolute()->set_upper_angle(-0.6f);
  ExpectRefused(spec, "scene.joints[1].revolute.lower_angle", "must not exceed");
  // Revolute limits lie in [-pi, pi].
  spec = EveryJointScene();
  spec.mutable_joints(1)->mutable_revolute()->set_upper_angle(3.2f);
  ExpectRefused(spec, "scene.joints[1].revolute.lower_angle",
                "lower_angle and upper_angle must lie in [-pi, pi]");
}

TEST(SceneJointsTest, NegativeStiffnessDampingOrForceIsRefused) {
  struct Case {
    std::function<void(v1::SceneSpec*)> mutate;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::SceneSpec* s) { s->mutable_joints(0)->mutable_distance()->set_hertz(-1); },
       "scene.joints[0].distance.hertz"},
      {[](v1::SceneSpec* s) { s->mutable_joints(1)->mutable_revolute()->set_damping_ratio(-1); },
       "scene.joints[1].revolute.damping_ratio"},
      {[](v1::SceneSpec* s) { s->mutable_joints(1)->mutable_revolute()->set_max_motor_torque(-1); },
       "scene.joints[1].revolute.max_motor_torque"},
      {[](v1::SceneSpec* s) { s->mutable_joints(2)->mutable_prismatic()->set_max_motor_force(-1); },
       "scene.joints[2].prismatic.max_motor_force"},
      {[](v1::SceneSpec* s) { s->mutable_joints(3)->mutable_weld()->set_linear_hertz(-1); },
       "scene.joints[3].weld.linear_hertz"},
      {[](v1::SceneSpec* s) {
         s->mutable_joints(3)->mutable_weld()->set_angular_damping_ratio(-0.1f);
       },
       "scene.joints[3].weld.angular_damping_ratio"},
      {[](v1::SceneSpec* s) { s->mutable_joints(4)->mutable_wheel()->set_hertz(-2); },
       "scene.joints[4].wheel.hertz"},
      {[](v1::SceneSpec* s) { s->mutable_joints(4)->mutable_wheel()->set_max_motor_torque(-1); },
       "scene.joints[4].wheel.max_motor_torque"},
      {[](v1::SceneSpec* s) { s->mutable_joints(5)->mutable_motor()->set_max_force(-1); },
       "scene.joints[5].motor.max_force"},
      {[](v1::SceneSpec* s) { s->mutable_joints(5)->mutable_motor()->set_max_torque(-1); },
       "scene.joints[5].motor.max_torque"},
      {[](v1::SceneSpec* s) { s->mutable_joints(6)->mutable_target()->set_max_force(-1); },
       "scene.joints[6].target.max_force"},
      {[](v1::SceneSpec* s) { s->mutable_joints(6)->mutable_target()->set_damping_ratio(-1); },
       "scene.joints[6].target.damping_ratio"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field);
    v1::SceneSpec spec = EveryJointScene();
    c.mutate(&spec);
    ExpectRefused(spec, c.field, "must be finite and >= 0");
  }
}

TEST(SceneJointsTest, OtherEngineRulesAreRefusedByName) {
  v1::SceneSpec spec = EveryJointScene();
  spec.mutable_joints(0)->mutable_distance()->set_length(0.0f);
  ExpectRefused(spec, "scene.joints[0].distance.length");
  spec = EveryJointScene();
  spec.mutable_joints(2)->mutable_prismatic()->mutable_local_axis_a()->set_x(0.0f);
  spec.mutable_joints(2)->mutable_prismatic()->mutable_local_axis_a()->set_y(0.0f);
  ExpectRefused(spec, "scene.joints[2].prismatic.local_axis_a", "must be nonzero");
  spec = EveryJointScene();
  spec.mutable_joints(5)->mutable_motor()->set_correction_factor(1.5f);
  ExpectRefused(spec, "scene.joints[5].motor.correction_factor", "must be in [0, 1]");
  spec = EveryJointScene();
  spec.mutable_joints(6)->mutable_target()->set_hertz(0.0f);
  ExpectRefused(spec, "scene.joints[6].target.hertz", "must be finite and > 0");
}

v1::SceneSpec ChainScene(const std::vector<Vec2>& points, bool loop) {
  v1::SceneSpec spec;
  v1::ChainGeometry* chain = spec.add_bodies()->add_shapes()->mutable_chain();
  for (const Vec2& p : points) SetVec(chain->add_points(), p.x, p.y);
  chain->set_loop(loop);
  return spec;
}

TEST(SceneJointsTest, AChainBecomesOneShapePerEdgeWithTheShapesSettings) {
  v1::SceneSpec spec = ChainScene({{3, 0}, {0, 1}, {-3, 0}}, /*loop=*/true);
  v1::ShapeSpec* shape = spec.mutable_bodies(0)->mutable_shapes(0);
  shape->set_material("ice");
  shape->mutable_filter()->set_category_bits(2);
  shape->mutable_filter()->set_mask_bits(5);
  shape->set_enable_hit_events(true);
  v1::Material* ice = spec.add_materials();
  ice->set_name("ice");
  ice->set_friction(0.05f);
  ice->set_restitution(0.2f);
  absl::StatusOr<BuiltScene> scene = BuildScene(spec, 0);
  ASSERT_TRUE(scene.ok()) << scene.status();
  const std::vector<SceneShape>& shapes = scene->desc.bodies[0].shapes;
  ASSERT_EQ(shapes.size(), 3u);  // a loop: an edge per point
  absl::StatusOr<std::vector<ChainSegment>> expected =
      MakeChainSegments(std::vector<Vec2>{{3, 0}, {0, 1}, {-3, 0}}, true);
  ASSERT_TRUE(expected.ok());
  for (size_t i = 0; i < shapes.size(); ++i) {
    ASSERT_EQ(shapes[i].geometry.type, ShapeType::kChainSegment);
    const ChainSegment& got = shapes[i].geometry.chain_segment;
    const ChainSegment& want = (*expected)[i];
    EXPECT_EQ(got.segment.point1, want.segment.point1) << i;
    EXPECT_EQ(got.segment.point2, want.segment.point2) << i;
    EXPECT_EQ(got.ghost1, want.ghost1) << i;
    EXPECT_EQ(got.ghost2, want.ghost2) << i;
    EXPECT_EQ(shapes[i].def.friction, 0.05f);
    EXPECT_EQ(shapes[i].def.restitution, 0.2f);
    EXPECT_EQ(shapes[i].def.filter.category_bits, 2u);
    EXPECT_EQ(shapes[i].def.filter.mask_bits, 5u);
    EXPECT_TRUE(shapes[i].def.enable_hit_events);
  }
}

TEST(SceneJointsTest, BadChainsAreRefusedByName) {
  const std::string field = "scene.bodies[0].shapes[0].chain.points";
  ExpectRefused(ChainScene({{0, 0}}, false), field, "a chain needs at least 2");
  ExpectRefused(ChainScene({}, false), field, "a chain needs at least 2");
  ExpectRefused(ChainScene({{0, 0}, {1, 0}}, true), field, "a loop needs at least 3");
  ExpectRefused(ChainScene({{0, 0}, {1, 0}, {1, 0}, {2, 1}}, false), field,
                "points 1 and 2 are closer than");
  // A loop's closing edge counts too.
  ExpectRefused(ChainScene({{0, 0}, {1, 0}, {1, 1}, {0, 0.001f}}, true), field,
                "points 3 and 0 are closer than");
  ExpectRefused(ChainScene({{0, 0}, {1, 0}, {2, 0}}, true), field, "collinear");
  ExpectRefused(ChainScene({{0, 0}, {kNan, 0}}, false), field, "point 1");
  ExpectRefused(ChainScene({{0, 0}, {1, kInf}}, false), field, "point 1");
  ExpectRefused(ChainScene({{0, 0}, {2e4f, 0}}, false), field, "point 1");
  // An open end's ghost vertex lies a meter behind the edge: here beyond
  // the world bound, which the engine would refuse when adding the shape.
  ExpectRefused(ChainScene({{1e4f, 5}, {1e4f, 0}}, false), field, "ghost");
  // Templates share the body conversion.
  v1::SceneSpec spec;
  v1::BodyTemplate* t = spec.add_templates();
  t->set_name("fence");
  t->mutable_body()->add_shapes()->mutable_chain()->add_points();
  ExpectRefused(spec, "scene.templates[0].body.shapes[0].chain.points", "at least 2");
}

// The message of the joint's kind ("revolute", ...), and that name.
google::protobuf::Message* KindOf(v1::JointSpec* joint, std::string* name) {
  const google::protobuf::Reflection* r = joint->GetReflection();
  const google::protobuf::FieldDescriptor* kind = r->GetOneofFieldDescriptor(
      *joint, v1::JointSpec::descriptor()->FindOneofByName("kind"));
  *name = kind->name();
  return r->MutableMessage(joint, kind);
}

// Every number of every joint and every chain coordinate, set in turn to
// values around and beyond the engine's limits: whatever BuildScene
// accepts, the engine builds; whatever it refuses is InvalidArgument naming
// that joint or chain.
TEST(SceneJointsTest, WhatTheSpecCheckAcceptsTheEngineBuilds) {
  const std::vector<float> values = {kNan,  kInf, -kInf, -1e30f, -4.0f,   -1.0f, -1e-3f, 0.0f,
                                     1e-3f, 0.5f, 1.0f,  3.15f,  9999.0f, 1e4f,  2e4f,
                                     std::numeric_limits<float>::max()};
  const std::vector<uint32_t> indices = {0, 1, 2, 5, 7, 8, 100, 0xffffffffu};
  const v1::SceneSpec base = EveryJointScene();
  int accepted = 0;
  int refused = 0;
  auto check = [&](const v1::SceneSpec& spec, const std::string& prefix) {
    absl::StatusOr<BuiltScene> scene = BuildScene(spec, 0);
    if (!scene.ok()) {
      ++refused;
      EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument) << scene.status();
      EXPECT_THAT(std::string(scene.status().message()), StartsWith(prefix));
      return;
    }
    ++accepted;
    absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(scene->desc);
    EXPECT_TRUE(world.ok()) << prefix << " accepted, but the engine says " << world.status();
  };
  for (int j = 0; j < base.joints_size(); ++j) {
    v1::SceneSpec probe = base;
    std::string name;
    const google::protobuf::Descriptor* d = KindOf(probe.mutable_joints(j), &name)->GetDescriptor();
    const std::string prefix = absl::StrCat("scene.joints[", j, "].", name, ".");
    for (int f = 0; f < d->field_count(); ++f) {
      const google::protobuf::FieldDescriptor* field = d->field(f);
      for (float value : values) {
        v1::SceneSpec spec = base;
        google::protobuf::Message* m = KindOf(spec.mutable_joints(j), &name);
        const google::protobuf::Reflection* r = m->GetReflection();
        if (field->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_FLOAT) {
          r->SetFloat(m, field, value);
          check(spec, prefix);
        } else if (field->message_type() == v1::Vec2::descriptor()) {
          auto* v = static_cast<v1::Vec2*>(r->MutableMessage(m, field));
          v->set_x(value);
          check(spec, prefix);
          v->set_x(0.5f);
          v->set_y(value);
          check(spec, prefix);
        }
      }
      if (field->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_UINT32) continue;
      for (uint32_t index : indices) {  // body_a, body_b, body
        v1::SceneSpec spec = base;
        google::protobuf::Message* m = KindOf(spec.mutable_joints(j), &name);
        m->GetReflection()->SetUInt32(m, field, index);
        check(spec, prefix);
      }
    }
  }
  for (int p = 0; p < static_cast<int>(kTerrain.size()); ++p) {
    for (float value : values) {
      for (int axis = 0; axis < 2; ++axis) {
        v1::SceneSpec spec = base;
        v1::Vec2* point =
            spec.mutable_bodies(0)->mutable_shapes(0)->mutable_chain()->mutable_points(p);
        axis == 0 ? point->set_x(value) : point->set_y(value);
        check(spec, "scene.bodies[0].shapes[0].chain.points: ");
      }
    }
  }
  // Both outcomes happened often, so the loops tested something.
  EXPECT_GT(accepted, 100);
  EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace atl::sim
