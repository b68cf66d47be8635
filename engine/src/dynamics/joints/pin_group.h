// Atoll — pins, the plain revolute joints, solved four at a time.
//
// A pin is a revolute joint with no spring, motor or limit: its solve is
// the joint's two point rows alone (SolveRevoluteJoint's branch without a
// reached limit). Mobiles, nets and chains are made of little else, and
// the scalar path spent more on reaching the joint (the variant dispatch,
// the joint record, copying both bodies in and out) than on the rows. So
// the solver lays pins out like contacts (contact_solver.h): four of one
// colour to a group, structures of arrays, each colour's groups contiguous,
// and solves a group lane by lane with the same operations in the same
// order as SolveRevoluteJoint does on one joint, so the result is bit for
// bit the scalar one. Every other joint, and every joint of the overflow
// colour, keeps the scalar path.

#ifndef ATOLL_DYNAMICS_JOINTS_PIN_GROUP_H_
#define ATOLL_DYNAMICS_JOINTS_PIN_GROUP_H_

#include <cstdint>

#include "dynamics/joints/joint.h"
#include "dynamics/solver_body.h"

namespace atl {

/// Four pins of one colour side by side, one per lane. They share no body
/// the solver moves, so solving them together equals solving them one
/// after another. Unused lanes name the static slot on both sides and have
/// no mass, so they compute zeros and write nothing.
struct PinGroup {
  /// Solver body slots; a body outside the solve (static, or the world)
  /// has the static slot, which holds kStaticSolverBody.
  int32_t index_a[4];
  int32_t index_b[4];
  /// Whether the joint moves (writes) its bodies (ConstraintMoves).
  uint8_t moves_a[4];
  uint8_t moves_b[4];
  float inv_mass_a[4], inv_inertia_a[4];
  float inv_mass_b[4], inv_inertia_b[4];
  /// inv_mass_a + inv_mass_b: the first sum of both diagonal terms of the
  /// effective mass (PointConstraintMatrix), so the same float.
  float mass_sum[4];
  /// JointFrame::anchor_a, anchor_b and delta_center.
  float anchor_ax[4], anchor_ay[4];
  float anchor_bx[4], anchor_by[4];
  float delta_center_x[4], delta_center_y[4];
  /// RevoluteJoint::linear_impulse, accumulated here during the step.
  float impulse_x[4], impulse_y[4];
  /// The current anchors (anchor_* rotated by each body's turn since step
  /// start) and the effective mass at them (PointConstraintMatrix, k12 ==
  /// k21, and Solve22's inverse determinant), kept by the last pass that
  /// computed them (PinGeometry).
  float ra_x[4], ra_y[4], rb_x[4], rb_y[4];
  float k11[4], k12[4], k22[4], inv_det[4];
};

/// Whether a pass computes the pins' current anchors and effective mass
/// from the bodies' rotations, keeping them in the group (kCompute), or
/// takes the ones kept (kReuse). Only the position update turns the bodies,
/// so after it the first pass computes, and until the next one the passes
/// may reuse: bit for bit what computing again would give. Per substep
/// that saves two of three computations (the relax pass computes for
/// itself and the next substep's warm start and solve).
enum class PinGeometry { kCompute, kReuse };

/// Makes lane `lane` of `group` unused (its bodies: `static_slot`).
void ClearPinLane(PinGroup* group, int32_t lane, int32_t static_slot);

/// Builds the pin with frame `frame` (a pin's frame from PrepareJoints this
/// step, which also zeroed its RevoluteJoint's spring, motor and limit
/// impulses) into lane `lane` of `group`; bodies outside the solve get
/// `static_slot`. Reads only the frame, so groups may be built
/// concurrently.
void PreparePin(const JointFrame& frame, int32_t static_slot, PinGroup* group, int32_t lane);

// The passes below read and write only the group and the solver slots of
// the bodies its pins move, so the groups of one colour may run
// concurrently.

/// Applies the accumulated impulses (warm start): WarmStartRevoluteJoint.
void WarmStartPins(PinGroup* group, SolverBody* bodies, PinGeometry geometry);

/// One Gauss-Seidel iteration of the group's pins: SolveRevoluteJoint with
/// `rigid` the joint context's softness, with (use_bias) or without
/// position correction.
void SolvePins(PinGroup* group, SolverBody* bodies, const Softness& rigid, bool use_bias,
               PinGeometry geometry);

/// Writes the impulse of lane `lane` back into its joint `joint`, for the
/// joint reaction and next step's warm start.
void StorePinImpulse(const PinGroup& group, int32_t lane, Joint* joint);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_PIN_GROUP_H_
