#include "atoll/broad_phase_type.h"

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace atl {

std::string_view BroadPhaseTypeName(BroadPhaseType type) {
  switch (type) {
    case BroadPhaseType::kBatchBvh:
      return "batch_bvh";
    case BroadPhaseType::kKdSap:
      return "kd_sap";
    case BroadPhaseType::kDynamicTree:
      return "dynamic_tree";
    case BroadPhaseType::kBruteForce:
      return "brute_force";
  }
  return "unknown";
}

absl::StatusOr<BroadPhaseType> ParseBroadPhaseType(std::string_view name) {
  for (BroadPhaseType type :
       {BroadPhaseType::kBatchBvh, BroadPhaseType::kKdSap,
        BroadPhaseType::kDynamicTree, BroadPhaseType::kBruteForce}) {
    if (name == BroadPhaseTypeName(type)) return type;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown broad-phase type '", std::string(name),
      "' (expected batch_bvh, kd_sap, dynamic_tree or brute_force)"));
}

}  // namespace atl
