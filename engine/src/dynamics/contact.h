// Atoll — internal contact record: a pair of shapes whose bounds overlap.

#ifndef ATOLL_DYNAMICS_CONTACT_H_
#define ATOLL_DYNAMICS_CONTACT_H_

#include <cstdint>

#include "atoll/manifold.h"
#include "dynamics/body.h"

namespace atl {

/// Contact flags.
enum ContactFlags : uint32_t {
  /// The manifold has at least one point: the shapes touch (or will within
  /// the speculative margin). Only touching contacts are constraints.
  kContactTouching = 1u << 0,
  /// One shape is a sensor: overlap is tracked, no forces.
  kContactSensor = 1u << 1,
  /// Set on every live contact between steps: a contact that the step's
  /// pairs no longer name (and whose bodies are not both at rest) is
  /// destroyed in one batch pass (seed 000 §4.2.2). Kept in snapshots for
  /// their format; a snapshot contact without it is rejected.
  kContactPersisted = 1u << 2,
  /// Report begin/end events for this contact.
  kContactEnableEvents = 1u << 3,
  /// Report hit events for this contact.
  kContactEnableHits = 1u << 4,
  /// For sensors: the shapes actually overlap.
  kContactSensorOverlaps = 1u << 5,
  /// Contact::base holds the poses the manifold was last computed at: while
  /// the bodies stay close to them the manifold is moved, not recomputed
  /// (contact recycling, contact_manager.cc).
  kContactRecycle = 1u << 6,
  /// The contact is deeper than kPushDepth by more than its bodies'
  /// velocity moved them into each other (they were created, teleported or
  /// pushed out of other overlap into it): its overlap is pushed out by
  /// moving the bodies, not by velocity (contact_solver.h). Cleared when
  /// the contact stops touching.
  kContactPushOut = 1u << 7,
};

/// What contact recycling needs of the step the manifold was last computed
/// in: both bodies' transforms and each point's offset from the body
/// origins (world orientation) and separation then.
struct ManifoldBase {
  Transform transform_a = kTransformIdentity;
  Transform transform_b = kTransformIdentity;
  Vec2 anchor_a[2];
  Vec2 anchor_b[2];
  float separation[2] = {0.0f, 0.0f};
};

/// One contact type for every shape pair; the manifold routine is picked
/// from a table by the two shape types (seed 000 §4.2.4).
struct Contact {
  /// shape_a < shape_b (by index): the pair's canonical orientation.
  int32_t shape_a = kNullIndex;
  int32_t shape_b = kNullIndex;
  int32_t body_a = kNullIndex;
  int32_t body_b = kNullIndex;
  uint32_t flags = 0;
  /// Mixed material (see ShapeDef for the rules).
  float friction = 0.0f;
  float restitution = 0.0f;
  /// Persistent island membership (only for touching contacts between two
  /// dynamic bodies) and the island's intrusive contact list.
  int32_t island = kNullIndex;
  int32_t island_prev = kNullIndex;
  int32_t island_next = kNullIndex;
  /// Points, normal and warm-start impulses (carried by feature id).
  Manifold manifold;
  /// Valid with kContactRecycle.
  ManifoldBase base;
};

}  // namespace atl

#endif  // ATOLL_DYNAMICS_CONTACT_H_
