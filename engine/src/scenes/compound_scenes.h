// Atoll — scenes of bodies with several fixtures each: multi-fixture tables,
// the mild N^2 pile (seed 000 §8.1) and Box2D v3's compounds.

#ifndef ATOLL_SCENES_COMPOUND_SCENES_H_
#define ATOLL_SCENES_COMPOUND_SCENES_H_

#include <cstdint>

#include "atoll/scene.h"

namespace atl::scenes {

/// `count` tables thrown into a static U: table i has a 3 m top cut into
/// 1 + i % 16 separate boxes (more and smaller fixtures as i grows) on two
/// legs.
SceneDesc MultiFixture(int32_t count);
/// `count` composite bodies, tables (three boxes) and ships (a triangle and
/// a wing), created almost at one point above the ground: momentarily
/// O(n^2) pairs of multi-fixture bodies.
SceneDesc MildN2(int32_t count);
/// Box2D v3's compounds benchmark (3 000 bodies): `count` bodies of two
/// triangles each (density 1, friction 0.5) dropped in 20 columns into a
/// static U of 281 boxes 80 m wide and 100 m high, above a 1.6 km safety
/// segment; 500 steps.
SceneDesc Compounds(int32_t count);

}  // namespace atl::scenes

#endif  // ATOLL_SCENES_COMPOUND_SCENES_H_
