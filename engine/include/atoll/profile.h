// Atoll — where the time of a step went.

#ifndef ATOLL_PROFILE_H_
#define ATOLL_PROFILE_H_

#include <cstdint>

namespace atl {

/// Wall-clock milliseconds per stage of the last step (measured with a
/// monotonic clock; never influences the simulation), and a few counts.
struct StepProfile {
  float total = 0.0f;
  /// Stage 3: pair finding.
  float broad_phase = 0.0f;
  /// Stage 4: contact matching, creation/removal and narrow phase.
  float contacts = 0.0f;
  /// Island management: links/unlinks from touching changes, the split,
  /// and the sleep check.
  float islands = 0.0f;
  /// Stage 6: the solver, including body finalization.
  float solve = 0.0f;
  /// Stage 7: continuous collision.
  float continuous = 0.0f;
  /// Proxy box updates for moved bodies.
  float update_bounds = 0.0f;
  /// Stage 7 counts: bodies found fast, of those the ones stopped at a
  /// time of impact, and the time-of-impact queries run (candidates whose
  /// path keeps clear of the other shape need none).
  int32_t continuous_bodies = 0;
  int32_t continuous_events = 0;
  int32_t continuous_toi_queries = 0;
  /// Stage 4: contacts whose manifold was moved with its bodies instead of
  /// recomputed, because they stayed close to the poses it was computed at
  /// (contact recycling).
  int32_t recycled_contacts = 0;
};

}  // namespace atl

#endif  // ATOLL_PROFILE_H_
