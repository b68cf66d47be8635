// Atoll — the broad-phase and contact stress scenes of seed 000 §8.1.

#ifndef ATOLL_SCENES_STRESS_SCENES_H_
#define ATOLL_SCENES_STRESS_SCENES_H_

#include <cstdint>

#include "atoll/scene.h"

namespace atl::scenes {

/// Zero gravity: `count` resting circles (r 0.1) hit by a 1.5 m box at
/// 150 m/s (a bullet): many contacts created at once.
SceneDesc AddPair(int32_t count, uint64_t seed);
/// `count` squares of random size (half-extent 0.1..0.5) falling in columns
/// onto the ground.
SceneDesc FallingSquares(int32_t count, uint64_t seed);
/// The same with circles (radius 0.1..0.5).
SceneDesc FallingCircles(int32_t count, uint64_t seed);
/// Zero gravity: `count` circles in a grid drifting slowly outward; few
/// collisions.
SceneDesc SlowExplosion(int32_t count);
/// `count` boxes created almost at one point above the ground: O(n^2)
/// pairs for a moment.
SceneDesc N2(int32_t count);
/// A square of `count` static unit boxes with a diagonal channel in which a
/// few dynamic bodies slide; each box its own body, or with `single_body`
/// all of them fixtures of one static body (seed 000 §8.1's two variants).
SceneDesc MostlyStatic(int32_t count, bool single_body);
/// `count` static diagonal segments (terrible bounding boxes) with
/// count / 4 circles falling through them.
SceneDesc Diagonal(int32_t count, uint64_t seed);
/// About `count` fixtures, half static pegs (circles and boxes), half
/// dynamic circles and boxes falling through them.
SceneDesc MixedStaticDynamic(int32_t count, uint64_t seed);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_STRESS_SCENES_H_
