// Atoll — everything a world holds. Internal.
//
// All records live in index-addressed vectors with IdPool free lists, so the
// state is plain data: iteration order is index order on every machine, and
// a snapshot is a walk over these arrays.

#ifndef ATOLL_WORLD_WORLD_STATE_H_
#define ATOLL_WORLD_WORLD_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "atoll/events.h"
#include "atoll/executor.h"
#include "atoll/profile.h"
#include "atoll/world_def.h"
#include "broad_phase/broad_phase.h"
#include "core/bit_set.h"
#include "core/id_pool.h"
#include "dynamics/body.h"
#include "dynamics/contact.h"
#include "dynamics/island.h"
#include "dynamics/joints/joint.h"
#include "dynamics/shape.h"

namespace atl {

struct WorldScratch;

struct WorldState {
  WorldState();
  ~WorldState();
  WorldState(WorldState&&) noexcept;
  WorldState& operator=(WorldState&&) noexcept;

  WorldDef def;

  IdPool body_ids;
  std::vector<Body> bodies;
  IdPool shape_ids;
  std::vector<Shape> shapes;
  IdPool contact_ids;
  std::vector<Contact> contacts;
  IdPool joint_ids;
  std::vector<Joint> joints;
  IdPool island_ids;
  std::vector<Island> islands;

  /// Proxy id = shape index (see BroadPhase::CreateProxyWithId).
  std::unique_ptr<BroadPhase> broad_phase;

  /// Completed steps.
  int64_t step_count = 0;
  /// Set when a step's solve left a body with a non-finite state: the
  /// message Step returns from then on. Not part of the snapshot: a
  /// restore starts a fresh state.
  std::string diverged;
  /// The time step of the last Step, for restitution and sleep timing.
  float last_time_step = 0.0f;

  /// Events of the last step.
  StepEvents events;
  /// End events from destroying things between steps; delivered with the
  /// next step's events.
  std::vector<ContactEndEvent> pending_contact_end;
  std::vector<SensorEndEvent> pending_sensor_end;

  // --- Not part of the state ------------------------------------------------
  /// Runs the parallel stages; never owned, never null.
  Executor* executor = SerialExecutor();

  // --- Scratch, rebuilt every step ----------------------------------------
  StepProfile profile;
  /// Time spent applying touching changes to islands inside UpdateContacts.
  float island_link_ms = 0.0f;
  /// The broad phase's pairs as of its last UpdatePairs (kept across steps:
  /// see BroadPhase::pairs_may_have_changed).
  std::vector<ProxyPair> pairs;
  /// Contacts that began / stopped touching during the narrow phase, applied
  /// in contact index order afterwards (seed 002).
  BitSet begin_touching;
  BitSet end_touching;
  /// Per-contact narrow-phase outcome (0 none, 1 began, 2 ended, 3
  /// recycled), written by the parallel narrow phase, read in index order
  /// afterwards.
  std::vector<uint8_t> touch_change;
  /// The live contacts in index order, listed for the narrow phase.
  std::vector<int32_t> live_contacts;
  /// Contacts whose manifold this step's narrow phase moved instead of
  /// recomputing (contact recycling).
  int32_t recycled_contacts = 0;
  /// Per broad-phase pair: its contact, or kNullIndex (then one is created
  /// if the pair may collide).
  std::vector<int32_t> pair_contacts;
  /// Per contact: named by this step's pairs (or created by them).
  std::vector<uint8_t> contact_matched;
  /// UpdateContacts' lists of the pairs that get a new contact and of the
  /// contacts no pair named, in order (scratch).
  std::vector<int32_t> new_contact_pairs;
  std::vector<int32_t> unmatched_contacts;
  /// Last step's pairs as keys (PairKey order) and the contact each named,
  /// with its generation: matching this step's sorted pairs against them is
  /// a merge instead of a search per pair. A lookup cache only, validated on
  /// use (a freed or reused contact slot has another generation); a restored
  /// world starts without it and searches.
  /// A pair that named no contact was refused one (ShouldCreateContact);
  /// its "generation" is then the contact_rule_epoch it was refused in.
  std::vector<uint64_t> last_pair_keys;
  std::vector<int32_t> last_pair_contacts;
  std::vector<uint32_t> last_pair_generations;
  /// Changes whenever ShouldCreateContact could answer differently for a
  /// pair of shape indices (a joint made or removed, a shape index freed or
  /// taken): while it stays, a pair refused last step is refused again.
  uint32_t contact_rule_epoch = 1;
  /// The kinematic and dynamic bodies in index order, for the steps'
  /// walks that static bodies would only slow down (a level of static
  /// bodies around a few movers). Rebuilt when stale: a body was created or
  /// destroyed since (a new or restored state starts stale).
  std::vector<int32_t> moving_bodies;
  bool moving_bodies_stale = true;
  /// Every contact that outlived last step's match was named by one of its
  /// pairs or joins two bodies of the broad phase's static part (the batch
  /// removal keeps only those), so a pair last step did not name, with a
  /// body that was moving then, has no contact to search for. A body was
  /// moving then if it is now and its proxies were not re-filed since
  /// (RefileBodyProxies marks them here; the match clears the marks).
  /// `matched` stays false in a restored world until its first match,
  /// which searches.
  std::vector<uint8_t> refiled_since_match;
  std::vector<int32_t> refiled_bodies;
  bool matched = false;
  /// Solver arrays and the like (world.cc).
  std::unique_ptr<WorldScratch> scratch;
};

/// Whether a body's proxies belong to the broad phase's static part: static
/// bodies, and bodies asleep. Static proxies never pair with each other, so a
/// sleeping pile costs the broad phase (almost) nothing; its contacts are
/// kept without being re-reported (see UpdateContacts).
inline bool ProxyIsStatic(const Body& b) { return b.type == BodyType::kStatic || !b.awake; }

/// Body::core_extent of `b` from its shapes and local_center.
float ComputeBodyCoreExtent(const WorldState& w, const Body& b);

/// Re-files the proxies of `body` after its awake flag changed.
void RefileBodyProxies(WorldState* w, int32_t body);

/// Rebuilds WorldState::moving_bodies if it is stale.
void RefreshMovingBodies(WorldState* w);

/// Makes ids for records of this world.
inline BodyId MakeBodyId(const WorldState& w, int32_t index) {
  return {static_cast<uint32_t>(index), w.def.world_id, w.body_ids.Generation(index)};
}
inline ShapeId MakeShapeId(const WorldState& w, int32_t index) {
  return {static_cast<uint32_t>(index), w.def.world_id, w.shape_ids.Generation(index)};
}
inline JointId MakeJointId(const WorldState& w, int32_t index) {
  return {static_cast<uint32_t>(index), w.def.world_id, w.joint_ids.Generation(index)};
}

}  // namespace atl

#endif  // ATOLL_WORLD_WORLD_STATE_H_
