// Shared helpers for the collision tests: random shapes and transforms from
// a seeded RNG, and brute-force reference geometry in double precision that
// shares no code with the engine.

#ifndef ATOLL_TESTS_ENGINE_COLLISION_TEST_SHAPES_H_
#define ATOLL_TESTS_ENGINE_COLLISION_TEST_SHAPES_H_

#include <random>
#include <vector>

#include "atoll/distance.h"
#include "atoll/geometry.h"
#include "atoll/math.h"

namespace atl::testing {

struct DVec {
  double x = 0.0;
  double y = 0.0;
};

/// A shape in world space, double precision: the convex hull of `points`
/// (1, 2, or >= 3 counter-clockwise points) rounded by `radius`.
struct WorldShape {
  std::vector<DVec> points;
  double radius = 0.0;
};

/// The proxy points of `proxy` placed by `xf`, in double.
WorldShape ToWorld(const ShapeProxy& proxy, const Transform& xf);
WorldShape ToWorld(const ShapeGeometry& shape, const Transform& xf);

/// Distance between the cores (hulls without radius); 0 if they overlap.
double CoreDistance(const WorldShape& a, const WorldShape& b);

/// Distance between the rounded surfaces; 0 if they overlap.
double SurfaceDistance(const WorldShape& a, const WorldShape& b);

/// True if `p` is inside or on the rounded shape.
bool Contains(const WorldShape& shape, DVec p);

/// A random convex polygon with 3..8 vertices (ComputeHull of a random
/// cloud on a jittered circle of about `size`), rounded by `radius`.
Polygon RandomPolygon(std::mt19937* rng, float size, float radius);

/// A random regular-ish polygon with exactly `count` vertices.
Polygon RandomPolygonWithCount(std::mt19937* rng, int count, float size,
                               float radius);

/// A random transform with |p| <= extent and any rotation.
Transform RandomTransform(std::mt19937* rng, float extent);

/// One random shape of `type`, about `size` across.
ShapeGeometry RandomShape(std::mt19937* rng, ShapeType type, float size);

/// "circle", "capsule", ...
const char* TypeName(ShapeType type);

}  // namespace atl::testing

#endif  // ATOLL_TESTS_ENGINE_COLLISION_TEST_SHAPES_H_
