// The narrow-phase function table: one routine per ordered pair of shape
// types (dissertation section 4.2.4: a single contact type whose collision
// routine is looked up once, instead of one contact class per pair).
//
// Each unordered pair has one routine, written with the "larger" shape as A
// where that reads naturally (PolygonAndCircle). The reversed order runs
// the same routine with the shapes exchanged and mirrors the result, so the
// two orders agree exactly and there is only one implementation to trust.

#include "atoll/assert.h"
#include "atoll/manifold.h"

namespace atl {
namespace {

Manifold CircleCircle(const ShapeGeometry& a, const Transform& xa,
                      const ShapeGeometry& b, const Transform& xb) {
  return CollideCircles(a.circle, xa, b.circle, xb);
}
Manifold CapsuleCircle(const ShapeGeometry& a, const Transform& xa,
                       const ShapeGeometry& b, const Transform& xb) {
  return CollideCapsuleAndCircle(a.capsule, xa, b.circle, xb);
}
Manifold SegmentCircle(const ShapeGeometry& a, const Transform& xa,
                       const ShapeGeometry& b, const Transform& xb) {
  return CollideSegmentAndCircle(a.segment, xa, b.circle, xb);
}
Manifold PolygonCircle(const ShapeGeometry& a, const Transform& xa,
                       const ShapeGeometry& b, const Transform& xb) {
  return CollidePolygonAndCircle(a.polygon, xa, b.circle, xb);
}
Manifold ChainCircle(const ShapeGeometry& a, const Transform& xa,
                     const ShapeGeometry& b, const Transform& xb) {
  return CollideChainSegmentAndCircle(a.chain_segment, xa, b.circle, xb);
}
Manifold CapsuleCapsule(const ShapeGeometry& a, const Transform& xa,
                        const ShapeGeometry& b, const Transform& xb) {
  return CollideCapsules(a.capsule, xa, b.capsule, xb);
}
Manifold SegmentCapsule(const ShapeGeometry& a, const Transform& xa,
                        const ShapeGeometry& b, const Transform& xb) {
  return CollideSegmentAndCapsule(a.segment, xa, b.capsule, xb);
}
Manifold PolygonCapsule(const ShapeGeometry& a, const Transform& xa,
                        const ShapeGeometry& b, const Transform& xb) {
  return CollidePolygonAndCapsule(a.polygon, xa, b.capsule, xb);
}
Manifold ChainCapsule(const ShapeGeometry& a, const Transform& xa,
                      const ShapeGeometry& b, const Transform& xb) {
  return CollideChainSegmentAndCapsule(a.chain_segment, xa, b.capsule, xb);
}
Manifold SegmentPolygon(const ShapeGeometry& a, const Transform& xa,
                        const ShapeGeometry& b, const Transform& xb) {
  return CollideSegmentAndPolygon(a.segment, xa, b.polygon, xb);
}
Manifold PolygonPolygon(const ShapeGeometry& a, const Transform& xa,
                        const ShapeGeometry& b, const Transform& xb) {
  return CollidePolygons(a.polygon, xa, b.polygon, xb);
}
Manifold ChainPolygon(const ShapeGeometry& a, const Transform& xa,
                      const ShapeGeometry& b, const Transform& xb) {
  return CollideChainSegmentAndPolygon(a.chain_segment, xa, b.polygon, xb);
}

// Static geometry against static geometry.
Manifold NoCollision(const ShapeGeometry&, const Transform&,
                     const ShapeGeometry&, const Transform&) {
  return {};
}

template <ManifoldFn kFn>
Manifold Mirrored(const ShapeGeometry& a, const Transform& xa,
                  const ShapeGeometry& b, const Transform& xb) {
  Manifold m = kFn(b, xb, a, xa);
  m.normal = -m.normal;
  for (int32_t i = 0; i < m.point_count; ++i) {
    ManifoldPoint& p = m.points[i];
    const Vec2 anchor = p.anchor_a;
    p.anchor_a = p.anchor_b;
    p.anchor_b = anchor;
    p.id = MirrorFeatureId(p.id);
  }
  return m;
}

// Rows: shape A's type; columns: shape B's type (ShapeType order: circle,
// capsule, segment, polygon, chain segment).
constexpr ManifoldFn kManifoldTable[kShapeTypeCount][kShapeTypeCount] = {
    {CircleCircle, Mirrored<CapsuleCircle>, Mirrored<SegmentCircle>,
     Mirrored<PolygonCircle>, Mirrored<ChainCircle>},
    {CapsuleCircle, CapsuleCapsule, Mirrored<SegmentCapsule>,
     Mirrored<PolygonCapsule>, Mirrored<ChainCapsule>},
    {SegmentCircle, SegmentCapsule, NoCollision, SegmentPolygon, NoCollision},
    {PolygonCircle, PolygonCapsule, Mirrored<SegmentPolygon>, PolygonPolygon,
     Mirrored<ChainPolygon>},
    {ChainCircle, ChainCapsule, NoCollision, ChainPolygon, NoCollision},
};

}  // namespace

ManifoldFn GetManifoldFunction(ShapeType a, ShapeType b) {
  const int ia = static_cast<int>(a);
  const int ib = static_cast<int>(b);
  ATOLL_ASSERT(ia >= 0 && ia < kShapeTypeCount && ib >= 0 &&
               ib < kShapeTypeCount);
  return kManifoldTable[ia][ib];
}

Manifold CollideShapes(const ShapeGeometry& a, const Transform& xf_a,
                       const ShapeGeometry& b, const Transform& xf_b) {
  return GetManifoldFunction(a.type, b.type)(a, xf_a, b, xf_b);
}

}  // namespace atl
