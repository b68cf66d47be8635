#include "dynamics/continuous.h"

#include <algorithm>
#include <limits>

#include "atoll/assert.h"
#include "atoll/constants.h"
#include "atoll/distance.h"
#include "atoll/filter.h"
#include "dynamics/contact_manager.h"
#include "world/world_state.h"

namespace atl {
namespace {

using Fast = ContinuousScratch::Fast;
using FastShape = ContinuousScratch::FastShape;
using FastCore = ContinuousScratch::FastCore;
using NearStatic = ContinuousScratch::NearStatic;

// Length of the chord between two rotations on the unit circle: a point at
// distance r from the center of mass moves r * chord by the rotation alone,
// at most, between any two moments of the interpolated sweep.
float RotationChord(Rot a, Rot b) { return Length({b.c - a.c, b.s - a.s}); }

// How far the body's shapes moved this step (between any two moments): how
// far any point of their cores moved. A round shape's rounding turns with
// its core and covers the same region, so a ball spinning about its center
// has not moved.
float MotionBound(const Body& b) {
  return Length(b.center - b.center0) + b.core_extent * RotationChord(b.rotation0, b.transform.q);
}

// The body's motion this step; a body outside this step's solve (static or
// asleep) rests where it is.
Sweep BodySweep(const Body& b) {
  if (b.solver_index == kNullIndex) {
    return {b.local_center, b.center, b.center, b.transform.q, b.transform.q};
  }
  return {b.local_center, b.center0, b.center, b.rotation0, b.transform.q};
}

Transform SweepStart(const Sweep& sweep) { return GetSweepTransform(sweep, 0.0f); }
Transform SweepEnd(const Sweep& sweep) { return GetSweepTransform(sweep, 1.0f); }

// A box around everything `shape` covers during `sweep`; core_extent bounds
// how far the rotation bows a core point away from the straight line
// between the end poses (the rounding around it goes along).
AABB SweptShapeBox(const ShapeGeometry& shape, const Sweep& sweep, float core_extent) {
  const AABB box = Union(ComputeShapeAABB(shape, SweepStart(sweep)),
                         ComputeShapeAABB(shape, SweepEnd(sweep)));
  return Inflate(box, core_extent * RotationChord(sweep.q1, sweep.q2));
}

// SweptShapeBox below for a circle. Inline: returned from a call, the box
// would come back through a store the caller cannot forward to its next
// load, a stall on every fast body.
[[gnu::always_inline]] inline AABB SweptCircleBox(const Circle& circle, const Transform& start,
                                                  const Transform& end, float bow) {
  const Vec2 a = TransformPoint(start, circle.center);
  const Vec2 b = TransformPoint(end, circle.center);
  const float r = circle.radius;
  const AABB box =
      Union({{a.x - r, a.y - r}, {a.x + r, a.y + r}}, {{b.x - r, b.y - r}, {b.x + r, b.y + r}});
  return bow > 0.0f ? Inflate(box, bow) : box;
}

// The same for a body's solved motion, from its own step-start and current
// poses (no renormalized rotations to recompute) and the bow of its
// rotation: ComputeShapeAABB's boxes at both poses, bit for bit, a
// polygon's in one pass over its vertices.
AABB SweptShapeBox(const ShapeGeometry& shape, const Transform& start, const Transform& end,
                   float bow) {
  if (shape.type == ShapeType::kCircle) return SweptCircleBox(shape.circle, start, end, bow);
  AABB box_start, box_end;
  if (shape.type == ShapeType::kPolygon) {
    const Polygon& p = shape.polygon;
    Vec2 lower_a = TransformPoint(start, p.vertices[0]), upper_a = lower_a;
    Vec2 lower_b = TransformPoint(end, p.vertices[0]), upper_b = lower_b;
    for (int32_t i = 1; i < p.count; ++i) {
      const Vec2 a = TransformPoint(start, p.vertices[i]);
      const Vec2 b = TransformPoint(end, p.vertices[i]);
      lower_a = Min(lower_a, a);
      upper_a = Max(upper_a, a);
      lower_b = Min(lower_b, b);
      upper_b = Max(upper_b, b);
    }
    box_start = Inflate({lower_a, upper_a}, p.radius);
    box_end = Inflate({lower_b, upper_b}, p.radius);
  } else {
    box_start = ComputeShapeAABB(shape, start);
    box_end = ComputeShapeAABB(shape, end);
  }
  const AABB box = Union(box_start, box_end);
  return bow > 0.0f ? Inflate(box, bow) : box;
}

bool IsThin(ShapeType type) {
  return type == ShapeType::kSegment || type == ShapeType::kChainSegment;
}

// The sweep restricted to [t, 1] and renormalized to [0, 1].
Sweep SweepFrom(const Sweep& sweep, float t) {
  Sweep out = sweep;
  const Transform xf = GetSweepTransform(sweep, t);
  out.c1 = {(1.0f - t) * sweep.c1.x + t * sweep.c2.x, (1.0f - t) * sweep.c1.y + t * sweep.c2.y};
  out.q1 = xf.q;
  return out;
}

// A sweep resting at `sweep`'s pose at t.
Sweep RestingAt(const Sweep& sweep, float t) {
  Sweep out = SweepFrom(sweep, t);
  out.c2 = out.c1;
  out.q2 = out.q1;
  return out;
}

// The core points of a shape that is not a polygon (a circle's center
// twice, a capsule's centers, a segment's ends: the points of
// MakeShapeProxy) placed at `xf`.
void CorePoints(const ShapeGeometry& shape, const Transform& xf, Vec2* a, Vec2* b) {
  switch (shape.type) {
    case ShapeType::kCircle:
      *a = *b = TransformPoint(xf, shape.circle.center);
      return;
    case ShapeType::kCapsule:
      *a = TransformPoint(xf, shape.capsule.center1);
      *b = TransformPoint(xf, shape.capsule.center2);
      return;
    case ShapeType::kSegment:
      *a = TransformPoint(xf, shape.segment.point1);
      *b = TransformPoint(xf, shape.segment.point2);
      return;
    case ShapeType::kChainSegment:
      *a = TransformPoint(xf, shape.chain_segment.segment.point1);
      *b = TransformPoint(xf, shape.chain_segment.segment.point2);
      return;
    case ShapeType::kPolygon:
      break;
  }
  ATOLL_ASSERT(false && "a polygon's core is not two points");
}

// A lower bound on the distance between the segment p-q and the core of
// `shape` placed at `xf` (the shape without its rounding): the exact
// distance for one or two core points, the largest separation along a face
// normal for a polygon (any separating axis bounds it from below).
float PathToCoreBound(Vec2 p, Vec2 q, const ShapeGeometry& shape, const Transform& xf) {
  if (shape.type == ShapeType::kPolygon) {
    const Polygon& polygon = shape.polygon;
    const Vec2 lp = InvTransformPoint(xf, p), lq = InvTransformPoint(xf, q);
    float bound = Dot(polygon.normals[0], lp - polygon.vertices[0]);
    bound = Min(bound, Dot(polygon.normals[0], lq - polygon.vertices[0]));
    for (int32_t i = 1; i < polygon.count; ++i) {
      const float face = Min(Dot(polygon.normals[i], lp - polygon.vertices[i]),
                             Dot(polygon.normals[i], lq - polygon.vertices[i]));
      bound = Max(bound, face);
    }
    return bound;
  }
  Vec2 a, b;
  CorePoints(shape, xf, &a, &b);
  return Sqrt(SegmentDistance(p, q, a, b).distance_squared);
}

// Whether cores whose distance never drops below `clearance` stay out of
// reach of TimeOfImpact for rounded shapes of `total_radius`: above the
// distance it stops at, its tolerance, and 0.05 slop to spare for rounding.
float ClearanceNeeded(float total_radius) { return TOITarget(total_radius) + 0.3f * kLinearSlop; }
bool KeepsClear(float clearance, float total_radius) {
  return clearance > ClearanceNeeded(total_radius);
}

// The other side of a candidate pair: its shape and its motion.
struct Other {
  const Shape* shape = nullptr;
  const Body* body = nullptr;
  AABB box;
  /// A static body's shape: it rests at `pose` all step, and its sweep is
  /// only derived when TimeOfImpact needs it. Otherwise `sweep` is the
  /// moving body's motion until `stop`.
  bool resting = false;
  Transform pose;
  const Sweep* sweep = nullptr;
  float stop = 1.0f;
};

// What the parallel part of the pass records for a body besides its first
// impact against static shapes (ContinuousScratch::impact).
constexpr float kBulletMark = -1.0f;
constexpr float kSlowMark = 2.0f;
// Awake bodies per block of the parallel part, at least.
constexpr int32_t kBlockBodies = 256;

class Pass {
 public:
  Pass(WorldState* w, ContinuousScratch* s) : w_(w), s_(s) {}

  void Run(const std::vector<int32_t>& awake_bodies) {
    s_->fast.clear();
    s_->heap.clear();
    statics_ = w_->broad_phase->static_count() > 0;
    const uint64_t epoch = w_->broad_phase->static_epoch();
    statics_steady_ = epoch == s_->steady_epoch;
    s_->steady_epoch = epoch;
    s_->fast_count = s_->event_count = s_->toi_count = 0;
    if (s_->fast_of_body.size() < w_->bodies.size()) s_->fast_of_body.resize(w_->bodies.size(), -1);
    if (s_->static_cache.size() < w_->bodies.size()) s_->static_cache.resize(w_->bodies.size());
    if (s_->workers.empty()) s_->workers.resize(1);
    for (Worker& k : s_->workers) {
      k.shapes.clear();
      k.cores_used = k.fast_count = k.toi_count = 0;
    }
    Gather(awake_bodies);
    if (!s_->fast.empty()) {
      Worker& k = s_->workers[0];
      // Non-bullets are in the heap already; bullets sweep against bodies
      // that move, so only now that all are known.
      for (int32_t fi = 0; fi < static_cast<int32_t>(s_->fast.size()); ++fi) {
        Fast& f = s_->fast[fi];
        if (!f.bullet) continue;
        f.fraction = FirstImpactOf(f, &f.carrier, k);
        HeapPush(fi);
      }
      while (!s_->heap.empty() && s_->fast[s_->heap.front()].fraction < 1.0f) {
        const int32_t fi = HeapPop();
        if (s_->fast[fi].bullet) --pending_bullets_;
        Handle(fi, k);
      }
      // Every motion is final now: bullets that hit a moving body ride along
      // with it to the end of the step.
      for (Fast& f : s_->fast) {
        if (f.bullet && f.stop < 1.0f && f.carrier != kNullIndex) Carry(f);
      }
      for (const Fast& f : s_->fast) s_->fast_of_body[f.body] = -1;
    }
    for (const Worker& k : s_->workers) {
      s_->fast_count += k.fast_count;
      s_->toi_count += k.toi_count;
    }
  }

 private:
  using Worker = ContinuousScratch::Worker;

  // Finds the fast bodies (in body index order) and how far the others
  // moved. A non-bullet sweeps against static shapes only, so its first
  // impact is final at once: it is only kept (in `fast`, and in the heap)
  // when it hits something. One that does not needs no record: it moves as
  // solved, which is what BodySweep gives a bullet sweeping against it.
  // Those sweeps depend on nothing but the body and the static shapes, so
  // they run in parallel (blocks of awake bodies, each with a worker of
  // its own); the rest follows serially in body index order.
  void Gather(const std::vector<int32_t>& awake_bodies) {
    const int32_t n = static_cast<int32_t>(awake_bodies.size());
    s_->impact.resize(static_cast<size_t>(n));
    const int32_t concurrency = w_->executor->concurrency();
    const int32_t blocks =
        statics_ && concurrency > 1 ? std::clamp(n / kBlockBodies, 1, 4 * concurrency) : 1;
    if (static_cast<int32_t>(s_->workers.size()) < blocks) s_->workers.resize(blocks);
    auto sweep_block = [this, &awake_bodies, n, blocks](int32_t block) {
      Worker& k = s_->workers[block];
      const int32_t end = static_cast<int32_t>(int64_t{n} * (block + 1) / blocks);
      for (int32_t i = static_cast<int32_t>(int64_t{n} * block / blocks); i < end; ++i) {
        s_->impact[i] = ImpactMarkOf(awake_bodies[i], k);
      }
    };
    if (blocks == 1) {
      sweep_block(0);
    } else {
      w_->broad_phase->PrepareStaticQueries();
      w_->executor->ParallelFor(blocks, 1, [&sweep_block](int32_t begin, int32_t end) {
        for (int32_t block = begin; block < end; ++block) sweep_block(block);
      });
    }
    // Each body gave back the shapes and cores it used: the first worker is
    // empty again for the serial part.
    Worker& k = s_->workers[0];
    ATOLL_ASSERT(k.shapes.empty() && k.cores_used == 0);
    const std::vector<Body>& bodies = w_->bodies;
    for (int32_t i = 0; i < n; ++i) {
      const float impact = s_->impact[i];
      if (impact >= 1.0f) continue;
      const int32_t index = awake_bodies[i];
      const Body& b = bodies[index];
      const bool bullet = impact == kBulletMark;
      if (bullet && !IsFast(b)) continue;
      FastShape single;
      FastShape* shapes = nullptr;
      AABB swept_box;
      const size_t first = k.shapes.size();
      const int32_t count = SweptShapes(b, k, &single, &shapes, &swept_box);
      if (count == 0) continue;
      const int32_t fi = static_cast<int32_t>(s_->fast.size());
      Fast& f = s_->fast.emplace_back();
      f.body = index;
      f.bullet = bullet;
      f.sweep = {b.local_center, b.center0, b.center, b.rotation0, b.transform.q};
      f.swept_box = swept_box;
      if (bullet) {
        if (shapes == &single) k.shapes.push_back(single);
        ++k.fast_count;
        max_bullet_motion_ = Max(max_bullet_motion_, MotionBound(b));
        ++pending_bullets_;
        f.first_shape = static_cast<int32_t>(first);
        f.shape_count = count;
      } else {
        // Only its box is needed: its shapes are never read again.
        k.shapes.resize(first);
        f.fraction = impact;
        HeapPush(fi);
      }
      s_->fast_of_body[index] = fi;
    }
    if (pending_bullets_ == 0) return;
    // Bullets sweep against moving bodies: how far did those move? Any
    // bound at least that large finds the same candidates (each is then
    // tested against its exact swept box), so no square roots per body:
    // the largest center motion plus the largest extent times the largest
    // chord is at least every body's MotionBound (rounding is monotonic).
    float center_sq = 0.0f, chord_sq = 0.0f, extent = 0.0f;
    for (int32_t index : awake_bodies) {
      const Body& b = bodies[index];
      if (b.type == BodyType::kStatic || (b.type == BodyType::kDynamic && b.is_bullet)) continue;
      const Vec2 turn{b.transform.q.c - b.rotation0.c, b.transform.q.s - b.rotation0.s};
      center_sq = Max(center_sq, LengthSquared(b.center - b.center0));
      chord_sq = Max(chord_sq, LengthSquared(turn));
      extent = Max(extent, b.core_extent);
    }
    max_motion_ = Sqrt(center_sq) + extent * Sqrt(chord_sq);
  }

  // The parallel part for body `index`: kBulletMark for a dynamic bullet,
  // kSlowMark for a body that is slow or has nothing to hit, else its
  // first impact against static shapes (1: none).
  float ImpactMarkOf(int32_t index, Worker& k) {
    const Body& b = w_->bodies[index];
    if (b.type != BodyType::kDynamic) return kSlowMark;
    if (b.is_bullet) return kBulletMark;
    // Without static shapes a non-bullet has nothing to hit (and as a
    // bullet's target it moves as solved: no need to track it).
    if (!statics_) return kSlowMark;
    // IsFast first: it reads the same two cache lines of the body as the
    // tests above (most bodies are not fast), `shapes` another.
    if (!IsFast(b)) return kSlowMark;
    FastShape single;
    FastShape* shapes = nullptr;
    AABB swept_box;
    const size_t first = k.shapes.size();
    const int32_t count = SweptShapes(b, k, &single, &shapes, &swept_box);
    if (count == 0) return kSlowMark;
    ++k.fast_count;
    const Sweep sweep{b.local_center, b.center0, b.center, b.rotation0, b.transform.q};
    const int32_t cores = k.cores_used;
    const float fraction = StaticImpactOf(index, sweep, swept_box, shapes, count, k);
    // Its shapes and cores are never read again.
    k.shapes.resize(first);
    k.cores_used = cores;
    return fraction;
  }

  // The shapes of body `b` that collide and their swept boxes over its
  // solved motion: the usual single shape in `*single`, more appended to
  // the worker's shapes. Sets *shapes to the first and *swept_box to their
  // union, and returns how many there are (0: none collides).
  // Inline: see SweptCircleBox.
  [[gnu::always_inline]] int32_t SweptShapes(const Body& b, Worker& k, FastShape* single,
                                             FastShape** shapes, AABB* swept_box) {
    if (b.shapes.empty()) return 0;
    const Transform start{b.center0 - RotateVector(b.rotation0, b.local_center), b.rotation0};
    const float bow = b.rotation0 == b.transform.q
                          ? 0.0f
                          : b.core_extent * RotationChord(b.rotation0, b.transform.q);
    if (b.shapes.size() == 1) {
      const Shape& shape = w_->shapes[b.shapes[0]];
      if (shape.is_sensor || !shape.has_proxy) return 0;
      single->shape = b.shapes[0];
      single->swept_box = shape.geometry.type == ShapeType::kCircle
                              ? SweptCircleBox(shape.geometry.circle, start, b.transform, bow)
                              : SweptShapeBox(shape.geometry, start, b.transform, bow);
      *swept_box = single->swept_box;
      *shapes = single;
      return 1;
    }
    const size_t first = k.shapes.size();
    int32_t count = 0;
    for (int32_t shape_index : b.shapes) {
      const Shape& shape = w_->shapes[shape_index];
      if (shape.is_sensor || !shape.has_proxy) continue;
      FastShape& fs = k.shapes.emplace_back();
      fs.shape = shape_index;
      fs.swept_box = SweptShapeBox(shape.geometry, start, b.transform, bow);
      *swept_box = count == 0 ? fs.swept_box : Union(*swept_box, fs.swept_box);
      ++count;
    }
    *shapes = k.shapes.data() + first;
    return count;
  }

  // MotionBound(b) > kFastMotionShare * min_extent, without square roots
  // for the clear cases: with a = |dc| and r = core_extent * chord,
  // a^2 + r^2 <= (a + r)^2 <= 2 (a^2 + r^2).
  static bool IsFast(const Body& b) {
    const float limit = kFastMotionShare * b.min_extent;
    const Vec2 turn{b.transform.q.c - b.rotation0.c, b.transform.q.s - b.rotation0.s};
    const float squares = LengthSquared(b.center - b.center0) +
                          b.core_extent * b.core_extent * LengthSquared(turn);
    const float limit_sq = limit * limit;
    if (squares > limit_sq) return true;
    if (2.0f * squares <= limit_sq) return false;
    return MotionBound(b) > limit;
  }

  // The earliest impact in [0, 1), or 1, of non-bullet `body` moving by
  // `sweep` with `shapes` (whose boxes make up `swept_box`): against static
  // shapes only, taken from the statics near its path (StaticsNear) in id
  // order, the order QueryStaticAabb would give.
  float StaticImpactOf(int32_t body_index, const Sweep& sweep, const AABB& swept_box,
                       FastShape* shapes, int32_t count, Worker& k) {
    const std::vector<NearStatic>& near = StaticsNear(body_index, sweep, swept_box, k);
    const Body& body = w_->bodies[body_index];
    float best = 1.0f;
    for (const NearStatic& other : near) {
      if (!Overlaps(other.box, swept_box)) continue;
      if (!body.joints.empty() && !w_->bodies[other.body].joints.empty() &&
          !JointsAllowContact(*w_, body_index, other.body)) {
        continue;
      }
      for (int32_t i = 0; i < count; ++i) {
        const float t = ImpactOfStatic(sweep, &shapes[i], other, best, k);
        if (t < best) best = t;
      }
    }
    return best;
  }

  // The static bodies' shapes (not sensors) whose proxies overlap
  // StaticCache::box of the body, a box that holds its `swept_box`: kept
  // from an earlier step while the static proxies stay as they were and
  // the box still holds the body's swept box, else queried afresh.
  // Filtered by the swept box, they are exactly the shapes of
  // QueryStaticAabb(swept_box) that a non-bullet sweeps against (the other
  // static proxies are asleep bodies'): any proxy overlapping the swept box
  // overlaps the larger box. What they are made of is read once per query:
  // no static shape changes without its proxy changing.
  const std::vector<NearStatic>& StaticsNear(int32_t body, const Sweep& sweep,
                                             const AABB& swept_box, Worker& k) {
    ContinuousScratch::StaticCache& cache = s_->static_cache[body];
    BroadPhase& broad_phase = *w_->broad_phase;
    const uint64_t epoch = broad_phase.static_epoch();
    if (cache.epoch == epoch && Contains(cache.box, swept_box)) return cache.statics;
    cache.epoch = epoch;
    // While the static proxies keep changing from step to step (bodies
    // falling asleep and waking up), nothing kept would be reused: query
    // just the swept box.
    cache.box = statics_steady_ ? StretchedBox(sweep, swept_box) : swept_box;
    broad_phase.QueryStaticAabb(cache.box, &k.query);
    cache.statics.clear();
    for (int32_t id : k.query) {
      const Shape& shape = w_->shapes[id];
      const Body& other_body = w_->bodies[shape.body];
      if (shape.is_sensor || other_body.type != BodyType::kStatic) continue;
      NearStatic& near = cache.statics.emplace_back();
      near.shape = id;
      near.body = shape.body;
      ATOLL_ASSERT(broad_phase.GetAabb(id) == shape.aabb);
      near.box = shape.aabb;
      near.radius = ComputeShapeRadius(shape.geometry);
      near.polygon = shape.geometry.type == ShapeType::kPolygon;
      if (!near.polygon) {
        CorePoints(shape.geometry, other_body.transform, &near.a, &near.b);
        near.normal = near.a == near.b ? Vec2{0.0f, 0.0f} : Normalize(LeftPerp(near.b - near.a));
      }
    }
    return cache.statics;
  }

  // The box a non-bullet's statics are kept for: its swept box stretched
  // on along its motion by sixteen more steps of the same motion and padded
  // by half a step, so that it still holds the next swept boxes unless the
  // body turns or speeds up a lot. (callgrind on the continuous-collision
  // scenes, 4 to 16 steps: shorter boxes are queried again more often,
  // and the static queries, branchy tree walks, cost more than filtering
  // the longer lists.)
  static AABB StretchedBox(const Sweep& sweep, const AABB& swept_box) {
    const Vec2 d = sweep.c2 - sweep.c1;
    const AABB ahead = {swept_box.lower + 16.0f * d, swept_box.upper + 16.0f * d};
    return Inflate(Union(swept_box, ahead), 0.5f * (Abs(d.x) + Abs(d.y)));
  }

  // The earliest impact of bullet `f` in [0, 1), or 1, and the moving body
  // it hits first (kNullIndex for a static one or none).
  float FirstImpactOf(const Fast& f, int32_t* carrier, Worker& k) {
    *carrier = kNullIndex;
    const Body& body = w_->bodies[f.body];
    // A bullet's candidates move too; their proxies still hold their
    // step-start boxes, which lie within max_motion_ of anything they swept.
    w_->broad_phase->QueryAabb(Inflate(f.swept_box, max_motion_), &k.query);
    float best = 1.0f;
    for (int32_t shape_index : k.query) {
      const Shape& shape = w_->shapes[shape_index];
      if (shape.body == f.body || shape.is_sensor) continue;
      const Body& other_body = w_->bodies[shape.body];
      const bool resting = other_body.type == BodyType::kStatic;
      // Bullets sweep against everything but other bullets.
      if (other_body.type == BodyType::kDynamic && other_body.is_bullet) continue;
      if (!body.joints.empty() && !other_body.joints.empty() &&
          !JointsAllowContact(*w_, f.body, shape.body)) {
        continue;
      }
      Other other;
      other.shape = &shape;
      other.body = &other_body;
      other.resting = resting;
      Sweep moving;
      if (resting) {
        other.pose = other_body.transform;
        other.box = shape.aabb;
      } else {
        const int32_t other_fast = s_->fast_of_body[shape.body];
        if (other_fast >= 0) {
          other.sweep = &s_->fast[other_fast].sweep;
          other.stop = s_->fast[other_fast].stop;
        } else {
          moving = BodySweep(other_body);
          other.sweep = &moving;
        }
        other.box = SweptShapeBox(shape.geometry, *other.sweep, other_body.core_extent);
      }
      for (int32_t i = f.first_shape; i < f.first_shape + f.shape_count; ++i) {
        const float t = ImpactOfShapes(f.sweep, &k.shapes[i], other, best, k);
        if (t < best) {
          best = t;
          *carrier = resting ? kNullIndex : shape.body;
        }
      }
    }
    return best;
  }

  // The TimeOfImpact parts of `fast_shape`, prepared on first use (in
  // `cores`, whose records are reused from step to step).
  const FastCore& CoreOf(Vec2 local_center, FastShape* fast_shape, Worker& k) {
    if (fast_shape->core >= 0) return k.cores[fast_shape->core];
    if (k.cores_used == static_cast<int32_t>(k.cores.size())) k.cores.emplace_back();
    fast_shape->core = k.cores_used++;
    FastCore& core = k.cores[fast_shape->core];
    const ShapeGeometry& geometry = w_->shapes[fast_shape->shape].geometry;
    if (geometry.type == ShapeType::kCircle) {
      // What MakeShapeProxy, ComputeShapeCentroid and ComputeShapeMinExtent
      // give, without the calls.
      core.proxy.points[0] = geometry.circle.center;
      core.proxy.count = 1;
      core.proxy.radius = geometry.circle.radius;
      core.centroid = geometry.circle.center;
      core.core_radius = 0.25f * geometry.circle.radius;
    } else {
      core.proxy = MakeShapeProxy(geometry);
      core.centroid = ComputeShapeCentroid(geometry);
      core.core_radius = 0.25f * ComputeShapeMinExtent(geometry);
    }
    float extent_sq = 0.0f;
    for (int32_t i = 0; i < core.proxy.count; ++i) {
      extent_sq = Max(extent_sq, DistanceSquared(core.proxy.points[i], local_center));
    }
    core.core_extent = Sqrt(extent_sq);
    core.centroid_extent = Distance(core.centroid, local_center);
    return core;
  }

  // The first impact of one fast shape against one static shape before
  // `limit`, or `limit`. The same as ImpactOfShapes with a resting other,
  // with the cheap tests first: the path tests rule out most candidates
  // before the shapes themselves are read (which test says `limit` first
  // makes no difference to the answer).
  float ImpactOfStatic(const Sweep& sweep, FastShape* fast_shape, const NearStatic& other,
                       float limit, Worker& k) {
    if (!Overlaps(fast_shape->swept_box, other.box)) return limit;
    const Shape& shape = w_->shapes[fast_shape->shape];
    const bool circle = shape.geometry.type == ShapeType::kCircle;
    // See ImpactOfShapes. The path tests need only how far the fast core
    // reaches from the center of mass and its rounding: a circle's come
    // straight from its geometry (as CoreOf computes them).
    float reach = 0.0f, rounding = 0.0f;
    if (circle) {
      reach = Distance(shape.geometry.circle.center, sweep.local_center);
      rounding = shape.geometry.circle.radius;
    } else {
      const FastCore& core = CoreOf(sweep.local_center, fast_shape, k);
      reach = core.core_extent;
      rounding = core.proxy.radius;
    }
    if (!other.polygon && PathClearsSegment(sweep.c1, sweep.c2, other,
                                            reach + ClearanceNeeded(rounding + other.radius))) {
      return limit;
    }
    const Shape& os = w_->shapes[other.shape];
    const Body& other_body = w_->bodies[other.body];
    const float clearance =
        other.polygon
            ? PathToCoreBound(sweep.c1, sweep.c2, os.geometry, other_body.transform)
            : Sqrt(SegmentDistance(sweep.c1, sweep.c2, other.a, other.b).distance_squared);
    if (KeepsClear(clearance - reach, rounding + other.radius)) return limit;
    const FastCore& fs = CoreOf(sweep.local_center, fast_shape, k);
    const bool centroid_clear =
        KeepsClear(clearance - fs.centroid_extent, fs.core_radius + other.radius);
    if (IsThin(shape.geometry.type) && IsThin(os.geometry.type)) return limit;  // never collide
    if (!ShouldCollide(shape.filter, os.filter)) return limit;
    if (centroid_clear && circle && !other.polygon &&
        TouchesAtStart(sweep, shape.geometry.circle, other)) {
      return limit;
    }
    const Sweep resting = BodySweep(other_body);
    return ImpactOfCores(sweep, fs, os, resting, 1.0f, centroid_clear, limit, k);
  }

  // Whether the path p-q keeps more than `clearance` away from the core of
  // `other`, not a polygon, as its separation from the core along the
  // core's normal or the path's shows (any axis bounds the distance from
  // below; the path's normal is left unnormalized, the comparison squared).
  // Cheaper than SegmentDistance, and enough for most candidates whose
  // boxes overlap only because a long core lies across its box.
  static bool PathClearsSegment(Vec2 p, Vec2 q, const NearStatic& other, float clearance) {
    const float p_side = Dot(other.normal, p - other.a), q_side = Dot(other.normal, q - other.a);
    if (Min(p_side, q_side) > clearance || Max(p_side, q_side) < -clearance) return true;
    const Vec2 normal = LeftPerp(q - p);
    const float a_side = Dot(normal, other.a - p), b_side = Dot(normal, other.b - p);
    const float separation = Max(Min(a_side, b_side), -Max(a_side, b_side));
    return separation > 0.0f &&
           separation * separation > clearance * clearance * Dot(normal, normal);
  }

  // Whether TimeOfImpact would stop at its very first distance, which says
  // the circle's core and `other`'s (not a polygon) are already within its
  // target (plus tolerance) at the start of `sweep`: shapes touching at the
  // start are the discrete contact's (when the centroid keeps clear, as the
  // caller checked), so the query would answer `limit`. Its distance (GJK)
  // and this one (SegmentDistance) each round to within a few units in the
  // last place of the largest coordinate; sixteen of them are kept to
  // spare.
  static bool TouchesAtStart(const Sweep& sweep, const Circle& circle, const NearStatic& other) {
    const Vec2 center = sweep.c1 + RotateVector(sweep.q1, circle.center - sweep.local_center);
    const float distance =
        Sqrt(SegmentDistance(center, center, other.a, other.b).distance_squared);
    const float scale = Max(Max(Abs(center.x), Abs(center.y)),
                            Max(Max(Abs(other.a.x), Abs(other.a.y)),
                                Max(Abs(other.b.x), Abs(other.b.y))));
    constexpr float kUnit = std::numeric_limits<float>::epsilon();
    return distance + 16.0f * kUnit * scale <
           TOITarget(circle.radius + other.radius) + kToiTolerance;
  }

  // The first impact of one fast shape, moving by `sweep`, against one
  // other shape before `limit`, or `limit`.
  float ImpactOfShapes(const Sweep& sweep, FastShape* fast_shape, const Other& other,
                       float limit, Worker& k) {
    if (!Overlaps(fast_shape->swept_box, other.box)) return limit;
    const Shape& os = *other.shape;
    const Shape& shape = w_->shapes[fast_shape->shape];
    if (IsThin(shape.geometry.type) && IsThin(os.geometry.type)) return limit;  // never collide
    if (!ShouldCollide(shape.filter, os.filter)) return limit;
    const FastCore& fs = CoreOf(sweep.local_center, fast_shape, k);
    bool centroid_clear = false;
    if (other.resting) {
      // The fast core stays within core_extent of the center of mass, which
      // moves along a straight line: if that line keeps clear of the other
      // core, there is no impact to find. The same holds for the centroid's
      // core circle, which ImpactOfSweeps may sweep next.
      const float clearance = PathToCoreBound(sweep.c1, sweep.c2, os.geometry, other.pose);
      const float other_radius = ComputeShapeRadius(os.geometry);
      if (KeepsClear(clearance - fs.core_extent, fs.proxy.radius + other_radius)) return limit;
      centroid_clear = KeepsClear(clearance - fs.centroid_extent, fs.core_radius + other_radius);
      const Sweep resting = BodySweep(*other.body);
      return ImpactOfCores(sweep, fs, os, resting, 1.0f, centroid_clear, limit, k);
    }
    return ImpactOfCores(sweep, fs, os, *other.sweep, other.stop, centroid_clear, limit, k);
  }

  // The TimeOfImpact part of ImpactOfShapes: the fast shape moves by
  // `sweep`, the other shape `os` by `other_sweep` until `stop`, then rests.
  float ImpactOfCores(const Sweep& sweep, const FastCore& fs, const Shape& os,
                      const Sweep& other_sweep, float stop, bool centroid_clear, float limit,
                      Worker& k) {
    if (os.geometry.type == ShapeType::kChainSegment) {
      // One-sided: a shape starting behind the chain passes through it.
      const Transform xo = SweepStart(other_sweep);
      const Segment& seg = os.geometry.chain_segment.segment;
      const Vec2 p1 = TransformPoint(xo, seg.point1), p2 = TransformPoint(xo, seg.point2);
      const Vec2 c = TransformPoint(SweepStart(sweep), fs.centroid);
      if (Cross(p2 - p1, c - p1) > 0.0f) return limit;
    }
    TOIInput input;
    input.proxy_a = fs.proxy;
    input.proxy_b = MakeShapeProxy(os.geometry);
    input.sweep_a = sweep;
    input.sweep_b = other_sweep;
    if (stop >= 1.0f) {
      return ImpactOfSweeps(&input, fs.centroid, fs.core_radius, centroid_clear, limit, k);
    }
    // The other body stopped at `stop` and rests there afterwards: sweep the
    // two pieces of its motion one after the other.
    const float first =
        ImpactOfSweeps(&input, fs.centroid, fs.core_radius, false, Min(limit, stop), k);
    if (first < Min(limit, stop) || stop >= limit) return Min(first, limit);
    input.proxy_a = fs.proxy;
    input.sweep_a = SweepFrom(sweep, stop);
    input.sweep_b = RestingAt(other_sweep, stop);
    const float rest = 1.0f - stop;
    const float u_limit = (limit - stop) / rest;
    const float u = ImpactOfSweeps(&input, fs.centroid, fs.core_radius, false, u_limit, k);
    return u < u_limit ? Min(stop + u * rest, limit) : limit;
  }

  // TimeOfImpact on `input` up to `limit`: the impact fraction in
  // (0, limit), else `limit`. Shapes already touching at the start are the
  // discrete contact's business, unless the fast shape's core (a circle of
  // `core_radius` around its centroid) would pass into the other shape:
  // then the core's impact counts, and a core already touching stops the
  // body where it is (fraction 0) if it is closing in. `centroid_clear`:
  // the core is known never to come near the other shape.
  float ImpactOfSweeps(TOIInput* input, Vec2 centroid, float core_radius, bool centroid_clear,
                       float limit, Worker& k) {
    input->max_fraction = limit;
    ++k.toi_count;
    const TOIOutput out = TimeOfImpact(*input);
    const bool hit = out.state == TOIState::kHit || out.state == TOIState::kFailed;
    if (hit && out.fraction > 0.0f && out.fraction < limit) return out.fraction;
    if (out.fraction > 0.0f || out.state == TOIState::kSeparated || centroid_clear) return limit;
    const Vec2 point[1] = {centroid};
    input->proxy_a = MakeProxy(point, core_radius);
    ++k.toi_count;
    const TOIOutput core = TimeOfImpact(*input);
    const bool core_hit = core.state == TOIState::kHit || core.state == TOIState::kFailed;
    if (core_hit && core.fraction > 0.0f && core.fraction < limit) return core.fraction;
    if (core.fraction > 0.0f || core.state == TOIState::kSeparated) return limit;
    return CoreClosingIn(*input, centroid) ? 0.0f : limit;
  }

  // Whether the centroid moves towards the other shape at the start of the
  // sweeps (measured along their closest points).
  static bool CoreClosingIn(const TOIInput& input, Vec2 centroid) {
    const Transform xa0 = SweepStart(input.sweep_a), xb0 = SweepStart(input.sweep_b);
    DistanceInput query;
    const Vec2 point[1] = {centroid};
    query.proxy_a = MakeProxy(point, 0.0f);
    query.proxy_b = input.proxy_b;
    query.proxy_b.radius = 0.0f;
    query.transform_a = xa0;
    query.transform_b = xb0;
    const DistanceOutput d = ShapeDistance(query, nullptr);
    if (d.distance <= 0.0f) return false;  // inside: no side to keep it on
    const Vec2 moved_a = TransformPoint(SweepEnd(input.sweep_a), centroid) - d.point_a;
    const Vec2 witness_b = InvTransformPoint(xb0, d.point_b);
    const Vec2 moved_b = TransformPoint(SweepEnd(input.sweep_b), witness_b) - d.point_b;
    return Dot(moved_a - moved_b, d.normal) > 0.0f;
  }

  // Moves fast body `fi` back to its impact pose and, while bullets are
  // pending, refits its proxies and updates the bullets whose impacts
  // depended on its motion.
  void Handle(int32_t fi, Worker& k) {
    Fast& f = s_->fast[fi];
    Body& body = w_->bodies[f.body];
    const float t = f.fraction;
    f.stop = t;
    const Transform xf = GetSweepTransform(f.sweep, t);
    body.transform = xf;
    body.center = {(1.0f - t) * f.sweep.c1.x + t * f.sweep.c2.x,
                   (1.0f - t) * f.sweep.c1.y + t * f.sweep.c2.y};
    ++s_->event_count;
    // Only pending bullets' queries can see the new boxes (bullets ignore
    // bullets; non-bullets query static proxies): without them the refit
    // would be wasted, since the step gives every moved body its new boxes
    // right after this pass (UpdateAwakeBounds).
    if (f.bullet || pending_bullets_ == 0) return;
    RefitProxies(f.body);
    // Only bullets sweep against this body; re-query just its swept box for
    // the pending ones (their proxies hold their step-start boxes).
    w_->broad_phase->QueryAabb(Inflate(f.swept_box, max_bullet_motion_), &k.query);
    s_->affected.clear();
    for (int32_t shape_index : k.query) {
      const int32_t other = s_->fast_of_body[w_->shapes[shape_index].body];
      if (other >= 0 && s_->fast[other].bullet && s_->fast[other].heap_position >= 0) {
        s_->affected.push_back(other);
      }
    }
    // `fast` is in body index order, so this is body index order too.
    std::sort(s_->affected.begin(), s_->affected.end());
    s_->affected.erase(std::unique(s_->affected.begin(), s_->affected.end()),
                       s_->affected.end());
    for (const int32_t fi_bullet : s_->affected) {
      Fast& bullet = s_->fast[fi_bullet];
      bullet.fraction = FirstImpactOf(bullet, &bullet.carrier, k);
      HeapUpdate(fi_bullet);
    }
  }

  // Where body `index` is at time t of the step, as continuous collision
  // moved it: along its sweep until it stopped, then at rest.
  Transform PoseAt(int32_t index, float t) const {
    const int32_t fi = s_->fast_of_body[index];
    if (fi >= 0) return GetSweepTransform(s_->fast[fi].sweep, Min(t, s_->fast[fi].stop));
    return GetSweepTransform(BodySweep(w_->bodies[index]), t);
  }

  // Moves bullet `f`, stopped against a moving body, along with that body
  // from the impact to the end of the step.
  void Carry(const Fast& f) {
    const Transform at_impact = PoseAt(f.carrier, f.stop);
    const Transform at_end = PoseAt(f.carrier, 1.0f);
    if (at_impact == at_end) return;
    Body& body = w_->bodies[f.body];
    const Transform xf =
        MulTransforms(at_end, InvMulTransforms(at_impact, GetSweepTransform(f.sweep, f.stop)));
    body.transform = xf;
    body.center = TransformPoint(xf, body.local_center);
    // No refit: nothing queries after this, and the step gives the body its
    // new boxes next (UpdateAwakeBounds).
  }

  void RefitProxies(int32_t index) {
    const Body& body = w_->bodies[index];
    for (int32_t shape_index : body.shapes) {
      Shape& shape = w_->shapes[shape_index];
      if (!shape.has_proxy) continue;
      shape.aabb = Inflate(ComputeShapeAABB(shape.geometry, body.transform), kSpeculativeDistance);
      w_->broad_phase->Refit(shape_index, shape.aabb);
    }
  }

  // --- The event heap: indices into `fast`, ordered by (fraction, body).

  bool Before(int32_t a, int32_t b) const {
    const Fast& x = s_->fast[a];
    const Fast& y = s_->fast[b];
    return x.fraction < y.fraction || (x.fraction == y.fraction && x.body < y.body);
  }

  void Place(int32_t position, int32_t fi) {
    s_->heap[position] = fi;
    s_->fast[fi].heap_position = position;
  }

  void SiftUp(int32_t position) {
    const int32_t fi = s_->heap[position];
    while (position > 0) {
      const int32_t parent = (position - 1) / 2;
      if (!Before(fi, s_->heap[parent])) break;
      Place(position, s_->heap[parent]);
      position = parent;
    }
    Place(position, fi);
  }

  void SiftDown(int32_t position) {
    const int32_t n = static_cast<int32_t>(s_->heap.size());
    const int32_t fi = s_->heap[position];
    for (;;) {
      int32_t child = 2 * position + 1;
      if (child >= n) break;
      if (child + 1 < n && Before(s_->heap[child + 1], s_->heap[child])) ++child;
      if (!Before(s_->heap[child], fi)) break;
      Place(position, s_->heap[child]);
      position = child;
    }
    Place(position, fi);
  }

  void HeapPush(int32_t fi) {
    s_->heap.push_back(fi);
    SiftUp(static_cast<int32_t>(s_->heap.size()) - 1);
  }

  int32_t HeapPop() {
    const int32_t top = s_->heap.front();
    const int32_t last = s_->heap.back();
    s_->heap.pop_back();
    s_->fast[top].heap_position = -1;
    if (!s_->heap.empty()) {
      Place(0, last);
      SiftDown(0);
    }
    return top;
  }

  // The key of `fi` changed (either way).
  void HeapUpdate(int32_t fi) {
    const int32_t position = s_->fast[fi].heap_position;
    SiftUp(position);
    SiftDown(s_->fast[fi].heap_position);
  }

  WorldState* w_;
  ContinuousScratch* s_;
  bool statics_ = false;
  // The static proxies are as they were at the previous pass.
  bool statics_steady_ = false;
  float max_motion_ = 0.0f;
  float max_bullet_motion_ = 0.0f;
  int32_t pending_bullets_ = 0;
};

}  // namespace

void SolveContinuous(WorldState* world, const std::vector<int32_t>& awake_bodies,
                     ContinuousScratch* scratch) {
  scratch->fast_count = scratch->event_count = scratch->toi_count = 0;
  if (!world->def.enable_continuous) return;
  Pass(world, scratch).Run(awake_bodies);
}

}  // namespace atl
