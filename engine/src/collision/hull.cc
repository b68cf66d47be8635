// Convex hull by Andrew's monotone chain, followed by welding of short hull
// edges and removal of nearly collinear vertices.
//
// Monotone chain is used because it only needs a lexicographic sort and
// orientation tests: no angles (no trigonometry) and no pivot choice that
// could depend on input order, so the hull of a point set is the same
// whatever order the points arrive in.

#include "atoll/hull.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collision/checks.h"

namespace atl {
namespace {

bool LexicographicLess(Vec2 a, Vec2 b) {
  return a.x < b.x || (a.x == b.x && a.y < b.y);
}

// Signed distance of `p` from the line a->b; positive on the left.
float SignedLineDistance(Vec2 a, Vec2 b, Vec2 p) {
  const Vec2 e = b - a;
  const float length = Length(e);
  if (length == 0.0f) return Distance(a, p);
  return Cross(e, p - a) / length;
}

void RemoveAt(std::vector<Vec2>* points, size_t index) {
  points->erase(points->begin() + static_cast<std::ptrdiff_t>(index));
}

// Counts points that are pairwise at least kLinearSlop apart, stopping at 3;
// used only to word the error when no hull could be formed.
int CountDistinct(const std::vector<Vec2>& points) {
  Vec2 kept[3];
  int count = 0;
  const float tol_sq = kLinearSlop * kLinearSlop;
  for (const Vec2 p : points) {
    bool distinct = true;
    for (int i = 0; i < count; ++i) {
      if (DistanceSquared(p, kept[i]) < tol_sq) distinct = false;
    }
    if (distinct) {
      kept[count++] = p;
      if (count == 3) break;
    }
  }
  return count;
}

}  // namespace

absl::StatusOr<Hull> ComputeHull(std::span<const Vec2> points) {
  if (points.size() < 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hull: ", points.size(), " points given; at least 3 are needed"));
  }
  std::vector<Vec2> sorted;
  sorted.reserve(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    if (absl::Status s = internal::CheckPoint(absl::StrCat("hull: point ", i),
                                              points[i]);
        !s.ok()) {
      return s;
    }
    // Adding +0 turns -0 into +0, so the sort (which sees them as equal)
    // cannot leave a sign-of-zero difference in the output bits.
    sorted.push_back({points[i].x + 0.0f, points[i].y + 0.0f});
  }
  std::sort(sorted.begin(), sorted.end(), LexicographicLess);
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());

  // Lower then upper chain, counter-clockwise, starting at the leftmost
  // (then lowest) point. `<= 0` pops exactly collinear points too.
  std::vector<Vec2> hull(2 * sorted.size());
  size_t k = 0;
  for (const Vec2 p : sorted) {
    while (k >= 2 && Cross(hull[k - 1] - hull[k - 2], p - hull[k - 2]) <= 0.0f) {
      --k;
    }
    hull[k++] = p;
  }
  const size_t lower_size = k + 1;
  for (size_t i = sorted.size() - 1; i-- > 0;) {
    const Vec2 p = sorted[i];
    while (k >= lower_size &&
           Cross(hull[k - 1] - hull[k - 2], p - hull[k - 2]) <= 0.0f) {
      --k;
    }
    hull[k++] = p;
  }
  // The chain ends where it started.
  hull.resize(k > 1 ? k - 1 : k);

  // Weld: a hull edge shorter than the slop would give an ill-defined
  // normal. Keep the earlier vertex in hull order.
  const float weld_sq = kLinearSlop * kLinearSlop;
  for (bool changed = true; changed && hull.size() >= 2;) {
    changed = false;
    for (size_t i = 0; i < hull.size(); ++i) {
      const size_t j = (i + 1) % hull.size();
      if (j != 0 && DistanceSquared(hull[i], hull[j]) < weld_sq) {
        RemoveAt(&hull, j);
        changed = true;
        break;
      }
      if (j == 0 && i != 0 && DistanceSquared(hull[i], hull[0]) < weld_sq) {
        RemoveAt(&hull, i);
        changed = true;
        break;
      }
    }
  }

  // Drop vertices that barely bend the outline: they make near-parallel
  // adjacent normals, which SAT and clipping handle poorly. Negative
  // distances (rounding-induced reflex vertices) are dropped too.
  for (bool changed = true; changed && hull.size() >= 3;) {
    changed = false;
    for (size_t i = 0; i < hull.size(); ++i) {
      const Vec2 prev = hull[(i + hull.size() - 1) % hull.size()];
      const Vec2 next = hull[(i + 1) % hull.size()];
      // A convex vertex lies to the right of the chord prev -> next, i.e. on
      // the left of next -> prev.
      if (SignedLineDistance(next, prev, hull[i]) < kLinearSlop) {
        RemoveAt(&hull, i);
        changed = true;
        break;
      }
    }
  }

  if (hull.size() < 3) {
    if (CountDistinct(sorted) < 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "hull: fewer than 3 distinct points (points closer than ",
          kLinearSlop, " m count as one)"));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "hull: all points are collinear (within ", kLinearSlop, " m)"));
  }
  if (hull.size() > static_cast<size_t>(kMaxPolygonVertices)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "hull: the convex hull has ", hull.size(),
        " vertices; at most kMaxPolygonVertices = ", kMaxPolygonVertices,
        " are supported"));
  }
  Hull out;
  out.count = static_cast<int32_t>(hull.size());
  for (size_t i = 0; i < hull.size(); ++i) out.points[i] = hull[i];
  return out;
}

absl::Status ValidateHull(const Hull& hull) {
  if (hull.count < 3 || hull.count > kMaxPolygonVertices) {
    return absl::InvalidArgumentError(
        absl::StrCat("hull: count ", hull.count, " is outside 3..",
                     kMaxPolygonVertices));
  }
  const int32_t n = hull.count;
  for (int32_t i = 0; i < n; ++i) {
    if (absl::Status s = internal::CheckPoint(absl::StrCat("hull: point ", i),
                                              hull.points[i]);
        !s.ok()) {
      return s;
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    const Vec2 a = hull.points[i];
    const Vec2 b = hull.points[(i + 1) % n];
    if (DistanceSquared(a, b) < kLinearSlop * kLinearSlop) {
      return absl::InvalidArgumentError(
          absl::StrCat("hull: edge ", i, " is shorter than ", kLinearSlop,
                       " m (duplicate points)"));
    }
    // Every other vertex strictly on the left of every edge: convex,
    // counter-clockwise and simple (a twice-winding star fails this too).
    for (int32_t j = 0; j < n; ++j) {
      if (j == i || j == (i + 1) % n) continue;
      if (Cross(b - a, hull.points[j] - a) <= 0.0f) {
        return absl::InvalidArgumentError(absl::StrCat(
            "hull: not strictly convex and counter-clockwise (point ", j,
            " is not left of edge ", i, ")"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace atl
