// The built-in scene table, BuildWorld, AddSceneBody and ApplySceneWaves.

#include <algorithm>
#include <span>
#include <type_traits>
#include <variant>

#include "absl/strings/str_cat.h"
#include "atoll/assert.h"
#include "atoll/scene.h"
#include "scenes/compound_scenes.h"
#include "scenes/joint_scenes.h"
#include "scenes/motion_scenes.h"
#include "scenes/stack_scenes.h"
#include "scenes/stress_scenes.h"
#include "world/world_state.h"

namespace atl {
namespace {

struct SceneEntry {
  SceneInfo info;
  SceneDesc (*make)(int32_t size, uint64_t seed);
};

// Alphabetical; ListScenes returns this order.
const SceneEntry kScenes[] = {
    {{"add_pair", "zero-g circles hit by a fast bullet box", "resting circles", 400},
     [](int32_t n, uint64_t s) { return scenes::AddPair(n, s); }},
    {{"big_mobile", "a wide balanced mobile of rods hung by revolute joints", "tree depth", 10, 15},
     [](int32_t n, uint64_t) { return scenes::BigMobile(n); }},
    {{"bridge", "a rope bridge of planks pinned end to end, loaded with boxes", "planks", 160},
     [](int32_t n, uint64_t) { return scenes::Bridge(n); }},
    {{"chain", "a chain of capsule links swinging down from a static anchor", "links", 40},
     [](int32_t n, uint64_t) { return scenes::Chain(n); }},
    {{"compounds", "two-triangle compounds poured into a walled U (Box2D v3 benchmark)", "bodies", 3000},
     [](int32_t n, uint64_t) { return scenes::Compounds(n); }},
    {{"diagonal", "bodies falling through diagonal static segments", "diagonal segments", 400},
     [](int32_t n, uint64_t s) { return scenes::Diagonal(n, s); }},
    {{"falling_circles", "circles of mixed size falling onto the ground", "circles", 1000},
     [](int32_t n, uint64_t s) { return scenes::FallingCircles(n, s); }},
    {{"falling_squares", "squares of mixed size falling onto the ground", "squares", 1000},
     [](int32_t n, uint64_t s) { return scenes::FallingSquares(n, s); }},
    {{"joint_grid", "a net of circles pinned to their neighbours (Box2D v3 benchmark)", "circles per side", 100, 1000},
     [](int32_t n, uint64_t) { return scenes::JointGrid(n); }},
    {{"junkyard", "pentagons swept by a kinematic pusher in a walled U (Box2D v3 benchmark)", "pentagons", 8000},
     [](int32_t n, uint64_t) { return scenes::Junkyard(n); }},
    {{"large_pyramid", "one pyramid of boxes (Box2D v3 benchmark)", "boxes in the bottom row", 100, 1400},
     [](int32_t n, uint64_t) { return scenes::LargePyramid(n); }},
    {{"many_pyramids", "pyramids of base 10 in rows of 20 (Box2D v3 benchmark)", "pyramids", 400, 18000},
     [](int32_t n, uint64_t) { return scenes::ManyPyramids(n); }},
    {{"mild_n2", "compound tables and ships created almost at one point", "bodies", 100},
     [](int32_t n, uint64_t) { return scenes::MildN2(n); }},
    {{"mixed_static_dynamic", "dynamic circles and boxes falling through static pegs", "fixtures", 1000},
     [](int32_t n, uint64_t s) { return scenes::MixedStaticDynamic(n, s); }},
    {{"mostly_static", "a block of static boxes with a channel of a few dynamic bodies", "static boxes", 5000},
     [](int32_t n, uint64_t) { return scenes::MostlyStatic(n, false); }},
    {{"mostly_static_single", "mostly_static with every static box a fixture of one body", "static boxes", 5000},
     [](int32_t n, uint64_t) { return scenes::MostlyStatic(n, true); }},
    {{"multi_fixture", "tables of 3 to 18 fixtures thrown into a static U", "tables", 200},
     [](int32_t n, uint64_t) { return scenes::MultiFixture(n); }},
    {{"n2", "boxes created almost at one point", "boxes", 200},
     [](int32_t n, uint64_t) { return scenes::N2(n); }},
    {{"pyramid", "a pyramid of boxes on the ground", "boxes in the bottom row", 20, 1400},
     [](int32_t n, uint64_t) { return scenes::Pyramid(n); }},
    {{"ragdolls", "ragdolls of 11 bones falling in rows onto a pile", "ragdolls", 100, 90000},
     [](int32_t n, uint64_t) { return scenes::Ragdolls(n); }},
    {{"rain", "ragdoll groups dropped every 8 steps onto five floors, the oldest recycled (Box2D v3 benchmark)",
      "columns of groups", 40, 1000},
     [](int32_t n, uint64_t) { return scenes::Rain(n); }},
    {{"slow_explosion", "zero-g circles drifting slowly apart", "circles", 1000},
     [](int32_t n, uint64_t) { return scenes::SlowExplosion(n); }},
    {{"smash", "a ram at 40 m/s into a block of sleeping boxes (Box2D v3 benchmark)", "boxes", 9600},
     [](int32_t n, uint64_t) { return scenes::Smash(n); }},
    {{"spinner", "a motor-driven bar stirring bodies inside a ring (Box2D v3 benchmark)", "bodies", 6076},
     [](int32_t n, uint64_t) { return scenes::Spinner(n); }},
    {{"tumbler", "small boxes in a motor-driven drum (Box2D v3 benchmark)", "boxes per side", 45, 1000},
     [](int32_t n, uint64_t) { return scenes::Tumbler(n); }},
    {{"vertical_stack", "one column of boxes", "boxes", 15},
     [](int32_t n, uint64_t) { return scenes::VerticalStack(n); }},
    {{"washer", "small boxes in a turning kinematic ring (Box2D v3 benchmark)", "boxes per side", 90, 1000},
     [](int32_t n, uint64_t) { return scenes::Washer(n); }},
};

}  // namespace

std::vector<SceneInfo> ListScenes() {
  std::vector<SceneInfo> out;
  for (const SceneEntry& e : kScenes) out.push_back(e.info);
  return out;
}

absl::StatusOr<SceneDesc> MakeScene(std::string_view name, const SceneParams& params) {
  for (const SceneEntry& e : kScenes) {
    if (e.info.name != name) continue;
    if (params.size < 0 || params.size > e.info.max_size) {
      return absl::InvalidArgumentError(absl::StrCat("scene size must be in 0..",
                                                     e.info.max_size, ", got ", params.size));
    }
    const int32_t size = params.size == 0 ? e.info.default_size : params.size;
    return e.make(size, params.seed);
  }
  return absl::NotFoundError(absl::StrCat("no built-in scene named '", std::string(name), "'"));
}

absl::StatusOr<BodyId> AddSceneBody(World* world, const SceneBody& body) {
  absl::StatusOr<BodyId> id = world->CreateBody(body.def);
  if (!id.ok()) return id.status();
  for (size_t i = 0; i < body.shapes.size(); ++i) {
    const SceneShape& s = body.shapes[i];
    absl::StatusOr<ShapeId> shape;
    switch (s.geometry.type) {
      case ShapeType::kCircle:
        shape = world->CreateCircleShape(*id, s.def, s.geometry.circle);
        break;
      case ShapeType::kCapsule:
        shape = world->CreateCapsuleShape(*id, s.def, s.geometry.capsule);
        break;
      case ShapeType::kPolygon:
        shape = world->CreatePolygonShape(*id, s.def, s.geometry.polygon);
        break;
      case ShapeType::kSegment:
        shape = world->CreateSegmentShape(*id, s.def, s.geometry.segment);
        break;
      case ShapeType::kChainSegment:
        shape = world->CreateChainSegmentShape(*id, s.def, s.geometry.chain_segment);
        break;
    }
    if (!shape.ok()) {
      (void)world->DestroyBody(*id);
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", i, ": ", shape.status().message()));
    }
  }
  return id;
}

absl::StatusOr<JointId> AddSceneJoint(World* world, const SceneJoint& joint,
                                      std::span<const BodyId> bodies) {
  const int32_t count = static_cast<int32_t>(bodies.size());
  const bool is_target = std::holds_alternative<TargetJointDef>(joint.def);
  if (joint.body_b < 0 || joint.body_b >= count ||
      (!is_target && (joint.body_a < 0 || joint.body_a >= count))) {
    return absl::InvalidArgumentError(
        absl::StrCat("body index out of range (", joint.body_a, ", ", joint.body_b, " of ", count, ")"));
  }
  // NaN fails both comparisons.
  if (!(joint.break_force >= 0.0f) || !(joint.break_torque >= 0.0f)) {
    return absl::InvalidArgumentError(absl::StrCat("break thresholds must be >= 0, got ",
                                                   joint.break_force, " and ", joint.break_torque));
  }
  const BodyId a = is_target ? BodyId() : bodies[joint.body_a];
  const BodyId b = bodies[joint.body_b];
  absl::StatusOr<JointId> id = std::visit(
      [&](auto def) -> absl::StatusOr<JointId> {
        using T = decltype(def);
        if constexpr (std::is_same_v<T, TargetJointDef>) {
          def.body = b;
          return world->CreateTargetJoint(def);
        } else {
          def.body_a = a;
          def.body_b = b;
          if constexpr (std::is_same_v<T, DistanceJointDef>) return world->CreateDistanceJoint(def);
          if constexpr (std::is_same_v<T, RevoluteJointDef>) return world->CreateRevoluteJoint(def);
          if constexpr (std::is_same_v<T, PrismaticJointDef>) return world->CreatePrismaticJoint(def);
          if constexpr (std::is_same_v<T, WeldJointDef>) return world->CreateWeldJoint(def);
          if constexpr (std::is_same_v<T, WheelJointDef>) return world->CreateWheelJoint(def);
          if constexpr (std::is_same_v<T, MotorJointDef>) return world->CreateMotorJoint(def);
        }
      },
      joint.def);
  if (!id.ok() || (joint.break_force == kInfinity && joint.break_torque == kInfinity)) return id;
  const absl::Status set = world->SetJointBreakThresholds(*id, joint.break_force, joint.break_torque);
  ATOLL_ASSERT(set.ok());  // the thresholds were checked above
  return id;
}

absl::StatusOr<std::unique_ptr<World>> BuildWorld(const SceneDesc& desc) {
  absl::StatusOr<std::unique_ptr<World>> world = World::Create(desc.world);
  if (!world.ok()) return world.status();
  std::vector<BodyId> ids;
  ids.reserve(desc.bodies.size());
  for (size_t i = 0; i < desc.bodies.size(); ++i) {
    absl::StatusOr<BodyId> id = AddSceneBody(world->get(), desc.bodies[i]);
    if (!id.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("body ", i, ": ", id.status().message()));
    }
    ids.push_back(*id);
  }
  for (size_t i = 0; i < desc.joints.size(); ++i) {
    absl::StatusOr<JointId> id = AddSceneJoint(world->get(), desc.joints[i], ids);
    if (!id.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("joint ", i, ": ", id.status().message()));
    }
  }
  return world;
}

namespace {

// Destroys every live body tagged with one of `tags`, in index order. The
// tags are read straight from the body records: a wave of rain scans some
// ten thousand bodies, every 8 steps.
absl::Status DestroyTagged(World* world, std::span<const uint64_t> tags) {
  if (tags.empty()) return absl::OkStatus();
  std::vector<BodyId> doomed;
  const WorldState& w = world->state();
  for (int32_t i = 0; i < w.body_ids.Capacity(); ++i) {
    if (!w.body_ids.IsAlive(i)) continue;
    const uint64_t tag = w.bodies[i].user_data;
    if (tag != 0 && std::find(tags.begin(), tags.end(), tag) != tags.end()) {
      doomed.push_back(MakeBodyId(w, i));
    }
  }
  for (BodyId id : doomed) {
    if (absl::Status s = world->DestroyBody(id); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Sets the drive's body velocity so it reaches the path point of `step` at
// the end of the step.
absl::Status SteerDrive(World* world, const SceneDesc& desc, const SceneDrive& drive, int64_t step) {
  const WorldState& w = world->state();
  if (drive.body < 0 || drive.body >= static_cast<int32_t>(desc.bodies.size()) ||
      !w.body_ids.IsAlive(drive.body) || w.bodies[drive.body].type != BodyType::kKinematic) {
    return absl::InvalidArgumentError(
        absl::StrCat("body ", drive.body, " is not a live kinematic body of the scene"));
  }
  const BodyId id = MakeBodyId(w, drive.body);
  const float time = desc.time_step * static_cast<float>(step);
  const float sine = MakeRot(drive.angular_frequency * time).s;
  const Vec2 target = drive.center + sine * drive.amplitude;
  const Vec2 position = world->GetBody(id)->transform.p;
  return world->SetLinearVelocity(id, (1.0f / desc.time_step) * (target - position));
}

}  // namespace

absl::StatusOr<int32_t> ApplySceneWaves(World* world, const SceneDesc& desc, int64_t step) {
  // Waves are sorted by step, so the due ones are one contiguous run.
  auto it = std::lower_bound(desc.waves.begin(), desc.waves.end(), step,
                             [](const SceneWave& w, int64_t s) { return w.step < s; });
  int32_t created = 0;
  for (; it != desc.waves.end() && it->step == step; ++it) {
    const size_t wave = static_cast<size_t>(it - desc.waves.begin());
    if (absl::Status s = DestroyTagged(world, it->destroy_tags); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("wave ", wave, " removal: ", s.message()));
    }
    std::vector<BodyId> ids;
    ids.reserve(it->bodies.size());
    for (size_t i = 0; i < it->bodies.size(); ++i) {
      absl::StatusOr<BodyId> id = AddSceneBody(world, it->bodies[i]);
      if (!id.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("wave ", wave, " body ", i, ": ", id.status().message()));
      }
      ids.push_back(*id);
      ++created;
    }
    for (size_t i = 0; i < it->joints.size(); ++i) {
      absl::StatusOr<JointId> id = AddSceneJoint(world, it->joints[i], ids);
      if (!id.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("wave ", wave, " joint ", i, ": ", id.status().message()));
      }
    }
  }
  for (size_t i = 0; i < desc.drives.size(); ++i) {
    if (absl::Status s = SteerDrive(world, desc, desc.drives[i], step); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("drive ", i, ": ", s.message()));
    }
  }
  return created;
}

int32_t CountSceneShapes(const SceneDesc& desc) {
  size_t n = 0;
  for (const SceneBody& b : desc.bodies) n += b.shapes.size();
  for (const SceneWave& w : desc.waves) {
    for (const SceneBody& b : w.bodies) n += b.shapes.size();
  }
  return static_cast<int32_t>(n);
}

}  // namespace atl
