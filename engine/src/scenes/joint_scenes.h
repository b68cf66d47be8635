// Atoll — scenes held together by joints: chain, bridge, joint grid,
// ragdolls.

#ifndef ATOLL_SCENES_JOINT_SCENES_H_
#define ATOLL_SCENES_JOINT_SCENES_H_

#include <cstdint>

#include "atoll/scene.h"

namespace atl::scenes {

/// `links` capsule links of 1 m hanging from a static anchor by revolute
/// joints, released swinging from horizontal.
SceneDesc Chain(int32_t links);
/// A rope bridge of `planks` boards pinned end to end between two static
/// posts, with a few boxes dropped onto it.
SceneDesc Bridge(int32_t planks);
/// Box2D v3's joint_grid benchmark shape: side x side circles of radius
/// 0.4, 1 m apart, each pinned to its left and upper neighbours by revolute
/// joints; a few circles in the middle of the top row are static, so the
/// net sags from them.
SceneDesc JointGrid(int32_t side);
/// `count` ragdolls of 11 capsule bones with limited, lightly braked
/// revolute joints, in staggered rows high above the ground: they fall one
/// row after another onto a growing pile.
SceneDesc Ragdolls(int32_t count);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_JOINT_SCENES_H_
