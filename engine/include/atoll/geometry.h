// Atoll — shape primitives: definition, validation, construction helpers,
// mass properties and bounding boxes.
//
// All shape coordinates are in the body's local frame (meters). Every shape
// is convex; concave bodies are built from several shapes, and static
// polylines from chain segments (one shape per edge, see MakeChainSegments).

#ifndef ATOLL_GEOMETRY_H_
#define ATOLL_GEOMETRY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/constants.h"
#include "atoll/hull.h"
#include "atoll/math.h"

namespace atl {

/// A solid circle.
struct Circle {
  Vec2 center;
  float radius = 0.0f;
};

/// A solid capsule: the points within `radius` of the segment
/// center1-center2.
struct Capsule {
  Vec2 center1;
  Vec2 center2;
  float radius = 0.0f;
};

/// A two-sided line segment with no thickness and no mass. Segments are
/// meant for static geometry: segment-segment, segment-chain and
/// chain-chain pairs never collide.
struct Segment {
  Vec2 point1;
  Vec2 point2;
};

/// One edge of a chain (a polyline of static geometry) with its neighbours'
/// outer vertices as ghosts. It collides on one side only: the right of
/// point1 -> point2, where RightPerp(point2 - point1) points, so a
/// counter-clockwise loop keeps bodies outside and a clockwise loop keeps
/// them inside. The ghosts let the narrow phase tell a smooth joint from a
/// corner, so bodies slide across the joints of a flat chain without
/// catching on them. Made by MakeChainSegments; massless.
struct ChainSegment {
  Vec2 ghost1;  ///< the vertex before segment.point1
  Segment segment;
  Vec2 ghost2;  ///< the vertex after segment.point2
};

/// A solid convex polygon with 3..kMaxPolygonVertices counter-clockwise
/// vertices, optionally rounded: the shape is every point within `radius` of
/// the core polygon. Build with MakePolygon or the box helpers.
struct Polygon {
  Vec2 vertices[kMaxPolygonVertices];
  /// normals[i] is the outward unit normal of the edge from vertices[i] to
  /// vertices[(i + 1) % count].
  Vec2 normals[kMaxPolygonVertices];
  /// Centroid of the core polygon (the rounded shape's center of mass can
  /// differ; see ComputeShapeMass).
  Vec2 centroid;
  float radius = 0.0f;
  int32_t count = 0;
};

/// The shape kinds, in the order of the narrow-phase function table.
enum class ShapeType : uint8_t {
  kCircle = 0,
  kCapsule = 1,
  kSegment = 2,
  kPolygon = 3,
  kChainSegment = 4,
};
/// Number of ShapeType values (the size of each narrow-phase table axis).
inline constexpr int kShapeTypeCount = 5;

/// Any one shape, tagged by type. Read only the member named by `type`.
/// Each constructor stores one shape and sets the tag; the default is a
/// zero-radius circle (invalid until filled in).
struct ShapeGeometry {
  ShapeGeometry() : type(ShapeType::kCircle), circle() {}
  explicit ShapeGeometry(const Circle& c) : type(ShapeType::kCircle), circle(c) {}
  explicit ShapeGeometry(const Capsule& c)
      : type(ShapeType::kCapsule), capsule(c) {}
  explicit ShapeGeometry(const Segment& s)
      : type(ShapeType::kSegment), segment(s) {}
  explicit ShapeGeometry(const Polygon& p)
      : type(ShapeType::kPolygon), polygon(p) {}
  explicit ShapeGeometry(const ChainSegment& c)
      : type(ShapeType::kChainSegment), chain_segment(c) {}

  ShapeType type;
  union {
    Circle circle;
    Capsule capsule;
    Segment segment;
    Polygon polygon;
    ChainSegment chain_segment;
  };
};

/// Mass properties of a shape in its body's frame.
struct MassData {
  float mass = 0.0f;
  /// Center of mass in the body frame.
  Vec2 center;
  /// Rotational inertia about `center` (kg m^2).
  float rotational_inertia = 0.0f;
};

// ---------------------------------------------------------------------------
// Construction

/// A polygon from a hull (see ComputeHull), rounded by `radius` (0 for sharp
/// corners). Errors: an invalid hull (see ValidateHull) or a negative,
/// non-finite or over-kWorldBound radius.
absl::StatusOr<Polygon> MakePolygon(const Hull& hull, float radius);

/// An axis-aligned box centered on the body origin with half-widths hx, hy.
/// Errors: an extent that is not finite, not positive or over kWorldBound.
absl::StatusOr<Polygon> MakeBox(float hx, float hy);

/// MakeBox(h, h).
absl::StatusOr<Polygon> MakeSquare(float h);

/// A box with core half-widths hx, hy whose corners are rounded by `radius`
/// (the outer half-widths are hx + radius, hy + radius). Errors: as MakeBox,
/// plus a negative or non-finite radius.
absl::StatusOr<Polygon> MakeRoundedBox(float hx, float hy, float radius);

/// A box with half-widths hx, hy centered at `center` in the body frame and
/// rotated by `angle` radians. Errors: as MakeBox, plus a non-finite center
/// or angle, or a center beyond kWorldBound.
absl::StatusOr<Polygon> MakeOffsetBox(float hx, float hy, Vec2 center,
                                      float angle);

/// One ChainSegment per edge of the polyline `points`. With `loop` the last
/// point connects back to the first and every ghost comes from the
/// neighbouring edges. An open chain's two ends are free: their ghosts are
/// placed so each end acts like a convex corner, and a body can roll off
/// the end vertex. Collision is on the right of the travel direction (see
/// ChainSegment).
///
/// Errors: fewer than 2 points (3 for a loop), a non-finite point or one
/// beyond kWorldBound, two consecutive points (or, for a loop, the last and
/// first) closer than kLinearSlop, a loop whose points are all collinear,
/// or an open end whose ghost lies beyond kWorldBound ("chain edge k: ...").
absl::StatusOr<std::vector<ChainSegment>> MakeChainSegments(
    std::span<const Vec2> points, bool loop);

// ---------------------------------------------------------------------------
// Validation. Every function returns OK or InvalidArgument with a message
// naming the shape and the offending value.

/// Radius finite, > 0 and <= kWorldBound; center finite within kWorldBound.
absl::Status ValidateCircle(const Circle& circle);
/// As a circle, and the centers at least kLinearSlop apart (use a Circle
/// otherwise).
absl::Status ValidateCapsule(const Capsule& capsule);
/// Points finite within kWorldBound and at least kLinearSlop apart.
absl::Status ValidateSegment(const Segment& segment);
/// The segment is valid and both ghosts are finite within kWorldBound.
absl::Status ValidateChainSegment(const ChainSegment& chain_segment);
/// count in 3..kMaxPolygonVertices, finite vertices within kWorldBound,
/// strictly convex counter-clockwise, normals matching the edges, centroid
/// inside, radius finite in [0, kWorldBound].
absl::Status ValidatePolygon(const Polygon& polygon);
/// Dispatches on `shape.type`; also rejects an unknown type.
absl::Status ValidateShape(const ShapeGeometry& shape);
/// Density must be finite and >= 0 (0 gives a massless shape).
absl::Status ValidateDensity(float density);

// ---------------------------------------------------------------------------
// Mass and bounds

/// Mass, center of mass and rotational inertia about that center for a
/// shape of uniform `density` (kg/m^2). Circles, capsules and polygons
/// (rounded ones exactly: core + edge rectangles + corner sectors) have mass;
/// segments and chain segments are massless (all fields zero). `density`
/// must have passed ValidateDensity and `shape` ValidateShape (checked with
/// ATOLL_ASSERT).
MassData ComputeShapeMass(const ShapeGeometry& shape, float density);

/// The lightest shape with mass a body may hold, kg, and the smallest
/// rotational inertia about its center, kg m^2: a lighter shape (a radius
/// of 1e-20 m, a density of 1e-30) has a mass or inertia whose inverse
/// overflows single precision, and the solver would turn it into infinities.
inline constexpr float kMinShapeMass = 1.0e-9f;
inline constexpr float kMinShapeInertia = 1.0e-18f;
/// The heaviest shape, kg, and the largest rotational inertia, kg m^2: a
/// joint between two heavier bodies has an effective-mass matrix whose
/// determinant underflows (a density of 7e20 made a revolute joint's
/// inverse infinite).
inline constexpr float kMaxShapeMass = 1.0e12f;
inline constexpr float kMaxShapeInertia = 1.0e24f;

/// InvalidArgument when `shape` (valid) of `density` (valid, > 0) has mass
/// outside [kMinShapeMass, kMaxShapeMass] or inertia outside
/// [kMinShapeInertia, kMaxShapeInertia]; massless kinds (segments) and
/// density 0 always pass.
absl::Status ValidateShapeMass(const ShapeGeometry& shape, float density);

/// The tight world-space bounding box of `shape` placed by `transform`
/// (rounding radius included, chain ghosts excluded). The broad phase adds
/// its own margin.
AABB ComputeShapeAABB(const ShapeGeometry& shape, const Transform& transform);

/// The rounding radius of `shape` (MakeShapeProxy(shape).radius): a
/// circle's or capsule's radius, a rounded polygon's; 0 for segments.
float ComputeShapeRadius(const ShapeGeometry& shape);

/// The largest distance from `local_center` (e.g. the body's center of
/// mass) to any point of `shape`; continuous collision uses it to bound how
/// fast a rotating shape's surface can move.
float ComputeShapeExtent(const ShapeGeometry& shape, Vec2 local_center);

/// ComputeShapeExtent without the rounding (ComputeShapeRadius): the
/// largest distance from `local_center` to a point of the shape's core (a
/// circle's center, a capsule's two centers, a segment, a polygon without
/// its radius). Turning about `local_center` moves the shape's region by no
/// more than it moves its core, so this is the lever arm that counts for
/// tunneling: 0 for a ball spinning about its own center.
float ComputeShapeCoreExtent(const ShapeGeometry& shape, Vec2 local_center);

/// Half the shape's thickness: the distance from its centroid to its
/// nearest surface point (the radius of a circle or capsule; for a polygon
/// the nearest edge plus the rounding; kLinearSlop for the thin segments).
/// Continuous collision calls a body fast when it moves more than a share
/// of this in one step.
float ComputeShapeMinExtent(const ShapeGeometry& shape);

/// The shape's centroid in its body frame (a segment's midpoint).
Vec2 ComputeShapeCentroid(const ShapeGeometry& shape);

}  // namespace atl

#endif  // ATOLL_GEOMETRY_H_
