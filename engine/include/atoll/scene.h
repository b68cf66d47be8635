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
};

/// Knobs of a built-in scene.
struct SceneParams {
  /// The scene's size parameter (what it counts is listed by ListScenes);
  /// 0 means the scene's default.
  int32_t size = 0;
  /// Seed for scenes with random placement.
  uint64_t seed = 1;
};

struct SceneInfo {
  std::string_view name;
  std::string_view description;
  /// What SceneParams::size counts, and its default.
  std::string_view size_meaning;
  int32_t default_size = 0;
};

/// Every built-in scene, in alphabetical order.
std::vector<SceneInfo> ListScenes();

/// The description of built-in scene `name`. NotFound for an unknown name;
/// InvalidArgument when params.size is negative or too large (over 2
/// million bodies).
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

}  // namespace atl

#endif  // ATOLL_SCENE_H_
