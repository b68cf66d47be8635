// Atoll — step stage 6: the soft-step solve of every awake body.

#ifndef ATOLL_DYNAMICS_SOLVER_H_
#define ATOLL_DYNAMICS_SOLVER_H_

#include <vector>

#include "dynamics/constraint_colours.h"
#include "dynamics/contact_solver.h"
#include "dynamics/joints/pin_group.h"
#include "dynamics/solver_body.h"
#include "parallel/stage_runner.h"

namespace atl {

struct WorldState;

/// Scratch arrays of one solve, kept between steps to reuse their memory.
struct SolverScratch {
  /// Body index of each solver slot, ascending.
  std::vector<int32_t> awake_bodies;
  std::vector<SolverBody> bodies;
  std::vector<SolverBodyParams> params;
  /// Per solver slot: the body's center at step start. Per body index
  /// (capacity): its solver slot, -1 outside the solve (Body::solver_index
  /// in a few bytes a body, for passes that reach bodies in no order).
  std::vector<Vec2> centers;
  std::vector<int32_t> slot_of_body;
  /// GatherBodies' first slot of each block of moving bodies, then the count.
  std::vector<int32_t> gather_starts;
  /// Contact constraints four to a group, the groups laid out by colour:
  /// colour c's are [contact_group_starts[c], contact_group_starts[c + 1]),
  /// the overflow's (one constraint per group) last.
  std::vector<ContactGroup> contact_groups;
  ConstraintColours::Starts contact_group_starts{};
  /// Per position in contact_colours.order(): its group * 4 + lane; and per
  /// group lane, the position it holds (-1: unused lane).
  std::vector<int32_t> contact_slot_of_position;
  std::vector<int32_t> contact_position_of_slot;
  /// PackOverflow's colouring of the contact overflow: per body slot its
  /// colours' bits, per overflow constraint its colour, per colour its size.
  std::vector<uint64_t> overflow_bits;
  std::vector<int32_t> overflow_colour;
  std::vector<int32_t> overflow_sizes;
  /// The first group of each of those colours that has constraints, then
  /// the overflow's end: each range's groups share no body they move.
  std::vector<int32_t> overflow_group_starts;
  /// Per island: a body moved faster than its sleep threshold within the
  /// last time_to_sleep (see UpdateSleep). Filled by the finalize pass.
  std::vector<uint8_t> restless_islands;
  /// Joints solved this step, in index order, and their frames
  /// (joint_frames[k] of joints[k]).
  std::vector<int32_t> joints;
  std::vector<JointFrame> joint_frames;
  /// What each joint pass walks, colour by colour: colour c's items are
  /// [joint_item_starts[c], joint_item_starts[c + 1]), its pin groups
  /// first (item >= 0: an index into pin_groups), then its other joints
  /// (item < 0: joints[~item]); the overflow's are all joints, in order.
  std::vector<int32_t> joint_items;
  ConstraintColours::Starts joint_item_starts{};
  /// Pins (pin_group.h) four to a group; per group lane, the position in
  /// `joints` of the pin it holds (-1: unused lane); and per position in
  /// `joints`, its group * 4 + lane (-1: not in a group).
  std::vector<PinGroup> pin_groups;
  std::vector<int32_t> pin_position_of_slot;
  std::vector<int32_t> pin_slot_of_position;
  /// The contacts solved this step, in index order; `contacts` holds their
  /// constraints in contact_colours.order().
  std::vector<int32_t> touching_contacts;
  /// Per touching contact, its bodies' solver slots (a, b; -1 outside
  /// the solve).
  std::vector<int32_t> touching_slots;
  /// Positions in touching_contacts of the contacts that report hits.
  std::vector<int32_t> hit_contacts;
  /// CollectSolverContacts' blocks.
  std::vector<CollectedContacts> collected;
  /// Per solver slot: how many of touching_contacts share its velocity
  /// push (CollectSolverContacts, contact_solver.h).
  std::vector<int32_t> deep_contacts;
  /// Per solver slot (and the static slot): the push velocity of the
  /// substep's push-out pass (PushContacts), zero outside it.
  std::vector<Vec2> push_velocities;
  /// Per solver slot: how far the step's push-out moved the body (empty in
  /// a step without push-out).
  std::vector<Vec2> push_travel;
  /// Per solver slot, whether the body has a push-out contact; in a step
  /// with push-out, the contact groups with a contact of such a body,
  /// colour by colour (colour c's are [push_group_starts[c],
  /// push_group_starts[c + 1]) of push_groups); the overflow's as ~slot,
  /// one lane each, in the colouring's order (ListPushGroups).
  std::vector<uint8_t> push_bodies;
  std::vector<int32_t> push_groups;
  ConstraintColours::Starts push_group_starts{};
  /// Likewise the items with a contact between a body the first sweep can
  /// push and one that cannot move (the push's second sweep), and per
  /// solver slot whether the first sweep can push the body.
  std::vector<int32_t> push_fixed;
  ConstraintColours::Starts push_fixed_starts{};
  std::vector<uint8_t> push_reached;
  /// This step's colouring of `joints` and of `touching_contacts` (by
  /// position in those arrays).
  ConstraintColours joint_colours;
  ConstraintColours contact_colours;
  /// Per joint of the last colouring: the solver slots of the bodies it
  /// moves and whether it is a pin (three ints), to tell when the joint
  /// colouring and layout can be kept.
  std::vector<int32_t> joint_layout_key;
  /// Per touching contact of the last colouring: the solver slots of the
  /// bodies it moves (two ints), to tell when the contact colouring and
  /// layout can be kept.
  std::vector<int32_t> contact_layout_key;
  /// The step's chain of parallel stages.
  StageRunner stages;
};

/// Integrates and solves every awake non-static body for `time_step`:
/// per substep integrate velocities, warm start, solve with bias, integrate
/// positions, push deep overlap out (in steps that start with some,
/// contact_solver.h), relax (joints before contacts in each pass, each colour by
/// colour, see constraint_colours.h); then restitution, impulses stored for
/// warm starting, and the bodies' poses, velocities and sleep timers written
/// back. Also fills the step's hit events. Parallel parts run on the world's
/// executor; the result does not depend on it.
void Solve(WorldState* world, float time_step, SolverScratch* scratch);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_SOLVER_H_
