// Atoll — stacking scenes.

#ifndef ATOLL_SCENES_STACK_SCENES_H_
#define ATOLL_SCENES_STACK_SCENES_H_

#include "atoll/scene.h"

namespace atl::scenes {

/// Boxes of half-extent 0.5 in a pyramid with `base` boxes in the bottom
/// row (base 20 = 210 boxes) on a static ground.
SceneDesc Pyramid(int32_t base);
/// Box2D v3's large_pyramid (base 100: 5 050 boxes) on a 200 m ground,
/// sleep off, 500 steps.
SceneDesc LargePyramid(int32_t base);
/// `count` boxes of half-extent 0.5 stacked in one column.
SceneDesc VerticalStack(int32_t count);
/// `count` pyramids of base 10 (55 boxes each), in rows of 20, each row on
/// its own floor segment of one static body; sleep off. 400 = Box2D v3's
/// many_pyramids (20 x 20).
SceneDesc ManyPyramids(int32_t count);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_STACK_SCENES_H_
