// Atoll — the contact part of the soft-step solver.
//
// Per step: Prepare once (anchors, effective masses, softness); then per
// substep WarmStart, Solve(use_bias = true) and, after positions are
// integrated, Solve(use_bias = false) to relax; after the substeps one
// restitution pass, then StoreImpulses for next step's warm start. The
// solver (solver.cc) runs each pass colour by colour, four constraints of a
// colour at a time (ContactGroup).
//
// Overlap the bodies' velocity did not drive in (bodies created inside each
// other, a body teleported into a wall, or pushed by this push-out into a
// neighbour: kContactPushOut, set by the narrow phase on a contact deeper
// than kPushDepth whose overlap appeared or grew by more than the bodies'
// motion of the last step explains) is removed by moving
// the bodies, not by giving them velocity (split impulse): after each
// substep's position update PushContacts solves the contacts for push
// velocities, one Gauss-Seidel sweep colour by colour like the other
// passes, then a second sweep of the contacts with a body that cannot
// move, so a pile pushing a body down cannot drive it through the ground;
// ApplyPushes (solver.cc) moves each body by its push velocity, capped at
// the world's push limit, and forgets it. Only push-out contacts push;
// every other contact only stops the push driving its bodies deeper into
// each other than kPushDepth (or than they already are). Nothing of the
// push is left in the bodies' velocities, so separating a pile adds no
// kinetic energy and a body comes out of any pile no faster than the
// limit. While a push-out contact is deeper than kPushDepth, the velocity
// solve's contact is rigid and pushes nothing, only stops the bodies
// approaching. The push passes run only in steps with a push-out contact;
// a body they move faster than its sleep threshold does not fall asleep in
// that step.
//
// Overlap the bodies' velocity drove in (an impact, a heavy body on a light
// one) is the velocity solve's, as in
// Box2D v3: a soft push that leaves velocity, so a compressed heap springs
// apart as the one it represents would (smash's ram sprays the block it
// hits; pushing that overlap out without velocity left the ram ploughing
// a block squeezed into itself).
//
// The velocity solve's push is capped per body, not per contact, for a
// body in a pile: one with a push-out contact (created inside others) or in
// more than kPileContacts contacts that overlap by more than the slop. Such
// a body in n of those contacts has each of them with other bodies of the
// solve push at most max_push / n (the larger n of the two bodies), so its
// pushes add up to no more than max_push however many bodies it is created
// inside. With a cap per contact, a pile of n bodies created at one point
// spread at about n times the cap, each pair pushing its own 3 m/s on top of
// its neighbour's. A contact with a static body (which cannot give way)
// pushes at the full limit: a body created in the ground under a pile comes
// out of it at the limit, not at a share of it. Any other body (a crowd
// pressed together by a load or an impact, a few deep contacts a body) has
// each contact push at the full limit, as in Box2D v3: sharing there left
// spinner's crowd, hammered against the wall by its blade, squeezed into
// twice v3's contacts with 0.8 m overlaps it could not push out.
//
// Bodies in more than kPileContacts deep contacts are in a pile (created
// inside others), not resting on them: the warm start of their overlapping
// points with other bodies of the solve is thinned to kPileContacts / n of
// last step's impulses. Warm starting them in full re-applies impulses that
// one Gauss-Seidel sweep could not balance among hundreds of contacts, and
// the excess compounds from step to step (mild_n2's pile of 500 compound
// bodies went from 14 to 470 m/s in five steps after hitting the ground).
// Resting bodies have fewer deep contacts and keep their warm start.
//
// Anchors are the contact points relative to each body's center, fixed at
// the start of the step. The current separation during a substep comes from
// how far the bodies moved since then, so the narrow phase runs once per
// step. Friction uses the same anchors: their tangential drift since the
// step began is fed back as a position error, so static friction holds
// without creep instead of only cancelling velocity.

#ifndef ATOLL_DYNAMICS_CONTACT_SOLVER_H_
#define ATOLL_DYNAMICS_CONTACT_SOLVER_H_

#include <cstdint>
#include <cstring>
#include <vector>

#include "atoll/constants.h"
#include "dynamics/solver_body.h"

namespace atl {

struct WorldState;

/// Deep contacts (overlap beyond kLinearSlop) beyond which a body is in a
/// pile and its overlapping points' warm start is thinned.
inline constexpr int32_t kPileContacts = 8;

/// Overlap beyond which a contact that begins touching is pushed apart by
/// moving the bodies (kContactPushOut, PushContacts) rather than by
/// velocity.
inline constexpr float kPushDepth = 4.0f * kLinearSlop;

/// The share of a contact's overlap beyond kPushDepth that one substep's
/// push removes (before the push limit caps it).
inline constexpr float kPushRate = 0.2f;

/// Four contact constraints side by side, one per lane, as structures of
/// arrays: the solver works on a whole group at once (core/float4.h), lane
/// by lane exactly as it would on one constraint. The constraints of a
/// group share no body the solver moves (a colour's by colouring, the
/// overflow's by PackOverflow in solver.cc), so solving them together
/// equals solving them one after another. Unused lanes (contact -1) and
/// missing second points are masked out.
struct ContactGroup {
  /// Solver body slots; a body outside the solve (static) has the static
  /// slot, which holds kStaticSolverBody.
  int32_t index_a[4];
  int32_t index_b[4];
  /// The world contact of each lane, -1 for an unused lane.
  int32_t contact[4];
  /// Whether the constraint moves (writes) its bodies (ConstraintMoves).
  uint8_t moves_a[4];
  uint8_t moves_b[4];
  /// Whether manifold point j exists in each lane.
  uint8_t has_point[2][4];
  /// Whether the lane's contact has kContactPushOut.
  uint8_t push_out[4];
  float normal_x[4], normal_y[4];
  float friction[4];
  float restitution[4];
  /// Fastest push-out of each lane's overlap, m/s (see the overview).
  float max_push[4];
  float inv_mass_a[4], inv_inertia_a[4];
  float inv_mass_b[4], inv_inertia_b[4];
  struct Points {
    /// Anchors: contact point minus body center, world orientation, at step
    /// start.
    float anchor_ax[4], anchor_ay[4];
    float anchor_bx[4], anchor_by[4];
    /// Separation minus the anchors' normal offset: current separation is
    /// dot(normal, d) + base_separation, d the anchors' relative motion.
    float base_separation[4];
    /// Normal relative velocity at step start, for restitution and hits.
    float relative_velocity[4];
    float normal_impulse[4];
    float tangent_impulse[4];
    /// Largest normal impulse of the step (restitution applies only where
    /// the contact pushed).
    float max_normal_impulse[4];
    float normal_mass[4];
    float tangent_mass[4];
  } points[2];
};

/// Whether some lane of the group has manifold point j, for j = 0 and 1:
/// the passes skip a point no lane has. (Always inlined: the AVX solver
/// calls it too, contact_kernels.h.)
inline __attribute__((always_inline)) void AnyPoints(const ContactGroup& g, bool any[2]) {
  for (int32_t j = 0; j < 2; ++j) {
    uint32_t lanes;
    std::memcpy(&lanes, g.has_point[j], sizeof(lanes));
    any[j] = lanes != 0;
  }
}

/// One block's part of CollectSolverContacts (scratch, kept between steps
/// for its memory): its touching contacts, their slots and the positions of
/// its hit contacts, all within the block; then where they go.
struct CollectedContacts {
  std::vector<int32_t> touching;
  std::vector<int32_t> slots;
  std::vector<int32_t> hits;
  bool push = false;
  int32_t first = 0;
  int32_t first_hit = 0;
};

/// Lists, in contact index order, the touching non-sensor contacts with a
/// dynamic body in the solver (`slot_of_body` and `params` map bodies to
/// solver slots, -1 outside the solver) and their bodies' slots, two per
/// contact (`slots`). Per solver slot (sized to params): whether the body
/// has a push-out contact (`pushed`), and `deep`, how many contacts share
/// its velocity push: for a body in a pile (one with a push-out contact or
/// in more than kPileContacts), its contacts that overlap by more than
/// kLinearSlop, else 0. `hits`: the positions in `touching` of the
/// contacts with kContactEnableHits, in order. Returns whether any contact
/// has kContactPushOut (the step needs PushContacts). Runs on the world's
/// executor, in blocks of the contact pool (`blocks`: their scratch); the
/// results do not depend on the thread count.
bool CollectSolverContacts(const WorldState& world, const int32_t* slot_of_body,
                           const std::vector<SolverBodyParams>& params,
                           std::vector<int32_t>* touching, std::vector<int32_t>* slots,
                           std::vector<int32_t>* deep, std::vector<uint8_t>* pushed,
                           std::vector<int32_t>* hits, std::vector<CollectedContacts>* blocks);

/// What PrepareContact reads besides the contact: per solver slot the
/// bodies' parameters, velocities and centers at step start (a pile's
/// contacts reach their bodies in no order: these are a few bytes a body,
/// the world's bodies a few cache lines), CollectSolverContacts' `deep`
/// count, the world's push limit, and the slot of kStaticSolverBody.
struct ContactPrepareInput {
  const SolverBodyParams* params = nullptr;
  const SolverBody* bodies = nullptr;
  const Vec2* centers = nullptr;
  const int32_t* deep = nullptr;
  float max_push = 0.0f;
  int32_t static_slot = 0;
};

/// Makes lane `lane` of `group` unused (its bodies: `static_slot`).
void ClearContactLane(ContactGroup* group, int32_t lane, int32_t static_slot);

/// Builds the constraint of touching contact `contact`, whose bodies have
/// solver slots `slot_a` and `slot_b` (-1 outside the solve), into lane
/// `lane` of `group`; bodies outside the solve get `in.static_slot`. Reads
/// only the world and `in`, so groups may be built concurrently.
void PrepareContact(const WorldState& world, const ContactPrepareInput& in, int32_t contact,
                    int32_t slot_a, int32_t slot_b, ContactGroup* group, int32_t lane);

// The passes below read and write only the group and the solver slots of
// the bodies its constraints move (ConstraintMoves), so the groups of one
// colour may run concurrently; the overflow's groups run one after another.

/// Applies the accumulated impulses (warm start).
void WarmStartContacts(const ContactGroup& group, SolverBody* bodies);

/// One Gauss-Seidel iteration of the group's constraints. `softness` for
/// penetration recovery; with use_bias false (relax) overlap is not pushed
/// out, only velocity solved.
void SolveContacts(ContactGroup* group, SolverBody* bodies, const Softness& softness,
                   float inv_h, bool use_bias);

/// WarmStartContacts and SolveContacts over groups [begin, end) of one
/// colour (not the overflow, whose groups share bodies): two groups, eight
/// lanes, at a time (contact_solver_avx.cc), bit for bit the same as the
/// groups one after the other. Call only when WideContactsEnabled().
void WarmStartContactRange(ContactGroup* groups, int32_t begin, int32_t end, SolverBody* bodies);
void SolveContactRange(ContactGroup* groups, int32_t begin, int32_t end, SolverBody* bodies,
                       const Softness& softness, float inv_h, bool use_bias);

/// Whether contact_solver_avx.cc was compiled for AVX (x86-64 builds).
bool CompiledWithAvx();
/// Whether the solver runs the ranges above: compiled for AVX, this CPU
/// has it, and not switched off. The results are the same either way;
/// EnableWideContacts(false) is for the tests that prove it (and
/// EnableWideContacts(true) does nothing where AVX is missing).
bool WideContactsEnabled();
void EnableWideContacts(bool enabled);

/// One Gauss-Seidel iteration of the push-out (see the overview): reads
/// the bodies' motion since the step began, and adds to `push` (per solver
/// slot, zero before the substep's first sweep) the velocities that would
/// remove kPushRate of each push-out contact's overlap beyond kPushDepth,
/// at most `max_push` per contact, and keep the other contacts from being
/// pushed deeper. With `fixed_only`, only the contacts with a body that
/// cannot move (static, kinematic). Lanes [lane_begin, lane_end) of the
/// group, in order. Writes only the slots of bodies it moves.
void PushContacts(const ContactGroup& group, const SolverBody* bodies, Vec2* push, float inv_h,
                  float max_push, bool fixed_only, int32_t lane_begin, int32_t lane_end);

/// The restitution pass, after the substeps.
void ApplyRestitution(ContactGroup* group, SolverBody* bodies, float threshold);

/// Writes the group's impulses back into its contacts' manifolds, for next
/// step's warm start.
void StoreImpulses(const ContactGroup& group, WorldState* world);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_CONTACT_SOLVER_H_
