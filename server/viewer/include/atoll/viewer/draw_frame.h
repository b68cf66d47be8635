// atoll::viewer — a world's state as the JSON draw frame the web viewer
// paints (docs/viewer.md, "Draw frames").
//
// Layers come from World::Draw (engine colours: static green, kinematic
// blue, dynamic by island, sleeping ones greyed, sensors translucent), one
// Draw pass per layer so the page can switch contacts, joints and AABBs on
// and off without asking again; a per-body list carries what hovering shows.

#ifndef ATOLL_VIEWER_DRAW_FRAME_H_
#define ATOLL_VIEWER_DRAW_FRAME_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "atoll/sim/simulation.h"

namespace atl::viewer {

/// What a frame says besides the world's contents.
struct DrawFrameInfo {
  /// The world's id as the world list names it.
  std::string world_id;
  /// Steps per second of the world.
  uint32_t tick_rate_hz = 60;
  /// Wall-clock milliseconds of the step that produced this state, as
  /// measured where it was stepped (for a hosted world: on the viewer's
  /// replica, which makes the same engine calls as the tick thread).
  double step_ms = 0.0;
  /// False when the authority's hash for this tick differs from the one of
  /// the state drawn (a replica out of sync, a recording that diverges).
  bool hash_matches = true;
  /// The authority's hash when it differs (hash_matches false).
  uint64_t expected_hash = 0;
  /// A line for the page, e.g. "end of recording"; empty for none.
  std::string note;
};

struct DrawFrameOptions {
  /// Add the "aabbs" layer (the broad-phase boxes): costs a segment list of
  /// four per shape, so it is sent only when the page asks.
  bool aabbs = false;
  /// Primitives per layer at most; a larger world's frame says "truncated"
  /// and leaves the rest out, so one frame's size stays bounded.
  size_t max_primitives = 100000;
};

/// The JSON draw frame of `sim`'s current state:
///   {"world", "tick", "hash", "tick_rate", "step_ms", "hash_matches",
///    "note", "bounds": [x0, y0, x1, y1], "counters": {...},
///    "shapes": [...], "joints": [...], "contacts": [...], "aabbs": [...],
///    "bodies": [[index, generation, owner, type, awake, x, y, angle, vx,
///                vy, w, mass, x0, y0, x1, y1], ...], "truncated"}
/// Primitives are arrays led by a kind letter (docs/viewer.md). Never fails.
std::string DrawFrameJson(const sim::Simulation& sim, const DrawFrameInfo& info,
                          const DrawFrameOptions& options);

}  // namespace atl::viewer

#endif  // ATOLL_VIEWER_DRAW_FRAME_H_
