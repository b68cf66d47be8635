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
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "atoll/body.h"
#include "atoll/geometry.h"
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

struct SceneDesc {
  std::string name;
  WorldDef world;
  /// The scene's intended step and run length (benchmarks use them).
  float time_step = 1.0f / 60.0f;
  int32_t steps = 0;
  /// Bodies in creation order; body i gets BodyId index i in a new world.
  std::vector<SceneBody> bodies;
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

/// A new world with desc.world settings and every body and shape of `desc`.
/// InvalidArgument naming the body or shape when any def or geometry is bad.
absl::StatusOr<std::unique_ptr<World>> BuildWorld(const SceneDesc& desc);

/// Adds one scene body (and its shapes) to `world`.
absl::StatusOr<BodyId> AddSceneBody(World* world, const SceneBody& body);

}  // namespace atl

#endif  // ATOLL_SCENE_H_
