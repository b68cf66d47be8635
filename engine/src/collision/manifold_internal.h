// Building blocks shared by the narrow-phase routines.
//
// Every routine works in shape A's local frame: B is moved into A's frame
// once, the contact is computed there, and only the result is rotated into
// the world. Results then do not depend on where in the world the pair is,
// and the arithmetic stays on small coordinates.

#ifndef ATOLL_SRC_COLLISION_MANIFOLD_INTERNAL_H_
#define ATOLL_SRC_COLLISION_MANIFOLD_INTERNAL_H_

#include <cstdint>

#include "atoll/constants.h"
#include "atoll/manifold.h"

namespace atl::internal {

/// A manifold in A's local frame, before anchors are computed.
struct LocalManifold {
  Vec2 normal;  ///< from A to B
  Vec2 points[2];
  float separations[2] = {0.0f, 0.0f};
  uint32_t ids[2] = {0, 0};
  int32_t count = 0;
};

/// Converts a local manifold to the world: rotates the normal and points by
/// xf_a and computes both anchors.
Manifold ToWorldManifold(const LocalManifold& local, const Transform& xf_a,
                         const Transform& xf_b);

/// A capsule or segment as a two-vertex polygon: edge 0 runs p1 -> p2 with
/// normal RightPerp, edge 1 back with the opposite normal. The polygon
/// routines accept count == 2.
Polygon MakeSegmentPolygon(Vec2 p1, Vec2 p2, float radius);

/// `polygon` moved by `xf` (e.g. into another shape's frame).
Polygon TransformPolygon(const Transform& xf, const Polygon& polygon);

/// The face of `polygon` whose normal is most anti-parallel to `normal`.
int32_t FindIncidentEdge(Vec2 normal, const Polygon& polygon);

/// Clips face `inc_edge` of `inc` against the side planes of face
/// `ref_edge` of `ref`. Points are kept while their separation (radii
/// included) is at most kSpeculativeDistance; each sits midway between the
/// surfaces. With `flip` the reference belongs to shape B: the normal is
/// negated and ids are written from A's point of view. If the incident face
/// misses the reference face's slab entirely, `vertex_fallback` decides:
/// true reports one point between the two faces' closest points (two
/// convex solids always touch somewhere), false reports nothing (a chain
/// segment leaves such contacts to its neighbour).
LocalManifold ClipAgainstReferenceFace(const Polygon& ref, int32_t ref_edge,
                                       const Polygon& inc, int32_t inc_edge,
                                       bool flip, bool vertex_fallback);

/// Sharp or rounded convex polygons (count >= 2), both in A's frame.
LocalManifold CollidePolygonsLocal(const Polygon& a, const Polygon& b);

/// One point between closest points `pa` on A's core and `pb` on B's core
/// (normal along pa -> pb), or an empty manifold if the surfaces are more
/// than kSpeculativeDistance apart. `distance` is |pb - pa| > 0.
LocalManifold VertexContact(Vec2 pa, Vec2 pb, float distance, float radius_a,
                            float radius_b, uint32_t id);

}  // namespace atl::internal

#endif  // ATOLL_SRC_COLLISION_MANIFOLD_INTERNAL_H_
