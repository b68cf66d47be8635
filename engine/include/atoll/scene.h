// Atoll — scene descriptions and the built-in scenes.
//
// A SceneDesc is plain data: bodies with their shapes, and world settings.
// The same description builds an Atoll world (BuildWorld), a Box2D 2.4.1
// world in the side-by-side benchmarks, and a world on the server, so every
// consumer simulates the identical scene.

#ifndef ATOLL_SCENE_H_
#define ATOLL_SCENE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "atoll/body.h"
#include "atoll/geometry.h"
#include "atoll/joint.h"
#include "atoll/shape.h"
#include "atoll/world.h"
#include "atoll/world_def.h"

namespace atl {

struct SceneShape {
  ShapeGeometry geometry;
  ShapeDef def;
};

struct SceneBody {
  BodyDef def;
  std::vector<SceneShape> shapes;
};

/// Any joint def; the alternatives follow JointType order.
using SceneJointDef = std::variant<DistanceJointDef, RevoluteJointDef, PrismaticJointDef,
                                   WeldJointDef, WheelJointDef, MotorJointDef, TargetJointDef>;

/// A joint between two scene bodies, named by their index in
/// SceneDesc::bodies. The body ids inside `def` are ignored (BuildWorld
/// fills them in); a target joint uses only `body_b`.
struct SceneJoint {
  int32_t body_a = 0;
  int32_t body_b = 0;
  SceneJointDef def;
  /// World::SetJointBreakThresholds; infinity: never breaks.
  float break_force = kInfinity;
  float break_torque = kInfinity;
};

/// Bodies and joints that join a running scene at one step, and bodies that
/// leave it: the timed-wave design for scenes that spawn while they run
/// (rain). A wave is plain data like the rest of the description;
/// ApplySceneWaves (and the Box2D side of the benchmarks, from the same
/// data) applies it just before the world's step number `step`, so every
/// consumer spawns and removes the same bodies at the same time. Joint body
/// indices are wave-local: 0 is this wave's first body.
///
/// Removal names bodies by BodyDef::user_data rather than by id: a scene
/// tags each group it will later remove (rain gives every ragdoll group its
/// own nonzero tag), the tag lives in the world's snapshot with the body,
/// so finding the group needs no record kept outside the world and gives
/// the same bodies after any save and restore.
struct SceneWave {
  /// Applied just before step `step` (0 = before the first step).
  int32_t step = 0;
  /// Removed first: every live body whose user_data is one of these
  /// (nonzero) tags, in body index order, with its shapes and joints.
  std::vector<uint64_t> destroy_tags;
  /// Then created: these bodies in order, then the joints.
  std::vector<SceneBody> bodies;
  std::vector<SceneJoint> joints;
};

/// A kinematic body of the scene steered along a sine path, the scene-data
/// stand-in for setting a kinematic target each step (Box2D v3's
/// b2Body_SetTargetTransform, which junkyard's pusher uses). Just before
/// step k, ApplySceneWaves sets the body's linear velocity so that it
/// reaches center + amplitude * sin(angular_frequency * k * time_step) at
/// the end of the step (like v3's target, one step behind the path).
struct SceneDrive {
  /// Index in SceneDesc::bodies of a kinematic body.
  int32_t body = 0;
  Vec2 center;
  Vec2 amplitude;
  /// rad/s.
  float angular_frequency = 0.0f;
};

struct SceneDesc {
  std::string name;
  WorldDef world;
  /// The scene's intended step and run length (benchmarks use them).
  float time_step = 1.0f / 60.0f;
  int32_t steps = 0;
  /// Bodies in creation order; body i gets BodyId index i in a new world.
  std::vector<SceneBody> bodies;
  /// Joints, created in order after every body.
  std::vector<SceneJoint> joints;
  /// Half-size of the region the scene is meant to stay in, around the
  /// origin: a plausibility bound for benchmarks ("bodies inside the bounds").
  float bounds = 0.0f;
  /// Timed waves of new and removed bodies, by ascending step; BuildWorld
  /// ignores them, the stepping loop calls ApplySceneWaves before each step.
  std::vector<SceneWave> waves;
  /// Kinematic bodies driven along paths; ApplySceneWaves steers them.
  std::vector<SceneDrive> drives;
};

/// Knobs of a built-in scene.
struct SceneParams {
  /// The scene's size parameter (what it counts is listed by ListScenes);
  /// 0 means the scene's default.
  int32_t size = 0;
  /// Seed for scenes with random placement.
  uint64_t seed = 1;
};

/// The largest size any built-in scene takes (a scene whose body count
/// grows faster than its size has a smaller SceneInfo::max_size).
inline constexpr int32_t kMaxSceneSize = 1'000'000;

struct SceneInfo {
  std::string_view name;
  std::string_view description;
  /// What SceneParams::size counts, and its default.
  std::string_view size_meaning;
  int32_t default_size = 0;
  /// The largest size MakeScene builds: about a million bodies at most, and
  /// where a scene's geometry stays valid (big_mobile's deepest boxes).
  int32_t max_size = kMaxSceneSize;
};

/// Every built-in scene, in alphabetical order.
std::vector<SceneInfo> ListScenes();

/// The description of built-in scene `name`. NotFound for an unknown name;
/// InvalidArgument when params.size is negative or above the scene's
/// SceneInfo::max_size.
absl::StatusOr<SceneDesc> MakeScene(std::string_view name, const SceneParams& params = {});

/// A new world with desc.world settings and every body, shape and joint of
/// `desc`. InvalidArgument naming the body, shape or joint when any def,
/// geometry or body index is bad.
absl::StatusOr<std::unique_ptr<World>> BuildWorld(const SceneDesc& desc);

/// Adds one scene body (and its shapes) to `world`.
absl::StatusOr<BodyId> AddSceneBody(World* world, const SceneBody& body);

/// Adds one scene joint to `world`; `bodies[i]` is the id of scene body i.
absl::StatusOr<JointId> AddSceneJoint(World* world, const SceneJoint& joint,
                                      std::span<const BodyId> bodies);

/// Applies every wave of `desc` whose step equals `step`, in order (its
/// removals, then its bodies and joints), then steers the scene's drives for
/// this step; call it just before the world's step number `step` (counting
/// from 0 after BuildWorld). Returns the number of bodies created;
/// InvalidArgument naming the wave when a body or joint of it is bad (what
/// was applied before the bad one stays), or naming the drive whose body is
/// not a live kinematic body of the scene.
absl::StatusOr<int32_t> ApplySceneWaves(World* world, const SceneDesc& desc, int64_t step);

/// Fixtures in `desc`: every shape of every body, waves included.
int32_t CountSceneShapes(const SceneDesc& desc);

}  // namespace atl

#endif  // ATOLL_SCENE_H_
