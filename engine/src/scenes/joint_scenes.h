// Atoll — scenes held together by joints: chain, bridge, joint grid,
// ragdolls, big mobile, rain.

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
/// Box2D v3's joint_grid benchmark (side 100): side x side circles of
/// radius 0.4, 1 m apart, created column by column, each pinned to its upper
/// and left neighbours by revolute joints; the seven circles in the middle
/// of the top row are static, so the net sags from them. The circles never
/// collide with each other (category 2, mask without 2); sleep is off.
SceneDesc JointGrid(int32_t side);
/// `count` ragdolls of 11 capsule bones with limited, lightly braked
/// revolute joints, in staggered rows high above the ground: they fall one
/// row after another onto a growing pile.
SceneDesc Ragdolls(int32_t count);
/// A balanced mobile after Box2D's testbed, grown wide (seed 000 §8.1 "big
/// mobile"): a binary tree `depth` levels deep (2^depth - 1 rods) hanging
/// from a static anchor by revolute joints; each node is a rod with a bar
/// whose ends carry its children, twice as close each level down, leaves
/// 1 m apart and pushed so the tree swings.
SceneDesc BigMobile(int32_t depth);
/// Box2D v3's rain benchmark (columns 40): five floors of 501 small static
/// boxes, 45 m apart; every 8 steps, for 1 000 steps, one column of ragdoll
/// groups (one group of five v3 "humans" per floor, 11 bodies, 13 shapes
/// and 10 joints each) is dropped from 40 m above its floor. Once all
/// `columns` columns are filled, each drop first removes the oldest column
/// (SceneWave::destroy_tags), so the scene holds 5 x columns groups from
/// then on. The ragdolls come as SceneDesc::waves.
SceneDesc Rain(int32_t columns);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_JOINT_SCENES_H_
