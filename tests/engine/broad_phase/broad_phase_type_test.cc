#include "atoll/broad_phase_type.h"

#include <gtest/gtest.h>

namespace atl {
namespace {

TEST(BroadPhaseTypeTest, NamesParseBackToTheSameType) {
  for (BroadPhaseType type :
       {BroadPhaseType::kBatchBvh, BroadPhaseType::kKdSap,
        BroadPhaseType::kDynamicTree, BroadPhaseType::kBruteForce}) {
    const absl::StatusOr<BroadPhaseType> parsed =
        ParseBroadPhaseType(BroadPhaseTypeName(type));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, type);
  }
  EXPECT_EQ(BroadPhaseTypeName(BroadPhaseType::kBatchBvh), "batch_bvh");
}

TEST(BroadPhaseTypeTest, UnknownNameIsInvalidArgumentListingChoices) {
  const absl::StatusOr<BroadPhaseType> parsed = ParseBroadPhaseType("octree");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("batch_bvh"), std::string::npos);
  EXPECT_FALSE(ParseBroadPhaseType("").ok());
  EXPECT_FALSE(ParseBroadPhaseType("BATCH_BVH").ok());
}

}  // namespace
}  // namespace atl
