// Mass properties against closed forms (circle, box, capsule, rounded box)
// and against numerical integration on a grid (rounded polygons).

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "atoll/geometry.h"

namespace atl {
namespace {

constexpr double kRelTol = 1e-5;

void ExpectRelNear(double actual, double expected, double rel, const char* what) {
  EXPECT_NEAR(actual, expected, rel * std::fabs(expected)) << what;
}

TEST(MassTest, CircleMatchesClosedForm) {
  const double density = 2.5, r = 0.75;
  const MassData m =
      ComputeShapeMass(ShapeGeometry(Circle{{1.0f, -2.0f}, 0.75f}), 2.5f);
  const double mass = density * M_PI * r * r;
  ExpectRelNear(m.mass, mass, kRelTol, "mass");
  ExpectRelNear(m.rotational_inertia, 0.5 * mass * r * r, kRelTol, "inertia");
  EXPECT_EQ(m.center, (Vec2{1.0f, -2.0f}));
}

TEST(MassTest, BoxMatchesClosedForm) {
  const double density = 3.0, hx = 2.0, hy = 0.5;
  const MassData m = ComputeShapeMass(ShapeGeometry(*MakeBox(2.0f, 0.5f)), 3.0f);
  const double mass = density * 4.0 * hx * hy;
  ExpectRelNear(m.mass, mass, kRelTol, "mass");
  // Rectangle w x h about its center: m (w^2 + h^2) / 12.
  ExpectRelNear(m.rotational_inertia,
                mass * (4 * hx * hx + 4 * hy * hy) / 12.0, kRelTol, "inertia");
  EXPECT_NEAR(m.center.x, 0.0f, 1e-6f);
  EXPECT_NEAR(m.center.y, 0.0f, 1e-6f);
}

TEST(MassTest, OffsetBoxHasSameInertiaAboutItsCenter) {
  const MassData centered =
      ComputeShapeMass(ShapeGeometry(*MakeBox(1.0f, 0.25f)), 1.0f);
  const MassData offset = ComputeShapeMass(
      ShapeGeometry(*MakeOffsetBox(1.0f, 0.25f, {40.0f, -30.0f}, 1.1f)), 1.0f);
  ExpectRelNear(offset.mass, centered.mass, kRelTol, "mass");
  ExpectRelNear(offset.rotational_inertia, centered.rotational_inertia,
                kRelTol, "inertia");
  EXPECT_NEAR(offset.center.x, 40.0f, 1e-4f);
  EXPECT_NEAR(offset.center.y, -30.0f, 1e-4f);
}

TEST(MassTest, TriangleMatchesClosedForm) {
  // Right triangle with legs a (x) and b (y): I about the centroid is
  // m (a^2 + b^2) / 18.
  const std::vector<Vec2> points = {{0, 0}, {3, 0}, {0, 2}};
  const Polygon tri = *MakePolygon(*ComputeHull(points), 0.0f);
  const MassData m = ComputeShapeMass(ShapeGeometry(tri), 1.0f);
  ExpectRelNear(m.mass, 3.0, kRelTol, "mass");
  ExpectRelNear(m.rotational_inertia, 3.0 * (9.0 + 4.0) / 18.0, kRelTol,
                "inertia");
  EXPECT_NEAR(m.center.x, 1.0f, 1e-6f);
  EXPECT_NEAR(m.center.y, 2.0f / 3.0f, 1e-6f);
}

TEST(MassTest, CapsuleMatchesClosedForm) {
  const double density = 1.5, r = 0.4, length = 2.0;
  const MassData m = ComputeShapeMass(
      ShapeGeometry(Capsule{{-1.0f, 1.0f}, {1.0f, 1.0f}, 0.4f}), 1.5f);
  const double mass = density * (2 * r * length + M_PI * r * r);
  // Rectangle plus two half discs moved out by the parallel-axis theorem:
  // I/rho = 2rL (L^2 + 4r^2)/12 + pi r^2 (r^2/2 + L^2/4) + 4/3 r^3 L.
  const double inertia =
      density * (2 * r * length * (length * length + 4 * r * r) / 12.0 +
                 M_PI * r * r * (r * r / 2 + length * length / 4) +
                 4.0 / 3.0 * r * r * r * length);
  ExpectRelNear(m.mass, mass, kRelTol, "mass");
  ExpectRelNear(m.rotational_inertia, inertia, kRelTol, "inertia");
  EXPECT_NEAR(m.center.x, 0.0f, 1e-6f);
  EXPECT_NEAR(m.center.y, 1.0f, 1e-6f);
}

TEST(MassTest, RoundedBoxMatchesClosedForm) {
  const double density = 2.0, hx = 1.0, hy = 0.5, r = 0.2;
  const MassData m =
      ComputeShapeMass(ShapeGeometry(*MakeRoundedBox(1.0f, 0.5f, 0.2f)), 2.0f);
  // Core, four side strips, four quarter discs (centroid 4r/(3 pi) along
  // each axis from its corner).
  const double core_m = 4 * hx * hy;
  double i = core_m * (4 * hx * hx + 4 * hy * hy) / 12.0;
  const double top_m = 2 * hx * r;
  i += 2 * (top_m * (4 * hx * hx + r * r) / 12.0 +
            top_m * (hy + r / 2) * (hy + r / 2));
  const double side_m = 2 * hy * r;
  i += 2 * (side_m * (4 * hy * hy + r * r) / 12.0 +
            side_m * (hx + r / 2) * (hx + r / 2));
  const double q_m = M_PI * r * r / 4;
  const double q = 4 * r / (3 * M_PI);
  const double q_apex = q_m * r * r / 2;
  const double q_centroid = q_apex - q_m * 2 * q * q;
  i += 4 * (q_centroid + q_m * ((hx + q) * (hx + q) + (hy + q) * (hy + q)));
  const double area = core_m + 2 * top_m + 2 * side_m + 4 * q_m;
  ExpectRelNear(m.mass, density * area, kRelTol, "mass");
  ExpectRelNear(m.rotational_inertia, density * i, kRelTol, "inertia");
}

// Distance from p to a convex polygon (0 inside), in double.
double DistanceToPolygon(const Polygon& poly, double px, double py) {
  bool inside = true;
  double best = 1e300;
  for (int i = 0; i < poly.count; ++i) {
    const double ax = poly.vertices[i].x, ay = poly.vertices[i].y;
    const double bx = poly.vertices[(i + 1) % poly.count].x;
    const double by = poly.vertices[(i + 1) % poly.count].y;
    const double ex = bx - ax, ey = by - ay;
    if (ex * (py - ay) - ey * (px - ax) < 0) inside = false;
    double t = ((px - ax) * ex + (py - ay) * ey) / (ex * ex + ey * ey);
    t = std::fmin(1.0, std::fmax(0.0, t));
    const double dx = px - (ax + t * ex), dy = py - (ay + t * ey);
    best = std::fmin(best, std::sqrt(dx * dx + dy * dy));
  }
  return inside ? 0.0 : best;
}

TEST(MassTest, RoundedHexagonMatchesGridIntegration) {
  const std::vector<Vec2> points = {{0, 0},    {2, -0.5f}, {3, 0.5f},
                                    {2.5f, 2}, {0.5f, 2.5f}, {-0.5f, 1}};
  const Polygon poly = *MakePolygon(*ComputeHull(points), 0.3f);
  const MassData m = ComputeShapeMass(ShapeGeometry(poly), 1.0f);

  const int n = 1200;
  const double lo_x = -1.0, hi_x = 3.5, lo_y = -1.0, hi_y = 3.0;
  const double dx = (hi_x - lo_x) / n, dy = (hi_y - lo_y) / n;
  double area = 0, mx = 0, my = 0, i_origin = 0;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      const double x = lo_x + (a + 0.5) * dx, y = lo_y + (b + 0.5) * dy;
      if (DistanceToPolygon(poly, x, y) > poly.radius) continue;
      area += dx * dy;
      mx += x * dx * dy;
      my += y * dx * dy;
      i_origin += (x * x + y * y) * dx * dy;
    }
  }
  const double cx = mx / area, cy = my / area;
  const double i_center = i_origin - area * (cx * cx + cy * cy);
  ExpectRelNear(m.mass, area, 1e-3, "mass");
  EXPECT_NEAR(m.center.x, cx, 2e-3);
  EXPECT_NEAR(m.center.y, cy, 2e-3);
  ExpectRelNear(m.rotational_inertia, i_center, 2e-3, "inertia");
}

TEST(MassTest, SegmentsAndChainSegmentsAreMassless) {
  const MassData s =
      ComputeShapeMass(ShapeGeometry(Segment{{0, 0}, {2, 0}}), 5.0f);
  EXPECT_EQ(s.mass, 0.0f);
  EXPECT_EQ(s.rotational_inertia, 0.0f);
  const MassData c = ComputeShapeMass(
      ShapeGeometry(ChainSegment{{-1, 0}, {{0, 0}, {2, 0}}, {3, 0}}), 5.0f);
  EXPECT_EQ(c.mass, 0.0f);
  EXPECT_EQ(c.rotational_inertia, 0.0f);
}

TEST(MassTest, ZeroDensityGivesZeroMass) {
  const MassData m = ComputeShapeMass(ShapeGeometry(*MakeBox(1, 1)), 0.0f);
  EXPECT_EQ(m.mass, 0.0f);
  EXPECT_EQ(m.rotational_inertia, 0.0f);
}

}  // namespace
}  // namespace atl
