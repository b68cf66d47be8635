// Atoll — world-wide settings.

#ifndef ATOLL_WORLD_DEF_H_
#define ATOLL_WORLD_DEF_H_

#include <cstdint>

#include "absl/status/status.h"
#include "atoll/broad_phase_type.h"
#include "atoll/math.h"

namespace atl {

/// Settings of a world, fixed at creation. Defaults suit game-sized objects
/// (0.1 m to 10 m) stepped at 60 Hz.
struct WorldDef {
  /// Gravity, m/s². Finite.
  Vec2 gravity = {0.0f, -10.0f};
  /// Solver substeps per step (soft step): more is stiffer and costs more.
  /// Piles that wedge light bodies between heavy ones (mass ratios of 5 and
  /// more) can rock in a slow cycle at 4 and never fall asleep: the light
  /// body's contacts are as soft as its small mass, so the load sinks them.
  /// 8 lets such heaps settle (the built-in falling_squares, boxes of 0.04
  /// to 1 kg). 1..64.
  int32_t substep_count = 4;
  /// Broad-phase strategy. Every strategy yields the same pairs in the same
  /// order, so this never changes results, only speed.
  BroadPhaseType broad_phase = BroadPhaseType::kBatchBvh;
  /// Contact stiffness, Hz (capped at a quarter of the substep rate). > 0.
  /// Stiff by default: a contact's spring is scaled to the two bodies'
  /// effective mass, so at 30 Hz a column of 15 unit boxes sinks ~1 cm per
  /// joint and slowly buckles; 60 Hz (the cap at 4 substeps of 1/60 s)
  /// keeps it standing.
  float contact_hertz = 60.0f;
  /// Contact damping ratio (1 = critical; larger is softer bounce). >= 0.
  float contact_damping_ratio = 10.0f;
  /// Stiffness of the rigid parts of joints, Hz (capped, like contacts, at
  /// a quarter of the substep rate), and their damping ratio. A rigid joint
  /// under a load F yields about F / (m_eff (2 pi hertz)^2), m_eff the
  /// joint's effective mass: a 1 kg body hanging from a pin sags 0.07 mm at
  /// 60 Hz, but a long welded beam carries the weight of many bodies on
  /// each joint and visibly bends; give such structures more substeps.
  /// > 0 and >= 0.
  float joint_hertz = 60.0f;
  float joint_damping_ratio = 5.0f;
  /// Largest speed at which overlap is pushed apart, m/s, per body. Bodies
  /// created, teleported or pushed into each other are moved apart at most
  /// this fast without being given the velocity (a pile spreads with no
  /// energy gained); overlap an impact or a load drove in is pushed out by
  /// velocity, as in Box2D v3, each body's push shared among its deep
  /// contacts so it leaves a heap no faster than this however many it
  /// overlaps (a static body it overlaps pushes at the full speed). > 0.
  float contact_push_max_velocity = 3.0f;
  /// Approach speed below which restitution is ignored, m/s. >= 0.
  float restitution_threshold = 1.0f;
  /// Approach speed above which a hit event is reported, m/s. >= 0.
  float hit_event_threshold = 1.0f;
  /// Seconds a whole island must rest before it sleeps. > 0.
  float time_to_sleep = 0.5f;
  /// Bodies are clamped to this speed, m/s. > 0.
  float maximum_linear_speed = 400.0f;
  /// Let resting islands sleep.
  bool enable_sleep = true;
  /// Continuous collision: a dynamic body that moved further in a step than
  /// about half its thickness is swept against static shapes (bullets also
  /// against non-bullet dynamic and kinematic bodies) and stopped at the
  /// first time of impact, so it cannot tunnel. Slow bodies are untouched.
  bool enable_continuous = true;
  /// Which world this is, stamped into every id it hands out so ids from
  /// another world are rejected.
  uint16_t world_id = 1;
};

/// Checks every field; returns InvalidArgument naming the first bad field.
absl::Status ValidateWorldDef(const WorldDef& def);

}  // namespace atl

#endif  // ATOLL_WORLD_DEF_H_
