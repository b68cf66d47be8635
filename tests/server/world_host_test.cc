// WorldHost's report of itself (WorldInfo): the lateness histogram counts
// every tick start in its 50 µs bucket and leaves out trailing empty
// buckets. Driven tick by tick with chosen lateness, no scheduler.

#include "world_host.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "small_world_host.h"

namespace atl::server {
namespace {

std::vector<uint64_t> Histogram(const WorldHost& host) {
  const v1::WorldInfo info = host.Info();
  return {info.lateness_histogram_us50().begin(), info.lateness_histogram_us50().end()};
}

TEST(WorldHostTest, TheLatenessHistogramEndsAtItsLastCountedBucket) {
  std::shared_ptr<WorldHost> host = SmallWorldHost("w");
  EXPECT_TRUE(Histogram(*host).empty());

  host->Tick(absl::ZeroDuration());
  host->Tick(absl::Microseconds(49));
  EXPECT_EQ(Histogram(*host), (std::vector<uint64_t>{2}));

  // 120 µs is bucket 2 ([100, 150) µs); bucket 1 stays, as a zero.
  host->Tick(absl::Microseconds(120));
  EXPECT_EQ(Histogram(*host), (std::vector<uint64_t>{2, 0, 1}));

  // 12 ms is past the last 50 µs bucket: the 201st counts it.
  host->Tick(absl::Milliseconds(12));
  const std::vector<uint64_t> full = Histogram(*host);
  ASSERT_EQ(full.size(), static_cast<size_t>(kLatenessBuckets));
  EXPECT_EQ(full[0], 2u);
  EXPECT_EQ(full[2], 1u);
  EXPECT_EQ(full[kLatenessBuckets - 1], 1u);
  uint64_t total = 0;
  for (uint64_t c : full) total += c;
  EXPECT_EQ(total, 4u);
  EXPECT_EQ(host->Info().max_lateness_us(), 12000u);
  EXPECT_EQ(host->tick(), 4u);
}

}  // namespace
}  // namespace atl::server
