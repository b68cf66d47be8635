// Atoll — persistent simulation islands (seed 002).
//
// An island is a set of dynamic bodies connected by touching contacts and
// joints. Islands persist across steps: a new constraint merges its two
// bodies' islands at once (union-find), so waking propagates immediately; a
// removed constraint only flags its island, and at most one flagged island
// (the largest) is split per step. Whole islands sleep and wake together.
// Every edit happens in an order fixed by contact/joint/body indices.

#ifndef ATOLL_DYNAMICS_ISLAND_H_
#define ATOLL_DYNAMICS_ISLAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dynamics/body.h"

namespace atl {

struct WorldState;

struct Island {
  /// Union-find parent while merges are pending; kNullIndex for a root.
  int32_t parent = kNullIndex;
  int32_t head_body = kNullIndex, tail_body = kNullIndex;
  int32_t body_count = 0;
  int32_t head_contact = kNullIndex, tail_contact = kNullIndex;
  int32_t contact_count = 0;
  int32_t head_joint = kNullIndex, tail_joint = kNullIndex;
  int32_t joint_count = 0;
  /// Constraints removed since the island was built: it may have fallen
  /// apart and is a candidate for splitting.
  int32_t constraint_remove_count = 0;
  bool awake = true;
};

/// Makes a one-body island for dynamic body `body`.
void CreateIslandForBody(WorldState* world, int32_t body);
/// Removes `body` from its island (destroying the island when it empties).
void RemoveBodyFromIsland(WorldState* world, int32_t body);

/// Adds touching contact `contact` between two dynamic bodies to their
/// islands, merging them if they differ (and waking the result).
void LinkContact(WorldState* world, int32_t contact);
/// Removes `contact` from its island and flags the island for splitting.
void UnlinkContact(WorldState* world, int32_t contact);

/// Splits island `island` into its connected components.
void SplitIsland(WorldState* world, int32_t island);

/// Adds joint `joint` between two dynamic bodies to their islands, merging
/// them if they differ (and waking the result).
void LinkJoint(WorldState* world, int32_t joint);
/// Removes `joint` from its island (if it is in one) and flags the island
/// for splitting.
void UnlinkJoint(WorldState* world, int32_t joint);

/// Wakes island `island` and every body in it.
void WakeIsland(WorldState* world, int32_t island);
/// Puts island `island` to sleep: zero velocities, bodies flagged asleep.
void SleepIsland(WorldState* world, int32_t island);

/// True when `contact` is an island edge: touching, not a sensor, between
/// two dynamic bodies (static and kinematic bodies belong to no island, so
/// one ground can be shared by many islands).
bool IsIslandConstraint(const WorldState& world, int32_t contact);

/// Step stage 8. `restless[i]` is nonzero when a body of island i moved
/// faster than its sleep threshold within the last WorldDef::time_to_sleep
/// (the solver marks it while finalizing bodies, so no body is visited
/// here). Every awake resting island that is not flagged for splitting
/// sleeps; of the resting flagged ones, the largest (ties: lowest index) is
/// split, and its parts may sleep at the next step. Splitting waits until
/// an island rests because only sleeping needs the finer partition: an
/// awake island is solved the same whether split or not (seed 002).
void UpdateSleep(WorldState* world, const std::vector<uint8_t>& restless);

/// True when `joint` is an island edge: both bodies dynamic and enabled.
/// A joint to a static or kinematic body (or the world) links nothing.
bool IsIslandJoint(const WorldState& world, int32_t joint);

/// Checks the islands against a depth-first search of the constraint graph:
/// lists and counts agree with the records; every connected component lies
/// in one island; an island not flagged for splitting is exactly one
/// component; sleeping bodies have zero velocity. Returns "" when all hold,
/// else the first violation. For tests and debugging.
std::string ValidateIslands(const WorldState& world);

}  // namespace atl

#endif  // ATOLL_DYNAMICS_ISLAND_H_
