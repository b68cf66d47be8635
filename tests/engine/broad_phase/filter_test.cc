#include "atoll/filter.h"

#include <gtest/gtest.h>

namespace atl {
namespace {

TEST(FilterTest, DefaultFiltersCollide) {
  EXPECT_TRUE(ShouldCollide(Filter{}, Filter{}));
}

TEST(FilterTest, CategoryMustBeInTheOthersMaskBothWays) {
  Filter a;
  a.category_bits = 0x2;
  a.mask_bits = 0x4;
  Filter b;
  b.category_bits = 0x4;
  b.mask_bits = 0x2;
  EXPECT_TRUE(ShouldCollide(a, b));
  EXPECT_TRUE(ShouldCollide(b, a));
  b.mask_bits = 0x1;  // b no longer accepts a
  EXPECT_FALSE(ShouldCollide(a, b));
  EXPECT_FALSE(ShouldCollide(b, a));
  Filter none;
  none.mask_bits = 0;
  EXPECT_FALSE(ShouldCollide(none, Filter{}));
}

TEST(FilterTest, SamePositiveGroupAlwaysCollides) {
  Filter a;
  a.group_index = 3;
  a.mask_bits = 0;  // would reject everything by bits
  Filter b = a;
  EXPECT_TRUE(ShouldCollide(a, b));
}

TEST(FilterTest, SameNegativeGroupNeverCollides) {
  Filter a;
  a.group_index = -3;
  EXPECT_FALSE(ShouldCollide(a, a));
}

TEST(FilterTest, DifferentGroupsFallBackToBits) {
  Filter a;
  a.group_index = -1;
  Filter b;
  b.group_index = -2;
  EXPECT_TRUE(ShouldCollide(a, b));
  b.category_bits = 0x8;
  a.mask_bits = 0x1;
  EXPECT_FALSE(ShouldCollide(a, b));
  Filter zero;
  Filter positive;
  positive.group_index = 1;
  positive.mask_bits = 0;
  EXPECT_FALSE(ShouldCollide(zero, positive));
}

}  // namespace
}  // namespace atl
