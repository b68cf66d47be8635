// Atoll — scenes driven by a moving body: tumbler and smash.

#ifndef ATOLL_SCENES_MOTION_SCENES_H_
#define ATOLL_SCENES_MOTION_SCENES_H_

#include <cstdint>

#include "atoll/scene.h"

namespace atl::scenes {

/// A hollow 20 m kinematic box turning at 25 deg/s with side x side small
/// boxes (half-extent 0.125) tumbling inside; 45 = Box2D v3's tumbler.
SceneDesc Tumbler(int32_t side);
/// Zero gravity: `count` sleeping boxes (half-extent 0.2) in a block, hit
/// by a 4 x 4 m ram at 40 m/s; 9 600 = Box2D v3's smash.
SceneDesc Smash(int32_t count);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_MOTION_SCENES_H_
