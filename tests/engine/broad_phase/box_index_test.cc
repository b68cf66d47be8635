#include "broad_phase/box_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "scene_driver.h"

namespace atl {
namespace {

std::vector<int32_t> Sorted(std::vector<int32_t> ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<int32_t> BruteForce(const std::vector<BoxIndex::Record>& records, const AABB& box) {
  std::vector<int32_t> ids;
  for (const BoxIndex::Record& r : records) {
    if (Overlaps(r.box, box)) ids.push_back(r.id);
  }
  return Sorted(ids);
}

TEST(BoxIndexTest, AnEmptyIndexFindsNothing) {
  BoxIndex index;
  std::vector<int32_t> ids;
  index.Collect({{-1e9f, -1e9f}, {1e9f, 1e9f}}, &ids);
  EXPECT_TRUE(ids.empty());
  index.Build({});
  index.Collect({{-1e9f, -1e9f}, {1e9f, 1e9f}}, &ids);
  EXPECT_TRUE(ids.empty());
  EXPECT_EQ(index.size(), 0);
}

TEST(BoxIndexTest, FindsWhatABruteForceScanFinds) {
  // Sizes around the leaf size and well above it; boxes of mixed sizes (a
  // long floor among tiles), some sharing a center, some touching only at
  // an edge (which counts as overlap).
  test::Rng rng(11);
  for (int32_t count : {1, 3, 4, 5, 9, 100, 1000}) {
    std::vector<BoxIndex::Record> records;
    for (int32_t i = 0; i < count; ++i) {
      const Vec2 c{rng.Uniform(-50.0f, 50.0f), rng.Uniform(-50.0f, 50.0f)};
      const Vec2 h = i % 10 == 0 ? Vec2{rng.Uniform(0.0f, 40.0f), 0.5f}
                                 : Vec2{rng.Uniform(0.0f, 2.0f), rng.Uniform(0.0f, 2.0f)};
      records.push_back({{c - h, c + h}, 3 * i + 1});
      if (i % 7 == 0) records.push_back({{c - 0.5f * h, c + 0.5f * h}, 3 * i + 2});
    }
    BoxIndex index;
    index.Build(records);
    EXPECT_EQ(index.size(), static_cast<int32_t>(records.size()));
    for (int32_t q = 0; q < 200; ++q) {
      const Vec2 c{rng.Uniform(-60.0f, 60.0f), rng.Uniform(-60.0f, 60.0f)};
      const Vec2 h{rng.Uniform(0.0f, 15.0f), rng.Uniform(0.0f, 15.0f)};
      AABB box{c - h, c + h};
      if (q % 10 == 0) {
        // Touching a record's right edge exactly.
        const AABB& r = records[static_cast<size_t>(q) % records.size()].box;
        box = {{r.upper.x, r.lower.y}, {r.upper.x + 1.0f, r.upper.y}};
      }
      std::vector<int32_t> ids = {-7};  // Collect appends
      index.Collect(box, &ids);
      ASSERT_EQ(ids.front(), -7);
      ids.erase(ids.begin());
      ASSERT_EQ(Sorted(ids), BruteForce(records, box)) << "count " << count << " query " << q;
    }
  }
}

TEST(BoxIndexTest, ARebuildForgetsTheOldRecords) {
  BoxIndex index;
  index.Build({{{{0.0f, 0.0f}, {1.0f, 1.0f}}, 5}});
  index.Build({{{{10.0f, 0.0f}, {11.0f, 1.0f}}, 6}});
  std::vector<int32_t> ids;
  index.Collect({{-1.0f, -1.0f}, {2.0f, 2.0f}}, &ids);
  EXPECT_TRUE(ids.empty());
  index.Collect({{9.0f, -1.0f}, {12.0f, 2.0f}}, &ids);
  EXPECT_EQ(ids, std::vector<int32_t>{6});
}

}  // namespace
}  // namespace atl
