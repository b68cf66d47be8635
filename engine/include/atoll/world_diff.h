// Atoll — what differs between two worlds, body by body.

#ifndef ATOLL_WORLD_DIFF_H_
#define ATOLL_WORLD_DIFF_H_

#include <string>
#include <vector>

#include "atoll/world.h"

namespace atl {

/// One body whose state differs between two worlds.
struct BodyDiff {
  /// The body's index (ids of the two worlds may differ in world number).
  uint32_t index = 0;
  /// "missing in a", "missing in b", or the fields that differ.
  std::string what;
  BodyInfo a;
  BodyInfo b;
};

/// Every body (by index) whose type, pose, velocity or awake flag differs
/// bit for bit between `a` and `b`, in index order; at most `limit`.
std::vector<BodyDiff> DiffWorlds(const World& a, const World& b, size_t limit = 16);

/// One line per diff: "body 12: position (1.5, 2) vs (1.5, 2.0001); ...".
std::string FormatDiffs(const std::vector<BodyDiff>& diffs);

}  // namespace atl

#endif  // ATOLL_WORLD_DIFF_H_
