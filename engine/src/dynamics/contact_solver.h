// Atoll — the contact part of the soft-step solver.
//
// Per step: Prepare once (anchors, effective masses, softness); then per
// substep WarmStart, Solve(use_bias = true) and, after positions are
// integrated, Solve(use_bias = false) to relax; after the substeps one
// restitution pass, then StoreImpulses for next step's warm start. The
// solver (solver.cc) runs each pass colour by colour.
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
#include <vector>

#include "dynamics/solver_body.h"

namespace atl {

struct WorldState;

struct ContactConstraintPoint {
  /// Anchors: contact point minus body center, world orientation, at step
  /// start.
  Vec2 anchor_a;
  Vec2 anchor_b;
  /// Separation minus the anchors' normal offset: current separation is
  /// dot(normal, d) + base_separation, d the anchors' relative motion.
  float base_separation = 0.0f;
  /// Normal relative velocity at step start, for restitution and hits.
  float relative_velocity = 0.0f;
  float normal_impulse = 0.0f;
  float tangent_impulse = 0.0f;
  /// Largest normal impulse of the step (restitution applies only where the
  /// contact pushed).
  float max_normal_impulse = 0.0f;
  float normal_mass = 0.0f;
  float tangent_mass = 0.0f;
};

struct ContactConstraint {
  /// Solver body indices; -1 for a static body.
  int32_t index_a = -1;
  int32_t index_b = -1;
  int32_t contact = 0;
  int32_t point_count = 0;
  Vec2 normal;
  float friction = 0.0f;
  float restitution = 0.0f;
  float inv_mass_a = 0.0f, inv_inertia_a = 0.0f;
  float inv_mass_b = 0.0f, inv_inertia_b = 0.0f;
  ContactConstraintPoint points[2];
};

/// Lists, in contact index order, the touching non-sensor contacts with a
/// dynamic body in the solver (bodies' solver_index and `params` map bodies
/// to solver slots, -1 outside the solver).
void CollectSolverContacts(const WorldState& world, const std::vector<SolverBodyParams>& params,
                           std::vector<int32_t>* touching);

/// Builds the constraint of touching contact `contact` into `out` (reads
/// only the world and `params`, so constraints may be built concurrently).
void PrepareContact(const WorldState& world, const std::vector<SolverBodyParams>& params,
                    int32_t contact, ContactConstraint* out);

// The per-constraint passes below read and write only the constraint and the
// solver slots of the bodies it moves (ConstraintMoves), so the constraints
// of one colour may run concurrently.

/// Applies the accumulated impulses (warm start).
void WarmStartContact(const ContactConstraint& constraint, SolverBody* bodies);

/// One Gauss-Seidel iteration of one constraint. `softness` for penetration
/// recovery; with use_bias false (relax) overlap is not pushed out, only
/// velocity solved.
void SolveContact(ContactConstraint* constraint, SolverBody* bodies,
                  const Softness& softness, float inv_h,
                  float max_push_velocity, bool use_bias);

/// The restitution pass of one constraint, after the substeps.
void ApplyRestitution(ContactConstraint* constraint, SolverBody* bodies,
                      float threshold);

/// Writes the constraint's impulses back into its contact's manifold, for
/// next step's warm start.
void StoreImpulses(const ContactConstraint& constraint, WorldState* world);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_CONTACT_SOLVER_H_
