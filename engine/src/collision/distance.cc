// GJK distance between convex proxies, and segment-segment distance.
//
// GJK searches the Minkowski difference B - A for the point closest to the
// origin, keeping a simplex of up to three support points. Everything runs
// in A's local frame (B's points are moved there once): the result then
// does not depend on how far the pair is from the world origin, which keeps
// contacts far from the origin as precise as contacts near it.

#include "atoll/distance.h"

#include "atoll/assert.h"

namespace atl {
namespace {

constexpr int32_t kMaxGjkIterations = 20;

struct SimplexVertex {
  Vec2 wa;  // support point on A
  Vec2 wb;  // support point on B
  Vec2 w;   // wb - wa
  float a;  // barycentric weight in the closest point
  int32_t ia;
  int32_t ib;
};

struct Simplex {
  SimplexVertex v[3];
  int32_t count;
};

int32_t Support(const Vec2* points, int32_t count, Vec2 d) {
  int32_t best = 0;
  float best_dot = Dot(points[0], d);
  for (int32_t i = 1; i < count; ++i) {
    const float value = Dot(points[i], d);
    if (value > best_dot) {
      best = i;
      best_dot = value;
    }
  }
  return best;
}

SimplexVertex MakeVertex(const Vec2* a, int32_t ia, const Vec2* b,
                         int32_t ib) {
  return {a[ia], b[ib], b[ib] - a[ia], 1.0f, ia, ib};
}

// Keeps the sub-simplex of the segment w1-w2 that contains the point
// closest to the origin, with its barycentric weights.
void Solve2(Simplex* s) {
  const Vec2 w1 = s->v[0].w;
  const Vec2 w2 = s->v[1].w;
  const Vec2 e12 = w2 - w1;
  // Weights of w1 and w2 before normalization: how far the origin's
  // projection lies past the opposite end.
  const float d12_1 = Dot(w2, e12);
  const float d12_2 = -Dot(w1, e12);
  if (d12_2 <= 0.0f) {
    s->v[0].a = 1.0f;
    s->count = 1;
    return;
  }
  if (d12_1 <= 0.0f) {
    s->v[1].a = 1.0f;
    s->v[0] = s->v[1];
    s->count = 1;
    return;
  }
  const float inv = 1.0f / (d12_1 + d12_2);
  s->v[0].a = d12_1 * inv;
  s->v[1].a = d12_2 * inv;
  s->count = 2;
}

// The same for the triangle w1-w2-w3: test the vertex regions, then the edge
// regions (where the signed area of the origin with the edge has the wrong
// sign), else the origin is inside.
void Solve3(Simplex* s) {
  const Vec2 w1 = s->v[0].w;
  const Vec2 w2 = s->v[1].w;
  const Vec2 w3 = s->v[2].w;

  const Vec2 e12 = w2 - w1;
  const float d12_1 = Dot(w2, e12);
  const float d12_2 = -Dot(w1, e12);
  const Vec2 e13 = w3 - w1;
  const float d13_1 = Dot(w3, e13);
  const float d13_2 = -Dot(w1, e13);
  const Vec2 e23 = w3 - w2;
  const float d23_1 = Dot(w3, e23);
  const float d23_2 = -Dot(w2, e23);

  // Signed areas of the sub-triangles with the origin, oriented like the
  // whole triangle.
  const float n123 = Cross(e12, e13);
  const float d123_1 = n123 * Cross(w2, w3);
  const float d123_2 = n123 * Cross(w3, w1);
  const float d123_3 = n123 * Cross(w1, w2);

  if (d12_2 <= 0.0f && d13_2 <= 0.0f) {
    s->v[0].a = 1.0f;
    s->count = 1;
    return;
  }
  if (d12_1 > 0.0f && d12_2 > 0.0f && d123_3 <= 0.0f) {
    const float inv = 1.0f / (d12_1 + d12_2);
    s->v[0].a = d12_1 * inv;
    s->v[1].a = d12_2 * inv;
    s->count = 2;
    return;
  }
  if (d13_1 > 0.0f && d13_2 > 0.0f && d123_2 <= 0.0f) {
    const float inv = 1.0f / (d13_1 + d13_2);
    s->v[0].a = d13_1 * inv;
    s->v[2].a = d13_2 * inv;
    s->v[1] = s->v[2];
    s->count = 2;
    return;
  }
  if (d12_1 <= 0.0f && d23_2 <= 0.0f) {
    s->v[1].a = 1.0f;
    s->v[0] = s->v[1];
    s->count = 1;
    return;
  }
  if (d13_1 <= 0.0f && d23_1 <= 0.0f) {
    s->v[2].a = 1.0f;
    s->v[0] = s->v[2];
    s->count = 1;
    return;
  }
  if (d23_1 > 0.0f && d23_2 > 0.0f && d123_1 <= 0.0f) {
    const float inv = 1.0f / (d23_1 + d23_2);
    s->v[1].a = d23_1 * inv;
    s->v[2].a = d23_2 * inv;
    s->v[0] = s->v[2];
    s->count = 2;
    return;
  }
  const float inv = 1.0f / (d123_1 + d123_2 + d123_3);
  s->v[0].a = d123_1 * inv;
  s->v[1].a = d123_2 * inv;
  s->v[2].a = d123_3 * inv;
  s->count = 3;
}

// Direction from the simplex toward the origin. For an edge the exact
// perpendicular is used instead of -closest_point, which loses all its
// digits when the origin is close to the edge.
Vec2 SearchDirection(const Simplex& s) {
  if (s.count == 1) return -s.v[0].w;
  const Vec2 e12 = s.v[1].w - s.v[0].w;
  const float side = Cross(e12, -s.v[0].w);
  return side > 0.0f ? LeftPerp(e12) : RightPerp(e12);
}

void WitnessPoints(const Simplex& s, Vec2* a, Vec2* b) {
  switch (s.count) {
    case 1:
      *a = s.v[0].wa;
      *b = s.v[0].wb;
      return;
    case 2:
      *a = s.v[0].a * s.v[0].wa + s.v[1].a * s.v[1].wa;
      *b = s.v[0].a * s.v[0].wb + s.v[1].a * s.v[1].wb;
      return;
    default:
      *a = s.v[0].a * s.v[0].wa + s.v[1].a * s.v[1].wa + s.v[2].a * s.v[2].wa;
      *b = *a;
      return;
  }
}

// Rebuilds the simplex from a cache, falling back to a single vertex when
// the cache does not fit these proxies or its simplex has collapsed.
Simplex ReadCache(const SimplexCache* cache, const Vec2* a, int32_t count_a,
                  const Vec2* b, int32_t count_b) {
  Simplex s;
  s.count = 0;
  if (cache != nullptr && cache->count >= 1 && cache->count <= 3) {
    bool fits = true;
    for (int32_t i = 0; i < cache->count; ++i) {
      fits = fits && cache->index_a[i] < count_a && cache->index_b[i] < count_b;
    }
    if (fits) {
      s.count = cache->count;
      for (int32_t i = 0; i < s.count; ++i) {
        s.v[i] = MakeVertex(a, cache->index_a[i], b, cache->index_b[i]);
      }
      if (s.count == 2 &&
          LengthSquared(s.v[1].w - s.v[0].w) < kNormalizeEpsilon) {
        s.count = 1;
      }
      if (s.count == 3 &&
          Abs(Cross(s.v[1].w - s.v[0].w, s.v[2].w - s.v[0].w)) <
              kNormalizeEpsilon) {
        s.count = 1;
      }
    }
  }
  if (s.count == 0) {
    s.v[0] = MakeVertex(a, 0, b, 0);
    s.count = 1;
  }
  return s;
}

}  // namespace

ShapeProxy MakeProxy(std::span<const Vec2> points, float radius) {
  ATOLL_ASSERT(!points.empty() &&
               points.size() <= static_cast<size_t>(kMaxPolygonVertices));
  ATOLL_ASSERT(radius >= 0.0f);
  ShapeProxy proxy;
  proxy.count = static_cast<int32_t>(points.size());
  for (size_t i = 0; i < points.size(); ++i) proxy.points[i] = points[i];
  proxy.radius = radius;
  return proxy;
}

ShapeProxy MakeShapeProxy(const ShapeGeometry& shape) {
  ShapeProxy proxy;
  switch (shape.type) {
    case ShapeType::kCircle:
      proxy.points[0] = shape.circle.center;
      proxy.count = 1;
      proxy.radius = shape.circle.radius;
      break;
    case ShapeType::kCapsule:
      proxy.points[0] = shape.capsule.center1;
      proxy.points[1] = shape.capsule.center2;
      proxy.count = 2;
      proxy.radius = shape.capsule.radius;
      break;
    case ShapeType::kSegment:
      proxy.points[0] = shape.segment.point1;
      proxy.points[1] = shape.segment.point2;
      proxy.count = 2;
      break;
    case ShapeType::kChainSegment:
      proxy.points[0] = shape.chain_segment.segment.point1;
      proxy.points[1] = shape.chain_segment.segment.point2;
      proxy.count = 2;
      break;
    case ShapeType::kPolygon:
      for (int32_t i = 0; i < shape.polygon.count; ++i) {
        proxy.points[i] = shape.polygon.vertices[i];
      }
      proxy.count = shape.polygon.count;
      proxy.radius = shape.polygon.radius;
      break;
  }
  return proxy;
}

DistanceOutput ShapeDistance(const DistanceInput& input, SimplexCache* cache) {
  const ShapeProxy& pa = input.proxy_a;
  const ShapeProxy& pb = input.proxy_b;
  ATOLL_ASSERT(pa.count >= 1 && pa.count <= kMaxPolygonVertices);
  ATOLL_ASSERT(pb.count >= 1 && pb.count <= kMaxPolygonVertices);

  const Transform xf = InvMulTransforms(input.transform_a, input.transform_b);
  const Vec2* a = pa.points;
  Vec2 b[kMaxPolygonVertices];
  for (int32_t i = 0; i < pb.count; ++i) b[i] = TransformPoint(xf, pb.points[i]);

  Simplex s = ReadCache(cache, a, pa.count, b, pb.count);

  int32_t iterations = 0;
  while (iterations < kMaxGjkIterations) {
    // Remember the vertices before reduction: a new support point equal to
    // one of them means no progress is possible.
    int32_t saved_a[3], saved_b[3];
    const int32_t saved_count = s.count;
    for (int32_t i = 0; i < saved_count; ++i) {
      saved_a[i] = s.v[i].ia;
      saved_b[i] = s.v[i].ib;
    }

    if (s.count == 2) {
      Solve2(&s);
    } else if (s.count == 3) {
      Solve3(&s);
    }
    if (s.count == 3) break;  // the origin is inside: overlap

    const Vec2 d = SearchDirection(s);
    // The origin is on the simplex (touching or overlapping cores).
    if (LengthSquared(d) < kNormalizeEpsilon * kNormalizeEpsilon) break;

    const int32_t ia = Support(a, pa.count, -d);
    const int32_t ib = Support(b, pb.count, d);
    ++iterations;

    bool duplicate = false;
    for (int32_t i = 0; i < saved_count; ++i) {
      if (saved_a[i] == ia && saved_b[i] == ib) {
        duplicate = true;
        break;
      }
    }
    if (duplicate) break;

    s.v[s.count] = MakeVertex(a, ia, b, ib);
    ++s.count;
  }

  Vec2 local_a, local_b;
  WitnessPoints(s, &local_a, &local_b);
  float distance = 0.0f;
  Vec2 normal = GetLengthAndNormalize(&distance, local_b - local_a);
  if (s.count == 3) {
    distance = 0.0f;
    normal = {0.0f, 0.0f};
  }

  if (cache != nullptr) {
    cache->count = static_cast<uint16_t>(s.count);
    for (int32_t i = 0; i < s.count; ++i) {
      cache->index_a[i] = static_cast<uint8_t>(s.v[i].ia);
      cache->index_b[i] = static_cast<uint8_t>(s.v[i].ib);
    }
  }

  if (input.use_radii) {
    const float radius = pa.radius + pb.radius;
    if (distance > radius) {
      distance -= radius;
      local_a = MulAdd(local_a, pa.radius, normal);
      local_b = MulSub(local_b, pb.radius, normal);
    } else {
      const Vec2 mid = Lerp(local_a, local_b, 0.5f);
      local_a = mid;
      local_b = mid;
      distance = 0.0f;
    }
  }

  DistanceOutput out;
  out.point_a = TransformPoint(input.transform_a, local_a);
  out.point_b = TransformPoint(input.transform_a, local_b);
  out.normal = RotateVector(input.transform_a.q, normal);
  out.distance = distance;
  out.iterations = iterations;
  out.simplex_count = s.count;
  return out;
}

SegmentDistanceResult SegmentDistance(Vec2 p1, Vec2 q1, Vec2 p2, Vec2 q2) {
  // Minimize |(p1 + s d1) - (p2 + t d2)|^2 over s, t in [0, 1]: solve the
  // unconstrained 2x2 normal equations for s, clamp, recompute t for that s,
  // and if t had to be clamped recompute s for the clamped t.
  const Vec2 d1 = q1 - p1;
  const Vec2 d2 = q2 - p2;
  const Vec2 r = p1 - p2;
  const float dd1 = Dot(d1, d1);
  const float dd2 = Dot(d2, d2);
  const float rd1 = Dot(r, d1);
  const float rd2 = Dot(r, d2);
  constexpr float kEpsSq = kNormalizeEpsilon * kNormalizeEpsilon;

  float s = 0.0f;
  float t = 0.0f;
  if (dd1 < kEpsSq || dd2 < kEpsSq) {
    if (dd1 >= kEpsSq) s = Clamp(-rd1 / dd1, 0.0f, 1.0f);
    if (dd2 >= kEpsSq) t = Clamp(rd2 / dd2, 0.0f, 1.0f);
  } else {
    const float d12 = Dot(d1, d2);
    const float denom = dd1 * dd2 - d12 * d12;
    // Parallel (or nearly): any s works; take the start of segment 1 and let
    // the clamping below settle it.
    s = denom > 0.0f ? Clamp((d12 * rd2 - rd1 * dd2) / denom, 0.0f, 1.0f)
                     : 0.0f;
    t = (d12 * s + rd2) / dd2;
    if (t < 0.0f) {
      t = 0.0f;
      s = Clamp(-rd1 / dd1, 0.0f, 1.0f);
    } else if (t > 1.0f) {
      t = 1.0f;
      s = Clamp((d12 - rd1) / dd1, 0.0f, 1.0f);
    }
  }
  SegmentDistanceResult out;
  out.fraction1 = s;
  out.fraction2 = t;
  out.closest1 = MulAdd(p1, s, d1);
  out.closest2 = MulAdd(p2, t, d2);
  out.distance_squared = DistanceSquared(out.closest1, out.closest2);
  return out;
}

}  // namespace atl
