// Atoll — broad-phase strategy selection.
//
// A world picks one broad-phase strategy when it is created. Every strategy
// reports exactly the same pairs in the same order, so the choice changes
// speed and memory, never a simulation result or its state hash.

#ifndef ATOLL_BROAD_PHASE_TYPE_H_
#define ATOLL_BROAD_PHASE_TYPE_H_

#include <string_view>

#include "absl/status/statusor.h"

namespace atl {

/// The broad-phase algorithms a world can use.
enum class BroadPhaseType {
  /// Default. A bounding-volume hierarchy rebuilt top-down every step with
  /// pair detection fused into the build; static proxies are kept in a
  /// second, persistent tree once they exceed 1/8 of all proxies.
  kBatchBvh,
  /// A KD-tree with objects in inner nodes and sweep-and-prune inside each
  /// node, updated incrementally; switches to incremental pair search when
  /// most objects are at rest. Best for coherent scenes.
  kKdSap,
  /// The classic incremental tree of enlarged ("fat") boxes, re-inserting a
  /// proxy only when it leaves its fat box. The baseline.
  kDynamicTree,
  /// Tests every pair of proxies. O(n^2); the reference the others are
  /// tested against.
  kBruteForce,
};

/// The lowercase name of `type`: "batch_bvh", "kd_sap", "dynamic_tree" or
/// "brute_force".
std::string_view BroadPhaseTypeName(BroadPhaseType type);

/// The strategy named `name` (as printed by BroadPhaseTypeName), or
/// InvalidArgumentError naming the accepted values.
absl::StatusOr<BroadPhaseType> ParseBroadPhaseType(std::string_view name);

}  // namespace atl

#endif  // ATOLL_BROAD_PHASE_TYPE_H_
