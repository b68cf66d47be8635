// Polygon-like pairs: polygon, capsule and segment in any combination (a
// capsule or segment is a two-vertex polygon with or without radius), by
// SAT plus reference-face clipping.

#include "atoll/distance.h"
#include "atoll/manifold.h"
#include "collision/manifold_internal.h"

namespace atl {
namespace internal {
namespace {

// Prefer A's face as reference unless B's separates by more than this: the
// choice must not flip from step to step on rounding noise, or the feature
// ids (and the warm start) would be lost.
constexpr float kReferenceFaceTolerance = 0.1f * kLinearSlop;
// Faces whose normals are anti-parallel within about 0.25 degrees count as
// parallel: a resting stack must keep its two-point face contacts even
// when rounding tilts one face a little.
constexpr float kParallelCosine = 0.99999f;
// Rounding slack between the SAT separation and a clipped point's.
constexpr float kClipLossTolerance = 0.01f * kLinearSlop;

int32_t Next(int32_t i, int32_t count) { return i + 1 < count ? i + 1 : 0; }

// The face of p1 along which p2 lies farthest out, and that separation:
// max over faces i of min over vertices j of n_i . (v2_j - v1_i). Stops at
// the first face that separates by more than `limit`: the caller then
// drops the pair, and any such face proves it.
float FindMaxSeparation(const Polygon& p1, const Polygon& p2, float limit,
                        int32_t* edge) {
  int32_t best_edge = 0;
  float best = -1.0e30f;
  for (int32_t i = 0; i < p1.count; ++i) {
    const Vec2 n = p1.normals[i];
    const float offset = Dot(n, p1.vertices[i]);
    float s = Dot(n, p2.vertices[0]);
    for (int32_t j = 1; j < p2.count; ++j) s = Min(s, Dot(n, p2.vertices[j]));
    s -= offset;
    if (s > best) {
      best = s;
      best_edge = i;
    }
    if (best > limit) break;
  }
  *edge = best_edge;
  return best;
}

// The edge of `p` joining vertices i and j whose normal points most along
// `direction` (a two-vertex polygon has two such edges).
int32_t EdgeBetween(const Polygon& p, int32_t i, int32_t j, Vec2 direction) {
  int32_t best = -1;
  for (int32_t e = 0; e < p.count; ++e) {
    const int32_t f = Next(e, p.count);
    if (!((e == i && f == j) || (e == j && f == i))) continue;
    if (best < 0 || Dot(p.normals[e], direction) > Dot(p.normals[best], direction)) {
      best = e;
    }
  }
  return best;
}

// Exact closest features of separated cores by GJK: a vertex pair gives one
// point along the vertex-vertex direction; a vertex against a face clips
// against that face. Returns false (leaving *out alone) if GJK finds the
// cores touching after all, which only rounding can cause; the caller then
// keeps its SAT answer.
bool CollideSeparatedCores(const Polygon& a, const Polygon& b,
                           LocalManifold* out) {
  DistanceInput query;
  for (int32_t i = 0; i < a.count; ++i) query.proxy_a.points[i] = a.vertices[i];
  query.proxy_a.count = a.count;
  for (int32_t i = 0; i < b.count; ++i) query.proxy_b.points[i] = b.vertices[i];
  query.proxy_b.count = b.count;
  SimplexCache cache;
  const DistanceOutput d = ShapeDistance(query, &cache);
  if (d.distance <= 0.0f) return false;
  if (cache.count == 2) {
    if (cache.index_a[0] != cache.index_a[1]) {
      const int32_t edge =
          EdgeBetween(a, cache.index_a[0], cache.index_a[1], d.normal);
      if (edge >= 0) {
        *out = ClipAgainstReferenceFace(a, edge, b,
                                        FindIncidentEdge(a.normals[edge], b),
                                        false, /*vertex_fallback=*/true);
        return true;
      }
    } else {
      const int32_t edge =
          EdgeBetween(b, cache.index_b[0], cache.index_b[1], -d.normal);
      if (edge >= 0) {
        *out = ClipAgainstReferenceFace(b, edge, a,
                                        FindIncidentEdge(b.normals[edge], a),
                                        true, /*vertex_fallback=*/true);
        return true;
      }
    }
  }
  // A vertex pair (or a simplex that names no single face): the witness
  // points give the direction.
  *out = VertexContact(d.point_a, d.point_b, d.distance, a.radius, b.radius,
                       MakeFeatureId(FeatureType::kVertex, cache.index_a[0],
                                     FeatureType::kVertex, cache.index_b[0]));
  return true;
}

// The rest of CollidePolygonsLocal once A's faces have been tested (and did
// not separate the pair by more than the margin).
LocalManifold FinishPolygons(const Polygon& a, const Polygon& b,
                             int32_t edge_a, float separation_a) {
  const float radius = a.radius + b.radius;
  const float limit = kSpeculativeDistance + radius;
  int32_t edge_b = 0;
  const float separation_b = FindMaxSeparation(b, a, limit, &edge_b);
  if (separation_b > limit) return {};

  const bool flip = separation_b > separation_a + kReferenceFaceTolerance;
  const Polygon& ref = flip ? b : a;
  const Polygon& inc = flip ? a : b;
  const int32_t ref_edge = flip ? edge_b : edge_a;
  const int32_t inc_edge = FindIncidentEdge(ref.normals[ref_edge], inc);

  const float ref_separation = flip ? separation_b : separation_a;
  if (ref_separation > 0.0f) {
    // Separated cores: the face normal is only right if a face is among the
    // closest features. When the closest points of the reference and
    // incident faces are both vertices (corner against corner, which also
    // rounds the corners of rounded polygons), or the chosen faces are not
    // the closest features at all (the reference-face hysteresis can pick a
    // face that separates slightly less), GJK settles it. Parallel faces of
    // equal extent also report vertex-vertex closest points; they clip.
    const int32_t i11 = ref_edge;
    const int32_t i12 = Next(i11, ref.count);
    const int32_t i21 = inc_edge;
    const int32_t i22 = Next(i21, inc.count);
    const SegmentDistanceResult sd =
        SegmentDistance(ref.vertices[i11], ref.vertices[i12],
                        inc.vertices[i21], inc.vertices[i22]);
    const bool ref_at_vertex = sd.fraction1 == 0.0f || sd.fraction1 == 1.0f;
    const bool inc_at_vertex = sd.fraction2 == 0.0f || sd.fraction2 == 1.0f;
    const bool parallel =
        Dot(ref.normals[ref_edge], inc.normals[inc_edge]) < -kParallelCosine;
    LocalManifold exact;
    if (ref_at_vertex && inc_at_vertex && !parallel &&
        CollideSeparatedCores(a, b, &exact)) {
      return exact;
    }
    // The incident vertex that realizes the separation must survive
    // clipping; if it was clipped away (it lies beside the reference face),
    // the clipped points overstate the gap and the closest features are
    // elsewhere.
    LocalManifold m = ClipAgainstReferenceFace(ref, ref_edge, inc, inc_edge,
                                               flip, /*vertex_fallback=*/true);
    float min_separation = kSpeculativeDistance + 1.0f;
    for (int32_t i = 0; i < m.count; ++i) {
      min_separation = Min(min_separation, m.separations[i]);
    }
    if (min_separation > ref_separation - radius + kClipLossTolerance &&
        CollideSeparatedCores(a, b, &exact)) {
      return exact;
    }
    return m;
  }
  return ClipAgainstReferenceFace(ref, ref_edge, inc, inc_edge, flip,
                                  /*vertex_fallback=*/true);
}

}  // namespace

LocalManifold CollidePolygonsLocal(const Polygon& a, const Polygon& b) {
  const float limit = kSpeculativeDistance + a.radius + b.radius;
  int32_t edge_a = 0;
  const float separation_a = FindMaxSeparation(a, b, limit, &edge_a);
  if (separation_a > limit) return {};
  return FinishPolygons(a, b, edge_a, separation_a);
}

}  // namespace internal

namespace {

// B's polygon in A's frame, then the shared routine. A's faces only need
// B's vertices, so B's normals are moved only when that first test does not
// already separate the pair: most broad-phase pairs end here.
Manifold CollidePolygonsInAFrame(const Polygon& a, const Transform& xf_a,
                                 const Polygon& b, const Transform& xf_b) {
  const Transform xf = InvMulTransforms(xf_a, xf_b);
  Polygon local_b;
  local_b.count = b.count;
  local_b.radius = b.radius;
  for (int32_t i = 0; i < b.count; ++i) {
    local_b.vertices[i] = TransformPoint(xf, b.vertices[i]);
  }
  const float limit = kSpeculativeDistance + a.radius + b.radius;
  int32_t edge_a = 0;
  const float separation_a =
      internal::FindMaxSeparation(a, local_b, limit, &edge_a);
  if (separation_a > limit) return {};
  for (int32_t i = 0; i < b.count; ++i) {
    local_b.normals[i] = RotateVector(xf.q, b.normals[i]);
  }
  local_b.centroid = TransformPoint(xf, b.centroid);
  return internal::ToWorldManifold(
      internal::FinishPolygons(a, local_b, edge_a, separation_a), xf_a, xf_b);
}

}  // namespace

Manifold CollidePolygons(const Polygon& a, const Transform& xf_a,
                         const Polygon& b, const Transform& xf_b) {
  return CollidePolygonsInAFrame(a, xf_a, b, xf_b);
}

Manifold CollideCapsules(const Capsule& a, const Transform& xf_a,
                         const Capsule& b, const Transform& xf_b) {
  return CollidePolygonsInAFrame(
      internal::MakeSegmentPolygon(a.center1, a.center2, a.radius), xf_a,
      internal::MakeSegmentPolygon(b.center1, b.center2, b.radius), xf_b);
}

Manifold CollideSegmentAndCapsule(const Segment& a, const Transform& xf_a,
                                  const Capsule& b, const Transform& xf_b) {
  return CollidePolygonsInAFrame(
      internal::MakeSegmentPolygon(a.point1, a.point2, 0.0f), xf_a,
      internal::MakeSegmentPolygon(b.center1, b.center2, b.radius), xf_b);
}

Manifold CollidePolygonAndCapsule(const Polygon& a, const Transform& xf_a,
                                  const Capsule& b, const Transform& xf_b) {
  return CollidePolygonsInAFrame(
      a, xf_a, internal::MakeSegmentPolygon(b.center1, b.center2, b.radius),
      xf_b);
}

Manifold CollideSegmentAndPolygon(const Segment& a, const Transform& xf_a,
                                  const Polygon& b, const Transform& xf_b) {
  return CollidePolygonsInAFrame(
      internal::MakeSegmentPolygon(a.point1, a.point2, 0.0f), xf_a, b, xf_b);
}

}  // namespace atl
