// Chain segments (shape A) against circles, capsules and polygons:
// one-sided collision that uses the ghost vertices to avoid ghost
// collisions.
//
// A body sliding along a chain touches two segments near every joint. Seen
// from the segment it is leaving, the body's leading corner or side face
// sits just past the segment's end, and a two-sided test would report a
// contact with a sideways normal there: the body snags on a joint of a
// perfectly flat floor. The ghost vertices tell each segment what its
// neighbours look like, so it can restrict itself to the normals it owns:
//
//  * at a smooth or concave joint, only the segment's own face normal; a
//    body that is closest to the joint along any other direction is the
//    neighbour's business (at a concave joint, the neighbour's face blocks
//    it anyway);
//  * at a convex corner, the whole range from the neighbour's face normal
//    to its own, so a body can rest on or roll over the corner.
//
// Bodies whose reference point (circle center, polygon centroid) lies
// behind the segment are ignored: that is what one-sided means, and it lets
// a body pass through a chain from behind.

#include "atoll/distance.h"
#include "atoll/manifold.h"
#include "collision/manifold_internal.h"

namespace atl {
namespace {

using internal::LocalManifold;

// Normals within this sine of the segment normal count as the face normal.
// This absorbs rounding in GJK's normal near a joint, so that both
// segments at a flat joint agree on a face contact instead of one of them
// reporting a slightly tilted vertex normal (a tiny bump).
constexpr float kFaceAngleTolerance = 0.005f;
constexpr float kReferenceFaceTolerance = 0.1f * kLinearSlop;

// The segment, its normal and the range of normals it may report, in A's
// frame.
struct ChainFrame {
  Vec2 v1;
  Vec2 v2;
  Vec2 n;       // face normal: RightPerp(v2 - v1), normalized
  Vec2 limit1;  // normal range at v1: from limit1 to n
  Vec2 limit2;  // normal range at v2: from n to limit2
};

ChainFrame MakeChainFrame(const ChainSegment& chain) {
  ChainFrame f;
  f.v1 = chain.segment.point1;
  f.v2 = chain.segment.point2;
  const Vec2 e = f.v2 - f.v1;
  f.n = Normalize(RightPerp(e));
  const Vec2 e0 = f.v1 - chain.ghost1;
  const Vec2 e2 = chain.ghost2 - f.v2;
  // Turning right (cross > 0 with the collision side on the right) bends
  // the chain away from the colliding body: a convex corner.
  f.limit1 = Cross(e0, e) > 0.0f ? Normalize(RightPerp(e0)) : f.n;
  f.limit2 = Cross(e, e2) > 0.0f ? Normalize(RightPerp(e2)) : f.n;
  return f;
}

// m in the rotation range from `from` counter-clockwise to `to` (less than
// a half turn apart, possibly equal), with a small tolerance.
bool InRange(Vec2 from, Vec2 to, Vec2 m) {
  return Cross(from, m) >= -kFaceAngleTolerance &&
         Cross(m, to) >= -kFaceAngleTolerance &&
         (Dot(m, from) > 0.0f || Dot(m, to) > 0.0f);
}

bool AllowedAtStart(const ChainFrame& f, Vec2 m) {
  return InRange(f.limit1, f.n, m);
}
bool AllowedAtEnd(const ChainFrame& f, Vec2 m) {
  return InRange(f.n, f.limit2, m);
}
bool Allowed(const ChainFrame& f, Vec2 m) {
  return AllowedAtStart(f, m) || AllowedAtEnd(f, m);
}
bool IsFaceNormal(const ChainFrame& f, Vec2 m) {
  return Dot(m, f.n) > 0.0f && Abs(Cross(m, f.n)) <= kFaceAngleTolerance;
}

// Chain segment against a polygon (or a capsule as a two-vertex polygon)
// already moved into the segment's frame.
LocalManifold ChainSegmentAndPolygonLocal(const ChainSegment& chain,
                                          const Polygon& b) {
  const ChainFrame f = MakeChainFrame(chain);
  if (Dot(b.centroid - f.v1, f.n) < 0.0f) return {};

  // Cheap rejection before GJK: the whole polygon is farther than the
  // margin in front of the segment's line.
  float line_separation = Dot(f.n, b.vertices[0] - f.v1);
  for (int32_t j = 1; j < b.count; ++j) {
    line_separation = Min(line_separation, Dot(f.n, b.vertices[j] - f.v1));
  }
  if (line_separation > kSpeculativeDistance + b.radius) return {};

  const Polygon segment = internal::MakeSegmentPolygon(f.v1, f.v2, 0.0f);

  // The closest features between the segment and the polygon's core.
  DistanceInput query;
  query.proxy_a.points[0] = f.v1;
  query.proxy_a.points[1] = f.v2;
  query.proxy_a.count = 2;
  for (int32_t i = 0; i < b.count; ++i) query.proxy_b.points[i] = b.vertices[i];
  query.proxy_b.count = b.count;
  const DistanceOutput d = ShapeDistance(query, nullptr);
  if (d.distance > kSpeculativeDistance + b.radius) return {};

  if (d.distance > kReferenceFaceTolerance) {
    const Vec2 m = d.normal;
    // Where the closest point lies on the segment; GJK's barycentric
    // witness can miss a vertex by a few ulps, hence the relative slack.
    const Vec2 e = f.v2 - f.v1;
    const float along = Dot(d.point_a - f.v1, e);
    const float ee = Dot(e, e);
    const bool at_start = along <= 1.0e-5f * ee;
    const bool at_end = along >= (1.0f - 1.0e-5f) * ee;
    if (IsFaceNormal(f, m) || (!at_start && !at_end)) {
      return internal::ClipAgainstReferenceFace(
          segment, 0, b, internal::FindIncidentEdge(f.n, b), false,
          /*vertex_fallback=*/false);
    }
    if ((at_start && !AllowedAtStart(f, m)) || (at_end && !AllowedAtEnd(f, m))) {
      return {};  // the neighbouring segment owns this direction
    }
    // A corner contact. If a face of the polygon is what touches the
    // corner, clip the segment against that face for a stable manifold.
    const int32_t face = internal::FindIncidentEdge(m, b);
    if (Dot(b.normals[face], m) < -1.0f + 0.5f * kFaceAngleTolerance *
                                               kFaceAngleTolerance) {
      return internal::ClipAgainstReferenceFace(
          b, face, segment, internal::FindIncidentEdge(b.normals[face], segment),
          true, /*vertex_fallback=*/false);
    }
    int32_t vertex = 0;
    for (int32_t i = 1; i < b.count; ++i) {
      if (DistanceSquared(b.vertices[i], d.point_b) <
          DistanceSquared(b.vertices[vertex], d.point_b)) {
        vertex = i;
      }
    }
    return internal::VertexContact(
        d.point_a, d.point_b, d.distance, 0.0f, b.radius,
        MakeFeatureId(FeatureType::kVertex, at_start ? 0 : 1,
                      FeatureType::kVertex, vertex));
  }

  // Overlapping cores: SAT restricted to the normals this segment may
  // report. The segment's own face is always one of them.
  const float segment_separation = line_separation;
  int32_t best_face = -1;
  float best_separation = -1.0e30f;
  for (int32_t k = 0; k < b.count; ++k) {
    const Vec2 nk = b.normals[k];
    if (!Allowed(f, -nk)) continue;
    const float s = Min(Dot(nk, f.v1 - b.vertices[k]), Dot(nk, f.v2 - b.vertices[k]));
    if (s > best_separation) {
      best_separation = s;
      best_face = k;
    }
  }
  if (best_face >= 0 &&
      best_separation > segment_separation + kReferenceFaceTolerance) {
    return internal::ClipAgainstReferenceFace(
        b, best_face, segment,
        internal::FindIncidentEdge(b.normals[best_face], segment), true,
        /*vertex_fallback=*/false);
  }
  return internal::ClipAgainstReferenceFace(
      segment, 0, b, internal::FindIncidentEdge(f.n, b), false,
          /*vertex_fallback=*/false);
}

}  // namespace

Manifold CollideChainSegmentAndCircle(const ChainSegment& a,
                                      const Transform& xf_a, const Circle& b,
                                      const Transform& xf_b) {
  const ChainFrame f = MakeChainFrame(a);
  const Vec2 c = TransformPoint(InvMulTransforms(xf_a, xf_b), b.center);
  const float height = Dot(c - f.v1, f.n);
  if (height < 0.0f) return {};

  const Vec2 e = f.v2 - f.v1;
  const float u = Dot(c - f.v1, e);
  Vec2 closest;
  Vec2 normal = f.n;
  float distance = height;
  uint32_t id = MakeFeatureId(FeatureType::kFace, 0, FeatureType::kVertex, 0);
  if (u <= 0.0f || u >= Dot(e, e)) {
    const bool at_start = u <= 0.0f;
    const Vec2 vertex = at_start ? f.v1 : f.v2;
    float length = 0.0f;
    const Vec2 m = GetLengthAndNormalize(&length, c - vertex);
    if (length > 0.0f && !IsFaceNormal(f, m)) {
      if (at_start ? !AllowedAtStart(f, m) : !AllowedAtEnd(f, m)) return {};
      normal = m;
      distance = length;
      closest = vertex;
      id = MakeFeatureId(FeatureType::kVertex, at_start ? 0 : 1,
                         FeatureType::kVertex, 0);
    } else {
      // Straight above the joint: a face contact, agreeing with the
      // neighbour's.
      closest = MulSub(c, height, f.n);
    }
  } else {
    closest = MulSub(c, height, f.n);
  }
  LocalManifold m;
  const float separation = distance - b.radius;
  if (separation > kSpeculativeDistance) return {};
  m.normal = normal;
  m.points[0] = Lerp(closest, MulSub(c, b.radius, normal), 0.5f);
  m.separations[0] = separation;
  m.ids[0] = id;
  m.count = 1;
  return internal::ToWorldManifold(m, xf_a, xf_b);
}

Manifold CollideChainSegmentAndCapsule(const ChainSegment& a,
                                       const Transform& xf_a, const Capsule& b,
                                       const Transform& xf_b) {
  const Transform xf = InvMulTransforms(xf_a, xf_b);
  const Polygon local_b = internal::MakeSegmentPolygon(
      TransformPoint(xf, b.center1), TransformPoint(xf, b.center2), b.radius);
  return internal::ToWorldManifold(ChainSegmentAndPolygonLocal(a, local_b),
                                   xf_a, xf_b);
}

Manifold CollideChainSegmentAndPolygon(const ChainSegment& a,
                                       const Transform& xf_a, const Polygon& b,
                                       const Transform& xf_b) {
  const Polygon local_b =
      internal::TransformPolygon(InvMulTransforms(xf_a, xf_b), b);
  return internal::ToWorldManifold(ChainSegmentAndPolygonLocal(a, local_b),
                                   xf_a, xf_b);
}

}  // namespace atl
