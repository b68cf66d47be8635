// Atoll — scenes driven by a moving body: tumbler, smash, spinner, washer
// and junkyard (Box2D v3's benchmark set).

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
/// Box2D v3's spinner (6 076 bodies): a 40 m ring (a closed chain of 360
/// segments) around a 40 m bar turned at 5 rad/s by a motor of unbounded
/// torque, stirring `count` light capsules, circles and squares; 500 steps.
SceneDesc Spinner(int32_t count);
/// Box2D v3's washer (side 90): a kinematic ring of 40 quads (radius 14 to
/// 18) turning at 25 deg/s around side x side small boxes (half-extent
/// 0.1, hit events on); 500 steps.
SceneDesc Washer(int32_t side);
/// Box2D v3's junkyard (8 000 pentagons): `count` small pentagons in 200
/// columns dropped into a 160 m static U and swept back and forth by a
/// kinematic 4 x 8 m pusher on a sine path (a SceneDrive); 800 steps.
SceneDesc Junkyard(int32_t count);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_MOTION_SCENES_H_
