// atoll-bench — builds a Box2D 2.4.1 world from an Atoll SceneDesc, so both
// engines simulate the same bodies, shapes and materials.

#ifndef ATOLL_BENCH_BOX2D_SCENE_H_
#define ATOLL_BENCH_BOX2D_SCENE_H_

#include <memory>

#include <box2d/box2d.h>

#include "atoll/scene.h"

namespace atl::bench {

/// A b2World with desc's gravity and every body, shape and joint of desc.
/// Shapes map one to one except capsules (Box2D 2.4.1 has none): a capsule
/// becomes a rounded thin box, the closest 2.4.1 equivalent. Joints map to
/// their 2.4.1 counterparts (a target joint to a mouse joint), without the
/// springs 2.4.1 lacks (revolute, prismatic, linear weld). Continuous
/// physics follows desc.world.enable_continuous.
std::unique_ptr<b2World> BuildBox2DWorld(const SceneDesc& desc);

/// The Box2D side of atl::ApplySceneWaves: removes the tagged bodies of,
/// then creates the bodies and joints of, every wave of `desc` due before
/// step `step`, in the same order, and steers the scene's drives (bodies
/// carry their SceneBody user_data as userData.pointer). Returns the number
/// of bodies created.
int32_t ApplyBox2DWaves(b2World* world, const SceneDesc& desc, int64_t step);

}  // namespace atl::bench

#endif  // ATOLL_BENCH_BOX2D_SCENE_H_
