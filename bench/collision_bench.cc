// atoll-bench collision: narrow-phase and GJK throughput next to Box2D 2.4.1
// on identical inputs.
//
//   atoll-bench collision [--pairs=4096] [--reps=9] [--min_ms=40] [--seed=1]
//
// Every case pre-generates `pairs` random shape pairs and transforms (the
// same bits for both engines), then times passes over all of them. Engines
// alternate within each repetition so drift on a shared machine hits both;
// the reported figure is the median over repetitions. Results feed a
// checksum that is printed to stderr, so no call can be optimized away.
//
// Cases:
//   polygon_polygon_overlap    8-gon vs 8-gon, overlapping
//   polygon_polygon_separated  8-gon vs 8-gon, apart by more than the margin
//   capsule_polygon            capsule vs 8-gon, overlapping or touching.
//                              Box2D 2.4.1 has no capsule: its row is
//                              b2CollidePolygons with a thin rounded box
//                              (m_radius = capsule radius), the closest thing.
//   gjk_distance               8-gon vs 8-gon separated, b2Distance vs
//                              ShapeDistance, both with a cold simplex cache.
//
// Box2D polygons keep their default skin (m_radius = b2_polygonRadius =
// 0.01), so their contact margin (0.02) equals Atoll's kSpeculativeDistance.

#include <box2d/b2_distance.h>
#include <box2d/box2d.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "args.h"
#include "atoll/distance.h"
#include "atoll/geometry.h"
#include "atoll/manifold.h"
#include "command.h"

namespace atl::bench {
namespace {

struct Pose {
  Transform atoll;
  b2Transform box2d;
};

Pose MakePose(float x, float y, float angle) {
  Pose pose;
  pose.atoll = {{x, y}, MakeRot(angle)};
  pose.box2d.p.Set(x, y);
  // Identical rotation bits for both engines.
  pose.box2d.q.c = pose.atoll.q.c;
  pose.box2d.q.s = pose.atoll.q.s;
  return pose;
}

// A random convex 8-gon about `size` across, centered near the origin.
std::vector<Vec2> RandomOctagon(std::mt19937* rng, float size) {
  std::uniform_real_distribution<float> jitter(-0.25f, 0.25f);
  std::uniform_real_distribution<float> stretch(0.7f, 1.0f);
  for (;;) {
    std::vector<Vec2> points;
    const float sx = stretch(*rng), sy = stretch(*rng);
    for (int i = 0; i < 8; ++i) {
      const Rot q = MakeRot(2.0f * kPi * (static_cast<float>(i) + jitter(*rng)) / 8.0f);
      points.push_back({0.5f * size * sx * q.c, 0.5f * size * sy * q.s});
    }
    absl::StatusOr<Hull> hull = ComputeHull(points);
    if (hull.ok() && hull->count == 8) {
      return std::vector<Vec2>(hull->points, hull->points + 8);
    }
  }
}

struct PolygonPair {
  Polygon a;
  Polygon b;
  b2PolygonShape box2d_a;
  b2PolygonShape box2d_b;
  Pose pose_a;
  Pose pose_b;
  // GJK proxies (Box2D's proxy points at the b2PolygonShape's vertices).
  ShapeProxy proxy_a;
  ShapeProxy proxy_b;
};

struct CapsulePair {
  Polygon polygon;
  Capsule capsule;
  b2PolygonShape box2d_polygon;
  b2PolygonShape box2d_capsule;  // thin rounded box
  Pose pose_polygon;
  Pose pose_capsule;
};

enum class Placement { kOverlap, kSeparated };

float SurfaceGap(const ShapeProxy& a, const Transform& xa, const ShapeProxy& b,
                 const Transform& xb) {
  DistanceInput in;
  in.proxy_a = a;
  in.proxy_b = b;
  in.transform_a = xa;
  in.transform_b = xb;
  in.use_radii = true;
  return ShapeDistance(in, nullptr).distance;
}

std::vector<PolygonPair> MakePolygonPairs(int count, Placement placement,
                                          std::mt19937* rng) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<PolygonPair> pairs(count);
  for (PolygonPair& p : pairs) {
    const std::vector<Vec2> va = RandomOctagon(rng, 1.0f);
    const std::vector<Vec2> vb = RandomOctagon(rng, 1.0f);
    Hull ha, hb;
    ha.count = hb.count = 8;
    std::copy(va.begin(), va.end(), ha.points);
    std::copy(vb.begin(), vb.end(), hb.points);
    p.a = *MakePolygon(ha, 0.0f);
    p.b = *MakePolygon(hb, 0.0f);
    b2Vec2 ba[8], bb[8];
    for (int i = 0; i < 8; ++i) {
      ba[i].Set(va[i].x, va[i].y);
      bb[i].Set(vb[i].x, vb[i].y);
    }
    p.box2d_a.Set(ba, 8);
    p.box2d_b.Set(bb, 8);
    p.proxy_a = MakeShapeProxy(ShapeGeometry(p.a));
    p.proxy_b = MakeShapeProxy(ShapeGeometry(p.b));
    for (;;) {
      const float x = 20.0f * unit(*rng) - 10.0f;
      const float y = 20.0f * unit(*rng) - 10.0f;
      p.pose_a = MakePose(x, y, 2.0f * kPi * unit(*rng));
      const float angle = 2.0f * kPi * unit(*rng);
      const Rot dir = MakeRot(2.0f * kPi * unit(*rng));
      const float reach = placement == Placement::kOverlap
                              ? 0.8f * unit(*rng)
                              : 1.1f + 0.5f * unit(*rng);
      p.pose_b = MakePose(x + reach * dir.c, y + reach * dir.s, angle);
      const float gap =
          SurfaceGap(p.proxy_a, p.pose_a.atoll, p.proxy_b, p.pose_b.atoll);
      if (placement == Placement::kOverlap && gap == 0.0f) break;
      if (placement == Placement::kSeparated && gap > 0.05f) break;
    }
  }
  return pairs;
}

std::vector<CapsulePair> MakeCapsulePairs(int count, std::mt19937* rng) {
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<CapsulePair> pairs(count);
  for (CapsulePair& p : pairs) {
    const std::vector<Vec2> v = RandomOctagon(rng, 1.0f);
    Hull hull;
    hull.count = 8;
    std::copy(v.begin(), v.end(), hull.points);
    p.polygon = *MakePolygon(hull, 0.0f);
    b2Vec2 bv[8];
    for (int i = 0; i < 8; ++i) bv[i].Set(v[i].x, v[i].y);
    p.box2d_polygon.Set(bv, 8);
    const float half_length = 0.2f + 0.3f * unit(*rng);
    const float radius = 0.1f + 0.15f * unit(*rng);
    p.capsule = {{-half_length, 0.0f}, {half_length, 0.0f}, radius};
    // Box2D 2.4.1 polygons need an area: the thinnest sensible box.
    p.box2d_capsule.SetAsBox(half_length, b2_linearSlop);
    p.box2d_capsule.m_radius = radius;
    const ShapeProxy proxy_polygon = MakeShapeProxy(ShapeGeometry(p.polygon));
    const ShapeProxy proxy_capsule = MakeShapeProxy(ShapeGeometry(p.capsule));
    for (;;) {
      const float x = 20.0f * unit(*rng) - 10.0f;
      const float y = 20.0f * unit(*rng) - 10.0f;
      p.pose_polygon = MakePose(x, y, 2.0f * kPi * unit(*rng));
      const Rot dir = MakeRot(2.0f * kPi * unit(*rng));
      const float reach = 0.9f * unit(*rng);
      p.pose_capsule = MakePose(x + reach * dir.c, y + reach * dir.s,
                                2.0f * kPi * unit(*rng));
      if (SurfaceGap(proxy_polygon, p.pose_polygon.atoll, proxy_capsule,
                     p.pose_capsule.atoll) == 0.0f) {
        break;
      }
    }
  }
  return pairs;
}

// Times `pass` (one sweep over every pair; returns a checksum) and returns
// nanoseconds per pair for `passes` sweeps.
template <typename Pass>
double TimePasses(Pass&& pass, int passes, int pairs, double* sink) {
  const auto start = std::chrono::steady_clock::now();
  double checksum = 0.0;
  for (int i = 0; i < passes; ++i) checksum += pass();
  const auto end = std::chrono::steady_clock::now();
  *sink += checksum;
  return std::chrono::duration<double, std::nano>(end - start).count() /
         (static_cast<double>(passes) * pairs);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct CaseResult {
  double atoll_ns;
  double box2d_ns;
  double atoll_points;  // manifold points (or distance) per op, sanity check
  double box2d_points;
  long long ops;
};

template <typename AtollPass, typename Box2dPass>
CaseResult RunCase(AtollPass&& atoll_pass, Box2dPass&& box2d_pass, int pairs,
                   int reps, double min_ms, double* sink) {
  // Calibrate so that one repetition of the slower engine takes min_ms.
  int passes = 1;
  for (;;) {
    const double ns = std::max(TimePasses(atoll_pass, passes, pairs, sink),
                               TimePasses(box2d_pass, passes, pairs, sink));
    if (ns * passes * pairs >= min_ms * 1e6 || passes >= (1 << 20)) break;
    passes *= 2;
  }
  std::vector<double> atoll_ns, box2d_ns;
  for (int r = 0; r < reps; ++r) {
    atoll_ns.push_back(TimePasses(atoll_pass, passes, pairs, sink));
    box2d_ns.push_back(TimePasses(box2d_pass, passes, pairs, sink));
  }
  CaseResult result;
  result.atoll_ns = Median(atoll_ns);
  result.box2d_ns = Median(box2d_ns);
  result.atoll_points = atoll_pass() / pairs;
  result.box2d_points = box2d_pass() / pairs;
  result.ops = static_cast<long long>(passes) * pairs;
  return result;
}

void PrintCase(const char* name, const CaseResult& r, const char* box2d_note,
               const char* metric) {
  std::printf("%s,atoll,%lld,%.1f,%.3f,%.4f,%s\n", name, r.ops, r.atoll_ns,
              r.atoll_ns / r.box2d_ns, r.atoll_points, metric);
  std::printf("%s,box2d-2.4.1,%lld,%.1f,1.000,%.4f,%s\n", name, r.ops,
              r.box2d_ns, r.box2d_points, box2d_note);
}

// The flags of atoll-bench collision: its help, and what it parses.
constexpr Flag kCollisionFlags[] = {
    {"pairs", "4096", "random shape pairs per case, the same for both engines"},
    {"reps", "9", "repetitions per case; the figure is their median"},
    {"min_ms", "40", "passes per repetition are calibrated so that the slower engine's take "
                     "at least this many ms"},
    {"seed", "1", "seed of the random pairs"},
};

int RunCollisionBench(const std::vector<std::string>& raw_args) {
  absl::StatusOr<Args> args = Args::Parse(raw_args, FlagNames(kCollisionFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench collision: %s\n",
                 std::string(args.status().message()).c_str());
    return 2;
  }
  const absl::StatusOr<int64_t> pairs = args->GetInt("pairs", 4096);
  const absl::StatusOr<int64_t> reps = args->GetInt("reps", 9);
  const absl::StatusOr<int64_t> min_ms = args->GetInt("min_ms", 40);
  const absl::StatusOr<int64_t> seed = args->GetInt("seed", 1);
  for (const auto* v : {&pairs, &reps, &min_ms, &seed}) {
    if (!v->ok()) {
      std::fprintf(stderr, "atoll-bench collision: %s\n",
                   std::string(v->status().message()).c_str());
      return 2;
    }
  }
  if (*pairs < 1 || *reps < 1 || *min_ms < 1) {
    std::fprintf(stderr, "atoll-bench collision: --pairs, --reps, --min_ms must be positive\n");
    return 2;
  }
  const int n = static_cast<int>(*pairs);
  std::mt19937 rng(static_cast<uint32_t>(*seed));
  double sink = 0.0;

  std::printf("case,engine,ops,ns_per_op,ratio_vs_box2d,per_op_metric,note\n");

  for (const Placement placement : {Placement::kOverlap, Placement::kSeparated}) {
    const std::vector<PolygonPair> data = MakePolygonPairs(n, placement, &rng);
    const auto atoll_pass = [&] {
      double sum = 0.0;
      for (const PolygonPair& p : data) {
        const Manifold m =
            CollidePolygons(p.a, p.pose_a.atoll, p.b, p.pose_b.atoll);
        sum += m.point_count;
      }
      return sum;
    };
    const auto box2d_pass = [&] {
      double sum = 0.0;
      for (const PolygonPair& p : data) {
        b2Manifold m;
        b2CollidePolygons(&m, &p.box2d_a, p.pose_a.box2d, &p.box2d_b,
                          p.pose_b.box2d);
        sum += m.pointCount;
      }
      return sum;
    };
    const CaseResult r = RunCase(atoll_pass, box2d_pass, n,
                                 static_cast<int>(*reps),
                                 static_cast<double>(*min_ms), &sink);
    PrintCase(placement == Placement::kOverlap ? "polygon_polygon_overlap"
                                               : "polygon_polygon_separated",
              r, "b2CollidePolygons", "points_per_op");
  }

  {
    const std::vector<CapsulePair> data = MakeCapsulePairs(n, &rng);
    const auto atoll_pass = [&] {
      double sum = 0.0;
      for (const CapsulePair& p : data) {
        const Manifold m = CollidePolygonAndCapsule(
            p.polygon, p.pose_polygon.atoll, p.capsule, p.pose_capsule.atoll);
        sum += m.point_count;
      }
      return sum;
    };
    const auto box2d_pass = [&] {
      double sum = 0.0;
      for (const CapsulePair& p : data) {
        b2Manifold m;
        b2CollidePolygons(&m, &p.box2d_polygon, p.pose_polygon.box2d,
                          &p.box2d_capsule, p.pose_capsule.box2d);
        sum += m.pointCount;
      }
      return sum;
    };
    const CaseResult r = RunCase(atoll_pass, box2d_pass, n,
                                 static_cast<int>(*reps),
                                 static_cast<double>(*min_ms), &sink);
    PrintCase("capsule_polygon", r,
              "b2CollidePolygons vs thin rounded box (2.4.1 has no capsule)",
              "points_per_op");
  }

  {
    const std::vector<PolygonPair> data =
        MakePolygonPairs(n, Placement::kSeparated, &rng);
    std::vector<b2DistanceProxy> box2d_a(data.size()), box2d_b(data.size());
    for (size_t i = 0; i < data.size(); ++i) {
      box2d_a[i].Set(&data[i].box2d_a, 0);
      box2d_b[i].Set(&data[i].box2d_b, 0);
      // Compare core distances: Atoll's proxies are unrounded here too.
      box2d_a[i].m_radius = 0.0f;
      box2d_b[i].m_radius = 0.0f;
    }
    const auto atoll_pass = [&] {
      double sum = 0.0;
      for (const PolygonPair& p : data) {
        DistanceInput in;
        in.proxy_a = p.proxy_a;
        in.proxy_b = p.proxy_b;
        in.transform_a = p.pose_a.atoll;
        in.transform_b = p.pose_b.atoll;
        SimplexCache cache;
        sum += ShapeDistance(in, &cache).distance;
      }
      return sum;
    };
    const auto box2d_pass = [&] {
      double sum = 0.0;
      for (size_t i = 0; i < data.size(); ++i) {
        b2DistanceInput in;
        in.proxyA = box2d_a[i];
        in.proxyB = box2d_b[i];
        in.transformA = data[i].pose_a.box2d;
        in.transformB = data[i].pose_b.box2d;
        in.useRadii = false;
        b2SimplexCache cache;
        cache.count = 0;
        b2DistanceOutput out;
        b2Distance(&out, &cache, &in);
        sum += out.distance;
      }
      return sum;
    };
    const CaseResult r = RunCase(atoll_pass, box2d_pass, n,
                                 static_cast<int>(*reps),
                                 static_cast<double>(*min_ms), &sink);
    PrintCase("gjk_distance", r, "b2Distance cold cache", "mean_distance");
  }

  std::fprintf(stderr, "checksum %.6g\n", sink);
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("collision",
                    "narrow phase and GJK vs Box2D 2.4.1 (CSV)",
                    RunCollisionBench,
                    {.usage = "atoll-bench collision [--pairs=N] [--reps=N] [--min_ms=MS] "
                              "[--seed=S]",
                     .flags = kCollisionFlags,
                     .example = "atoll-bench collision --pairs=1024 --reps=5"});

}  // namespace atl::bench
