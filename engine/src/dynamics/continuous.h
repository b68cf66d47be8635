// Atoll — step stage 7: continuous collision for fast bodies (seed 000 §6).
//
// After the solve, a dynamic body that moved further this step than half
// its thickness (Body::min_extent; the motion counts rotation as the chord
// core_extent * |q1 - q0| of its shapes' cores, since rounding that turns
// about its own center covers the same region) is *fast*. Only fast bodies are
// touched; everything else keeps exactly the pose the solver gave it, so a
// world without fast bodies is bit-identical with CCD on or off.
//
// Each fast body is swept from its step-start pose (Body::center0,
// rotation0) to its solved pose and tested by conservative advancement
// (TimeOfImpact) against the shapes the broad phase finds in its swept
// box: static shapes for every fast body; bullets (Body::is_bullet) also
// against kinematic and non-bullet dynamic bodies, whose own motion is
// swept too. Against a static shape the query is skipped when the straight
// path of the fast body's center of mass keeps its core clear of the other
// core by more than where the query would stop (a lower bound on the
// distance: first a separating axis, the other core's normal or the
// path's, then the exact distance for circles, segments and capsules, face
// normals for polygons). A non-bullet's static candidates are kept from step to step
// (ContinuousScratch::static_cache): the static bodies' shapes whose
// proxies overlap a box stretched ahead of it along its motion, with what
// the path test reads of them, reused while that box still holds the swept
// box and the broad phase's static_epoch() is unchanged; filtered by the
// swept box they are exactly what the query would answer. (While the
// static proxies change every step, as when islands keep falling asleep
// and waking up, just the swept box is queried.) A non-bullet's impact
// depends on static shapes alone, so it is final at once; only one that
// hits something is kept as a record. The first impact of each fast body
// is an event keyed by (fraction, body index) in a binary min-heap with
// decrease/increase-key; events are handled in that order. Handling one
// moves the body back to its time-of-impact pose (keeping its velocity:
// next step's speculative contact stops it) and, while bullets are
// pending, refits its proxies in place (BroadPhase::Refit, no rebuild) and
// re-queries only its swept box, to find the bullets whose impact against
// it must be recomputed now that it stops early (only their queries could
// see the refit boxes; the step gives every moved body new boxes after
// this stage anyway). A stopped body is modelled as resting at its impact
// pose for the rest of the step, so event times only grow and the heap
// order is the order of events. A bullet that hit a moving body instead
// rides along with that body from the impact to the end of the step (the
// body keeps moving; left behind, the bullet would end the step inside
// it), so the two end the step touching and the next step's contact
// settles the collision.
//
// Shapes already touching at the start of the step are left to the
// discrete contact, unless the fast shape's centroid would pass through
// them; then the body stops where its centroid reaches the surface (a
// circle found touching a static core at the start, whose centroid keeps
// clear, skips the query that would only say so). Every
// query result comes in shape index order and every tie is broken by body
// index, so the outcome is the same with every broad-phase strategy.
//
// The non-bullets' sweeps against static shapes, most of the pass, run in
// parallel: blocks of the awake bodies over the world's executor, each
// with its own scratch (ContinuousScratch::Worker), querying the static
// proxies at once (BroadPhase::PrepareStaticQueries). A sweep reads
// nothing but its body and the static shapes and writes only its body's
// entries, so its answer is the same on any thread; the events are
// gathered from those answers in body index order and handled serially.

#ifndef ATOLL_DYNAMICS_CONTINUOUS_H_
#define ATOLL_DYNAMICS_CONTINUOUS_H_

#include <cstdint>
#include <vector>

#include "atoll/distance.h"
#include "atoll/filter.h"
#include "atoll/geometry.h"
#include "atoll/math.h"
#include "atoll/time_of_impact.h"

namespace atl {

struct WorldState;

/// A body moves fast when its motion in a step exceeds this share of its
/// min_extent.
inline constexpr float kFastMotionShare = 0.5f;

/// Scratch of one continuous-collision pass, kept between steps.
struct ContinuousScratch {
  struct Fast {
    int32_t body = 0;
    bool bullet = false;
    /// The solved motion of the step; `stop` is where the body stopped
    /// (1 while it has not).
    Sweep sweep;
    float stop = 1.0f;
    /// Union of the shapes' boxes over the whole sweep.
    AABB swept_box;
    /// Current event key and heap position (-1 once handled).
    float fraction = 1.0f;
    int32_t heap_position = -1;
    /// The moving body a bullet hit (kNullIndex: a static one or none): the
    /// bullet rides along with it for the rest of the step.
    int32_t carrier = -1;
    /// A bullet's colliding shapes: [first_shape, first_shape +
    /// shape_count) in the first worker's `shapes`.
    int32_t first_shape = 0;
    int32_t shape_count = 0;
  };
  /// A fast body's shape: what every candidate pair reads.
  struct FastShape {
    int32_t shape = 0;
    /// Index of its FastCore in `cores`, -1 until a candidate first needs
    /// the time-of-impact parts.
    int32_t core = -1;
    /// Box over the whole sweep.
    AABB swept_box;
  };
  /// The parts of a fast shape that only the path test and TimeOfImpact
  /// read, prepared on first need: most fast shapes never get that far.
  struct FastCore {
    ShapeProxy proxy;
    /// Centroid in the body frame, and the radius of the core around it
    /// that must never pass into another shape.
    Vec2 centroid;
    float core_radius = 0.0f;
    /// The largest distance of a point of `proxy` from the center of mass,
    /// and the centroid's.
    float core_extent = 0.0f;
    float centroid_extent = 0.0f;
  };
  /// A worker's scratch. The non-bullets' sweeps against static shapes
  /// run in parallel: the awake bodies are split into blocks, each with a
  /// worker of its own. The serial rest of the pass uses the first.
  struct alignas(64) Worker {
    /// The fast shapes of the body at hand; in the first worker, after the
    /// parallel part, the bullets' shapes (Fast::first_shape).
    std::vector<FastShape> shapes;
    /// Grows only: records are reused from step to step.
    std::vector<FastCore> cores;
    int32_t cores_used = 0;
    std::vector<int32_t> query;
    int32_t fast_count = 0;
    int32_t toi_count = 0;
  };
  std::vector<Fast> fast;
  std::vector<Worker> workers;
  /// Per entry of the awake bodies, what the parallel part found: the
  /// first impact of a fast non-bullet against static shapes (1: none),
  /// -1 for a bullet (left to the serial part), 2 for the rest.
  std::vector<float> impact;
  /// Body index -> index in `fast`, -1 for slow bodies (reset after use).
  std::vector<int32_t> fast_of_body;
  /// Min-heap of indices into `fast`.
  std::vector<int32_t> heap;
  std::vector<int32_t> affected;
  /// A static body's shape near a non-bullet's path, with what the path
  /// test needs of it.
  struct NearStatic {
    int32_t shape = 0;
    int32_t body = 0;
    /// The shape's box (Shape::aabb, which is also its proxy's).
    AABB box;
    /// The core in world coordinates (the segment a-b; a point when a == b)
    /// unless it is a polygon, its unit normal (zero for a point) and its
    /// rounding radius.
    Vec2 a, b;
    Vec2 normal;
    float radius = 0.0f;
    bool polygon = false;
  };
  /// Per body index: the static bodies' shapes (ascending ids) whose
  /// proxies overlap `box`, as of the broad phase's static_epoch() `epoch`
  /// (0: none yet). See Pass::StaticsNear.
  struct StaticCache {
    AABB box;
    uint64_t epoch = 0;
    std::vector<NearStatic> statics;
  };
  std::vector<StaticCache> static_cache;
  /// The static_epoch() at the start of the last pass.
  uint64_t steady_epoch = 0;
  /// Counters of the last pass, for tests and benchmarks.
  int32_t fast_count = 0;
  int32_t event_count = 0;
  int32_t toi_count = 0;
};

/// Runs continuous collision over `awake_bodies` (body indices in index
/// order, as the solver left them). Does nothing unless
/// WorldDef::enable_continuous. Changes only the poses (Body::transform,
/// center) of fast bodies that hit something, and, while bullets are
/// pending, their shapes' and proxies' boxes (the caller updates the boxes
/// of every moved body afterwards).
void SolveContinuous(WorldState* world, const std::vector<int32_t>& awake_bodies,
                     ContinuousScratch* scratch);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_CONTINUOUS_H_
