// Atoll — scenes driven by a moving body: tumbler and smash (Box2D v3's
// benchmark set).

#ifndef ATOLL_SCENES_MOTION_SCENES_H_
#define ATOLL_SCENES_MOTION_SCENES_H_

#include <cstdint>

#include "atoll/scene.h"

namespace atl::scenes {

/// Box2D v3's tumbler (side 45): a hollow 20 m box of density 50, a
/// dynamic body turned at 25 deg/s by a revolute motor (1e8 N m) on a
/// shapeless static anchor, with side x side small boxes (half-extent
/// 0.125) tumbling inside; 750 steps.
SceneDesc Tumbler(int32_t side);
/// Box2D v3's smash (9 600 boxes): zero gravity, `count` sleeping 0.4 m
/// boxes in a block 1.5 times wider than tall, hit by an 8 x 8 m ram
/// (density 8) at 40 m/s; 300 steps.
SceneDesc Smash(int32_t count);
}  // namespace atl::scenes

#endif  // ATOLL_SCENES_MOTION_SCENES_H_
