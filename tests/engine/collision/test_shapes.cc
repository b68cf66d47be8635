#include "test_shapes.h"

#include <algorithm>
#include <cmath>

namespace atl::testing {
namespace {

DVec Sub(DVec a, DVec b) { return {a.x - b.x, a.y - b.y}; }
double Dot(DVec a, DVec b) { return a.x * b.x + a.y * b.y; }
double Cross(DVec a, DVec b) { return a.x * b.y - a.y * b.x; }

double PointSegmentDistance(DVec p, DVec a, DVec b) {
  const DVec e = Sub(b, a);
  const double ee = Dot(e, e);
  double t = ee > 0.0 ? Dot(Sub(p, a), e) / ee : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const DVec q{a.x + t * e.x, a.y + t * e.y};
  return std::hypot(p.x - q.x, p.y - q.y);
}

bool SegmentsIntersect(DVec a, DVec b, DVec c, DVec d) {
  const double d1 = Cross(Sub(b, a), Sub(c, a));
  const double d2 = Cross(Sub(b, a), Sub(d, a));
  const double d3 = Cross(Sub(d, c), Sub(a, c));
  const double d4 = Cross(Sub(d, c), Sub(b, c));
  return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0));
}

double SegmentSegmentDistance(DVec a, DVec b, DVec c, DVec d) {
  if (SegmentsIntersect(a, b, c, d)) return 0.0;
  return std::min({PointSegmentDistance(a, c, d), PointSegmentDistance(b, c, d),
                   PointSegmentDistance(c, a, b), PointSegmentDistance(d, a, b)});
}

// Inside the convex hull (>= 3 ccw points) or on its boundary.
bool InsideHull(const std::vector<DVec>& hull, DVec p) {
  if (hull.size() < 3) return false;
  for (size_t i = 0; i < hull.size(); ++i) {
    const DVec a = hull[i];
    const DVec b = hull[(i + 1) % hull.size()];
    if (Cross(Sub(b, a), Sub(p, a)) < 0.0) return false;
  }
  return true;
}

// Edges of the hull boundary (a point is a zero-length edge).
std::vector<std::pair<DVec, DVec>> Edges(const std::vector<DVec>& pts) {
  std::vector<std::pair<DVec, DVec>> edges;
  if (pts.size() == 1) {
    edges.push_back({pts[0], pts[0]});
  } else if (pts.size() == 2) {
    edges.push_back({pts[0], pts[1]});
  } else {
    for (size_t i = 0; i < pts.size(); ++i) {
      edges.push_back({pts[i], pts[(i + 1) % pts.size()]});
    }
  }
  return edges;
}

}  // namespace

WorldShape ToWorld(const ShapeProxy& proxy, const Transform& xf) {
  WorldShape out;
  out.radius = proxy.radius;
  const double c = xf.q.c, s = xf.q.s;
  for (int i = 0; i < proxy.count; ++i) {
    const double x = proxy.points[i].x, y = proxy.points[i].y;
    out.points.push_back({c * x - s * y + xf.p.x, s * x + c * y + xf.p.y});
  }
  return out;
}

WorldShape ToWorld(const ShapeGeometry& shape, const Transform& xf) {
  return ToWorld(MakeShapeProxy(shape), xf);
}

double CoreDistance(const WorldShape& a, const WorldShape& b) {
  if (InsideHull(a.points, b.points[0]) || InsideHull(b.points, a.points[0])) {
    return 0.0;
  }
  double best = 1e300;
  for (const auto& [p, q] : Edges(a.points)) {
    for (const auto& [r, s] : Edges(b.points)) {
      best = std::min(best, SegmentSegmentDistance(p, q, r, s));
    }
  }
  return best;
}

double SurfaceDistance(const WorldShape& a, const WorldShape& b) {
  return std::max(0.0, CoreDistance(a, b) - a.radius - b.radius);
}

bool Contains(const WorldShape& shape, DVec p) {
  WorldShape point;
  point.points = {p};
  return CoreDistance(shape, point) <= shape.radius;
}

Polygon RandomPolygon(std::mt19937* rng, float size, float radius) {
  std::uniform_int_distribution<int> count(3, 8);
  return RandomPolygonWithCount(rng, count(*rng), size, radius);
}

Polygon RandomPolygonWithCount(std::mt19937* rng, int count, float size,
                               float radius) {
  std::uniform_real_distribution<double> jitter(-0.35, 0.35);
  std::uniform_real_distribution<double> stretch(0.5, 1.0);
  std::uniform_real_distribution<double> offset(-0.3, 0.3);
  for (;;) {
    const double sx = stretch(*rng), sy = stretch(*rng);
    const double ox = offset(*rng) * size, oy = offset(*rng) * size;
    std::vector<Vec2> pts;
    for (int i = 0; i < count; ++i) {
      const double a = 2.0 * M_PI * (i + jitter(*rng)) / count;
      pts.push_back({static_cast<float>(ox + 0.5 * size * sx * std::cos(a)),
                     static_cast<float>(oy + 0.5 * size * sy * std::sin(a))});
    }
    absl::StatusOr<Hull> hull = ComputeHull(pts);
    if (!hull.ok() || hull->count != count) continue;
    absl::StatusOr<Polygon> p = MakePolygon(*hull, radius);
    if (p.ok()) return *p;
  }
}

Transform RandomTransform(std::mt19937* rng, float extent) {
  std::uniform_real_distribution<float> pos(-extent, extent);
  std::uniform_real_distribution<double> angle(-M_PI, M_PI);
  const double a = angle(*rng);
  return {{pos(*rng), pos(*rng)},
          NormalizeRot({static_cast<float>(std::cos(a)),
                        static_cast<float>(std::sin(a))})};
}

ShapeGeometry RandomShape(std::mt19937* rng, ShapeType type, float size) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  const auto point = [&] {
    return Vec2{(unit(*rng) - 0.5f) * size, (unit(*rng) - 0.5f) * size};
  };
  switch (type) {
    case ShapeType::kCircle:
      return ShapeGeometry(Circle{point() * 0.3f, (0.2f + 0.3f * unit(*rng)) * size});
    case ShapeType::kCapsule: {
      const Vec2 a = point();
      Vec2 b = point();
      if (Distance(a, b) < 0.2f * size) b = a + Vec2{0.3f * size, 0.1f * size};
      return ShapeGeometry(Capsule{a, b, (0.05f + 0.2f * unit(*rng)) * size});
    }
    case ShapeType::kSegment: {
      const Vec2 a = point();
      Vec2 b = point();
      if (Distance(a, b) < 0.2f * size) b = a + Vec2{0.3f * size, 0.1f * size};
      return ShapeGeometry(Segment{a, b});
    }
    case ShapeType::kPolygon: {
      const float radius = unit(*rng) < 0.5f ? 0.0f : 0.1f * size * unit(*rng);
      return ShapeGeometry(RandomPolygon(rng, size, radius));
    }
    case ShapeType::kChainSegment: {
      const Vec2 a = point();
      Vec2 b = point();
      if (Distance(a, b) < 0.2f * size) b = a + Vec2{0.3f * size, 0.1f * size};
      // Ghosts continue the segment straight: a smooth chain.
      return ShapeGeometry(ChainSegment{a - (b - a), {a, b}, b + (b - a)});
    }
  }
  return ShapeGeometry();
}

const char* TypeName(ShapeType type) {
  switch (type) {
    case ShapeType::kCircle:
      return "circle";
    case ShapeType::kCapsule:
      return "capsule";
    case ShapeType::kSegment:
      return "segment";
    case ShapeType::kPolygon:
      return "polygon";
    case ShapeType::kChainSegment:
      return "chain_segment";
  }
  return "unknown";
}

}  // namespace atl::testing
