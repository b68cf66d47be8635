// Atoll — contact manifolds: the narrow phase.
//
// A manifold describes how two shapes touch: one normal and up to two
// contact points. There is one contact type for every shape pair; the
// collision routine comes from a function table indexed by the two shape
// types (GetManifoldFunction), so the contact code never switches on
// shape kinds.
//
// Pairs that never collide (documented, not an error): segment-segment,
// segment-chain segment and chain segment-chain segment. Segments and
// chains are meant for static geometry, and static geometry does not
// collide with itself; their table entries return an empty manifold.

#ifndef ATOLL_MANIFOLD_H_
#define ATOLL_MANIFOLD_H_

#include <cstdint>

#include "atoll/geometry.h"
#include "atoll/math.h"

namespace atl {

/// Feature kinds in a feature id.
enum class FeatureType : uint8_t { kVertex = 0, kFace = 1 };

/// A stable contact-point id for warm starting: the same id in consecutive
/// steps means the same pair of features touches, so the solver may reuse
/// the point's accumulated impulses. Layout, one byte each:
///   bits  0-7   index of the feature on shape A
///   bits  8-15  index of the feature on shape B
///   bits 16-23  FeatureType of the feature on A
///   bits 24-31  FeatureType of the feature on B
/// Indices are polygon vertex/edge indices (edge i runs from vertex i to
/// vertex i + 1); a circle is vertex 0; a capsule or segment has vertices
/// 0 (center1/point1) and 1 and faces 0 (the right side of 0 -> 1) and 1.
/// For a clipped face contact the reference face and the incident vertex
/// the point was clipped from are recorded, so a point keeps its id while
/// it slides along the face.
constexpr uint32_t MakeFeatureId(FeatureType type_a, uint32_t index_a,
                                 FeatureType type_b, uint32_t index_b) {
  return (index_a & 0xffu) | ((index_b & 0xffu) << 8) |
         (static_cast<uint32_t>(type_a) << 16) |
         (static_cast<uint32_t>(type_b) << 24);
}

/// The id of the same features with A and B exchanged.
constexpr uint32_t MirrorFeatureId(uint32_t id) {
  return ((id & 0xffu) << 8) | ((id >> 8) & 0xffu) | ((id & 0xff0000u) << 8) |
         ((id >> 8) & 0xff0000u);
}

/// One contact point.
struct ManifoldPoint {
  /// World position, midway between the two surfaces.
  Vec2 point;
  /// point - transform_a.p and point - transform_b.p: where the solver
  /// applies the impulse relative to each body origin (world orientation).
  Vec2 anchor_a;
  Vec2 anchor_b;
  /// Signed distance between the surfaces along the normal: negative when
  /// they overlap, positive (up to kSpeculativeDistance) for a speculative
  /// point that is not touching yet.
  float separation = 0.0f;
  /// Solver state: accumulated impulses, carried over by id between steps.
  /// The narrow phase writes zero.
  float normal_impulse = 0.0f;
  float tangent_impulse = 0.0f;
  /// See MakeFeatureId.
  uint32_t id = 0;
};

/// The contact between two shapes. Points are only reported while the
/// separation is at most kSpeculativeDistance.
struct Manifold {
  /// World unit normal pointing from shape A to shape B.
  Vec2 normal;
  ManifoldPoint points[2];
  int32_t point_count = 0;
};

/// Signature of every narrow-phase routine. Shapes are in their bodies'
/// frames; the transforms place them in the world.
using ManifoldFn = Manifold (*)(const ShapeGeometry& a, const Transform& xf_a,
                                const ShapeGeometry& b, const Transform& xf_b);

/// The routine for shapes of type `a` (as shape A) and `b` (as shape B).
/// Every pair of types has one; pairs in the reversed order run the same
/// routine with the shapes exchanged and mirror the result (negated normal,
/// mirrored ids), so CollideShapes(b, a) mirrors CollideShapes(a, b)
/// exactly. Contacts can look the function up once at creation and keep it.
ManifoldFn GetManifoldFunction(ShapeType a, ShapeType b);

/// GetManifoldFunction(a.type, b.type)(a, xf_a, b, xf_b).
Manifold CollideShapes(const ShapeGeometry& a, const Transform& xf_a,
                       const ShapeGeometry& b, const Transform& xf_b);

// ---------------------------------------------------------------------------
// The routines behind the table, for callers that know their shape types.
// "XAndY" takes X as shape A and Y as shape B.

Manifold CollideCircles(const Circle& a, const Transform& xf_a,
                        const Circle& b, const Transform& xf_b);
Manifold CollideCapsuleAndCircle(const Capsule& a, const Transform& xf_a,
                                 const Circle& b, const Transform& xf_b);
Manifold CollideSegmentAndCircle(const Segment& a, const Transform& xf_a,
                                 const Circle& b, const Transform& xf_b);
Manifold CollidePolygonAndCircle(const Polygon& a, const Transform& xf_a,
                                 const Circle& b, const Transform& xf_b);
Manifold CollideChainSegmentAndCircle(const ChainSegment& a,
                                      const Transform& xf_a, const Circle& b,
                                      const Transform& xf_b);

Manifold CollideCapsules(const Capsule& a, const Transform& xf_a,
                         const Capsule& b, const Transform& xf_b);
Manifold CollideSegmentAndCapsule(const Segment& a, const Transform& xf_a,
                                  const Capsule& b, const Transform& xf_b);
Manifold CollidePolygonAndCapsule(const Polygon& a, const Transform& xf_a,
                                  const Capsule& b, const Transform& xf_b);
Manifold CollideChainSegmentAndCapsule(const ChainSegment& a,
                                       const Transform& xf_a, const Capsule& b,
                                       const Transform& xf_b);

/// SAT over both polygons' face normals picks the reference face (the
/// first polygon's unless the second separates more by 0.1 kLinearSlop,
/// which keeps the choice stable frame to frame); the most anti-parallel
/// face of the other polygon is clipped against the reference face's side
/// planes. When the cores are separated and the closest features are two
/// vertices, one point along the vertex-vertex direction is reported
/// instead. Rounded polygons are handled through their radii.
Manifold CollidePolygons(const Polygon& a, const Transform& xf_a,
                         const Polygon& b, const Transform& xf_b);
Manifold CollideSegmentAndPolygon(const Segment& a, const Transform& xf_a,
                                  const Polygon& b, const Transform& xf_b);

/// One-sided: a polygon whose centroid is behind the segment (left of
/// point1 -> point2) does not collide, and normals are limited to the range
/// the ghost vertices allow: at a smooth or concave joint only the
/// segment's own normal, at a convex corner up to the neighbour's normal.
/// A body sliding along a smooth chain therefore never hits the joints
/// between segments (no ghost collisions).
Manifold CollideChainSegmentAndPolygon(const ChainSegment& a,
                                       const Transform& xf_a, const Polygon& b,
                                       const Transform& xf_b);

}  // namespace atl

#endif  // ATOLL_MANIFOLD_H_
