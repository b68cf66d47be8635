// Mass properties of the solid shapes.
//
// Each shape is cut into pieces with closed-form mass, centroid and inertia
// (triangles, rectangles, discs and disc sectors) and the pieces are
// combined with the parallel-axis theorem: I_about_o = I_about_centroid +
// m * |centroid - o|^2. Sums are taken about a point inside the shape, not
// the body origin, so that an offset shape does not lose its inertia to
// cancellation in m * |c|^2 - m * |c|^2.

#include "atoll/assert.h"
#include "atoll/geometry.h"

namespace atl {
namespace {

// Accumulates pieces about a fixed reference point (origin of the local
// coordinates passed in).
struct MassSum {
  float mass = 0.0f;
  Vec2 moment;           // sum of m * c
  float inertia = 0.0f;  // about the reference point

  // A piece with mass `m`, centroid `c` and inertia `i_c` about c.
  void Add(float m, Vec2 c, float i_c) {
    mass += m;
    moment = MulAdd(moment, m, c);
    inertia += i_c + m * LengthSquared(c);
  }

  // Mass data about the combined centroid, shifted back by `reference`.
  MassData Finish(Vec2 reference) const {
    MassData out;
    out.mass = mass;
    if (mass <= 0.0f) {
      out.center = reference;
      return out;
    }
    const Vec2 c = (1.0f / mass) * moment;
    out.center = reference + c;
    out.rotational_inertia = Max(inertia - mass * LengthSquared(c), 0.0f);
    return out;
  }
};

MassData CircleMass(const Circle& circle, float density) {
  const float r_sq = circle.radius * circle.radius;
  MassData out;
  out.mass = density * kPi * r_sq;
  out.center = circle.center;
  // Solid disc about its center: m r^2 / 2.
  out.rotational_inertia = 0.5f * out.mass * r_sq;
  return out;
}

// A rectangle (the segment swept by +/- radius) plus two half discs, one on
// each end. Half disc about its flat side's center: m r^2 / 2 (half of the
// disc's mass at the same radii); its centroid sits 4r/(3 pi) out from the
// flat side, so about its own centroid it is m r^2 / 2 - m d^2, then shifted
// to the capsule center by (L/2 + d).
MassData CapsuleMass(const Capsule& capsule, float density) {
  const float r = capsule.radius;
  const float length = Distance(capsule.center1, capsule.center2);
  const float rect_mass = density * (2.0f * r) * length;
  const float rect_inertia =
      rect_mass * (length * length + 4.0f * r * r) * (1.0f / 12.0f);
  const float half_disc_mass = 0.5f * density * kPi * r * r;
  const float d = (4.0f / (3.0f * kPi)) * r;
  const float shift = 0.5f * length + d;
  const float half_disc_inertia =
      half_disc_mass * (0.5f * r * r - d * d) +
      half_disc_mass * shift * shift;
  MassData out;
  out.mass = rect_mass + 2.0f * half_disc_mass;
  out.center = Lerp(capsule.center1, capsule.center2, 0.5f);
  out.rotational_inertia = rect_inertia + 2.0f * half_disc_inertia;
  return out;
}

// Core polygon as a fan of triangles about the stored centroid; for each
// rounded polygon also one rectangle per edge (edge length x radius, on the
// outside) and one disc sector per vertex (the sectors' angles add to 2 pi).
MassData PolygonMass(const Polygon& polygon, float density) {
  ATOLL_ASSERT(polygon.count >= 3);
  const Vec2 reference = polygon.centroid;
  const int32_t n = polygon.count;
  Vec2 v[kMaxPolygonVertices];
  for (int32_t i = 0; i < n; ++i) v[i] = polygon.vertices[i] - reference;

  MassSum sum;
  for (int32_t i = 0; i < n; ++i) {
    // Triangle (0, e1, e2): area A = cross / 2, centroid (e1 + e2) / 3,
    // polar moment about the apex A/6 (e1.e1 + e1.e2 + e2.e2).
    const Vec2 e1 = v[i];
    const Vec2 e2 = v[(i + 1) % n];
    const float area = 0.5f * Cross(e1, e2);
    const float m = density * area;
    const Vec2 c = (1.0f / 3.0f) * (e1 + e2);
    const float i_apex =
        m * (1.0f / 6.0f) * (Dot(e1, e1) + Dot(e1, e2) + Dot(e2, e2));
    sum.Add(m, c, i_apex - m * LengthSquared(c));
  }

  const float r = polygon.radius;
  if (r > 0.0f) {
    for (int32_t i = 0; i < n; ++i) {
      const Vec2 a = v[i];
      const Vec2 b = v[(i + 1) % n];
      const Vec2 normal = polygon.normals[i];
      const float length = Distance(a, b);
      const float m = density * length * r;
      const Vec2 c = MulAdd(Lerp(a, b, 0.5f), 0.5f * r, normal);
      sum.Add(m, c, m * (length * length + r * r) * (1.0f / 12.0f));
    }
    for (int32_t i = 0; i < n; ++i) {
      // The sector at vertex i spans from the previous edge's normal to
      // this edge's normal.
      const Vec2 n0 = polygon.normals[(i + n - 1) % n];
      const Vec2 n1 = polygon.normals[i];
      const float theta = Atan2(Cross(n0, n1), Dot(n0, n1));
      if (theta <= 0.0f) continue;
      const float m = 0.5f * density * theta * r * r;
      // Sector about its apex: m r^2 / 2 (like a disc); centroid at
      // 4 r s / (3 theta) along the bisector, where s, the sine of half
      // the angle, is |n1 - n0| / 2.
      const float half_chord = 0.5f * Length(n1 - n0);
      const float d = (4.0f * r * half_chord) / (3.0f * theta);
      const Vec2 c = MulAdd(v[i], d, Normalize(n0 + n1));
      sum.Add(m, c, 0.5f * m * r * r - m * d * d);
    }
  }
  return sum.Finish(reference);
}

}  // namespace

MassData ComputeShapeMass(const ShapeGeometry& shape, float density) {
  ATOLL_ASSERT(IsFinite(density) && density >= 0.0f);
  switch (shape.type) {
    case ShapeType::kCircle:
      return CircleMass(shape.circle, density);
    case ShapeType::kCapsule:
      return CapsuleMass(shape.capsule, density);
    case ShapeType::kPolygon:
      return PolygonMass(shape.polygon, density);
    case ShapeType::kSegment: {
      MassData out;
      out.center = Lerp(shape.segment.point1, shape.segment.point2, 0.5f);
      return out;
    }
    case ShapeType::kChainSegment: {
      MassData out;
      out.center = Lerp(shape.chain_segment.segment.point1,
                        shape.chain_segment.segment.point2, 0.5f);
      return out;
    }
  }
  ATOLL_ASSERT(false && "unknown shape type");
  return {};
}

}  // namespace atl
