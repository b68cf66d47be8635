// Atoll — the contact manager: broad-phase pairs in, contacts with fresh
// manifolds out (seed 000 §4).
//
// The broad phase reports *every* overlapping pair each step, not only new
// ones. A pair matched to an existing contact flags it as persisted; a new
// pair creates a contact; contacts left unflagged are destroyed in one
// batch pass, which also compacts the per-body contact arrays. The narrow
// phase then refreshes the manifolds of contacts with an awake body and
// records touching changes in bit sets, which are applied afterwards in
// contact index order (seed 002), so island edits never depend on the order
// the narrow phase ran in.

#ifndef ATOLL_DYNAMICS_CONTACT_MANAGER_H_
#define ATOLL_DYNAMICS_CONTACT_MANAGER_H_

#include <cstdint>

namespace atl {

struct WorldState;

/// Where end events of a destroyed contact go.
enum class EndEventTarget {
  /// Into this step's events (destroyed during the step).
  kCurrentStep,
  /// Into the pending list delivered with the next step (destroyed by the
  /// user between steps).
  kNextStep,
};

/// Destroys one contact now: emits end events if it touched, unlinks it from
/// its island and removes it from both bodies' contact arrays. With `wake`,
/// the bodies' islands wake (something they rested on went away).
void DestroyContact(WorldState* world, int32_t contact, EndEventTarget target,
                    bool wake);

/// False when a joint between bodies `a` and `b` forbids their shapes to
/// collide (collide_connected off); contacts and continuous collision
/// between them are skipped.
bool JointsAllowContact(const WorldState& world, int32_t a, int32_t b);

/// Step stage 4: matches world->pairs to contacts, creates and destroys
/// contacts, runs the narrow phase and applies touching changes (island
/// links, begin/end and sensor events).
void UpdateContacts(WorldState* world);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_CONTACT_MANAGER_H_
