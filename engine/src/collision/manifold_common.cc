// Narrow-phase building blocks: local-to-world conversion, segment
// polygons, reference-face clipping and single vertex contacts.

#include "atoll/assert.h"
#include "atoll/distance.h"
#include "collision/manifold_internal.h"

namespace atl::internal {
namespace {

// Two clip points closer than this are one point: keeping both would give
// the solver two identical constraints.
constexpr float kMergeDistance = 0.1f * kLinearSlop;

int32_t Next(int32_t i, int32_t count) { return i + 1 < count ? i + 1 : 0; }

}  // namespace

Manifold ToWorldManifold(const LocalManifold& local, const Transform& xf_a,
                         const Transform& xf_b) {
  Manifold m;
  m.point_count = local.count;
  m.normal = RotateVector(xf_a.q, local.normal);
  const Vec2 origin_shift = xf_a.p - xf_b.p;
  for (int32_t i = 0; i < local.count; ++i) {
    ManifoldPoint& mp = m.points[i];
    // Anchors are rotated local offsets, so they keep full precision even
    // when the bodies are far from the world origin.
    mp.anchor_a = RotateVector(xf_a.q, local.points[i]);
    mp.anchor_b = mp.anchor_a + origin_shift;
    mp.point = xf_a.p + mp.anchor_a;
    mp.separation = local.separations[i];
    mp.id = local.ids[i];
  }
  return m;
}

Polygon MakeSegmentPolygon(Vec2 p1, Vec2 p2, float radius) {
  Polygon p;
  p.count = 2;
  p.vertices[0] = p1;
  p.vertices[1] = p2;
  p.normals[0] = Normalize(RightPerp(p2 - p1));
  p.normals[1] = -p.normals[0];
  p.centroid = Lerp(p1, p2, 0.5f);
  p.radius = radius;
  return p;
}

Polygon TransformPolygon(const Transform& xf, const Polygon& polygon) {
  Polygon out;
  out.count = polygon.count;
  out.radius = polygon.radius;
  for (int32_t i = 0; i < polygon.count; ++i) {
    out.vertices[i] = TransformPoint(xf, polygon.vertices[i]);
    out.normals[i] = RotateVector(xf.q, polygon.normals[i]);
  }
  out.centroid = TransformPoint(xf, polygon.centroid);
  return out;
}

int32_t FindIncidentEdge(Vec2 normal, const Polygon& polygon) {
  int32_t best = 0;
  float best_dot = Dot(normal, polygon.normals[0]);
  for (int32_t i = 1; i < polygon.count; ++i) {
    const float d = Dot(normal, polygon.normals[i]);
    if (d < best_dot) {
      best_dot = d;
      best = i;
    }
  }
  return best;
}

LocalManifold VertexContact(Vec2 pa, Vec2 pb, float distance, float radius_a,
                            float radius_b, uint32_t id) {
  LocalManifold m;
  const float separation = distance - radius_a - radius_b;
  if (separation > kSpeculativeDistance || distance <= 0.0f) return m;
  const Vec2 normal = (1.0f / distance) * (pb - pa);
  const Vec2 surface_a = MulAdd(pa, radius_a, normal);
  const Vec2 surface_b = MulSub(pb, radius_b, normal);
  m.normal = normal;
  m.points[0] = Lerp(surface_a, surface_b, 0.5f);
  m.separations[0] = separation;
  m.ids[0] = id;
  m.count = 1;
  return m;
}

LocalManifold ClipAgainstReferenceFace(const Polygon& ref, int32_t ref_edge,
                                       const Polygon& inc, int32_t inc_edge,
                                       bool flip, bool vertex_fallback) {
  const int32_t i11 = ref_edge;
  const int32_t i12 = Next(i11, ref.count);
  const int32_t i21 = inc_edge;
  const int32_t i22 = Next(i21, inc.count);
  const Vec2 v11 = ref.vertices[i11];
  const Vec2 v12 = ref.vertices[i12];
  const Vec2 v21 = inc.vertices[i21];
  const Vec2 v22 = inc.vertices[i22];
  const Vec2 n = ref.normals[i11];
  const float radius = ref.radius + inc.radius;

  const auto make_id = [&](int32_t inc_vertex) {
    return flip ? MakeFeatureId(FeatureType::kVertex, inc_vertex,
                                FeatureType::kFace, ref_edge)
                : MakeFeatureId(FeatureType::kFace, ref_edge,
                                FeatureType::kVertex, inc_vertex);
  };

  // Coordinates along the reference face: t runs from v11 to v12 (the
  // face's outward normal is RightPerp(t)).
  const Vec2 t = LeftPerp(n);
  const float face_length = Dot(v12 - v11, t);
  const float s21 = Dot(v21 - v11, t);
  const float s22 = Dot(v22 - v11, t);

  // The part of the incident face, as a parameter u in [0, 1] from v21 to
  // v22, that projects onto the reference face.
  float u_lo = 0.0f;
  float u_hi = 1.0f;
  const float ds = s22 - s21;
  if (ds != 0.0f) {
    const float u0 = -s21 / ds;
    const float u1 = (face_length - s21) / ds;
    u_lo = Max(u_lo, Min(u0, u1));
    u_hi = Min(u_hi, Max(u0, u1));
  } else if (s21 < 0.0f || s21 > face_length) {
    u_lo = 1.0f;
    u_hi = 0.0f;
  }

  LocalManifold m;
  if (u_lo > u_hi) {
    if (!vertex_fallback) return m;
    // No overlap: fall back to the faces' closest points.
    const SegmentDistanceResult sd = SegmentDistance(v11, v12, v21, v22);
    const int32_t inc_vertex = sd.fraction2 < 0.5f ? i21 : i22;
    const float distance = Sqrt(sd.distance_squared);
    if (distance > kMergeDistance) {
      m = VertexContact(sd.closest1, sd.closest2, distance, ref.radius,
                        inc.radius, make_id(inc_vertex));
      if (flip) m.normal = -m.normal;
      return m;
    }
    u_lo = u_hi = sd.fraction2;
  }

  m.normal = flip ? -n : n;
  const Vec2 e2 = v22 - v21;
  const float us[2] = {u_lo, u_hi};
  const int32_t vertices[2] = {i21, i22};
  for (int32_t k = 0; k < 2; ++k) {
    // Exact endpoints when unclipped, so a resting point does not jitter.
    const Vec2 p = us[k] == 0.0f   ? v21
                   : us[k] == 1.0f ? v22
                                   : MulAdd(v21, us[k], e2);
    const float core_separation = Dot(p - v11, n);
    const float separation = core_separation - radius;
    if (separation > kSpeculativeDistance) continue;
    // Midway between the reference surface (p projected onto the face,
    // pushed out by ref.radius) and the incident surface (p pulled in by
    // inc.radius).
    const Vec2 point =
        MulAdd(p, 0.5f * (ref.radius - inc.radius - core_separation), n);
    int32_t slot = m.count;
    if (m.count == 1 &&
        DistanceSquared(point, m.points[0]) < kMergeDistance * kMergeDistance) {
      // Same point twice (a clipped sliver): keep the deeper one.
      if (separation >= m.separations[0]) continue;
      slot = 0;
    } else {
      ++m.count;
    }
    m.points[slot] = point;
    m.separations[slot] = separation;
    m.ids[slot] = make_id(vertices[k]);
  }
  return m;
}

}  // namespace atl::internal
